#include "report_kcidb.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "report_json.h"
#include "util.h"

/* How long one path component may get: step names are commands. */
#define KCIDB_COMPONENT_MAX 96

/* the schema's statuses, indexed by enum status */
static const char *const kcidb_statuses[ST_COUNT] = {
	[ST_PASS] = "PASS",    [ST_FAIL] = "FAIL", [ST_ERROR] = "ERROR",
	[ST_TIMEOUT] = "FAIL", [ST_SKIP] = "SKIP",
};

const char *kcidb_status(enum status s)
{
	return (unsigned)s < ST_COUNT ? kcidb_statuses[s] : "ERROR";
}

static bool path_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

void kcidb_path_component(const char *name, char *out, size_t len)
{
	size_t o = 0;
	bool gap = false;

	for (const char *p = name ? name : ""; *p && o + 1 < len; p++) {
		if (path_char_ok(*p)) {
			if (gap && o && o + 2 < len)
				out[o++] = '_';
			gap = false;
			out[o++] = *p;
		} else {
			gap = true;
		}
	}
	if (!o && len > 1)
		out[o++] = '_';
	out[o] = '\0';
}

/* Text as the schema takes it: valid UTF-8 (no NUL can occur in a C
 * string), the last KCIDB_EXCERPT_MAX bytes, cut at a character boundary. */
static json_t *excerpt(const char *s)
{
	size_t n = strlen(s), from = n > KCIDB_EXCERPT_MAX ? n - KCIDB_EXCERPT_MAX : 0;
	char *clean;
	json_t *j;

	while (from < n && ((unsigned char)s[from] & 0xc0) == 0x80)
		from++;
	clean = utf8_sanitize(s + from);
	/* a replaced byte grew by two: trim the head again */
	n = strlen(clean);
	from = n > KCIDB_EXCERPT_MAX ? n - KCIDB_EXCERPT_MAX : 0;
	while (clean[from] && ((unsigned char)clean[from] & 0xc0) == 0x80)
		from++;
	j = json_string(clean + from);
	free(clean);
	return j;
}

static json_t *text(const char *s)
{
	char *clean = utf8_sanitize(s);
	json_t *j = json_string(clean);

	free(clean);
	return j;
}

/* set key to text s when s is given; the schema allows no nulls */
static void put_text(json_t *o, const char *key, const char *s)
{
	if (s)
		json_object_set_new(o, key, text(s));
}

static void put_time(json_t *o, const char *key, int64_t unix_ms)
{
	char when[32], buf[48];

	result_format_utc(unix_ms, when, sizeof(when));
	/* RFC 3339 with milliseconds: "...T12:00:00.250Z" */
	snprintf(buf, sizeof(buf), "%.*s.%03dZ", (int)strlen(when) - 1, when,
		 (int)(unix_ms % 1000));
	json_object_set_new(o, key, json_string(buf));
}

/* What the kernel booted by the run is called: the first scenario's. */
static const char *run_kernel(const struct run_result *r)
{
	for (size_t i = 0; i < r->count; i++)
		if (r->scenarios[i].kernel)
			return r->scenarios[i].kernel;
	return NULL;
}

static json_t *checkout(const struct run_result *r, const char *id)
{
	json_t *o = json_object(), *misc = json_object();
	const char *k = run_kernel(r);

	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "origin", json_string(KCIDB_ORIGIN));
	/* a packaged or prebuilt kernel: no git commit to name */
	put_text(o, "comment", k);
	put_time(o, "start_time", r->started_unix_ms);
	put_text(misc, "kernel_release", k);
	json_object_set_new(o, "misc", misc);
	return o;
}

static json_t *build(const struct run_result *r, const char *id)
{
	json_t *o = json_object(), *misc = json_object();
	const char *k = run_kernel(r);

	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "checkout_id", json_string(id));
	json_object_set_new(o, "origin", json_string(KCIDB_ORIGIN));
	json_object_set_new(o, "architecture", json_string("x86_64"));
	put_text(o, "comment", k);
	put_time(o, "start_time", r->started_unix_ms);
	/* the kernel ktb booted, built elsewhere: nothing to say of its build */
	put_text(misc, "kernel_release", k);
	put_text(misc, "run_id", r->run_id);
	json_object_set_new(o, "misc", misc);
	return o;
}

