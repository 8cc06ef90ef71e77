#include "result.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

/*
 * result.json, one per scenario (scenario_result_to_json). Every key is
 * always present, in this order; a missing string is null, never absent:
 *
 *   name          string   scenario name
 *   file          string   scenario file
 *   summary       string|null
 *   tags          [string]
 *   status        "pass" | "fail" | "error" | "timeout" | "skip"
 *   message       string|null   first failure; null on pass
 *   duration_ms   integer
 *   kernel        string|null   kernel release or path booted
 *   accel         string|null   "tcg" or "kvm"
 *   metrics       object   boot_ms, suspend_ms, resume_ms, ... ({} if none)
 *   artifacts     string|null   directory of console.log, qmp.jsonl, ...
 *   steps         [step]
 *   console_tail  string|null   last console lines (kept on failure)
 *   attempt       integer|null  with --repeat, which run of the scenario (1..N);
 *                               its name is then "NAME#N"
 *   missing_config [string]  kernel options the scenario needs that the kernel
 *                            lacks (status skip, nothing booted); [] otherwise
 *   findings      [finding]  kernel reports the console carried; [] if none
 *   findings_dropped integer  reports past the scan's limit, only counted
 *   dump          object|null  a dump of guest memory (ktb run --dump), or why
 *                              there is none; null when none was wanted
 *
 * dump:
 *   trigger       "panic" | "hang" | "always"  why one was wanted
 *   file          string|null  the kdump-compressed file; null: none written
 *   format        string   "kdump-zlib"
 *   bytes         integer  its size (0 without a file)
 *   ms            integer  how long QEMU took to write it
 *   note          string|null  why there is no file
 *
 * finding:
 *   kind          string   "warning", "oops", "oom kill", ... (docs/debugging.md)
 *   title         string   "WARNING in nvme_setup_io_queues"
 *   signature     string   sha256 hex: the same report anywhere has the same one
 *   verdict       "fail" | "expected" | "tolerated"
 *   reason        string|null   tolerated: the scenario's reason; expected: the
 *                               step's pattern
 *   step          integer|null  index into steps (0-based); null: before the first
 *   console_line  integer  its first line in console.log (1-based)
 *   panicked      boolean  a panic followed from it
 *   source        "console" | "dmesg"  dmesg: only the dmesg read at the end
 *                          had it (step and console_line then null and 0)
 *   frames        [{func, off, module, reliable, locs}]  its first stack; locs
 *                 [{func, file, line}]: where the frame is in the source, the
 *                 innermost (inlined) first; [] when not decoded
 *   undecoded     string|null   why the frames are not in file:line
 *   text          string   its lines
 *
 * step:
 *   name          string   "run: ktb-probe disk data"
 *   status        as above
 *   message       string|null
 *   start_ms      integer  from scenario start
 *   duration_ms   integer
 *   exit_code     integer|null  run steps only
 *   stdout        string|null
 *   stderr        string|null
 *   data          any|null parsed JSON output or QMP reply
 *   line          integer  line of the step in the scenario file (0: unknown)
 *   subtests      [subtest]  test points the step reported below itself
 *                            (ktap: steps); [] otherwise
 *
 * subtest:
 *   name          string   path below the step, parent first: "timers.nanosleep"
 *   status        "pass" | "fail" | "skip"
 *   reason        string|null   the SKIP/TODO directive's text
 *   duration_ms   integer|null  when the output gave one
 *   diag          string|null   its diagnostic lines, joined
 *
 * The run document (run_result_to_json):
 *   run_id        string
 *   started       string   ISO-8601 UTC, "2025-01-31T12:00:00Z"
 *   duration_ms   integer
 *   summary       {total, pass, fail, error, timeout, skip}: integers
 *   interrupted   boolean  a signal stopped the run (exit 130)
 *   scenarios     [result.json documents as above]
 *   pass_rates    with --repeat only: {NAME: {runs, pass, rate, flaky}}
 *   selection     {hash, scenarios, tags, exclude_tags, names, repeat, kernel,
 *                 recipe}: what the run was cut from (null when unknown)
 *   shard         {k, n} with --shard, else null
 *   schema_version 2
 *
 * Strings holding captured output are made valid UTF-8 (bad bytes become
 * U+FFFD) because a guest may print anything and jansson refuses bad UTF-8.
 */

#define ST_NAME(id, name, word, past, rank) name,
#define ST_WORD(id, name, word, past, rank) word,
#define ST_PAST(id, name, word, past, rank) past,
#define ST_RANK(id, name, word, past, rank) rank,
static const char *const status_names[] = { STATUS_TABLE(ST_NAME) };
static const char *const status_words[] = { STATUS_TABLE(ST_WORD) };
static const char *const status_pasts[] = { STATUS_TABLE(ST_PAST) };
static const int status_rank[] = { STATUS_TABLE(ST_RANK) };
_Static_assert(sizeof(status_rank) / sizeof(status_rank[0]) == ST_COUNT, "one rank a status");

