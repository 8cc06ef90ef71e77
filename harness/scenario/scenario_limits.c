#include "scenario_limits.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "util.h"

#define FIELD_KEY_SHOWN 40 /* how much of a key a field path quotes */

static int set_err(struct scenario_error *err, int line, int col, const char *field,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int set_err(struct scenario_error *err, int line, int col, const char *field,
		   const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	err->col = col;
	snprintf(err->field, sizeof(err->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void locate_field(const char *data, size_t off, struct scenario_error *err);

/* ---- the file ---- */

/* Line and column (1-based, columns in bytes) of offset off. */
static void line_of(const char *data, size_t off, int *line, int *col)
{
	const char *nl;
	size_t start = 0;

	*line = 1;
	for (const char *p = data; (nl = memchr(p, '\n', off - (size_t)(p - data))); p = nl + 1) {
		(*line)++;
		start = (size_t)(nl + 1 - data);
	}
	*col = (int)(off - start) + 1;
}

int limits_read_file(const char *path, char **data, size_t *len, struct scenario_error *err)
{
	size_t cap = SCENARIO_MAX_BYTES + 2, n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0, line, col;
	char *buf;
	ssize_t got;

	*data = NULL;
	if (fd < 0)
		return -errno;
	buf = xcalloc(1, cap);
	/* one byte past the limit tells "too large" from "exactly at it" */
	while (n <= SCENARIO_MAX_BYTES && (got = read(fd, buf + n, cap - 1 - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			goto out;
		}
		n += (size_t)got;
	}
	if (n > SCENARIO_MAX_BYTES) {
		line_of(buf, SCENARIO_MAX_BYTES, &line, &col);
		set_err(err, line, col, NULL,
			"the file goes on past %u bytes (1M), the most a "
			"scenario may be; split it into several scenarios",
			SCENARIO_MAX_BYTES);
		locate_field(buf, SCENARIO_MAX_BYTES, err);
		ret = -EFBIG;
		goto out;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return ret;
}

/* The code point at p (at most left bytes) into *cp; its length, or 0 when
 * the bytes are not UTF-8 (overlong forms and surrogates included). */
static size_t utf8_decode(const unsigned char *p, size_t left, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n = p[0] < 0x80		   ? 1
		   : (p[0] & 0xe0) == 0xc0 ? 2
		   : (p[0] & 0xf0) == 0xe0 ? 3
		   : (p[0] & 0xf8) == 0xf0 ? 4
					   : 0;
	uint32_t v;

	if (!n || n > left)
		return 0;
	v = n == 1 ? p[0] : p[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* What YAML calls printable (as libyaml checks it). */
static bool yaml_printable(uint32_t c)
{
	return c == 0x09 || c == 0x0a || c == 0x0d || (c >= 0x20 && c <= 0x7e) || c == 0x85 ||
	       (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) ||
	       (c >= 0x10000 && c <= 0x10ffff);
}

/* fmt has one %x-style conversion for v; the message names the field. */
static int bad_byte(const char *data, size_t off, int line, int col, struct scenario_error *err,
		    const char *fmt, unsigned v) __attribute__((format(printf, 6, 0)));
static int bad_byte(const char *data, size_t off, int line, int col, struct scenario_error *err,
		    const char *fmt, unsigned v)
{
	err->line = line;
	err->col = col;
	snprintf(err->msg, sizeof(err->msg), fmt, v);
	locate_field(data, off, err);
	return -EINVAL;
}

int limits_check_bytes(const char *data, size_t len, struct scenario_error *err)
{
	const unsigned char *p = (const unsigned char *)data;
	int line = 1, col = 1;
	uint32_t cp = 0;
	size_t n;

	if (len > SCENARIO_MAX_BYTES)
		return set_err(err, 1, 1, NULL,
			       "the file is %zu bytes; a scenario may be at most "
			       "%u (1M)",
			       len, SCENARIO_MAX_BYTES);
	for (size_t i = 0; i < len; i += n, col++) {
		n = utf8_decode(p + i, len - i, &cp);
		if (!n)
			return bad_byte(data, i, line, col, err,
					"byte 0x%02x is not UTF-8; a "
					"scenario is UTF-8 text",
					p[i]);
		if (!yaml_printable(cp))
			return bad_byte(data, i, line, col, err,
					"control character U+%04X; a "
					"scenario is text (tabs and newlines only)",
					(unsigned)cp);
		if (cp == '\n') {
			line++;
			col = 0;
		}
	}
	return 0;
}

/* ---- the YAML structure, event by event ---- */

struct seen_key {
	char *key;
	size_t len;
	int line;
};

/* One open list or mapping. In a mapping, want_key says whether the next
 * node is a key; key is the current one (the path to its value). */
struct frame {
	bool map, want_key;
	unsigned entries;
	struct seen_key *keys;
};

struct scan {
	struct frame f[SCENARIO_MAX_DEPTH + 1];
	unsigned depth;
	unsigned long nodes;
	struct scenario_error *err;
};

/* The field path of what the scan is at: "steps[2].expect". at_key: the
 * innermost mapping is waiting for a key, so the path stops at it. */
static void scan_path(const struct scan *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < s->depth && n < len; i++) {
		const struct frame *f = &s->f[i];

		if (!f->entries)
			break;
		if (!f->map)
			n += (size_t)snprintf(buf + n, len - n, "[%u]", f->entries - 1);
		else if (!f->want_key)
			n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n ? "." : "",
					      FIELD_KEY_SHOWN, f->keys[f->entries - 1].key);
		else
			break;
	}
}

static int scan_fail(struct scan *s, const yaml_event_t *ev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int scan_fail(struct scan *s, const yaml_event_t *ev, const char *fmt, ...)
{
	char field[sizeof(s->err->field)];
	va_list ap;

	scan_path(s, field, sizeof(field));
	s->err->line = (int)ev->start_mark.line + 1;
	s->err->col = (int)ev->start_mark.column + 1;
	snprintf(s->err->field, sizeof(s->err->field), "%s", field);
	va_start(ap, fmt);
	vsnprintf(s->err->msg, sizeof(s->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A key of the innermost mapping: a plain string, given once. */
static int scan_key(struct scan *s, const yaml_event_t *ev)
{
	struct frame *f = &s->f[s->depth - 1];
	const char *k = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;

	if (ev->type != YAML_SCALAR_EVENT)
		return scan_fail(s, ev, "a key must be a string, not a list or mapping");
	if (len > SCENARIO_MAX_NAME * 4)
		return scan_fail(s, ev, "a key of %zu bytes; keys are at most %d", len,
				 SCENARIO_MAX_NAME * 4);
	for (unsigned i = 0; i < f->entries; i++)
		if (f->keys[i].len == len && !memcmp(f->keys[i].key, k, len))
			return scan_fail(s, ev,
					 "key \"%.*s\" appears twice (first on line %d); "
					 "give it once",
					 FIELD_KEY_SHOWN, k, f->keys[i].line);
	if (f->entries >= SCENARIO_MAX_ENTRIES)
		return scan_fail(s, ev, "more than %d keys in one mapping", SCENARIO_MAX_ENTRIES);
	f->keys = xrealloc(f->keys, (f->entries + 1) * sizeof(*f->keys));
	f->keys[f->entries++] = (struct seen_key){ .key = xstrdup(k),
						   .len = len,
						   .line = (int)ev->start_mark.line + 1 };
	f->want_key = false;
	return 0;
}

/* Any node: placed in its list or mapping (so that a message names it),
 * then counted and checked: no anchor, a string not too long. */
static int scan_node(struct scan *s, const yaml_event_t *ev, const yaml_char_t *anchor)
{
	struct frame *f = s->depth ? &s->f[s->depth - 1] : NULL;
	bool key = f && f->map && f->want_key;
	int ret = 0;

	if (key)
		ret = scan_key(s, ev);
	else if (f && !f->map && f->entries >= SCENARIO_MAX_ENTRIES) {
		f->entries = 0; /* the message names the list, not its last entry */
		return scan_fail(s, ev, "more than %d entries in one list", SCENARIO_MAX_ENTRIES);
	} else if (f && !f->map)
		f->entries++;
	if (ret < 0)
		return ret;
	if (anchor)
		return scan_fail(s, ev,
				 "anchors and aliases (&NAME, *NAME) are not supported; "
				 "write the value out");
	if (ev->type == YAML_SCALAR_EVENT && ev->data.scalar.length > SCENARIO_MAX_SCALAR)
		return scan_fail(s, ev, "a string of %zu bytes; strings are at most %u (64K)",
				 ev->data.scalar.length, SCENARIO_MAX_SCALAR);
	if (++s->nodes > SCENARIO_MAX_NODES)
		return scan_fail(s, ev, "more than %d values in the file", SCENARIO_MAX_NODES);
	/* a value done: the mapping waits for its next key (scan_open undoes
	 * this while inside a list or mapping value) */
	if (f && f->map && !key)
		f->want_key = true;
	return 0;
}

/* f->want_key went true when the value began; the path of an error inside
 * the value must still name its key, so it is set back while inside. */
static int scan_open(struct scan *s, const yaml_event_t *ev, const yaml_char_t *anchor, bool map)
{
	struct frame *up = s->depth ? &s->f[s->depth - 1] : NULL;
	int ret = scan_node(s, ev, anchor);

	if (ret < 0)
		return ret;
	if (up && up->map)
		up->want_key = false;
	if (s->depth >= SCENARIO_MAX_DEPTH)
		return scan_fail(s, ev, "lists and mappings nest more than %d deep",
				 SCENARIO_MAX_DEPTH);
	s->f[s->depth++] = (struct frame){ .map = map, .want_key = map };
	return 0;
}

static void scan_close(struct scan *s)
{
	struct frame *f;

	if (!s->depth)
		return;
	f = &s->f[--s->depth];
	for (unsigned i = 0; f->map && i < f->entries; i++)
		free(f->keys[i].key);
	free(f->keys);
	if (s->depth && s->f[s->depth - 1].map)
		s->f[s->depth - 1].want_key = true;
}

static int scan_event(struct scan *s, const yaml_event_t *ev, unsigned *docs)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*docs > 1)
			return scan_fail(s, ev,
					 "a second YAML document; a scenario file holds one");
		return 0;
	case YAML_ALIAS_EVENT:
		return scan_fail(s, ev,
				 "anchors and aliases (&NAME, *NAME) are not supported; "
				 "write the value out");
	case YAML_SCALAR_EVENT:
		return scan_node(s, ev, ev->data.scalar.anchor);
	case YAML_SEQUENCE_START_EVENT:
		return scan_open(s, ev, ev->data.sequence_start.anchor, false);
	case YAML_MAPPING_START_EVENT:
		return scan_open(s, ev, ev->data.mapping_start.anchor, true);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		scan_close(s);
		return 0;
	default:
		return 0;
	}
}

/* Run the scan over data. locate: stop quietly at the first limit and
 * leave in field the path of the last node read (what a byte error at
 * offset len falls in). */
static int scan_run(const char *data, size_t len, struct scenario_error *err, char *field,
		    size_t flen)
{
	struct scan *s = xcalloc(1, sizeof(*s));
	yaml_parser_t parser;
	yaml_event_t ev;
	unsigned docs = 0;
	int ret = 0;
	bool done = false;

	s->err = err;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (!done && !ret) {
		/* a syntax error is the loader's to report, with its own message */
		if (!yaml_parser_parse(&parser, &ev))
			break;
		done = ev.type == YAML_STREAM_END_EVENT;
		ret = scan_event(s, &ev, &docs);
		yaml_event_delete(&ev);
		if (field && !ret)
			scan_path(s, field, flen);
	}
	while (s->depth)
		scan_close(s);
	yaml_parser_delete(&parser);
	free(s);
	return ret;
}

int limits_check_yaml(const char *data, size_t len, struct scenario_error *err)
{
	return scan_run(data, len, err, NULL, 0);
}

/* The field a byte at offset off falls in, from the valid text before it. */
static void locate_field(const char *data, size_t off, struct scenario_error *err)
{
	struct scenario_error scratch;

	err->field[0] = '\0';
	scan_run(data, off, &scratch, err->field, sizeof(err->field));
}

/* ---- regular expressions ---- */

/* glibc's regcomp copies a repeated atom once per count ({2,100}: 100
 * copies, "+": 2), so nested repetitions multiply; and it computes every
 * node's epsilon closure, which grows with the square of the nodes when
 * ?, * and optional copies chain them (((a?){31}){32} took 150 MB). The
 * weight estimates the nodes: 1 per atom and group, 1 more per ?, * and
 * |, each repetition's copies plus 1 per optional one. Each group's frame
 * sums its atoms and remembers the last one. */
struct re_frame {
	uint64_t sum, last;
	bool anchored, last_anchored; /* holds an anchor; the last atom does */
	/* Ways to match the empty string (see re_empty_*): the last atom's,
	 * the product of the branch's atoms before it, of the run of nullable
	 * atoms just before it, and the sum of the finished | branches. */
	uint64_t e_last, e_branch, e_run, e_alts;
};

#define RE_FRAME_INIT ((struct re_frame){ 0, 0, false, false, 1, 1, 1, 0 })

static uint64_t re_cap(uint64_t v)
{
	return v > REGEX_MAX_WEIGHT + 1 ? REGEX_MAX_WEIGHT + 1 : v;
}

static void re_repeat(struct re_frame *f, uint64_t times)
{
	uint64_t grown = re_cap(f->last * (times ? times : 1));

	f->sum = re_cap(f->sum - f->last + grown);
	f->last = grown;
}

/* k more nodes on the last atom: the empty branch of ?, * or an optional
 * copy, through which epsilon closures grow */
static void re_grow(struct re_frame *f, uint64_t k)
{
	f->sum = re_cap(f->sum + k);
	f->last = re_cap(f->last + k);
}

/* Ways to match the empty string. glibc's epsilon closures walk every
 * empty path through a repeated part: ((b?)?){n}* took 2^n steps (n = 20:
 * 0.13 s, n = 33: hours), and so did b??{33}* and ((b|)?){33}*. Each atom
 * counts its empty paths: 0 for a character or bracket, 1 for an anchor,
 * one more for each ?, * and optional copy, a product along a branch and
 * a sum over | branches; no atom and no run of adjacent atoms may count
 * more than REGEX_MAX_EMPTY. */
static uint64_t re_ecap(uint64_t v)
{
	return v > REGEX_MAX_EMPTY + 1 ? REGEX_MAX_EMPTY + 1 : v;
}

static uint64_t re_emul(uint64_t a, uint64_t b)
{
	return a && b > REGEX_MAX_EMPTY ? REGEX_MAX_EMPTY + 1 : re_ecap(a * b);
}

/* the last atom's count, repeated: n copies, then up to m optional ones */
static void re_empty_repeat(struct re_frame *f, uint64_t n, uint64_t m)
{
	uint64_t e = 1;

	for (uint64_t i = 0; i < n && e; i++)
		e = re_emul(e, f->e_last);
	for (uint64_t i = n; i < m && e <= REGEX_MAX_EMPTY; i++)
		e = re_emul(e, f->e_last + 1);
	f->e_last = e;
}

static bool re_empty_ok(const struct re_frame *f)
{
	return f->e_last <= REGEX_MAX_EMPTY && re_emul(f->e_run, f->e_last) <= REGEX_MAX_EMPTY;
}

static void re_atom(struct re_frame *f, uint64_t w, bool anchor, uint64_t empty)
{
	f->sum = re_cap(f->sum + w);
	f->last = w;
	f->last_anchored = anchor;
	f->anchored |= anchor;
	f->e_branch = re_emul(f->e_branch, f->e_last);
	f->e_run = f->e_last ? re_emul(f->e_run, f->e_last) : 1;
	f->e_last = empty;
}

/* a | ends the branch: its count joins the sum and a new branch starts */
static void re_branch(struct re_frame *f)
{
	f->e_alts = re_ecap(f->e_alts + re_emul(f->e_branch, f->e_last));
	f->e_branch = f->e_run = f->e_last = 1;
}

/* ^ $ \b \B \< \> \` \' at p: an anchor. glibc copies the epsilon closure
 * of every node per anchor context, which repeated anchors blow up
 * ((()|^b?){64} took 80 MB), so a repeated anchor is refused. */
static bool re_is_anchor(const char *p)
{
	return *p == '^' || *p == '$' || (*p == '\\' && p[1] && strchr("bB<>`'", p[1]));
}

/* The end of the bracket expression starting at p ("[...]"). */
static const char *re_bracket_end(const char *p)
{
	p++;
	p += *p == '^';
	p += *p == ']';
	while (*p && *p != ']') {
		if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			const char *close = strchr(p + 2, p[1]);

			while (close && close[1] != ']')
				close = strchr(close + 1, p[1]);
			p = close ? close + 2 : p + 1;
			continue;
		}
		p++;
	}
	return *p ? p : p - 1;
}

/* "{n}", "{n,}", "{,m}", "{n,m}" at *pp: the most copies it makes (*pp then
 * at the "}", *min the fewest); -1 when it is not an interval (regcomp judges it), -2 when
 * a count is over the limit. */
static long re_interval(const char **pp, unsigned long *min)
{
	const char *p = *pp + 1;
	unsigned long n = 0, m;
	bool digits = *p >= '0' && *p <= '9';
	char *end = (char *)p;

	if (digits)
		n = strtoul(p, &end, 10);
	m = n;
	if (*end == ',') {
		p = end + 1;
		m = n + 1; /* unbounded: n copies and a starred one */
		if (*p >= '0' && *p <= '9')
			m = strtoul(p, &end, 10);
		else
			end = (char *)p;
		digits = true;
	}
	if (!digits || *end != '}')
		return -1;
	*pp = end;
	if (n > REGEX_MAX_REPEAT || m > REGEX_MAX_REPEAT + 1)
		return -2;
	*min = n;
	return (long)(m > n ? m : n);
}

static int re_weigh(const char *pattern, char *why, size_t len)
{
	struct re_frame st[REGEX_MAX_GROUPS + 1];
	unsigned d = 0;
	unsigned long least = 0;
	long times;

	st[0] = RE_FRAME_INIT;

	for (const char *p = pattern; *p; p++) {
		if (strchr("?*+{", *p) && st[d].last_anchored) {
			snprintf(why, len,
				 "an anchor (^, $, \\b, ...) under a repetition; glibc "
				 "copies the automaton per anchor, anchor outside the repetition");
			return -EINVAL;
		}
		switch (*p) {
		case '\\':
			if (p[1] >= '1' && p[1] <= '9') {
				snprintf(why, len,
					 "back-reference \\%c: matching one can take "
					 "exponential time; not supported",
					 p[1]);
				return -EINVAL;
			}
			re_atom(&st[d], 1, re_is_anchor(p), re_is_anchor(p));
			p += p[1] != '\0';
			break;
		case '[':
			p = re_bracket_end(p);
			re_atom(&st[d], 1, false, 0);
			break;
		case '(':
			if (d >= REGEX_MAX_GROUPS) {
				snprintf(why, len, "groups nest more than %d deep",
					 REGEX_MAX_GROUPS);
				return -EINVAL;
			}
			st[++d] = RE_FRAME_INIT;
			break;
		case ')':
			if (!d)
				break;
			d--;
			re_branch(&st[d + 1]);
			re_atom(&st[d], st[d + 1].sum + 1, st[d + 1].anchored, st[d + 1].e_alts);
			break;
		case '+':
			re_repeat(&st[d], 2);
			re_grow(&st[d], 1);
			re_empty_repeat(&st[d], 1, 2);
			break;
		case '?':
		case '*':
			re_grow(&st[d], 1);
			re_empty_repeat(&st[d], 0, 1);
			break;
		case '|':
			st[d].sum = re_cap(st[d].sum + 1);
			re_branch(&st[d]);
			break;
		case '{':
			times = re_interval(&p, &least);
			if (times == -2) {
				snprintf(why, len, "a repetition count over %d", REGEX_MAX_REPEAT);
				return -EINVAL;
			}
			if (times >= 0) {
				re_repeat(&st[d], (uint64_t)times);
				re_grow(&st[d], (uint64_t)times);
				re_empty_repeat(&st[d], least, (uint64_t)times);
			}
			break;
		default:
			re_atom(&st[d], 1, re_is_anchor(p), re_is_anchor(p));
		}
		if (st[d].sum > REGEX_MAX_WEIGHT) {
			snprintf(why, len,
				 "its repetitions expand to more than %d atoms (nested "
				 "counts multiply: (a{1,100}){1,100} is 10000); make them smaller",
				 REGEX_MAX_WEIGHT);
			return -EINVAL;
		}
		if (!re_empty_ok(&st[d])) {
			snprintf(why, len,
				 "it matches the empty string in more than %d ways (nested ?, * "
				 "and optional counts multiply: ((a?)?){11} has 2048), which glibc "
				 "compiles in exponential time; nest fewer optional parts",
				 REGEX_MAX_EMPTY);
			return -EINVAL;
		}
	}
	return 0;
}

int limits_check_regex(const char *pattern, char *why, size_t len)
{
	size_t n = strlen(pattern);
	regex_t re;
	int r;

	if (n > REGEX_MAX_BYTES) {
		snprintf(why, len, "%zu bytes; a regular expression is at most %d", n,
			 REGEX_MAX_BYTES);
		return -EINVAL;
	}
	if (re_weigh(pattern, why, len) < 0)
		return -EINVAL;
	r = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
	if (r) {
		char e[128];

		regerror(r, &re, e, sizeof(e));
		snprintf(why, len, "not a POSIX extended regular expression: %s", e);
		return -EINVAL;
	}
	regfree(&re);
	return 0;
}
