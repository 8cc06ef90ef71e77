/* Transport shared by the JSON protocols (QMP, guest agent): a socket's bytes
 * cut into complete lines whatever the read sizes, bounded writes, and the
 * JSON-lines transcript ({"t_ms","dir","msg"}) both clients keep. */
#ifndef KTB_JSONSTREAM_H
#define KTB_JSONSTREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A line longer than this is dropped and reported as a NULL line. */
#define JSONSTREAM_MAX_LINE (64u << 20)
/* A line with more JSON values than this is garbage, not parsed: the
 * largest messages QEMU and the agent send (query-qmp-schema, a
 * guest-exec-status) hold some tens of thousands, and jansson spends some
 * 40 bytes on each, so a hostile guest's 64 MiB line of "0," would take
 * 1.3 GB (32 MiB with the cap). */
#define JSONSTREAM_MAX_VALUES (1u << 20)

/* One complete line without its "\n" (a trailing "\r" is kept), NUL
 * terminated; line is NULL (len 0) for an over-long line that was dropped. */
typedef void (*jsonstream_line_fn)(void *ctx, char *line, size_t len);

struct jsonstream {
	char *buf;
	size_t len, cap;
	bool reset_on_ff; /* guest agent: 0xFF discards the partial line */
	bool overflow;	  /* dropping an over-long line up to its "\n" */
};

void jsonstream_init(struct jsonstream *js, bool reset_on_ff);
void jsonstream_release(struct jsonstream *js);
void jsonstream_reset(struct jsonstream *js);
void jsonstream_feed(struct jsonstream *js, const char *data, size_t n, jsonstream_line_fn fn,
		     void *ctx);

/* Read what fd has (it is non-blocking) and feed it. 0 when drained, -EPIPE
 * when the peer hung up, else -errno. */
int jsonstream_read(struct jsonstream *js, int fd, jsonstream_line_fn fn, void *ctx);

/* Write all of buf, waiting for room at most timeout_ms (real time).
 * 0, -ETIMEDOUT, -EPIPE. */
int jsonstream_write(int fd, const void *buf, size_t len, int64_t timeout_ms);
/* msg as one compact line, optionally preceded by prefix bytes. */
int jsonstream_send(int fd, const char *prefix, const json_t *msg, int64_t timeout_ms);

/* Append {"t_ms":t,"dir":dir,"msg":msg} to log (NULL: nothing). A line that
 * was not JSON goes as "raw" instead of "msg"; note says what was done with
 * a message that was dropped. */
void jsonstream_log(FILE *log, int64_t t_ms, const char *dir, const json_t *msg, const char *raw,
		    const char *note);

/* Parse one line as a JSON object. NULL for anything else (garbage, or
 * more than JSONSTREAM_MAX_VALUES values). *empty is set for a blank line,
 * which callers ignore. */
json_t *jsonstream_parse(const char *line, size_t len, bool *empty);

#endif