const char *status_name(enum status s)
{
	return (unsigned)s < ST_COUNT ? status_names[s] : "unknown";
}

const char *status_word(enum status s)
{
	return (unsigned)s < ST_COUNT ? status_words[s] : "?";
}

const char *status_past(enum status s)
{
	return (unsigned)s < ST_COUNT ? status_pasts[s] : "?";
}

static int status_rank_of(enum status s)
{
	/* an unknown status is treated as the worst: something went wrong */
	return (unsigned)s < ST_COUNT ? status_rank[s] : 5;
}

enum status status_worse(enum status a, enum status b)
{
	return status_rank_of(b) > status_rank_of(a) ? b : a;
}

long utf8_decode(const unsigned char *s, size_t n, size_t *len)
{
	static const long min_cp[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t need, i;
	long cp;

	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4, cp = s[0] & 0x07;
	else
		return -1;
	if (n < need)
		return -1;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF are not UTF-8 */
	if (cp < min_cp[need] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return -1;
	*len = need;
	return cp;
}

char *utf8_sanitize(const char *s)
{
	size_t n = strlen(s), i = 0, o = 0, len;
	/* each bad byte grows to three (U+FFFD) */
	char *out = xcalloc(n * 3 + 1, 1);

	while (i < n) {
		if (utf8_decode((const unsigned char *)s + i, n - i, &len) < 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
		} else {
			memcpy(out + o, s + i, len);
			o += len;
		}
		i += len;
	}
	out[o] = '\0';
	return out;
}

size_t ansi_escape_len(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 2)
		return n;
	if (s[1] == '[') {
		while (i < n && !(s[i] >= 0x40 && s[i] <= 0x7e))
			i++;
		return i < n ? i + 1 : n;
	}
	if (s[1] == ']') {
		while (i < n && s[i] != '\a' && s[i] != '\033')
			i++;
		return i < n && s[i] == '\a' ? i + 1 : i;
	}
	return 2;
}

/* Which code points markup m writes as they are: XML 1.0's Char; HTML's
 * text, which also leaves out C1 controls and noncharacters. */
static bool markup_char_ok(enum markup m, long cp)
{
	if (cp == '\t' || cp == '\n' || cp == '\r')
		return true;
	if (m == MARKUP_HTML)
		return cp >= 0x20 && !(cp >= 0x7f && cp <= 0x9f) &&
		       !(cp >= 0xfdd0 && cp <= 0xfdef) && (cp & 0xfffe) != 0xfffe;
	return (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) ||
	       (cp >= 0x10000 && cp <= 0x10ffff);
}

static void markup_char(FILE *f, enum markup m, long cp, const char *raw, size_t len)
{
	switch (cp) {
	case '&':
		fputs("&amp;", f);
		return;
	case '<':
		fputs("&lt;", f);
		return;
	case '>':
		fputs("&gt;", f);
		return;
	case '"':
		fputs("&quot;", f);
		return;
	case '\'':
		fputs(m == MARKUP_HTML ? "&#39;" : "&apos;", f);
		return;
	}
	/* an attribute's whitespace is normalised unless it is a reference */
	if (m == MARKUP_XML_ATTR && (cp == '\t' || cp == '\n' || cp == '\r'))
		fprintf(f, "&#%ld;", cp);
	else if (cp >= 0 && markup_char_ok(m, cp))
		fwrite(raw, 1, len, f);
	else if (cp < 0 || (m == MARKUP_HTML && cp >= 0x80))
		fputs("\xef\xbf\xbd", f);
	/* C0 controls, NUL and DEL (and in XML what it has no place for) go */
}

void markup_escape(FILE *f, enum markup m, const char *s, size_t n)
{
	size_t i = 0, len;

	while (i < n) {
		long cp = utf8_decode((const unsigned char *)s + i, n - i, &len);

		/* colour codes would leave "[1;31m" litter once ESC is dropped */
		if (cp == '\033')
			len = ansi_escape_len(s + i, n - i);
		else
			markup_char(f, m, cp, s + i, len);
		i += len;
	}
}

/* A JSON string for s, or null for NULL. */
static json_t *json_text(const char *s)
{
	char *clean;
	json_t *j;

	if (!s)
		return json_null();
	clean = utf8_sanitize(s);
	j = json_string(clean);
	free(clean);
	return j;
}

struct step_result *scenario_result_add_step(struct scenario_result *r)
{
	struct step_result *s;

	r->steps = xrealloc(r->steps, (r->steps_count + 1) * sizeof(*r->steps));
	s = &r->steps[r->steps_count++];
	memset(s, 0, sizeof(*s));
	s->exit_code = -1;
	s->console_from = -1;
	s->src_step = -1;
	return s;
}

void scenario_result_interrupt(struct scenario_result *r, int sig)
{
	struct step_result *last = r->steps_count ? &r->steps[r->steps_count - 1] : NULL;

	r->status = ST_ERROR;
	free(r->message);
	r->message = xasprintf("interrupted by signal %d", sig);
	/* the step the signal cut short says so, not what the cut looked like */
	if (last && last->status != ST_PASS) {
		last->status = ST_ERROR;
		free(last->message);
		last->message = xstrdup(r->message);
	}
}

const struct step_result *scenario_result_failed_step(const struct scenario_result *r)
{
	for (size_t i = 0; i < r->steps_count; i++) {
		enum status st = r->steps[i].status;

		if (st == ST_FAIL || st == ST_ERROR || st == ST_TIMEOUT)
			return &r->steps[i];
	}
	return NULL;
}

struct subtest *step_result_add_subtest(struct step_result *s)
{
	struct subtest *t;

	s->subtests = xrealloc(s->subtests, (s->subtests_count + 1) * sizeof(*s->subtests));
	t = &s->subtests[s->subtests_count++];
	memset(t, 0, sizeof(*t));
	t->duration_ms = -1;
	return t;
}

static const char *const verdict_names[] = { "fail", "expected", "tolerated" };

const char *finding_verdict_name(enum finding_verdict v)
{
	return (unsigned)v < sizeof(verdict_names) / sizeof(verdict_names[0]) ? verdict_names[v]
									      : "fail";
}

struct finding *scenario_result_add_finding(struct scenario_result *r)
{
	struct finding *f;

	r->findings = xrealloc(r->findings, (r->findings_count + 1) * sizeof(*r->findings));
	f = &r->findings[r->findings_count++];
	memset(f, 0, sizeof(*f));
	f->step = -1;
	return f;
}

size_t scenario_result_failing_findings(const struct scenario_result *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->findings_count; i++)
		n += r->findings[i].verdict == FINDING_FAILS;
	return n;
}

