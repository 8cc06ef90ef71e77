#include "failure_key.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The first of a message's "; "-separated clauses, up to where its
 * measured part begins: "json .a.b: expected 1, got 2" is "json .a.b";
 * "exit: expected 0, got 1" keeps its codes (another exit code is another
 * way to fail); a fact of the machine step is its name ("cpus: declared 2,
 * the guest sees 1" is "cpus"). */
static char *clause_of(const char *msg)
{
	size_t n = strcspn(msg, ";");
	const char *colon;

	if (!strncmp(msg, "exit: ", 6))
		return xasprintf("%.*s", (int)n, msg);
	colon = strstr(msg, ": ");
	if (colon && (size_t)(colon - msg) < n)
		n = (size_t)(colon - msg);
	return xasprintf("%.*s", (int)n, msg);
}

/* A copy of s with every run of digits as one "N": the part of a message
 * without a step that still may carry a number (a time, a line). */
static char *without_numbers(const char *s)
{
	char *o = xcalloc(1, strlen(s) + 1), *p = o;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9') {
			if (p == o || p[-1] != 'N')
				*p++ = 'N';
			continue;
		}
		*p++ = *s;
	}
	return o;
}

static const struct finding *first_failing(const struct scenario_result *r, int step)
{
	for (size_t i = 0; i < r->findings_count; i++)
		if (r->findings[i].verdict == FINDING_FAILS && r->findings[i].step == step)
			return &r->findings[i];
	return NULL;
}

char *failure_key(const struct scenario_result *r)
{
	const char *st = status_name(r->status);
	char *clause, *key, *plain;

	if (r->status == ST_PASS)
		return xstrdup("pass");
	for (size_t i = 0, n = 0; i < r->steps_count; i++) {
		const struct step_result *s = &r->steps[i];
		bool machine = s->name && !strcmp(s->name, MACHINE_STEP_NAME);
		const struct finding *f;
		char *which;

		/* numbered as ktb's messages number them: the scenario's steps,
		 * the machine step (after every boot) by its name */
		n += !machine;
		if (s->status == ST_PASS || s->status == ST_SKIP)
			continue;
		which = machine ? xstrdup("step machine")
				: xasprintf("step %zu (%s)", n, s->name ? s->name : "?");
		if (s->status == ST_TIMEOUT || !s->message) {
			key = xasprintf("%s: %s", status_name(s->status), which);
			free(which);
			return key;
		}
		clause = clause_of(s->message);
		f = !strcmp(clause, "kernel report") ? first_failing(r, (int)i) : NULL;
		key = f ? xasprintf("%s: %s: kernel report %s (%s)", status_name(s->status), which,
				    f->signature ? f->signature : "?", f->title ? f->title : "?")
			: xasprintf("%s: %s: %s", status_name(s->status), which, clause);
		free(clause);
		free(which);
		return key;
	}
	/* no step failed: the boot, a report outside the steps, the machine
	 * gone */
	plain = without_numbers(r->message ? r->message : "");
	key = xasprintf("%s: %s", st, plain);
	free(plain);
	return key;
}
