#include "report_html.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/base64.h>

#include "findings.h"
#include "sha256.h"
#include "util.h"

/*
 * One self-contained page: no request leaves it (its Content-Security-Policy
 * allows only its own style and script, by hash, and data: images), and all
 * of it reads with JavaScript off. The script only adds the filter (a text
 * box and a status choice, also read from "#q=TEXT&status=STATUS") and marks
 * <html data-ktb-js="ok"> once it ran, so a headless browser can tell.
 *
 * Guest output, step labels, messages and file names may hold anything, so
 * every text goes through html_escape. The timeline SVG is shown as an
 * <img> with a data: URI: a browser runs no script and fetches nothing from
 * an SVG used as an image, whatever the file holds.
 */

static const char page_style[] =
    "body{font:14px/1.4 DejaVu Sans,Arial,Helvetica,sans-serif;margin:1em 2em;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-top:1px solid #ccc;"
    "padding-top:.6em}h3{font-size:1em;margin:1em 0 .3em}"
    "table{border-collapse:collapse;margin:.3em 0}"
    "th,td{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}"
    "th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "pre{background:#f7f7f7;border:1px solid #ddd;padding:6px;overflow-x:auto;"
    "white-space:pre-wrap;word-break:break-all;max-height:40em}"
    ".st{font-weight:bold;text-transform:uppercase}.st-pass{color:#1a7f37}"
    ".st-fail,.st-timeout{color:#c62828}.st-error{color:#8e24aa}.st-skip{color:#777}"
    "tr.flaky td{background:#fff4d6}dl{display:grid;grid-template-columns:max-content auto;"
    "gap:2px 12px;margin:.3em 0}dt{color:#555}dd{margin:0}"
    "#filters{margin:.8em 0}#filters input{width:24em}#shown{color:#555;margin-left:1em}"
    "img.timeline{max-width:100%;border:1px solid #ddd}[hidden]{display:none!important}";

static const char page_script[] =
    "(function(){"
    "var q=document.getElementById('q'),st=document.getElementById('status'),"
    "shown=document.getElementById('shown'),"
    "rows=document.querySelectorAll('#results tbody tr');"
    "function dec(s){try{return decodeURIComponent(s.replace(/\\+/g,' '));}"
    "catch(e){return s;}}"
    "function params(){var h=location.hash.slice(1),o={};"
    "if(h.indexOf('=')<0)return o;"
    "h.split('&').forEach(function(kv){var i=kv.indexOf('=');"
    "if(i>0)o[dec(kv.slice(0,i))]=dec(kv.slice(i+1));});return o;}"
    "function keep(s,want){if(want==='all')return true;"
    "if(want==='problem')return s!=='pass'&&s!=='skip';return s===want;}"
    "function apply(){var text=q.value.toLowerCase(),want=st.value||'all',n=0;"
    "for(var i=0;i<rows.length;i++){var r=rows[i],"
    "ok=keep(r.getAttribute('data-status'),want)&&"
    "r.textContent.toLowerCase().indexOf(text)>=0,"
    "sec=document.getElementById(r.getAttribute('data-section'));"
    "r.hidden=!ok;if(sec)sec.hidden=!ok;if(ok)n++;}"
    "shown.textContent=n+' of '+rows.length+' shown';}"
    "function load(){var p=params();if('q' in p)q.value=p.q;"
    "if('status' in p){st.value=p.status;if(!st.value)st.value='all';}apply();}"
    "q.addEventListener('input',apply);st.addEventListener('change',apply);"
    "window.addEventListener('hashchange',load);"
    "document.getElementById('filters').hidden=false;load();"
    "document.documentElement.setAttribute('data-ktb-js','ok');"
    "})();";

const char *report_html_script(void)
{
	return page_script;
}

const char *report_html_style(void)
{
	return page_style;
}

/* ---- escaping ---- */

void html_escape(FILE *f, const char *s, size_t n)
{
	markup_escape(f, MARKUP_HTML, s, n);
}

static void html_str(FILE *f, const char *s)
{
	if (s)
		html_escape(f, s, strlen(s));
}

static void html_attr(FILE *f, const char *name, const char *val)
{
	fprintf(f, " %s=\"", name);
	html_str(f, val);
	fputc('"', f);
}

/* p in base64 (nettle's), 3072 bytes at a time: no padding but at the end. */
static void base64_put(FILE *f, const unsigned char *p, size_t n)
{
	char out[BASE64_ENCODE_RAW_LENGTH(3072)];

	for (size_t i = 0; i < n; i += 3072) {
		size_t k = n - i < 3072 ? n - i : 3072;

		base64_encode_raw(out, k, p + i);
		fwrite(out, 1, BASE64_ENCODE_RAW_LENGTH(k), f);
	}
}

/* 'sha256-BASE64' for a CSP source list. */
static void csp_hash(FILE *f, const char *text)
{
	struct sha256_ctx h;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&h);
	sha256_feed(&h, text, strlen(text));
	sha256_digest(&h, SHA256_DIGEST_SIZE, d);
	fputs("'sha256-", f);
	base64_put(f, d, sizeof(d));
	fputc('\'', f);
}

