/* The table of step kinds' rows, and the steps' loading every kind shares
 * (step_kind.h): which kind a step is, keys of another kind, the machine
 * parts, the timeout and what fits in it, a paused VM, expect, and the
 * pauses of all the steps together. A kind's own checks are its row's. */
#include "step_kind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "step_expect.h"
#include "util.h"

/* Each kind's row is kind_KEYWORD in its own file: a kind in
 * KTB_STEP_KINDS without one does not link. */
/* clang-format off */
#define KTB_STEP_ROW_DECL(id, keyword) extern const struct step_kind_row kind_##keyword;
KTB_STEP_KINDS(KTB_STEP_ROW_DECL)
#undef KTB_STEP_ROW_DECL

const struct step_kind_row *const step_kinds[STEP_KIND_COUNT] = {
#define KTB_STEP_ROW_REF(id, keyword) [STEP_##id] = &kind_##keyword,
	KTB_STEP_KINDS(KTB_STEP_ROW_REF)
#undef KTB_STEP_ROW_REF
};
/* clang-format on */

/* ", run, wait, ..." from KTB_STEP_KINDS: the list past its first ", ". */
#define KTB_STEP_KEYWORD(id, keyword) ", " #keyword
static const char step_keywords[] = KTB_STEP_KINDS(KTB_STEP_KEYWORD);
#undef KTB_STEP_KEYWORD

static const char *step_arg(const struct step *st, const struct step_kind_row *row)
{
	return *(char *const *)((const char *)st + row->field);
}

const char *step_in_guest(const struct step *st)
{
	return step_kinds[st->kind]->keyword;
}

bool step_capture_before(const struct scenario *s, const struct step *st, const char *name)
{
	for (const struct step *p = s->steps; p < st; p++) {
		const struct step_kind_row *row = step_kinds[p->kind];
		const char *saved = row->capture ? row->capture(p) : NULL;

		if (saved && !strcmp(saved, name))
			return true;
	}
	return false;
}

bool step_saved_before(const struct scenario *s, const struct step *st, const char *name)
{
	for (const struct step *p = s->steps; p < st; p++) {
		const struct step_kind_row *row = step_kinds[p->kind];
		const char *saved = row->saved_as ? row->saved_as(p) : NULL;

		if (saved && !strcmp(saved, name))
			return true;
	}
	return false;
}

int step_paused_before(const struct scenario *s, const struct step *st)
{
	int stop = -1;

	for (const struct step *p = s->steps; p < st; p++) {
		const struct step_kind_row *row = step_kinds[p->kind];
		enum step_vm vm = row->vm_after ? row->vm_after(p) : VM_SAME;

		if (vm == VM_PAUSED)
			stop = (int)(p - s->steps);
		else if (vm != VM_SAME)
			stop = -1;
	}
	return stop;
}

static int step_kind_find(struct load_ctx *c, struct step *st, const char *path,
			  const struct step_kind_row **out)
{
	const struct step_kind_row *found = NULL;

	for (size_t i = 0; i < STEP_KIND_COUNT; i++) {
		if (!step_arg(st, step_kinds[i]))
			continue;
		if (found)
			return fail(c, path,
				    "two actions (%s and %s); a step does one thing, "
				    "split it into two steps",
				    found->keyword, step_kinds[i]->keyword);
		found = step_kinds[i];
	}
	if (!found)
		return fail(c, path, "no action; give one of %s", step_keywords + 2);
	*out = found;
	return 0;
}

/* The machine parts a kind needs whatever its argument names; those the
 * argument picks (a disk, a sleep state) are the kind's own check's. */
static int step_check_needs(struct load_ctx *c, const struct step_kind_row *row, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.%s", path, row->keyword);
	if ((row->needs & NEEDS_BALLOON) && !c->s->machine->balloon)
		return fail(c, f,
			    "the machine has no balloon; give it balloon: "
			    "{free_page_reporting: true|false}");
	return 0;
}