void finding_frame_locs_free(struct finding_frame *fr)
{
	for (size_t k = 0; k < fr->locs_count; k++) {
		free(fr->locs[k].func);
		free(fr->locs[k].file);
	}
	free(fr->locs);
	fr->locs = NULL;
	fr->locs_count = 0;
}

static void finding_free(struct finding *f)
{
	for (size_t i = 0; i < f->frames_count; i++) {
		free(f->frames[i].func);
		free(f->frames[i].off);
		free(f->frames[i].module);
		finding_frame_locs_free(&f->frames[i]);
	}
	free(f->undecoded);
	free(f->frames);
	free(f->kind);
	free(f->title);
	free(f->signature);
	free(f->text);
	free(f->reason);
}

static void step_result_free(struct step_result *s)
{
	for (size_t i = 0; i < s->subtests_count; i++) {
		free(s->subtests[i].name);
		free(s->subtests[i].reason);
		free(s->subtests[i].diag);
	}
	free(s->subtests);
	free(s->name);
	free(s->message);
	free(s->out);
	free(s->err);
	json_decref(s->data);
}

void scenario_result_free(struct scenario_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->steps_count; i++)
		step_result_free(&r->steps[i]);
	for (size_t i = 0; i < r->tags_count; i++)
		free(r->tags[i]);
	free(r->tags);
	for (size_t i = 0; i < r->missing_config_count; i++)
		free(r->missing_config[i]);
	free(r->missing_config);
	for (size_t i = 0; i < r->findings_count; i++)
		finding_free(&r->findings[i]);
	free(r->findings);
	free(r->steps);
	free(r->name);
	free(r->file);
	free(r->summary);
	free(r->message);
	free(r->artifacts);
	free(r->console_tail);
	free(r->kernel);
	free(r->accel);
	json_decref(r->metrics);
	json_decref(r->dump);
	memset(r, 0, sizeof(*r));
}

static void words_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

char **run_selection_words(const char *const *v, size_t n)
{
	char **c = xcalloc(n + 1, sizeof(*c));

	for (size_t i = 0; i < n; i++)
		c[i] = xstrdup(v[i]);
	return c;
}

void run_selection_free(struct run_selection *s)
{
	free(s->hash);
	words_free(s->scenarios, s->scenarios_count);
	words_free(s->tags, s->tags_count);
	words_free(s->exclude_tags, s->exclude_tags_count);
	words_free(s->names, s->names_count);
	free(s->kernel);
	free(s->recipe);
	memset(s, 0, sizeof(*s));
}

void run_result_free(struct run_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->count; i++)
		scenario_result_free(&r->scenarios[i]);
	free(r->scenarios);
	free(r->run_id);
	run_selection_free(&r->sel);
	memset(r, 0, sizeof(*r));
}

void run_result_count(const struct run_result *r, size_t counts[ST_COUNT])
{
	memset(counts, 0, ST_COUNT * sizeof(counts[0]));
	for (size_t i = 0; i < r->count; i++)
		if ((unsigned)r->scenarios[i].status < ST_COUNT)
			counts[r->scenarios[i].status]++;
}

