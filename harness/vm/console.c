#include "console.h"

#include "kreport.h"
#include "util.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* Everything seen is kept for console_seen(); past this, the older half is
 * given up (a marker is looked for in recent output, not boot output). */
#define CONSOLE_MAX_TEXT (64u << 20)
/* A longer run without a line break is cut into lines of this size. */
#define CONSOLE_MAX_LINE 65536
/* console_report_cut reads this much of the newest output: a report holds
 * at most KREPORT_MAX_TEXT, so the start of one still open lies inside. */
#define CONSOLE_CUT_WINDOW (4u * KREPORT_MAX_TEXT)

struct console {
	FILE *log;
	char *text; /* everything seen (its newest CONSOLE_MAX_TEXT bytes) */
	size_t len, cap;
	size_t seen_from;	/* console_seen() looks from here */
	unsigned long long fed; /* bytes fed, all of them */
	char *line;		/* the line being received */
	size_t line_len;
	bool skip_lf; /* the last line ended on "\r": a "\n" now ends nothing */
	char **tail;  /* ring of the last tail_max lines */
	size_t tail_max, tail_n, tail_next;
	char *fatal;
	const char *fatal_kind;
	regex_t re;
	bool watching, matched;
};

/* The first line of a kernel report, by kreport's rules, ends a run at
 * once; an OOM kill does not: the guest goes on, and the findings judge it
 * afterwards (findings_judge.c). */
const char *console_classify(const char *line)
{
	const char *kind = kreport_line_kind(line);

	return kind && strcmp(kind, "oom kill") ? kind : NULL;
}

struct console *console_new(FILE *log, size_t tail_lines)
{
	struct console *c = xcalloc(1, sizeof(*c));

	c->log = log;
	c->tail_max = tail_lines;
	c->tail = xcalloc(tail_lines ? tail_lines : 1, sizeof(*c->tail));
	c->line = xcalloc(1, CONSOLE_MAX_LINE + 1);
	return c;
}

void console_free(struct console *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->tail_max; i++)
		free(c->tail[i]);
	free(c->tail);
	free(c->line);
	free(c->text);
	free(c->fatal);
	if (c->watching)
		regfree(&c->re);
	free(c);
}

/* Keep the raw bytes for console_seen(); past the cap, keep the newer half. */
static void console_store(struct console *c, const char *buf, size_t n)
{
	if (!n)
		return;
	if (n > CONSOLE_MAX_TEXT / 2) {
		buf += n - CONSOLE_MAX_TEXT / 2;
		n = CONSOLE_MAX_TEXT / 2;
	}
	if (c->len + n > CONSOLE_MAX_TEXT) {
		size_t drop = c->len - CONSOLE_MAX_TEXT / 2;

		memmove(c->text, c->text + drop, c->len - drop);
		c->len -= drop;
		c->seen_from = c->seen_from > drop ? c->seen_from - drop : 0;
	}
	c->text = xgrow(c->text, &c->cap, c->len + n, 65536);
	memcpy(c->text + c->len, buf, n);
	c->len += n;
}

static void console_tail_push(struct console *c, const char *line)
{
	if (!c->tail_max)
		return;
	free(c->tail[c->tail_next]);
	c->tail[c->tail_next] = xstrdup(line);
	c->tail_next = (c->tail_next + 1) % c->tail_max;
	if (c->tail_n < c->tail_max)
		c->tail_n++;
}

static void console_line_end(struct console *c)
{
	const char *kind;

	c->line[c->line_len] = '\0';
	c->line_len = 0;
	kind = console_classify(c->line);
	if (kind && !c->fatal) {
		c->fatal = xstrdup(c->line);
		c->fatal_kind = kind;
	}
	if (c->watching && regexec(&c->re, c->line, 0, NULL, 0) == 0)
		c->matched = true;
	console_tail_push(c, c->line);
}

/* "\n", "\r\n" and a lone "\r" end a line; the "\r" of "\r\r\n" (serial
 * drivers add one) ends nothing more. */
static void console_split(struct console *c, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = buf[i];
		bool skip = c->skip_lf;

		c->skip_lf = false;
		if (ch == '\n' && skip)
			continue;
		if (ch == '\r' || ch == '\n') {
			if (ch == '\n' || c->line_len)
				console_line_end(c);
			c->skip_lf = ch == '\r';
			continue;
		}
		if (c->line_len == CONSOLE_MAX_LINE)
			console_line_end(c);
		c->line[c->line_len++] = ch;
	}
}

int console_feed(struct console *c, const char *buf, size_t len)
{
	bool had_fatal = c->fatal != NULL;

	if (c->log && len) {
		fwrite(buf, 1, len, c->log);
		fflush(c->log); /* console.log must be complete if ktb dies next */
	}
	c->fed += len;
	console_store(c, buf, len);
	console_split(c, buf, len);
	return !had_fatal && c->fatal;
}

void console_flush(struct console *c)
{
	if (c->line_len)
		console_line_end(c);
	c->skip_lf = false;
}

const char *console_fatal(const struct console *c)
{
	return c->fatal;
}

const char *console_fatal_kind(const struct console *c)
{
	return c->fatal_kind;
}

bool console_seen(const struct console *c, const char *needle)
{
	if (!*needle)
		return true;
	if (c->seen_from == c->len)
		return false;
	return memmem(c->text + c->seen_from, c->len - c->seen_from, needle, strlen(needle));
}

bool console_report_cut(const struct console *c)
{
	size_t from = c->len > CONSOLE_CUT_WINDOW ? c->len - CONSOLE_CUT_WINDOW : 0;

	return c->len && kreport_cut(c->text + from, c->len - from);
}

unsigned long long console_bytes(const struct console *c)
{
	return c->fed;
}

void console_reset_match(struct console *c)
{
	c->seen_from = c->len;
	c->matched = false;
}

int console_watch(struct console *c, const char *regex)
{
	regex_t re;

	if (regcomp(&re, regex, REG_EXTENDED | REG_NOSUB) != 0)
		return -EINVAL;
	if (c->watching)
		regfree(&c->re);
	c->re = re;
	c->watching = true;
	c->matched = false;
	return 0;
}

bool console_matched(const struct console *c)
{
	return c->matched;
}

char *console_tail(const struct console *c, size_t max_lines)
{
	size_t n = max_lines < c->tail_n ? max_lines : c->tail_n;
	size_t start = (c->tail_next + c->tail_max - n) % (c->tail_max ? c->tail_max : 1);
	size_t size = c->line_len + 2;
	char *out, *p;

	for (size_t i = 0; i < n; i++)
		size += strlen(c->tail[(start + i) % c->tail_max]) + 1;
	out = p = xcalloc(1, size);
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s\n", c->tail[(start + i) % c->tail_max]);
	/* The unfinished last line is often the most telling one. */
	if (c->line_len) {
		memcpy(p, c->line, c->line_len);
		p[c->line_len] = '\n';
	}
	return out;
}
