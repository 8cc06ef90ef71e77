#include "findings_judge.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kdecode.h"
#include "kreport.h"
#include "util.h"

/* At most this much of the end of console.log is read for reports (a
 * guest can print without end; the console keeps the same amount). */
#define FINDINGS_MAX_CONSOLE (64L << 20)

/* The last max bytes of path (all of a shorter file), and in *base where
 * they begin in it. NULL when the file cannot be read. */
static char *read_tail(const char *path, long max, size_t *len, long *base)
{
	FILE *f = fopen(path, "rb");
	long size;
	char *buf = NULL;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0)
		goto out;
	*base = size > max ? size - max : 0;
	if (fseek(f, *base, SEEK_SET))
		goto out;
	buf = xcalloc(1, (size_t)(size - *base) + 1);
	*len = fread(buf, 1, (size_t)(size - *base), f);
	buf[*len] = '\0';
out:
	fclose(f);
	return buf;
}

static char *artifact(const struct run_ctx *c, const char *name)
{
	return xasprintf("%s/%s", c->r->artifacts, name);
}

/* Byte offset of 1-based line no in text (past its last byte when the
 * text has fewer lines). */
static size_t line_offset(const char *text, size_t len, size_t no)
{
	size_t off = 0;

	while (no > 1 && off < len) {
		const char *nl = memchr(text + off, '\n', len - off);

		if (!nl)
			return len;
		off = (size_t)(nl - text) + 1;
		no--;
	}
	return off;
}

/* The last step that had begun at console.log offset at (-1: none had). */
static int step_at(const struct scenario_result *r, long at)
{
	int found = -1;

	for (size_t i = 0; i < r->steps_count; i++)
		if (r->steps[i].console_from >= 0 && r->steps[i].console_from <= at)
			found = (int)i;
	return found;
}

static struct finding *finding_from(struct scenario_result *r, const struct kreport *k)
{
	struct finding *f = scenario_result_add_finding(r);

	f->kind = xstrdup(k->kind);
	f->title = xstrdup(k->title);
	f->signature = xstrdup(k->signature);
	f->text = xstrdup(k->text ? k->text : "");
	f->panicked = k->panicked;
	f->frames = xcalloc(k->nframes + 1, sizeof(*f->frames));
	for (size_t i = 0; i < k->nframes; i++) {
		f->frames[i].func = xstrdup(k->frames[i].func);
		f->frames[i].off = k->frames[i].off ? xstrdup(k->frames[i].off) : NULL;
		f->frames[i].module = k->frames[i].module ? xstrdup(k->frames[i].module) : NULL;
		f->frames[i].reliable = k->frames[i].reliable;
	}
	f->frames_count = k->nframes;
	return f;
}

/* The reports in the end of artifact name into *l (which the caller
 * frees); its text (the caller frees), or NULL when it cannot be read. */
static char *scan_artifact(const struct run_ctx *c, const char *name, struct kreport_list *l,
			   size_t *len, long *base)
{
	char *path = artifact(c, name), *text;

	*len = 0;
	*base = 0;
	text = read_tail(path, FINDINGS_MAX_CONSOLE, len, base);
	free(path);
	if (text)
		kreport_scan(text, *len, l);
	return text;
}

static void scan_console(struct run_ctx *c)
{
	struct kreport_list l = { 0 };
	size_t len;
	long base;
	char *text = scan_artifact(c, "console.log", &l, &len, &base);

	if (!text)
		return;
	for (size_t i = 0; i < l.count; i++) {
		const struct kreport *k = &l.items[i];
		struct finding *f = finding_from(c->r, k);
		size_t off = line_offset(text, len, k->first_line);

		/* lines are counted from the start of the file, not of what was read */
		f->console_line = base ? 0 : (long)k->first_line;
		f->step = step_at(c->r, base + (long)off);
	}
	c->r->findings_dropped += l.dropped;
	kreport_list_free(&l);
	free(text);
}