int run_result_exit_code(const struct run_result *r)
{
	size_t n[ST_COUNT];

	/* an interrupted run is not a verdict, whatever it saw: 130 */
	if (r->interrupted)
		return 130;
	run_result_count(r, n);
	if (n[ST_FAIL] || n[ST_TIMEOUT])
		return 1;
	/* a skip did not test what it was to test (the kernel lacks what the
	 * scenario needs; every KTAP test skipped; virtiofsd cannot serve
	 * here): git bisect run and ktb bisect must skip such a kernel, not
	 * call it good */
	if (n[ST_ERROR] || n[ST_SKIP])
		return 125;
	return 0;
}

static json_t *subtests_to_json(const struct step_result *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->subtests_count; i++) {
		const struct subtest *t = &s->subtests[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_text(t->name ? t->name : ""));
		json_object_set_new(o, "status", json_string(status_name(t->status)));
		json_object_set_new(o, "reason", json_text(t->reason));
		json_object_set_new(o, "duration_ms",
				    t->duration_ms >= 0 ? json_integer(t->duration_ms)
							: json_null());
		json_object_set_new(o, "diag", json_text(t->diag));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *step_result_to_json(const struct step_result *s)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", json_text(s->name ? s->name : ""));
	json_object_set_new(j, "status", json_string(status_name(s->status)));
	json_object_set_new(j, "message", json_text(s->message));
	json_object_set_new(j, "start_ms", json_integer(s->start_ms));
	json_object_set_new(j, "duration_ms", json_integer(s->duration_ms));
	json_object_set_new(j, "exit_code",
			    s->exit_code >= 0 ? json_integer(s->exit_code) : json_null());
	json_object_set_new(j, "stdout", json_text(s->out));
	json_object_set_new(j, "stderr", json_text(s->err));
	json_object_set_new(j, "data", s->data ? json_deep_copy(s->data) : json_null());
	json_object_set_new(j, "line", json_integer(s->line));
	json_object_set_new(j, "subtests", subtests_to_json(s));
	return j;
}

static json_t *tags_to_json(const struct scenario_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->tags_count; i++)
		json_array_append_new(a, json_text(r->tags[i]));
	return a;
}

static json_t *missing_to_json(const struct scenario_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->missing_config_count; i++)
		json_array_append_new(a, json_text(r->missing_config[i]));
	return a;
}

static json_t *utc_or_null(int64_t unix_ms)
{
	char buf[32];

	if (!unix_ms)
		return json_null();
	result_format_utc(unix_ms, buf, sizeof(buf));
	return json_string(buf);
}

static json_t *locs_to_json(const struct finding_frame *fr)
{
	json_t *a = json_array();

	for (size_t k = 0; k < fr->locs_count; k++)
		json_array_append_new(a, json_pack("{s:o, s:o, s:I}", "func",
						   json_text(fr->locs[k].func), "file",
						   json_text(fr->locs[k].file), "line",
						   (json_int_t)fr->locs[k].line));
	return a;
}