/* What every test of scenario s shares: ids below it, where it ran. */
struct scn_ctx {
	const struct run_result *r;
	const struct scenario_result *s;
	const char *build_id; /* "ktestbed:RUN", also the prefix of the tests' ids */
	char path[KCIDB_COMPONENT_MAX + 16];
	int64_t started;
};

static json_t *test_new(const struct scn_ctx *c, const char *id, const char *path, enum status st)
{
	json_t *o = json_object(), *env = json_object(), *em = json_object();

	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "build_id", json_string(c->build_id));
	json_object_set_new(o, "origin", json_string(KCIDB_ORIGIN));
	json_object_set_new(o, "path", json_string(path));
	json_object_set_new(o, "status", json_string(kcidb_status(st)));
	json_object_set_new(env, "comment", json_string("QEMU virtual machine (ktestbed)"));
	put_text(em, "accel", c->s->accel);
	put_text(em, "kernel_release", c->s->kernel);
	json_object_set_new(env, "misc", em);
	json_object_set_new(o, "environment", env);
	return o;
}

static json_t *misc_of(enum status st, const char *message)
{
	json_t *m = json_object();

	/* ours, finer than the schema's: a timeout stays a timeout here */
	json_object_set_new(m, "ktb_status", json_string(status_name(st)));
	put_text(m, "message", message);
	return m;
}

/* message, then the step's error and output, the end of it */
static char *step_log(const struct step_result *st)
{
	const char *part[] = { st->message, st->err, st->out };
	char *log = xstrdup("");

	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		char *longer;

		if (!part[i] || !*part[i])
			continue;
		longer = xasprintf("%s%s%s", log, *log ? "\n" : "", part[i]);
		free(log);
		log = longer;
	}
	return log;
}

static void subtest_tests(const struct scn_ctx *c, const struct step_result *st, size_t si,
			  const char *step_path, json_t *tests)
{
	for (size_t i = 0; i < st->subtests_count; i++) {
		const struct subtest *t = &st->subtests[i];
		char *id = xasprintf("%s:%s:%zu.%zu", c->build_id, c->s->name ? c->s->name : "",
				     si + 1, i + 1);
		char *path = xstrdup(step_path), *name = xstrdup(t->name ? t->name : "");
		char *save = NULL, comp[KCIDB_COMPONENT_MAX];
		json_t *o, *m;

		/* "suite.case": one component each */
		for (char *p = strtok_r(name, ".", &save); p; p = strtok_r(NULL, ".", &save)) {
			char *longer;

			kcidb_path_component(p, comp, sizeof(comp));
			longer = xasprintf("%s.%s", path, comp);
			free(path);
			path = longer;
		}
		o = test_new(c, id, path, t->status);
		put_time(o, "start_time", c->started + st->start_ms);
		if (t->duration_ms >= 0)
			json_object_set_new(o, "duration",
					    json_real((double)t->duration_ms / 1000));
		if (t->diag && t->status != ST_PASS)
			json_object_set_new(o, "log_excerpt", excerpt(t->diag));
		put_text(o, "comment", t->name);
		m = misc_of(t->status, t->reason);
		json_object_set_new(o, "misc", m);
		json_array_append_new(tests, o);
		free(id);
		free(path);
		free(name);
	}
}

