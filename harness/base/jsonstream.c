#include "jsonstream.h"

#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define JSONSTREAM_READ_CHUNK 65536
/* Reads per callback: drain bursts (guest-exec output) without starving
 * the other fds of the loop. */
#define JSONSTREAM_READS_PER_CALL 16
/* A buffer grown for one huge reply is given back afterwards. */
#define JSONSTREAM_KEEP_CAP (1u << 20)

void jsonstream_init(struct jsonstream *js, bool reset_on_ff)
{
	memset(js, 0, sizeof(*js));
	js->reset_on_ff = reset_on_ff;
}

void jsonstream_release(struct jsonstream *js)
{
	free(js->buf);
	jsonstream_init(js, js->reset_on_ff);
}

void jsonstream_reset(struct jsonstream *js)
{
	js->len = 0;
	js->overflow = false;
}

static void jsonstream_append(struct jsonstream *js, const char *p, size_t n)
{
	if (js->overflow || !n)
		return;
	if (js->len + n > JSONSTREAM_MAX_LINE) {
		js->overflow = true;
		js->len = 0;
		return;
	}
	js->buf = xgrow(js->buf, &js->cap, js->len + n + 1, 4096);
	memcpy(js->buf + js->len, p, n);
	js->len += n;
}

static void jsonstream_emit(struct jsonstream *js, jsonstream_line_fn fn, void *ctx)
{
	if (js->overflow) {
		js->overflow = false;
		fn(ctx, NULL, 0);
		return;
	}
	jsonstream_append(js, "", 1); /* room for the NUL */
	js->buf[--js->len] = '\0';
	fn(ctx, js->buf, js->len);
	js->len = 0;
	if (js->cap > JSONSTREAM_KEEP_CAP) {
		free(js->buf);
		js->buf = NULL;
		js->cap = 0;
	}
}

/* The next byte that ends a line or (guest agent) resets the parser. */
static const char *jsonstream_special(const struct jsonstream *js, const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *stop = nl ? nl : end;

	if (js->reset_on_ff) {
		const char *ff = memchr(p, 0xff, (size_t)(stop - p));

		if (ff)
			return ff;
	}
	return nl;
}

void jsonstream_feed(struct jsonstream *js, const char *data, size_t n, jsonstream_line_fn fn,
		     void *ctx)
{
	const char *p = data, *end = data + n;

	while (p < end) {
		const char *s = jsonstream_special(js, p, end);

		jsonstream_append(js, p, (size_t)((s ? s : end) - p));
		if (!s)
			break;
		if (*s == '\n')
			jsonstream_emit(js, fn, ctx);
		else
			jsonstream_reset(js);
		p = s + 1;
	}
}

int jsonstream_read(struct jsonstream *js, int fd, jsonstream_line_fn fn, void *ctx)
{
	char *buf = xcalloc(1, JSONSTREAM_READ_CHUNK);
	int ret = 0;

	for (int i = 0; i < JSONSTREAM_READS_PER_CALL; i++) {
		ssize_t n = read(fd, buf, JSONSTREAM_READ_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				ret = errno == ECONNRESET ? -EPIPE : -errno;
			break;
		}
		if (n == 0) {
			ret = -EPIPE;
			break;
		}
		jsonstream_feed(js, buf, (size_t)n, fn, ctx);
	}
	free(buf);
	return ret;
}

static ssize_t jsonstream_write_some(int fd, const void *buf, size_t len)
{
	/* MSG_NOSIGNAL: a vanished peer is an -EPIPE, not a dead harness. */
	ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

	if (n < 0 && errno == ENOTSOCK)
		n = write(fd, buf, len);
	return n;
}

static int jsonstream_wait_writable(int fd, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int64_t left = deadline - now_ms();

	if (left <= 0)
		return -ETIMEDOUT;
	if (poll(&p, 1, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

int jsonstream_write(int fd, const void *buf, size_t len, int64_t timeout_ms)
{
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	const char *p = buf;
	int ret;

	while (len) {
		ssize_t n = jsonstream_write_some(fd, p, len);

		if (n >= 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (errno == EPIPE || errno == ECONNRESET)
			return -EPIPE;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		ret = jsonstream_wait_writable(fd, deadline);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int jsonstream_send(int fd, const char *prefix, const json_t *msg, int64_t timeout_ms)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	char *line;
	int ret;

	if (!text)
		return -ENOMEM;
	line = xasprintf("%s%s\n", prefix ? prefix : "", text);
	ret = jsonstream_write(fd, line, strlen(line), timeout_ms);
	free(line);
	free(text);
	return ret;
}

/* Garbage may be any bytes (stale agent output): keep its first KiB as ASCII
 * so the transcript stays valid JSON. */
static json_t *jsonstream_printable(const char *raw)
{
	size_t n = str_trim_len(raw, strnlen(raw, 1024), "\r ");
	char *s;
	json_t *v;

	s = xcalloc(1, n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)raw[i];

		s[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	v = json_string(s);
	free(s);
	return v;
}

void jsonstream_log(FILE *log, int64_t t_ms, const char *dir, const json_t *msg, const char *raw,
		    const char *note)
{
	json_t *o;

	if (!log)
		return;
	o = json_pack("{s:I, s:s}", "t_ms", (json_int_t)t_ms, "dir", dir);
	if (!o)
		return;
	if (msg)
		json_object_set(o, "msg", (json_t *)msg);
	if (raw)
		json_object_set_new(o, "raw", jsonstream_printable(raw));
	if (note)
		json_object_set_new(o, "note", json_string(note));
	json_dumpf(o, log, JSON_COMPACT);
	fputc('\n', log);
	fflush(log);
	json_decref(o);
}

static bool jsonstream_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* More than JSONSTREAM_MAX_VALUES values: '[', '{' and ',' outside
 * strings, one each but for the first value, bound their number. */
static bool jsonstream_too_many(const char *line, size_t len)
{
	size_t values = 1;
	bool in_str = false;

	for (size_t i = 0; i < len && values <= JSONSTREAM_MAX_VALUES; i++) {
		if (in_str && line[i] == '\\')
			i++;
		else if (line[i] == '"')
			in_str = !in_str;
		else if (!in_str)
			values += line[i] == '[' || line[i] == '{' || line[i] == ',';
	}
	return values > JSONSTREAM_MAX_VALUES;
}

json_t *jsonstream_parse(const char *line, size_t len, bool *empty)
{
	json_error_t err;
	json_t *v;

	while (len && jsonstream_blank(line[len - 1]))
		len--;
	*empty = true;
	for (size_t i = 0; i < len; i++)
		if (!jsonstream_blank(line[i]))
			*empty = false;
	if (*empty || jsonstream_too_many(line, len))
		return NULL;
	v = json_loadb(line, len, 0, &err);
	if (v && !json_is_object(v)) {
		json_decref(v);
		v = NULL;
	}
	return v;
}