static json_t *findings_to_json(const struct scenario_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->findings_count; i++) {
		const struct finding *f = &r->findings[i];
		json_t *o = json_object(), *frames = json_array();

		for (size_t k = 0; k < f->frames_count; k++) {
			const struct finding_frame *fr = &f->frames[k];
			json_t *fo = json_object();

			json_object_set_new(fo, "func", json_text(fr->func ? fr->func : ""));
			json_object_set_new(fo, "off", json_text(fr->off));
			json_object_set_new(fo, "module", json_text(fr->module));
			json_object_set_new(fo, "reliable", json_boolean(fr->reliable));
			json_object_set_new(fo, "locs", locs_to_json(fr));
			json_array_append_new(frames, fo);
		}
		json_object_set_new(o, "kind", json_text(f->kind ? f->kind : ""));
		json_object_set_new(o, "title", json_text(f->title ? f->title : ""));
		json_object_set_new(o, "signature", json_text(f->signature ? f->signature : ""));
		json_object_set_new(o, "verdict", json_string(finding_verdict_name(f->verdict)));
		json_object_set_new(o, "reason", json_text(f->reason));
		json_object_set_new(o, "step", f->step >= 0 ? json_integer(f->step) : json_null());
		json_object_set_new(o, "console_line", json_integer(f->console_line));
		json_object_set_new(o, "panicked", json_boolean(f->panicked));
		json_object_set_new(o, "source", json_string(f->from_dmesg ? "dmesg" : "console"));
		json_object_set_new(o, "frames", frames);
		json_object_set_new(o, "undecoded", json_text(f->undecoded));
		json_object_set_new(o, "text", json_text(f->text ? f->text : ""));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *scenario_result_to_json(const struct scenario_result *r)
{
	json_t *j = json_object(), *steps = json_array();

	for (size_t i = 0; i < r->steps_count; i++)
		json_array_append_new(steps, step_result_to_json(&r->steps[i]));
	json_object_set_new(j, "name", json_text(r->name ? r->name : ""));
	json_object_set_new(j, "file", json_text(r->file ? r->file : ""));
	json_object_set_new(j, "summary", json_text(r->summary));
	json_object_set_new(j, "tags", tags_to_json(r));
	json_object_set_new(j, "status", json_string(status_name(r->status)));
	json_object_set_new(j, "message", json_text(r->message));
	json_object_set_new(j, "duration_ms", json_integer(r->duration_ms));
	json_object_set_new(j, "started", utc_or_null(r->started_unix_ms));
	json_object_set_new(j, "kernel", json_text(r->kernel));
	json_object_set_new(j, "accel", json_text(r->accel));
	json_object_set_new(j, "metrics", r->metrics ? json_deep_copy(r->metrics) : json_object());
	json_object_set_new(j, "artifacts", json_text(r->artifacts));
	json_object_set_new(j, "steps", steps);
	json_object_set_new(j, "console_tail", json_text(r->console_tail));
	json_object_set_new(j, "attempt", r->attempt ? json_integer(r->attempt) : json_null());
	json_object_set_new(j, "missing_config", missing_to_json(r));
	json_object_set_new(j, "findings", findings_to_json(r));
	json_object_set_new(j, "findings_dropped", json_integer((json_int_t)r->findings_dropped));
	json_object_set_new(j, "dump", r->dump ? json_deep_copy(r->dump) : json_null());
	return j;
}

void result_format_utc(int64_t unix_ms, char *buf, size_t len)
{
	time_t t = (time_t)(unix_ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *run_summary_to_json(const struct run_result *r)
{
	json_t *j = json_object();
	size_t n[ST_COUNT];

	run_result_count(r, n);
	json_object_set_new(j, "total", json_integer((json_int_t)r->count));
	for (int s = 0; s < ST_COUNT; s++)
		json_object_set_new(j, status_names[s], json_integer((json_int_t)n[s]));
	return j;
}

static json_t *words_to_json(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_text(v[i]));
	return a;
}

static json_t *selection_to_json(const struct run_selection *s)
{
	json_t *j;

	if (!s->hash)
		return json_null();
	j = json_object();
	json_object_set_new(j, "hash", json_text(s->hash));
	json_object_set_new(j, "scenarios", words_to_json(s->scenarios, s->scenarios_count));
	json_object_set_new(j, "tags", words_to_json(s->tags, s->tags_count));
	json_object_set_new(j, "exclude_tags",
			    words_to_json(s->exclude_tags, s->exclude_tags_count));
	json_object_set_new(j, "names", words_to_json(s->names, s->names_count));
	json_object_set_new(j, "repeat", json_integer(s->repeat ? s->repeat : 1));
	json_object_set_new(j, "kernel", json_text(s->kernel));
	json_object_set_new(j, "recipe", json_text(s->recipe));
	return j;
}

json_t *run_result_to_json(const struct run_result *r)
{
	json_t *j = json_object(), *list = json_array(), *rates;
	char started[32];

	result_format_utc(r->started_unix_ms, started, sizeof(started));
	for (size_t i = 0; i < r->count; i++)
		json_array_append_new(list, scenario_result_to_json(&r->scenarios[i]));
	json_object_set_new(j, "run_id", json_text(r->run_id ? r->run_id : ""));
	json_object_set_new(j, "started", json_string(started));
	json_object_set_new(j, "duration_ms", json_integer(r->duration_ms));
	json_object_set_new(j, "summary", run_summary_to_json(r));
	json_object_set_new(j, "interrupted", json_boolean(r->interrupted != 0));
	json_object_set_new(j, "scenarios", list);
	rates = run_result_pass_rates(r);
	if (rates)
		json_object_set_new(j, "pass_rates", rates);
	json_object_set_new(j, "selection", selection_to_json(&r->sel));
	json_object_set_new(j, "shard",
			    r->sel.shard_n ? json_pack("{s:i, s:i}", "k", (int)r->sel.shard_k, "n",
						       (int)r->sel.shard_n)
					   : json_null());
	/* last, so the lines readers already know keep their place */
	json_object_set_new(j, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
	return j;
}

/* days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil), so parsing needs no timegm, which C11 lacks */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int result_parse_utc(const char *s, int64_t *unix_ms)
{
	int y, mo, d, h, mi, sec, n = 0;

	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
	    n != 20 || s[n] || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60 || h < 0 || mi < 0 || sec < 0)
		return -EINVAL;
	*unix_ms = ((days_from_civil(y, (unsigned)mo, (unsigned)d) * 24 + h) * 60 + mi) * 60000 +
		   (int64_t)sec * 1000;
	return 0;
}

/* ---- back from JSON: a worker process's result.json into the parent ---- */

static char *json_str_dup(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? xstrdup(s) : NULL;
}

static enum status status_from_name(const char *s)
{
	for (int i = 0; i < ST_COUNT; i++)
		if (s && !strcmp(s, status_names[i]))
			return (enum status)i;
	return ST_ERROR;
}

static void step_result_from_json(const json_t *j, struct step_result *sr)
{
	json_t *ec = json_object_get(j, "exit_code"), *v;
	size_t i;

	sr->name = json_str_dup(j, "name");
	sr->status = status_from_name(json_string_value(json_object_get(j, "status")));
	sr->message = json_str_dup(j, "message");
	sr->start_ms = json_integer_value(json_object_get(j, "start_ms"));
	sr->duration_ms = json_integer_value(json_object_get(j, "duration_ms"));
	sr->exit_code = json_is_integer(ec) ? (int)json_integer_value(ec) : -1;
	sr->out = json_str_dup(j, "stdout");
	sr->err = json_str_dup(j, "stderr");
	sr->data = json_incref(json_object_get(j, "data"));
	if (json_is_null(sr->data)) {
		json_decref(sr->data);
		sr->data = NULL;
	}
	sr->line = (int)json_integer_value(json_object_get(j, "line"));
	json_array_foreach (json_object_get(j, "subtests"), i, v) {
		struct subtest *t = step_result_add_subtest(sr);
		json_t *d = json_object_get(v, "duration_ms");

		t->name = json_str_dup(v, "name");
		t->status = status_from_name(json_string_value(json_object_get(v, "status")));
		t->reason = json_str_dup(v, "reason");
		t->duration_ms = json_is_integer(d) ? json_integer_value(d) : -1;
		t->diag = json_str_dup(v, "diag");
	}
}

static enum finding_verdict verdict_from_name(const char *s)
{
	for (size_t i = 0; i < sizeof(verdict_names) / sizeof(verdict_names[0]); i++)
		if (s && !strcmp(s, verdict_names[i]))
			return (enum finding_verdict)i;
	return FINDING_FAILS;
}

static void locs_from_json(const json_t *a, struct finding_frame *fr)
{
	const json_t *v;
	size_t i;

	fr->locs = xcalloc(json_array_size(a) + 1, sizeof(*fr->locs));
	json_array_foreach (a, i, v) {
		json_int_t line = json_integer_value(json_object_get(v, "line"));

		if (!json_is_object(v))
			continue;
		fr->locs[fr->locs_count++] =
		    (struct finding_loc){ json_str_dup(v, "func"), json_str_dup(v, "file"),
					  line > 0 && line < INT32_MAX ? (unsigned)line : 0 };
	}
}

/* A document's findings; a step index outside its steps reads as none. */
static void findings_from_json(const json_t *a, struct scenario_result *r)
{
	const json_t *v, *fr;
	size_t i, k;

	json_array_foreach (a, i, v) {
		struct finding *f;
		json_t *st = json_object_get(v, "step"), *frames = json_object_get(v, "frames");

		if (!json_is_object(v))
			continue;
		f = scenario_result_add_finding(r);
		f->kind = json_str_dup(v, "kind");
		f->title = json_str_dup(v, "title");
		f->signature = json_str_dup(v, "signature");
		f->verdict = verdict_from_name(json_string_value(json_object_get(v, "verdict")));
		f->reason = json_str_dup(v, "reason");
		f->step = json_is_integer(st) && json_integer_value(st) >= 0 &&
				  (size_t)json_integer_value(st) < r->steps_count
			      ? (int)json_integer_value(st)
			      : -1;
		f->console_line = (long)json_integer_value(json_object_get(v, "console_line"));
		f->panicked = json_is_true(json_object_get(v, "panicked"));
		f->from_dmesg = !strcmp(json_string_value(json_object_get(v, "source"))
					    ? json_string_value(json_object_get(v, "source"))
					    : "",
					"dmesg");
		f->text = json_str_dup(v, "text");
		f->undecoded = json_str_dup(v, "undecoded");
		f->frames = xcalloc(json_array_size(frames) + 1, sizeof(*f->frames));
		json_array_foreach (frames, k, fr) {
			struct finding_frame *o = &f->frames[f->frames_count];

			if (!json_is_object(fr))
				continue;
			o->func = json_str_dup(fr, "func");
			o->off = json_str_dup(fr, "off");
			o->module = json_str_dup(fr, "module");
			o->reliable = json_is_true(json_object_get(fr, "reliable"));
			locs_from_json(json_object_get(fr, "locs"), o);
			f->frames_count++;
		}
	}
}

/* The latest time a document's "started" can say (its years have four
 * digits): 9999-12-31T23:59:59.999Z in ms since 1970. Durations and step
 * offsets read back are at most this, so the sums that ktb merge and the
 * reports make of a start and durations stay far inside int64_t. */
#define RESULT_MAX_MS 253402300799999LL

/* o's key, when it is an integer, is within lo..RESULT_MAX_MS (other
 * values read as not given). 0, or -EINVAL with why naming it. */
static int ms_check(const json_t *o, const char *key, json_int_t lo, const char *where, char *why,
		    size_t whylen)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) ||
	    (json_integer_value(v) >= lo && json_integer_value(v) <= RESULT_MAX_MS))
		return 0;
	return say_err(why, whylen, -EINVAL,
		       "%s\"%s\" is %" JSON_INTEGER_FORMAT
		       ", not a time in ms (%" JSON_INTEGER_FORMAT " to %lld)",
		       where, key, json_integer_value(v), lo, RESULT_MAX_MS);
}