static void step_test(const struct scn_ctx *c, size_t si, json_t *tests)
{
	const struct step_result *st = &c->s->steps[si];
	char comp[KCIDB_COMPONENT_MAX], *path, *id, *log;
	json_t *o, *m;

	kcidb_path_component(st->name, comp, sizeof(comp));
	path = xasprintf("%s.%s", c->path, comp);
	id = xasprintf("%s:%s:%zu", c->build_id, c->s->name ? c->s->name : "", si + 1);
	o = test_new(c, id, path, st->status);
	put_text(o, "comment", st->name);
	put_time(o, "start_time", c->started + st->start_ms);
	json_object_set_new(o, "duration", json_real((double)st->duration_ms / 1000));
	log = step_log(st);
	if (st->status != ST_PASS && *log)
		json_object_set_new(o, "log_excerpt", excerpt(log));
	m = misc_of(st->status, st->message);
	if (st->exit_code >= 0)
		json_object_set_new(m, "exit_code", json_integer(st->exit_code));
	json_object_set_new(m, "line", json_integer(st->line));
	json_object_set_new(o, "misc", m);
	json_array_append_new(tests, o);
	subtest_tests(c, st, si, path, tests);
	free(log);
	free(id);
	free(path);
}

static json_t *strings(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, text(v[i]));
	return a;
}

static void scenario_test(struct scn_ctx *c, json_t *tests)
{
	const struct scenario_result *s = c->s;
	char *id = xasprintf("%s:%s", c->build_id, s->name ? s->name : "");
	json_t *o = test_new(c, id, c->path, s->status), *m = misc_of(s->status, s->message);

	put_text(o, "comment", s->summary);
	put_time(o, "start_time", c->started);
	json_object_set_new(o, "duration", json_real((double)s->duration_ms / 1000));
	if (s->status != ST_PASS && (s->console_tail || s->message))
		json_object_set_new(o, "log_excerpt",
				    excerpt(s->console_tail ? s->console_tail : s->message));
	put_text(m, "file", s->file);
	put_text(m, "artifacts", s->artifacts);
	json_object_set_new(m, "tags", strings(s->tags, s->tags_count));
	if (s->attempt)
		json_object_set_new(m, "attempt", json_integer(s->attempt));
	if (s->missing_config_count)
		json_object_set_new(m, "missing_config",
				    strings(s->missing_config, s->missing_config_count));
	if (s->metrics)
		json_object_set(m, "metrics", s->metrics);
	json_object_set_new(o, "misc", m);
	json_array_append_new(tests, o);
	free(id);
}

/* ktestbed.<scenario>; a repeated one's attempts share the path ("smoke#2" is
 * smoke, its attempt in misc) */
static void scenario_path(const struct scenario_result *s, char *out, size_t len)
{
	const char *name = s->name ? s->name : "";
	const char *hash = s->attempt ? strrchr(name, '#') : NULL;
	char *base = hash ? strndup(name, (size_t)(hash - name)) : xstrdup(name);
	char comp[KCIDB_COMPONENT_MAX];

	kcidb_path_component(base, comp, sizeof(comp));
	snprintf(out, len, "%s.%s", KCIDB_ORIGIN, comp);
	free(base);
}

/* ---- findings: issues and incidents ---- */

static bool issue_listed(json_t *issues, const char *id)
{
	size_t i;
	json_t *o;

	json_array_foreach (issues, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "id")), id))
			return true;
	return false;
}

/* One issue per signature: the same report in any run is the same issue.
 * A kernel report is the tested code's doing. */
static void finding_issue(const struct finding *fd, const char *issue_id, json_t *issues)
{
	json_t *o, *misc;

	if (issue_listed(issues, issue_id))
		return;
	o = json_object();
	misc = json_object();
	json_object_set_new(o, "id", text(issue_id));
	json_object_set_new(o, "version", json_integer(KCIDB_ISSUE_VERSION));
	json_object_set_new(o, "origin", json_string(KCIDB_ORIGIN));
	json_object_set_new(o, "culprit",
			    json_pack("{s:b, s:b, s:b}", "code", 1, "tool", 0, "harness", 0));
	put_text(o, "comment", fd->title);
	put_text(misc, "kind", fd->kind);
	put_text(misc, "signature", fd->signature);
	json_object_set_new(o, "misc", misc);
	json_array_append_new(issues, o);
}