static bool same_report(const char *kind, const char *title, const struct kreport *k)
{
	return !strcmp(kind, k->kind) && !strcmp(title, k->title);
}

static size_t count_on_console(const struct scenario_result *r, const struct kreport *k)
{
	size_t n = 0;

	for (size_t i = 0; i < r->findings_count; i++)
		n += !r->findings[i].from_dmesg &&
		     same_report(r->findings[i].kind, r->findings[i].title, k);
	return n;
}

/* The reports dmesg holds beyond the console's: each kind and title as
 * many times more as dmesg has it more often (the console's loglevel
 * hides KERN_INFO lines, and a console can lose output). Kind and title,
 * not the signature: the console shows fewer of a report's lines than
 * dmesg (an OOM report's task list is KERN_INFO), which must not make the
 * same report two. */
static void scan_dmesg(struct run_ctx *c)
{
	struct kreport_list l = { 0 };
	size_t len, seen;
	long base;
	char *text = scan_artifact(c, "dmesg.txt", &l, &len, &base);

	if (!text)
		return;
	for (size_t i = 0; i < l.count; i++) {
		const struct kreport *k = &l.items[i];
		size_t in_dmesg = 0;

		for (size_t j = 0; j <= i; j++)
			in_dmesg += same_report(l.items[j].kind, l.items[j].title, k);
		seen = count_on_console(c->r, k);
		if (in_dmesg > seen)
			finding_from(c->r, k)->from_dmesg = true;
	}
	kreport_list_free(&l);
	free(text);
}

static bool title_matches(const char *pattern, const char *title)
{
	regex_t re;
	bool m;

	/* the loader compiled it already: a failure here matches nothing */
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return false;
	m = regexec(&re, title, 0, NULL, 0) == 0;
	regfree(&re);
	return m;
}

static const struct step *src_step(const struct run_ctx *c, int step)
{
	int i = step >= 0 ? c->r->steps[step].src_step : -1;

	return i >= 0 && (unsigned)i < c->s->steps_count ? &c->s->steps[i] : NULL;
}

static void judge(struct run_ctx *c, struct finding *f)
{
	const struct step *st = src_step(c, f->step);

	if (st && st->expect && st->expect->finding &&
	    title_matches(st->expect->finding, f->title)) {
		f->verdict = FINDING_EXPECTED;
		f->reason = xstrdup(st->expect->finding);
		return;
	}
	for (unsigned i = 0; i < c->s->tolerate_count; i++)
		if (title_matches(c->s->tolerate[i].finding, f->title)) {
			f->verdict = FINDING_TOLERATED;
			f->reason = xstrdup(c->s->tolerate[i].reason);
			return;
		}
	f->verdict = FINDING_FAILS;
}

static void step_fail(struct step_result *sr, char *msg)
{
	sr->status = ST_FAIL;
	free(sr->message);
	sr->message = msg;
}

/* A step that passed fails on the first report it did not expect, and on
 * an expected report that did not come. A skipped one (a ktap step whose
 * tests all skipped) fails on the first too: the kernel's report is a
 * failure whether or not the tests ran, and must not leave the scenario a
 * skip. */
static void judge_step(struct run_ctx *c, size_t i)
{
	struct step_result *sr = &c->r->steps[i];
	const struct step *st = src_step(c, (int)i);
	const struct finding *first = NULL;
	size_t failing = 0, expected = 0;

	if (sr->status != ST_PASS && sr->status != ST_SKIP)
		return;
	for (size_t k = 0; k < c->r->findings_count; k++) {
		const struct finding *f = &c->r->findings[k];

		if (f->step != (int)i)
			continue;
		expected += f->verdict == FINDING_EXPECTED;
		if (f->verdict == FINDING_FAILS && !failing++)
			first = f;
	}
	if (first)
		step_fail(sr, failing > 1
				  ? xasprintf("kernel report: %s (console line %ld; and %zu "
					      "more: see findings)",
					      first->title, first->console_line, failing - 1)
				  : xasprintf("kernel report: %s (console line %ld)", first->title,
					      first->console_line));
	else if (sr->status == ST_PASS && st && st->expect && st->expect->finding && !expected)
		step_fail(sr, xasprintf("finding: expected a kernel report whose title matches "
					"/%s/ during the step; none was printed",
					st->expect->finding));
}