/* The times of a scenario's result document (its steps', its subtests'). */
static int scenario_times_check(const json_t *j, char *why, size_t whylen)
{
	const json_t *st, *t;
	char where[64];
	size_t i, k;
	int ret = ms_check(j, "duration_ms", 0, "its ", why, whylen);

	json_array_foreach (json_object_get(j, "steps"), i, st) {
		snprintf(where, sizeof(where), "step %zu's ", i + 1);
		if (!ret)
			ret = ms_check(st, "start_ms", 0, where, why, whylen);
		if (!ret)
			ret = ms_check(st, "duration_ms", 0, where, why, whylen);
		json_array_foreach (json_object_get(st, "subtests"), k, t) {
			snprintf(where, sizeof(where), "step %zu's subtest %zu's ", i + 1, k + 1);
			if (!ret)
				ret = ms_check(t, "duration_ms", -1, where, why, whylen);
		}
	}
	return ret;
}

int scenario_result_from_json(const json_t *j, struct scenario_result *r)
{
	json_t *tags = json_object_get(j, "tags"), *steps = json_object_get(j, "steps"), *v;
	json_t *missing;
	char why[160];
	size_t i;

	if (!json_is_object(j) || !json_is_string(json_object_get(j, "status")) ||
	    scenario_times_check(j, why, sizeof(why)))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->name = json_str_dup(j, "name");
	r->file = json_str_dup(j, "file");
	r->summary = json_str_dup(j, "summary");
	r->tags = xcalloc(json_array_size(tags) + 1, sizeof(char *));
	json_array_foreach (tags, i, v)
		r->tags[r->tags_count++] =
		    xstrdup(json_string_value(v) ? json_string_value(v) : "");
	r->status = status_from_name(json_string_value(json_object_get(j, "status")));
	r->message = json_str_dup(j, "message");
	r->duration_ms = json_integer_value(json_object_get(j, "duration_ms"));
	if (result_parse_utc(json_string_value(json_object_get(j, "started")), &r->started_unix_ms))
		r->started_unix_ms = 0;
	r->kernel = json_str_dup(j, "kernel");
	r->accel = json_str_dup(j, "accel");
	v = json_object_get(j, "metrics");
	r->metrics = json_is_object(v) ? json_deep_copy(v) : json_object();
	r->artifacts = json_str_dup(j, "artifacts");
	json_array_foreach (steps, i, v)
		step_result_from_json(v, scenario_result_add_step(r));
	r->console_tail = json_str_dup(j, "console_tail");
	r->attempt = (unsigned)json_integer_value(json_object_get(j, "attempt"));
	missing = json_object_get(j, "missing_config");
	r->missing_config = xcalloc(json_array_size(missing) + 1, sizeof(char *));
	json_array_foreach (missing, i, v)
		if (json_string_value(v))
			r->missing_config[r->missing_config_count++] =
			    xstrdup(json_string_value(v));
	findings_from_json(json_object_get(j, "findings"), r);
	v = json_object_get(j, "findings_dropped");
	r->findings_dropped =
	    json_is_integer(v) && json_integer_value(v) > 0 ? (size_t)json_integer_value(v) : 0;
	v = json_object_get(j, "dump");
	r->dump = json_is_object(v) ? json_deep_copy(v) : NULL;
	return 0;
}

