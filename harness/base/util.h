/* Small helpers shared by the harness: a monotonic clock, checked allocation,
 * string formatting and file helpers. */
#ifndef KTB_UTIL_H
#define KTB_UTIL_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

int64_t now_ms(void); /* CLOCK_MONOTONIC in milliseconds */
/* The name ktb's messages start with: "ktb NAME: " once a subcommand
 * set it (the cli layer does, through cli_name_set), "ktb: " before.
 * msg_name_set keeps the pointer (a string literal or argv). */
void msg_name_set(const char *name);
const char *msg_name(void); /* "" before one is set */
/* One message on stderr: the prefix above, fmt, a newline. */
void msg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_verr(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
char *xstrdup(const char *s); /* aborts on ENOMEM; NULL stays NULL */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print fmt into buf (len bytes, truncated) and return ret: one line for a
 * function that explains a failure in its caller's buffer, "return
 * say_err(why, whylen, -ENOENT, "no %s", what);". */
int say_err(char *buf, size_t len, int ret, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* p (with *cap bytes, 0 for none yet) grown to hold at least need bytes:
 * first to first_cap, then by doubling; *cap updated. Aborts on ENOMEM. */
void *xgrow(void *p, size_t *cap, size_t need, size_t first_cap);
int write_file(const char *path, const char *data, size_t len); /* 0 or -errno */
char *read_file(const char *path, size_t *len);			/* NULL + errno */
int mkdir_p(const char *path, unsigned mode);			/* 0 or -errno */
/* j as DIR/NAME's whole content, replaced at once (a temporary file, then
 * rename: a reader sees the old document or the new); DIR is made first.
 * 0 or -errno. */
int json_save(const char *dir, const char *path, json_t *j);
/* A host probe's verdict document j (the key and the verdict already in
 * it) completed with why, the probe's time and when it ran, then saved as
 * json_save does: the KVM and virtiofsd caches. 0 or -errno. */
int probe_verdict_save(const char *dir, const char *path, json_t *j, const char *why,
		       int64_t probe_ms);
int rm_rf(const char *path); /* 0 or -errno */
/* A connected stream socket to the unix socket at path, close-on-exec; -errno. */
int unix_connect(const char *path);
/* "$TMPDIR/PREFIX-XXXXXX" (TMPDIR defaults to /tmp), for mkdtemp. Caller frees. */
char *tmp_template(const char *prefix);
/* The longest duration a scenario may give (docs/scenarios.md, Limits). */
#define DURATION_MAX_MS (24ll * 3600 * 1000)
/* "120s", "500ms", "2m", "1h", bare number = seconds. 0, -EINVAL, or -ERANGE
 * over DURATION_MAX_MS. */
int parse_duration_ms(const char *s, int64_t *out);
/* Trailing trimming, the one way the harness drops what a program or a file
 * ends with: the length of s[0..n) once every trailing byte found in set
 * (" \n", "\r\n", ...) is dropped. A NUL byte is never trimmed. */
size_t str_trim_len(const char *s, size_t n, const char *set);
/* The same on a string, in place: the trailing bytes in set become NULs.
 * Returns s. */
char *str_trim(char *s, const char *set);

#endif