/* Why findings stay in raw frames when no vmlinux with DWARF was given. */
#define FINDINGS_NO_DEBUG                                                                          \
	"no vmlinux with debug information: a --kernel build tree's is used when it has one "      \
	"(CONFIG_DEBUG_INFO), a Debian kernel's once ktb image build --debug fetched it"

static void decode_one(const struct kdecode *d, struct finding *f)
{
	const char **func = xcalloc(f->frames_count + 1, sizeof(char *));
	const char **off = xcalloc(f->frames_count + 1, sizeof(char *));
	const char **mod = xcalloc(f->frames_count + 1, sizeof(char *));
	struct kdecode_frame *out = xcalloc(f->frames_count + 1, sizeof(*out));
	char why[1024] = "";

	for (size_t i = 0; i < f->frames_count; i++) {
		func[i] = f->frames[i].func;
		off[i] = f->frames[i].off;
		mod[i] = f->frames[i].module;
	}
	if (kdecode_frames(d, func, off, mod, f->frames_count, out, why, sizeof(why))) {
		f->undecoded = xstrdup(why);
	} else {
		for (size_t i = 0; i < f->frames_count; i++) {
			struct finding_frame *fr = &f->frames[i];

			fr->locs = xcalloc(out[i].count + 1, sizeof(*fr->locs));
			for (size_t k = 0; k < out[i].count; k++) {
				fr->locs[k] =
				    (struct finding_loc){ out[i].locs[k].func, out[i].locs[k].file,
							  out[i].locs[k].line };
				out[i].locs[k].func = out[i].locs[k].file = NULL;
			}
			fr->locs_count = out[i].count;
			kdecode_frame_free(&out[i]);
		}
		/* the kernel's frames decoded; a module's without its .ko did not */
		if (*why)
			f->undecoded = xstrdup(why);
	}
	free(func);
	free(off);
	free(mod);
	free(out);
}

/* Each finding's frames in file:line, or why not (kdecode.c). */
static void decode(struct run_ctx *c, const char *vmlinux, const char *modules)
{
	struct kdecode *d = NULL;
	char why[300] = FINDINGS_NO_DEBUG;

	if (!c->r->findings_count)
		return;
	if (vmlinux)
		d = kdecode_open(vmlinux, modules, why, sizeof(why));
	for (size_t i = 0; i < c->r->findings_count; i++) {
		if (d)
			decode_one(d, &c->r->findings[i]);
		else
			c->r->findings[i].undecoded = xstrdup(why);
	}
	kdecode_free(d);
}

void findings_collect(struct run_ctx *c, const char *vmlinux, const char *modules)
{
	if (!c->r->artifacts)
		return;
	scan_console(c);
	scan_dmesg(c);
	decode(c, vmlinux, modules);
	for (size_t i = 0; i < c->r->findings_count; i++)
		judge(c, &c->r->findings[i]);
	for (size_t i = 0; i < c->r->steps_count; i++)
		judge_step(c, i);
}

char *findings_message(const struct scenario_result *r)
{
	for (size_t i = 0; i < r->findings_count; i++) {
		const struct finding *f = &r->findings[i];

		if (f->verdict != FINDING_FAILS || f->step >= 0)
			continue;
		return f->from_dmesg ? xasprintf("kernel report in dmesg: %s", f->title)
				     : xasprintf("kernel report during boot: %s (console line %ld)",
						 f->title, f->console_line);
	}
	return NULL;
}