char *result_base_name(const char *name)
{
	const char *h = strrchr(name ? name : "", '#');

	return h ? strndup(name, (size_t)(h - name)) : xstrdup(name ? name : "");
}

static json_int_t counter(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

json_t *run_result_pass_rates(const struct run_result *r)
{
	json_t *rates = json_object(), *e, *v;
	const char *key;

	for (size_t i = 0; i < r->count; i++) {
		const struct scenario_result *s = &r->scenarios[i];
		char *name;

		if (!s->attempt)
			continue;
		name = result_base_name(s->name);
		e = json_object_get(rates, name);
		if (!e) {
			e = json_pack("{s:i, s:i}", "runs", 0, "pass", 0);
			json_object_set_new(rates, name, e);
		}
		free(name);
		json_object_set_new(e, "runs", json_integer(counter(e, "runs") + 1));
		if (s->status == ST_PASS || s->status == ST_SKIP)
			json_object_set_new(e, "pass", json_integer(counter(e, "pass") + 1));
	}
	json_object_foreach (rates, key, v) {
		json_int_t runs = json_integer_value(json_object_get(v, "runs"));
		json_int_t pass = json_integer_value(json_object_get(v, "pass"));

		json_object_set_new(v, "rate", json_real((double)pass / (double)runs));
		json_object_set_new(v, "flaky", json_boolean(pass > 0 && pass < runs));
	}
	if (!json_object_size(rates)) {
		json_decref(rates);
		return NULL;
	}
	return rates;
}

static int run_doc_check(const json_t *j, char *why, size_t whylen)
{
	json_t *v = json_object_get(j, "schema_version");

	if (!json_is_object(j) || !json_is_array(json_object_get(j, "scenarios"))) {
		/* the likely mix-up: a scenario's own result.json */
		snprintf(why, whylen, "%s",
			 json_is_object(j) && json_object_get(j, "steps")
			     ? "a scenario's result.json, not a run document (ktb run --json "
			       "writes those)"
			     : "not a ktb run document (no scenarios list; ktb run --json writes "
			       "those)");
		return -EINVAL;
	}
	/* a document without one is version 1 */
	if (!v || !json_is_integer(v) || json_integer_value(v) != RESULT_SCHEMA_VERSION) {
		char *got = v ? json_dumps(v, JSON_ENCODE_ANY) : xstrdup("1 (none given)");

		snprintf(why, whylen, "result schema version %s; this ktb reads version %d",
			 got ? got : "?", RESULT_SCHEMA_VERSION);
		free(got);
		return -EPROTO;
	}
	return 0;
}

/* A list of strings, or NULL when v is not an array of strings only. */
static char **words_from_json(const json_t *v, size_t *n)
{
	char **w = xcalloc(json_array_size(v) + 1, sizeof(*w));
	json_t *e;
	size_t i;

	*n = 0;
	json_array_foreach (v, i, e) {
		if (!json_is_string(e)) {
			words_free(w, *n);
			*n = 0;
			return NULL;
		}
		w[(*n)++] = xstrdup(json_string_value(e));
	}
	return w;
}

static int selection_from_json(const json_t *j, struct run_selection *s, char *why, size_t whylen)
{
	const json_t *sel = json_object_get(j, "selection"), *sh = json_object_get(j, "shard");
	json_int_t k, n, repeat = 1;

	if (!sel || json_is_null(sel))
		goto shard;
	s->hash = json_str_dup(sel, "hash");
	s->scenarios = words_from_json(json_object_get(sel, "scenarios"), &s->scenarios_count);
	s->tags = words_from_json(json_object_get(sel, "tags"), &s->tags_count);
	s->exclude_tags =
	    words_from_json(json_object_get(sel, "exclude_tags"), &s->exclude_tags_count);
	s->names = words_from_json(json_object_get(sel, "names"), &s->names_count);
	s->kernel = json_str_dup(sel, "kernel");
	s->recipe = json_str_dup(sel, "recipe");
	if (json_is_integer(json_object_get(sel, "repeat")))
		repeat = json_integer_value(json_object_get(sel, "repeat"));
	s->repeat = repeat > 0 && repeat <= 100000 ? (unsigned)repeat : 0;
	if (!s->hash || !s->scenarios || !s->tags || !s->exclude_tags || !s->names || !s->repeat)
		return say_err(why, whylen, -EINVAL,
			       "its \"selection\" is not one ktb run writes (a hash, lists of "
			       "strings, a repeat count)");
shard:
	if (!sh || json_is_null(sh))
		return 0;
	if (json_unpack((json_t *)sh, "{s:I, s:I}", "k", &k, "n", &n) || n < 1 || n > 1000 ||
	    k < 1 || k > n)
		return say_err(why, whylen, -EINVAL,
			       "its \"shard\" is not {\"k\": K, \"n\": N} with 1 <= K <= N");
	s->shard_k = (unsigned)k;
	s->shard_n = (unsigned)n;
	return 0;
}

int run_result_from_json(const json_t *j, struct run_result *r, char *why, size_t whylen)
{
	json_t *list, *v;
	size_t i;
	int ret = run_doc_check(j, why, whylen);

	memset(r, 0, sizeof(*r));
	if (ret)
		return ret;
	ret = ms_check(j, "duration_ms", 0, "its ", why, whylen);
	if (ret)
		return ret;
	list = json_object_get(j, "scenarios");
	r->scenarios = xcalloc(json_array_size(list) + 1, sizeof(*r->scenarios));
	json_array_foreach (list, i, v) {
		char times[160];

		if (json_is_object(v) && scenario_times_check(v, times, sizeof(times))) {
			snprintf(why, whylen, "scenario %zu of the run: %s", i + 1, times);
			run_result_free(r);
			return -EINVAL;
		}
		if (scenario_result_from_json(v, &r->scenarios[i])) {
			snprintf(why, whylen, "scenario %zu of the run is not a result document",
				 i + 1);
			run_result_free(r);
			return -EINVAL;
		}
		r->count = i + 1;
	}
	r->run_id = json_str_dup(j, "run_id");
	if (result_parse_utc(json_string_value(json_object_get(j, "started")), &r->started_unix_ms))
		r->started_unix_ms = 0;
	r->duration_ms = json_integer_value(json_object_get(j, "duration_ms"));
	/* the document keeps only whether a signal stopped the run, not which */
	r->interrupted = json_is_true(json_object_get(j, "interrupted")) ? 2 : 0;
	ret = selection_from_json(j, &r->sel, why, whylen);
	if (ret)
		run_result_free(r);
	return ret;
}