/* ---- artifacts ---- */

/* The last max_lines lines of a file (at most its last 64 KiB), or NULL. */
static char *file_tail(const char *path, size_t max_lines, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size, from;
	size_t n, start = 0, lines = 0;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0) {
		fclose(f);
		return NULL;
	}
	from = size > 65536 ? size - 65536 : 0;
	fseek(f, from, SEEK_SET);
	buf = xcalloc((size_t)(size - from) + 1, 1);
	n = fread(buf, 1, (size_t)(size - from), f);
	fclose(f);
	n = str_trim_len(buf, n, "\r\n");
	for (size_t i = n; i > 0; i--)
		if (buf[i - 1] == '\n' && ++lines == max_lines) {
			start = i;
			break;
		}
	memmove(buf, buf + start, n - start);
	*len = n - start;
	return buf;
}

/* ---- pieces of the page ---- */

static void put_status(FILE *f, enum status st)
{
	fprintf(f, "<span class=\"st st-%s\">%s</span>", status_name(st), status_name(st));
}

static void put_seconds(FILE *f, int64_t ms)
{
	fprintf(f, "<td class=\"num\">%.1fs</td>", ms / 1000.0);
}

static void page_head(FILE *f, const struct run_result *r)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "img-src data:; style-src ",
	      f);
	csp_hash(f, page_style);
	fputs("; script-src ", f);
	csp_hash(f, page_script);
	fputs("; base-uri 'none'; form-action 'none'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>ktestbed run ",
	      f);
	html_str(f, r->run_id);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>ktestbed run ", page_style);
	html_str(f, r->run_id);
	fputs("</h1>\n", f);
}

static void page_summary(FILE *f, const struct run_result *r)
{
	size_t n[ST_COUNT];
	char started[32];

	run_result_count(r, n);
	result_format_utc(r->started_unix_ms, started, sizeof(started));
	fprintf(f, "<p id=\"summary\">%zu scenario%s: %zu passed, %zu failed", r->count,
		r->count == 1 ? "" : "s", n[ST_PASS], n[ST_FAIL]);
	for (int s = ST_ERROR; s < ST_COUNT; s++)
		if (n[s])
			fprintf(f, ", %zu %s", n[s], status_past((enum status)s));
	fprintf(f, ". Started %s, took %.1fs.", started, r->duration_ms / 1000.0);
	if (r->interrupted)
		fprintf(f, " <strong id=\"interrupted\">Interrupted by signal %d.</strong>",
			r->interrupted);
	fputs("</p>\n", f);
}