/* A key that only another kind of step takes (its row's keys). */
static int step_check_modifiers(struct load_ctx *c, const struct step *st, const char *path)
{
	char f[64];

	for (size_t k = 0; k < STEP_KIND_COUNT; k++) {
		const char *key = step_kinds[k]->keys;
		int n;

		for (; *key; key += n + (key[n] == ' ')) {
			n = (int)strcspn(key, " ");
			snprintf(f, sizeof(f), "%s.%.*s", path, n, key);
			if (st->kind != step_kinds[k]->kind && doc_get(c, f))
				return fail(
				    c, f, "\"%.*s\" belongs to a %s step, this is a %s step", n,
				    key, step_kinds[k]->keyword, step_kinds[st->kind]->keyword);
		}
	}
	return 0;
}

/* A step the guest must carry out (its agent, its console, its kernel)
 * cannot run while QMP stop holds the vCPUs: the step after an earlier
 * stop that no cont undid would only time out. The host's own steps
 * (qmp, measure, screen, hybrid_stats, a plain wait) still run. */
static int step_check_paused(struct load_ctx *c, const struct step *st, const char *path)
{
	const struct step_kind_row *row = step_kinds[st->kind];
	const char *key = row->guest_key ? row->guest_key(st) : NULL;
	int stop;
	char f[64];

	if (!key)
		return 0;
	stop = step_paused_before(c->s, st);
	if (stop < 0)
		return 0;
	snprintf(f, sizeof(f), "%s.%s", path, key);
	return fail(c, f,
		    "steps[%d] paused the VM (qmp: stop) and no qmp: cont resumed it: the guest "
		    "cannot carry out this step, which would only time out; give a qmp: cont "
		    "before it",
		    stop);
}

static int step_check_timeout(struct load_ctx *c, struct step *st, const char *path)
{
	const struct step_kind_row *row = step_kinds[st->kind];
	char f[64];

	st->timeout_ms = row->timeout_ms ? row->timeout_ms(st) : STEP_TIMEOUT_MS;
	snprintf(f, sizeof(f), "%s.timeout", path);
	if (st->timeout && duration_field(c, f, st->timeout, &st->timeout_ms, "500ms, 30s, 2m") < 0)
		return -EINVAL;
	return 0;
}

/* What limits a step: its timeout, or the scenario's when that is shorter
 * (the boot and every step share it). */
int64_t step_limit(const struct load_ctx *c, const struct step *st)
{
	return c->s->timeout_ms < st->timeout_ms ? c->s->timeout_ms : st->timeout_ms;
}

/* "does not fit in the step's timeout (60s, the default): ..." for a
 * duration of need ms that reaches the step's limit. */
int step_fail_fit(struct load_ctx *c, const struct step *st, const char *f, int64_t need,
		  const char *what, bool plural)
{
	const char *verb = plural ? "do" : "does", *note;
	char t[32], n[32];

	if (c->s->timeout_ms < st->timeout_ms)
		return fail(c, f,
			    "%s %s not fit in the scenario's timeout (%s), which the boot and "
			    "every step share; give the scenario a timeout: longer than %s",
			    what, verb, ms_str(c->s->timeout_ms, t, sizeof(t)),
			    ms_str(need, n, sizeof(n)));
	note = step_kinds[st->kind]->timeout_note;
	return fail(c, f,
		    "%s %s not fit in the step's timeout (%s%s%s), which would end the step "
		    "first; give the step a timeout: longer than %s",
		    what, verb, ms_str(st->timeout_ms, t, sizeof(t)), st->timeout ? "" : ", ",
		    st->timeout ? ""
		    : note	? note
				: "the default",
		    ms_str(need, n, sizeof(n)));
}

/* A duration a step spends for sure (a pause, the time asleep) or that
 * bounds what it waits for (a wait's for, a poll, a within, a settle) must
 * end before the step's deadline, or the step ends in timeout, not in the
 * verdict the duration was given for. The runner sets the deadline before
 * the step starts its own clock (run/runner.c), so a duration as long as
 * the timeout does not fit either. Which durations: the row's fits. */
static int step_check_fits(struct load_ctx *c, const struct step *st, const char *path)
{
	const struct step_kind_row *row = step_kinds[st->kind];

	return row->fits ? row->fits(c, st, path) : 0;
}

