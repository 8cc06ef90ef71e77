#include "findings.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* " (file:line; inlined: f at file:line, ...)" for a decoded frame: the
 * outermost place is the frame's own function, the ones before it were
 * inlined into it. "" when not decoded. */
static char *frame_where(const struct finding_frame *fr)
{
	const struct finding_loc *own;
	char *s, *n;

	if (!fr->locs_count)
		return xstrdup("");
	own = &fr->locs[fr->locs_count - 1];
	s = xasprintf(" (%s:%u", own->file ? own->file : "??", own->line);
	for (size_t i = fr->locs_count - 1; i-- > 0;) {
		const struct finding_loc *l = &fr->locs[i];

		n = xasprintf("%s%s %s at %s:%u", s, i == fr->locs_count - 2 ? "; inlined:" : ",",
			      l->func ? l->func : "??", l->file ? l->file : "??", l->line);
		free(s);
		s = n;
	}
	n = xasprintf("%s)", s);
	free(s);
	return n;
}

char *finding_frame_str(const struct finding_frame *fr)
{
	const char *func = fr->func ? fr->func : "?";
	char *where = frame_where(fr), *s;

	if (fr->module)
		s = xasprintf("%s%s%s [%s]%s", func, fr->off ? "+" : "", fr->off ? fr->off : "",
			      fr->module, where);
	else
		s = xasprintf("%s%s%s%s", func, fr->off ? "+" : "", fr->off ? fr->off : "", where);
	free(where);
	return s;
}

const struct step_result *finding_step(const struct scenario_result *s, const struct finding *f)
{
	if (f->step < 0 || (size_t)f->step >= s->steps_count)
		return NULL;
	return &s->steps[f->step];
}

char *finding_scenario_base(const struct scenario_result *s)
{
	const char *name = s->name ? s->name : "";
	const char *hash = s->attempt ? strrchr(name, '#') : NULL;

	return hash ? strndup(name, (size_t)(hash - name)) : xstrdup(name);
}

/* ---- grouping ---- */

static bool words_have(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* s added to the list unless it is there already (or NULL); s is taken. */
static void words_add(char ***v, size_t *n, char *s)
{
	if (!s || words_have(*v, *n, s)) {
		free(s);
		return;
	}
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

static void words_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static struct finding_group *group_of(struct finding_groups *g, const struct finding *f)
{
	const char *sig = f->signature ? f->signature : "";
	struct finding_group *n;

	for (size_t i = 0; i < g->count; i++)
		if (!strcmp(g->v[i].signature, sig))
			return &g->v[i];
	g->v = xrealloc(g->v, (g->count + 1) * sizeof(*g->v));
	g->seen_in = xrealloc(g->seen_in, (g->count + 1) * sizeof(*g->seen_in));
	g->seen_in[g->count] = 0;
	n = &g->v[g->count++];
	memset(n, 0, sizeof(*n));
	n->signature = xstrdup(sig);
	n->kind = xstrdup(f->kind ? f->kind : "");
	n->title = xstrdup(f->title ? f->title : "");
	n->frames = xcalloc(f->frames_count + 1, sizeof(*n->frames));
	for (size_t k = 0; k < f->frames_count; k++)
		n->frames[n->frames_count++] = finding_frame_str(&f->frames[k]);
	return n;
}

static void group_add(struct finding_groups *g, const struct scenario_result *s,
		      const struct finding *f)
{
	struct finding_group *grp = group_of(g, f);
	size_t *seen = &g->seen_in[grp - g->v];

	grp->count++;
	grp->verdicts[(unsigned)f->verdict < FINDING_VERDICTS ? f->verdict : FINDING_FAILS]++;
	if (*seen != g->last_run) {
		*seen = g->last_run;
		grp->runs++;
	}
	words_add(&grp->scenarios, &grp->scenarios_count, finding_scenario_base(s));
	words_add(&grp->kernels, &grp->kernels_count, xstrdup(s->kernel));
	g->findings++;
}

void finding_groups_add(struct finding_groups *g, const struct run_result *r, bool failing_only)
{
	g->runs++;
	g->failing_only = failing_only;
	g->last_run = g->runs;
	for (size_t i = 0; i < r->count; i++) {
		const struct scenario_result *s = &r->scenarios[i];

		g->dropped += s->findings_dropped;
		for (size_t k = 0; k < s->findings_count; k++)
			if (!failing_only || s->findings[k].verdict == FINDING_FAILS)
				group_add(g, s, &s->findings[k]);
	}
}

static int group_cmp(const void *a, const void *b)
{
	const struct finding_group *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(x->title, y->title);
	return c ? c : strcmp(x->signature, y->signature);
}

void finding_groups_sort(struct finding_groups *g)
{
	/* seen_in follows no order once sorted: adding is over by then */
	free(g->seen_in);
	g->seen_in = NULL;
	if (g->count)
		qsort(g->v, g->count, sizeof(*g->v), group_cmp);
}

void finding_groups_free(struct finding_groups *g)
{
	for (size_t i = 0; i < g->count; i++) {
		struct finding_group *grp = &g->v[i];

		free(grp->signature);
		free(grp->kind);
		free(grp->title);
		words_free(grp->scenarios, grp->scenarios_count);
		words_free(grp->kernels, grp->kernels_count);
		words_free(grp->frames, grp->frames_count);
	}
	free(g->v);
	free(g->seen_in);
	memset(g, 0, sizeof(*g));
}

/* ---- JSON ---- */

static json_t *text(const char *s)
{
	char *clean = utf8_sanitize(s ? s : "");
	json_t *j = json_string(clean);

	free(clean);
	return j;
}

static json_t *texts(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, text(v[i]));
	return a;
}

static json_t *group_to_json(const struct finding_group *grp)
{
	json_t *o = json_object(), *v = json_object();

	for (int k = 0; k < FINDING_VERDICTS; k++)
		json_object_set_new(v, finding_verdict_name((enum finding_verdict)k),
				    json_integer((json_int_t)grp->verdicts[k]));
	json_object_set_new(o, "signature", text(grp->signature));
	json_object_set_new(o, "kind", text(grp->kind));
	json_object_set_new(o, "title", text(grp->title));
	json_object_set_new(o, "count", json_integer((json_int_t)grp->count));
	json_object_set_new(o, "verdicts", v);
	json_object_set_new(o, "runs", json_integer((json_int_t)grp->runs));
	json_object_set_new(o, "scenarios", texts(grp->scenarios, grp->scenarios_count));
	json_object_set_new(o, "kernels", texts(grp->kernels, grp->kernels_count));
	json_object_set_new(o, "frames", texts(grp->frames, grp->frames_count));
	return o;
}

json_t *finding_groups_to_json(const struct finding_groups *g)
{
	json_t *o = json_object(), *a = json_array();

	for (size_t i = 0; i < g->count; i++)
		json_array_append_new(a, group_to_json(&g->v[i]));
	json_object_set_new(o, "runs", json_integer((json_int_t)g->runs));
	json_object_set_new(o, "findings", json_integer((json_int_t)g->findings));
	json_object_set_new(o, "findings_dropped", json_integer((json_int_t)g->dropped));
	json_object_set_new(o, "signatures", a);
	return o;
}