/* With --repeat: one row per scenario, in run order. */
static void page_rates(FILE *f, const struct run_result *r)
{
	json_t *rates = run_result_pass_rates(r), *e;
	const char *name;
	size_t k = 0;

	if (!rates)
		return;
	/* jansson keeps insertion order: the order the scenarios first ran */
	fputs("<h2 id=\"pass-rates\">Pass rates</h2>\n<table id=\"rates\">\n<thead><tr><th>"
	      "scenario</th><th>passed</th><th>rate</th><th>flaky</th></tr></thead>\n<tbody>\n",
	      f);
	json_object_foreach (rates, name, e) {
		bool flaky = json_is_true(json_object_get(e, "flaky"));

		fprintf(f, "<tr id=\"rate-%zu\"%s", ++k, flaky ? " class=\"flaky\"" : "");
		html_attr(f, "data-name", name);
		fputs("><td>", f);
		html_str(f, name);
		fprintf(f,
			"</td><td class=\"num\">%lld/%lld</td><td class=\"num\">%.0f%%</td>"
			"<td>%s</td></tr>\n",
			(long long)json_integer_value(json_object_get(e, "pass")),
			(long long)json_integer_value(json_object_get(e, "runs")),
			json_real_value(json_object_get(e, "rate")) * 100, flaky ? "flaky" : "");
	}
	fputs("</tbody>\n</table>\n", f);
	json_decref(rates);
}

static void page_filters(FILE *f)
{
	fputs("<div id=\"filters\" hidden>\n<label>filter <input id=\"q\" type=\"search\" "
	      "placeholder=\"name, tag, message\" autocomplete=\"off\"></label>\n"
	      "<label>status <select id=\"status\">",
	      f);
	/* everything, everything but passes, then one status */
	fputs("<option value=\"all\">all</option><option value=\"problem\">not passed</option>", f);
	for (int s = 0; s < ST_COUNT; s++)
		fprintf(f, "<option value=\"%s\">%s</option>", status_name((enum status)s),
			status_name((enum status)s));
	fputs("</select></label><span id=\"shown\"></span>\n</div>\n", f);
}

static void metric_value(FILE *f, const json_t *v)
{
	char *text;

	if (json_is_integer(v)) {
		fprintf(f, "<td class=\"num\">%lld</td>", (long long)json_integer_value(v));
		return;
	}
	text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	fputs("<td>", f);
	html_str(f, text);
	fputs("</td>", f);
	free(text);
}

static void row_tags(FILE *f, const struct scenario_result *s)
{
	for (size_t t = 0; t < s->tags_count; t++) {
		if (t)
			fputs(", ", f);
		html_str(f, s->tags[t]);
	}
}

static void result_row(FILE *f, const struct scenario_result *s, size_t idx)
{
	json_t *boot = json_object_get(s->metrics, "boot_ms");

	fprintf(f, "<tr id=\"row-%zu\" data-section=\"s-%zu\" data-status=\"%s\"", idx, idx,
		status_name(s->status));
	html_attr(f, "data-name", s->name);
	fputs("><td>", f);
	put_status(f, s->status);
	fprintf(f, "</td><td><a href=\"#s-%zu\">", idx);
	html_str(f, s->name);
	fputs("</a></td>", f);
	put_seconds(f, s->duration_ms);
	if (json_is_integer(boot))
		put_seconds(f, json_integer_value(boot));
	else
		fputs("<td></td>", f);
	fputs("<td>", f);
	row_tags(f, s);
	fputs("</td><td>", f);
	html_str(f, s->message);
	fputs("</td></tr>\n", f);
}