/* The pauses and sleeps of all the steps together (what they spend for
 * sure, boot and commands aside) fit in the scenario's timeout. */
static int steps_check_pauses(struct load_ctx *c, const struct scenario *s)
{
	int64_t total = 0, one;
	char t[32], l[32], parts[240] = "";
	size_t n = 0;
	unsigned count = 0;

	for (unsigned i = 0; i < s->steps_count; i++) {
		const struct step *st = &s->steps[i];
		const struct step_kind_row *row = step_kinds[st->kind];

		one = row->sure_ms ? row->sure_ms(st) : 0;
		if (!one)
			continue;
		total += one;
		count++;
		if (n < sizeof(parts) - 40)
			n += (size_t)snprintf(parts + n, sizeof(parts) - n, "%ssteps[%u] %s",
					      n ? ", " : "", i, ms_str(one, t, sizeof(t)));
	}
	if (total < s->timeout_ms || count < 2)
		return 0;
	return fail(c, s->timeout ? "timeout" : "steps",
		    "the steps pause or sleep %s in all (%s), which does not fit in the "
		    "scenario's timeout (%s) with the boot; give the scenario a timeout: "
		    "longer than %s and the boot",
		    ms_str(total, t, sizeof(t)), parts, ms_str(s->timeout_ms, l, sizeof(l)), t);
}

static int step_load(struct load_ctx *c, struct step *st, unsigned i)
{
	const struct step_kind_row *row = NULL;
	yaml_node_t *n;
	char path[32];
	int ret = 0;

	snprintf(path, sizeof(path), "steps[%u]", i);
	n = doc_get(c, path);
	st->line = n ? (int)n->start_mark.line + 1 : 0;
	for (size_t k = 0; !ret && k < STEP_KIND_COUNT; k++)
		if (step_kinds[k]->read)
			ret = step_kinds[k]->read(c, st, path);
	if (!ret)
		ret = step_kind_find(c, st, path, &row);
	if (ret < 0)
		return ret;
	st->kind = row->kind;
	ret = step_check_modifiers(c, st, path);
	if (!ret)
		ret = step_check_needs(c, row, path);
	if (!ret && row->check)
		ret = row->check(c, st, path);
	if (!ret)
		ret = step_check_timeout(c, st, path);
	if (!ret)
		ret = step_check_fits(c, st, path);
	if (!ret)
		ret = step_check_paused(c, st, path);
	if (!ret)
		ret = expect_load(c, st, row->expects, row->keyword, path);
	if (!ret)
		ret = row->after_expect ? row->after_expect(c, st, path) : 0;
	if (ret < 0)
		return ret;
	if (!st->name)
		st->name = xasprintf("%s: %s", row->keyword, step_arg(st, row));
	return 0;
}

/* Each step is checked whatever the steps before it held: a step's own
 * checks stop at its first error, the next step is checked all the same. */
int steps_load(struct load_ctx *c, struct scenario *s)
{
	int ret = 0;

	if (!s->steps_count)
		return fail(c, "steps", "a scenario needs at least one step");
	for (unsigned i = 0; i < s->steps_count; i++)
		if (step_load(c, &s->steps[i], i) < 0)
			ret = -EINVAL;
	if (!ret)
		ret = steps_check_pauses(c, s);
	return ret;
}

void steps_release(struct scenario *s)
{
	for (unsigned i = 0; i < s->steps_count; i++)
		for (size_t k = 0; k < STEP_KIND_COUNT; k++)
			if (step_kinds[k]->release)
				step_kinds[k]->release(&s->steps[i]);
}

/* A capture's name (field f): the machine has a display, the name is a
 * file-name-safe word no earlier step used. */
int step_check_capture_name(struct load_ctx *c, const struct step *st, const char *name,
			    const char *f)
{
	if (c->s->machine->display == DISPLAY_NONE)
		return fail(c, f, "the machine has no display; give it display: bochs-display");
	if (!name_valid_metric(name))
		return fail(c, f, "\"%s\" does not match [a-z0-9_]+", name);
	if (step_capture_before(c->s, st, name))
		return fail(c, f, "an earlier step already saved the capture \"%s\"", name);
	return 0;
}