static json_t *frame_strings(const struct finding *fd)
{
	json_t *a = json_array();

	for (size_t k = 0; k < fd->frames_count; k++) {
		char *fr = finding_frame_str(&fd->frames[k]);

		json_array_append_new(a, text(fr));
		free(fr);
	}
	return a;
}

/* The occurrence, on the step test it was printed in (the scenario's test
 * before the first step). Present whatever its verdict: the report was
 * printed; misc.verdict says whether it failed the test. */
static json_t *finding_incident(const struct scn_ctx *c, const struct finding *fd, size_t k,
				const char *issue_id)
{
	const char *name = c->s->name ? c->s->name : "";
	char *id = xasprintf("%s:%s:finding:%zu", c->build_id, name, k + 1);
	char *test = finding_step(c->s, fd) ? xasprintf("%s:%s:%d", c->build_id, name, fd->step + 1)
					    : xasprintf("%s:%s", c->build_id, name);
	json_t *o = json_object(), *misc = json_object();

	json_object_set_new(o, "id", text(id));
	json_object_set_new(o, "origin", json_string(KCIDB_ORIGIN));
	json_object_set_new(o, "issue_id", text(issue_id));
	json_object_set_new(o, "issue_version", json_integer(KCIDB_ISSUE_VERSION));
	json_object_set_new(o, "build_id", text(c->build_id));
	json_object_set_new(o, "test_id", text(test));
	json_object_set_new(o, "present", json_true());
	put_text(o, "comment", fd->title);
	json_object_set_new(misc, "verdict", json_string(finding_verdict_name(fd->verdict)));
	put_text(misc, "reason", fd->reason);
	put_text(misc, "kind", fd->kind);
	json_object_set_new(misc, "console_line", json_integer(fd->console_line));
	json_object_set_new(misc, "panicked", json_boolean(fd->panicked));
	json_object_set_new(misc, "frames", frame_strings(fd));
	if (fd->text)
		json_object_set_new(misc, "text", excerpt(fd->text));
	json_object_set_new(o, "misc", misc);
	free(id);
	free(test);
	return o;
}

static void scenario_findings(const struct scn_ctx *c, json_t *issues, json_t *incidents)
{
	for (size_t k = 0; k < c->s->findings_count; k++) {
		const struct finding *fd = &c->s->findings[k];
		char *issue_id =
		    xasprintf("%s:%s", KCIDB_ORIGIN, fd->signature ? fd->signature : "");

		finding_issue(fd, issue_id, issues);
		json_array_append_new(incidents, finding_incident(c, fd, k, issue_id));
		free(issue_id);
	}
}

json_t *kcidb_document(const struct run_result *r)
{
	char *id = xasprintf("%s:%s", KCIDB_ORIGIN, r->run_id ? r->run_id : "");
	json_t *doc = json_object(), *tests = json_array();
	json_t *issues = json_array(), *incidents = json_array();

	json_object_set_new(doc, "version",
			    json_pack("{s:i, s:i}", "major", KCIDB_MAJOR, "minor", KCIDB_MINOR));
	json_object_set_new(doc, "checkouts", json_pack("[o]", checkout(r, id)));
	json_object_set_new(doc, "builds", json_pack("[o]", build(r, id)));
	for (size_t i = 0; i < r->count; i++) {
		struct scn_ctx c = { .r = r, .s = &r->scenarios[i], .build_id = id };

		scenario_path(c.s, c.path, sizeof(c.path));
		/* when it began; documents from before that was recorded: the run's start */
		c.started = c.s->started_unix_ms ? c.s->started_unix_ms : r->started_unix_ms;
		scenario_test(&c, tests);
		for (size_t s = 0; s < c.s->steps_count; s++)
			step_test(&c, s, tests);
		scenario_findings(&c, issues, incidents);
	}
	json_object_set_new(doc, "tests", tests);
	json_object_set_new(doc, "issues", issues);
	json_object_set_new(doc, "incidents", incidents);
	free(id);
	return doc;
}

int report_kcidb(const struct run_result *r, FILE *f)
{
	return report_json_write(kcidb_document(r), f);
}