static void page_table(FILE *f, const struct run_result *r)
{
	page_filters(f);
	fputs("<table id=\"results\">\n<thead><tr><th>status</th><th>scenario</th><th>time</th>"
	      "<th>boot</th><th>tags</th><th>message</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < r->count; i++)
		result_row(f, &r->scenarios[i], i + 1);
	fputs("</tbody>\n</table>\n", f);
}

/* ---- one scenario ---- */

static void dl_item(FILE *f, const char *term, const char *val)
{
	if (!val)
		return;
	fprintf(f, "<dt>%s</dt><dd>", term);
	html_str(f, val);
	fputs("</dd>\n", f);
}

static void scenario_facts(FILE *f, const struct scenario_result *s)
{
	fputs("<dl>\n", f);
	dl_item(f, "summary", s->summary);
	dl_item(f, "file", s->file);
	dl_item(f, "kernel", s->kernel);
	dl_item(f, "accel", s->accel);
	fprintf(f, "<dt>time</dt><dd>%.1fs</dd>\n", s->duration_ms / 1000.0);
	if (s->attempt)
		fprintf(f, "<dt>attempt</dt><dd>%u</dd>\n", s->attempt);
	dl_item(f, "message", s->message);
	dl_item(f, "artifacts", s->artifacts);
	fputs("</dl>\n", f);
}

static void step_row(FILE *f, const struct step_result *st, size_t k)
{
	fprintf(f, "<tr data-status=\"%s\"><td class=\"num\">%zu</td><td>", status_name(st->status),
		k);
	put_status(f, st->status);
	fputs("</td><td>", f);
	html_str(f, st->name);
	fputs("</td><td class=\"num\">", f);
	if (st->line > 0)
		fprintf(f, "%d", st->line);
	fputs("</td>", f);
	put_seconds(f, st->start_ms);
	put_seconds(f, st->duration_ms);
	fputs("<td class=\"num\">", f);
	if (st->exit_code >= 0)
		fprintf(f, "%d", st->exit_code);
	fputs("</td><td>", f);
	html_str(f, st->message);
	fputs("</td></tr>\n", f);
}

/* A step's stdout or stderr, folded away unless the step went wrong. */
static void step_output(FILE *f, size_t idx, size_t k, const char *what, const char *text,
			bool open)
{
	size_t n = text ? strlen(text) : 0, skip = n > HTML_OUTPUT_MAX ? n - HTML_OUTPUT_MAX : 0;

	if (!n)
		return;
	fprintf(f,
		"<details id=\"s-%zu-step-%zu-%s\"%s><summary>step %zu %s (%zu bytes)</summary>"
		"<pre>",
		idx, k, what, open ? " open" : "", k, what, n);
	if (skip)
		fprintf(f, "[... the first %zu bytes are in result.json]\n", skip);
	html_escape(f, text + skip, n - skip);
	fputs("</pre></details>\n", f);
}

/* The subtests a step reported (KTAP), one row each; folded away unless
 * the step went wrong. */
static void step_subtests(FILE *f, size_t idx, size_t k, const struct step_result *st, bool open)
{
	if (!st->subtests_count)
		return;
	fprintf(f,
		"<details id=\"s-%zu-step-%zu-subtests\"%s><summary>step %zu subtests (%zu)"
		"</summary>\n<table class=\"subtests\">\n<thead><tr><th>status</th><th>subtest</th>"
		"<th>time</th><th>reason</th><th>diagnostics</th></tr></thead>\n<tbody>\n",
		idx, k, open ? " open" : "", k, st->subtests_count);
	for (size_t i = 0; i < st->subtests_count; i++) {
		const struct subtest *t = &st->subtests[i];

		fprintf(f, "<tr data-status=\"%s\"><td>", status_name(t->status));
		put_status(f, t->status);
		fputs("</td><td>", f);
		html_str(f, t->name);
		fputs("</td>", f);
		if (t->duration_ms >= 0)
			put_seconds(f, t->duration_ms);
		else
			fputs("<td></td>", f);
		fputs("<td>", f);
		html_str(f, t->reason);
		fputs("</td><td>", f);
		if (t->diag) {
			fputs("<pre>", f);
			html_str(f, t->diag);
			fputs("</pre>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table></details>\n", f);
}

static void scenario_steps(FILE *f, const struct scenario_result *s, size_t idx)
{
	if (!s->steps_count)
		return;
	fputs("<h3>Steps</h3>\n<table class=\"steps\">\n<thead><tr><th>#</th><th>status</th>"
	      "<th>step</th><th>line</th><th>start</th><th>time</th><th>exit</th><th>message"
	      "</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t k = 0; k < s->steps_count; k++)
		step_row(f, &s->steps[k], k + 1);
	fputs("</tbody>\n</table>\n", f);
	for (size_t k = 0; k < s->steps_count; k++) {
		const struct step_result *st = &s->steps[k];
		bool bad = st->status != ST_PASS && st->status != ST_SKIP;

		step_output(f, idx, k + 1, "stdout", st->out, bad);
		step_output(f, idx, k + 1, "stderr", st->err, bad);
		step_subtests(f, idx, k + 1, st, bad);
	}
}

/* A finding's verdict in the status style: a failing one as a failure,
 * an expected or tolerated one greyed as a skip. */
static void put_verdict(FILE *f, enum finding_verdict v)
{
	fprintf(f, "<span class=\"st %s\">%s</span>", v == FINDING_FAILS ? "st-fail" : "st-skip",
		finding_verdict_name(v));
}

/* Its stack, one frame a line ("? " before an unreliable one), the
 * signature and its text: folded away. */
static void finding_details(FILE *f, const struct finding *fd, size_t idx, size_t k)
{
	fprintf(f,
		"<details id=\"s-%zu-finding-%zu-details\"><summary>stack (%zu frames) and "
		"text</summary><pre class=\"stack\">",
		idx, k, fd->frames_count);
	for (size_t i = 0; i < fd->frames_count; i++) {
		char *fr = finding_frame_str(&fd->frames[i]);

		fputs(fd->frames[i].reliable ? "" : "? ", f);
		html_str(f, fr);
		fputc('\n', f);
		free(fr);
	}
	fputs("</pre><p>signature ", f);
	html_str(f, fd->signature);
	fputs("</p><pre class=\"finding-text\">", f);
	html_str(f, fd->text);
	fputs("</pre></details>", f);
}

static void finding_row(FILE *f, const struct scenario_result *s, const struct finding *fd,
			size_t idx, size_t k)
{
	const struct step_result *st = finding_step(s, fd);

	fprintf(f, "<tr id=\"s-%zu-finding-%zu\"><td class=\"num\">%zu</td><td>", idx, k, k);
	put_verdict(f, fd->verdict);
	if (fd->reason) {
		fputs(" (", f);
		html_str(f, fd->reason);
		fputc(')', f);
	}
	fputs("</td><td>", f);
	html_str(f, fd->kind);
	fputs("</td><td>", f);
	html_str(f, fd->title);
	if (fd->panicked)
		fputs(" (a panic followed)", f);
	fputs("</td><td>", f);
	if (st) {
		fprintf(f, "%d: ", fd->step + 1);
		html_str(f, st->name);
	} else {
		fputs("before the first", f);
	}
	if (fd->from_dmesg)
		fputs("</td><td class=\"num\">dmesg</td><td>", f);
	else
		fprintf(f, "</td><td class=\"num\">%ld</td><td>", fd->console_line);
	finding_details(f, fd, idx, k);
	fputs("</td></tr>\n", f);
}

/* The kernel reports the console carried, in console order, one row each. */
static void scenario_findings(FILE *f, const struct scenario_result *s, size_t idx)
{
	if (!s->findings_count && !s->findings_dropped)
		return;
	fprintf(f,
		"<h3>Kernel reports</h3>\n<table id=\"s-%zu-findings\" class=\"findings\">\n"
		"<thead><tr><th>#</th><th>verdict</th><th>kind</th><th>title</th><th>step</th>"
		"<th>console line</th><th>stack and text</th></tr></thead>\n<tbody>\n",
		idx);
	for (size_t k = 0; k < s->findings_count; k++)
		finding_row(f, s, &s->findings[k], idx, k + 1);
	fputs("</tbody>\n</table>\n", f);
	if (s->findings_dropped)
		fprintf(f, "<p>and %zu more, past the scan&#39;s limit (only counted)</p>\n",
			s->findings_dropped);
}

static void scenario_metrics(FILE *f, const struct scenario_result *s)
{
	const char *key;
	json_t *v;

	if (!json_object_size(s->metrics))
		return;
	fputs("<h3>Metrics</h3>\n<table class=\"metrics\">\n<tbody>\n", f);
	json_object_foreach (s->metrics, key, v) {
		fputs("<tr><th>", f);
		html_str(f, key);
		fputs("</th>", f);
		metric_value(f, v);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

/* The result's own tail (kept on failure), else the end of console.log. */
static void scenario_console(FILE *f, const struct scenario_result *s, size_t idx)
{
	char *path, *text = NULL;
	size_t len = 0;

	if (s->console_tail) {
		fprintf(f, "<h3>Console</h3>\n<pre id=\"s-%zu-console\" class=\"console\">", idx);
		html_str(f, s->console_tail);
		fputs("</pre>\n", f);
		return;
	}
	if (!s->artifacts)
		return;
	path = xasprintf("%s/console.log", s->artifacts);
	text = file_tail(path, HTML_CONSOLE_LINES, &len);
	free(path);
	if (!text)
		return;
	fprintf(f,
		"<h3>Console <small>(last %d lines of console.log)</small></h3>\n"
		"<pre id=\"s-%zu-console\" class=\"console\">",
		HTML_CONSOLE_LINES, idx);
	html_escape(f, text, len);
	fputs("</pre>\n", f);
	free(text);
}

/* Only a file that opens like an SVG document is shown, and only as an
 * image, never inline. */
static bool looks_like_svg(const char *p, size_t n)
{
	size_t i = strspn(p, " \t\r\n");

	return i < n && (!strncmp(p + i, "<svg", 4) || !strncmp(p + i, "<?xml", 5));
}

static void scenario_timeline(FILE *f, const struct scenario_result *s, size_t idx)
{
	char *path, *svg;
	size_t len = 0;

	if (!s->artifacts)
		return;
	path = xasprintf("%s/timeline.svg", s->artifacts);
	svg = read_file(path, &len);
	free(path);
	if (!svg)
		return;
	fputs("<h3>Timeline</h3>\n", f);
	if (len > HTML_SVG_MAX || !looks_like_svg(svg, len)) {
		fprintf(f, "<p>timeline.svg is %s; see the artifacts folder.</p>\n",
			len > HTML_SVG_MAX ? "too large to embed" : "not an SVG image");
	} else {
		fprintf(f,
			"<img id=\"s-%zu-timeline\" class=\"timeline\" alt=\"suspend/resume "
			"timeline\" src=\"data:image/svg+xml;base64,",
			idx);
		base64_put(f, (const unsigned char *)svg, len);
		fputs("\">\n", f);
	}
	free(svg);
}

static void page_scenario(FILE *f, const struct scenario_result *s, size_t idx)
{
	fprintf(f, "<section id=\"s-%zu\" class=\"scenario\" data-status=\"%s\"", idx,
		status_name(s->status));
	html_attr(f, "data-name", s->name);
	fputs(">\n<h2>", f);
	put_status(f, s->status);
	fputc(' ', f);
	html_str(f, s->name);
	fputs("</h2>\n", f);
	scenario_facts(f, s);
	scenario_steps(f, s, idx);
	scenario_findings(f, s, idx);
	scenario_metrics(f, s);
	scenario_console(f, s, idx);
	scenario_timeline(f, s, idx);
	fputs("</section>\n", f);
}

int report_html(const struct run_result *r, FILE *f)
{
	page_head(f, r);
	page_summary(f, r);
	page_rates(f, r);
	page_table(f, r);
	for (size_t i = 0; i < r->count; i++)
		page_scenario(f, &r->scenarios[i], i + 1);
	fprintf(f, "<script>%s</script>\n</body>\n</html>\n", page_script);
	return ferror(f) ? -EIO : 0;
}
