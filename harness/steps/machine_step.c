/* The machine step: what the guest sees against what the scenario
 * declared. hw/expected.c says what to expect and where the probe shows
 * it; this file compares, names the likely cause from the kernel command
 * line, and runs the probe in the guest. */
#include "machine_step.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expected.h"
#include "step.h"
#include "util.h"
#include "vm.h"
#include "vm_cmdline.h"

#define MACHINE_PROBE "ktb-probe machine"
#define MESSAGE_MISMATCHES 4 /* the rest are in the step's data */

/* Kernel arguments that make the guest see less of a part: a word of the
 * command line that starts with one of these is named as the likely cause. */
static const char *const causes[MACHINE_PART_COUNT][10] = {
	[MACHINE_PART_CPUS] = { "maxcpus=", "nr_cpus=", "nosmp", "possible_cpus=", NULL },
	[MACHINE_PART_MEMORY] = { "mem=", "memmap=", "max_addr=", "crashkernel=", NULL },
	[MACHINE_PART_NUMA] = { "numa=", "acpi=", "maxcpus=", "nr_cpus=", "nosmp",
				"mem=", "memmap=", NULL },
	[MACHINE_PART_DISKS] = { "module_blacklist=", "initcall_blacklist=", "nvme_core.multipath=",
				 "scsi_mod.", "libata.", "virtio_blk.", "nvme.", "dm_mod.",
				 "ktb.nomod=", NULL },
	[MACHINE_PART_BALLOON] = { "module_blacklist=", "initcall_blacklist=", "virtio_balloon.",
				   "ktb.nomod=", NULL },
	[MACHINE_PART_HMAT] = { "numa=", "acpi=", "hmat", "memhp", NULL },
	[MACHINE_PART_SLEEP] = { "nohibernate", "hibernate=", "acpi=", "acpi_sleep=", NULL },
	[MACHINE_PART_DISPLAY] = { "pci=", "ktb.nomod=", NULL },
};

/* " (W1 W2 on the command line?)" for the words of cmdline that can hide
 * part, or "". The testbed's own words for m are harmless and never named.
 * Caller frees. */
static char *likely_cause(const struct machine *m, const char *cmdline, enum machine_part part)
{
	char *copy = xstrdup(cmdline ? cmdline : ""), *w, *save = NULL, *found = NULL, *n;
	char *nomod = vm_nomod_arg(m);

	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(w, VM_CMDLINE_NODBDELAY) || !strcmp(w, VM_CMDLINE_NOKDFTEST) ||
		    (nomod && !strcmp(w, nomod)))
			continue;
		for (const char *const *p = causes[part]; *p; p++) {
			if (strncmp(w, *p, strlen(*p)))
				continue;
			n = found ? xasprintf("%s %s", found, w) : xstrdup(w);
			free(found);
			found = n;
			break;
		}
	}
	free(nomod);
	free(copy);
	n = found ? xasprintf(" (%s on the command line?)", found) : xstrdup("");
	free(found);
	return n;
}

/* The element of array a whose member key (a string) is val. */
static const json_t *array_find(const json_t *a, const char *key, const char *val)
{
	size_t i;
	json_t *e;

	json_array_foreach (a, i, e) {
		const char *s = json_string_value(json_object_get(e, key));

		if (s && !strcmp(s, val))
			return e;
	}
	return NULL;
}

const json_t *machine_check_lookup(const json_t *doc, const char *path)
{
	char *copy = xstrdup(path), *seg, *save = NULL, *eq, *end;
	const json_t *at = doc;

	for (seg = strtok_r(copy, ".", &save); seg && at; seg = strtok_r(NULL, ".", &save)) {
		if (json_is_object(at)) {
			at = json_object_get(at, seg);
		} else if (json_is_array(at) && (eq = strchr(seg, '='))) {
			*eq = '\0';
			at = array_find(at, seg, eq + 1);
		} else if (json_is_array(at)) {
			unsigned long i = strtoul(seg, &end, 10);

			at = *end || end == seg ? NULL : json_array_get(at, i);
		} else {
			at = NULL;
		}
	}
	free(copy);
	return at;
}

struct compare_ctx {
	const struct machine *m;
	const json_t *seen;
	const char *cmdline;
	json_t *facts;	/* the data's list of facts */
	json_t *unread; /* the data's list of parts the probe could not read */
	char *text;	/* the first mismatches, "; "-joined */
	char *errors;	/* what the probe could not read, "; "-joined */
	int mismatches;
	unsigned unread_parts; /* MACHINE_PART_BIT of parts already named unread */
	char skip[8][96];      /* parents of absent devices: their facts are not compared */
	unsigned skips;
};

static bool skipped(const struct compare_ctx *c, const char *path)
{
	for (unsigned i = 0; i < c->skips; i++) {
		size_t n = strlen(c->skip[i]);

		if (!strncmp(path, c->skip[i], n) && path[n] == '.')
			return true;
	}
	return false;
}

static void add_skip(struct compare_ctx *c, const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot || c->skips >= sizeof(c->skip) / sizeof(c->skip[0]))
		return;
	snprintf(c->skip[c->skips++], sizeof(c->skip[0]), "%.*s", (int)(dot - path), path);
}

/* What the fact wants as JSON, and whether seen has it. */
static json_t *fact_want(const struct machine_fact *f, const json_t *seen, bool *ok)
{
	int64_t lo = f->min, hi = f->max, v;
	json_t *want;

	if (f->want[0]) {
		want = json_loads(f->want, JSON_DECODE_ANY, NULL);
		*ok = want && seen && json_equal(want, (json_t *)seen);
		return want ? want : json_string(f->want);
	}
	v = json_is_integer(seen) ? json_integer_value(seen) : lo - 1;
	*ok = v >= lo && v <= hi;
	return json_pack("{s:I, s:I}", "min", (json_int_t)lo, "max", (json_int_t)hi);
}

static char *json_text(const json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	return s ? s : xstrdup("nothing");
}

/* "WHAT: declared X, the guest sees Y (CAUSE)" */
static char *mismatch_text(const struct compare_ctx *c, const struct machine_fact *f,
			   const json_t *want, const json_t *seen)
{
	char *cause = likely_cause(c->m, c->cmdline, f->part), *w, *s, *msg;

	if (f->presence && !seen) {
		msg = xasprintf("%s: declared, the guest has none%s", f->what, cause);
		free(cause);
		return msg;
	}
	w = f->want[0] ? json_text(want)
		       : xasprintf("%lld..%lld",
				   (long long)json_integer_value(json_object_get(want, "min")),
				   (long long)json_integer_value(json_object_get(want, "max")));
	s = seen ? json_text(seen) : xstrdup("nothing");
	msg = xasprintf("%s: declared %s, the guest sees %s%s", f->what, w, s, cause);
	free(w);
	free(s);
	free(cause);
	return msg;
}

static void note_mismatch(struct compare_ctx *c, char *msg)
{
	char *n;

	if (++c->mismatches > MESSAGE_MISMATCHES) {
		free(msg);
		return;
	}
	n = c->text ? xasprintf("%s; %s", c->text, msg) : xstrdup(msg);
	free(c->text);
	free(msg);
	c->text = n;
}

/* The probe names what it could not read, per part ("unread": {"display":
 * "/sys/bus/pci/devices: Permission denied"}): not knowing is no answer,
 * so the part's facts are not compared and the step ends in error. True
 * when f's part is unread. */
static bool part_unread(struct compare_ctx *c, const struct machine_fact *f)
{
	const char *part = machine_part_name(f->part);
	const char *why =
	    json_string_value(json_object_get(json_object_get(c->seen, "unread"), part));
	char *n;

	if (!why)
		return false;
	if (c->unread_parts & MACHINE_PART_BIT(f->part))
		return true;
	c->unread_parts |= MACHINE_PART_BIT(f->part);
	json_array_append_new(c->unread, json_pack("{s:s, s:s}", "part", part, "error", why));
	n = xasprintf("%s%s%s: the guest could not read %s", c->errors ? c->errors : "",
		      c->errors ? "; " : "", part, why);
	free(c->errors);
	c->errors = n;
	return true;
}

static void compare_fact(struct compare_ctx *c, const struct machine_fact *f)
{
	const json_t *seen;
	json_t *want;
	bool ok;

	if (skipped(c, f->path) || part_unread(c, f))
		return;
	seen = machine_check_lookup(c->seen, f->path);
	want = fact_want(f, seen, &ok);
	json_array_append_new(c->facts, json_pack("{s:s, s:s, s:s, s:o, s:O?, s:b}", "part",
						  machine_part_name(f->part), "what", f->what,
						  "path", f->path, "want", json_incref(want),
						  "seen", seen, "ok", ok));
	if (!ok)
		note_mismatch(c, mismatch_text(c, f, want, seen));
	if (!ok && f->presence)
		add_skip(c, f->path);
	json_decref(want);
}

static json_t *part_list(unsigned mask)
{
	json_t *a = json_array();

	for (unsigned p = 0; p < MACHINE_PART_COUNT; p++)
		if (mask & MACHINE_PART_BIT(p))
			json_array_append_new(a, json_string(machine_part_name(p)));
	return a;
}

/* "cpus, numa" */
static char *part_words(unsigned mask)
{
	char *s = NULL, *n;

	for (unsigned p = 0; p < MACHINE_PART_COUNT; p++) {
		if (!(mask & MACHINE_PART_BIT(p)))
			continue;
		n = s ? xasprintf("%s, %s", s, machine_part_name(p))
		      : xstrdup(machine_part_name(p));
		free(s);
		s = n;
	}
	return s;
}

/* What the probe could not read, then the mismatches, then the parts left
 * out; NULL when there is nothing to say. */
static char *final_message(struct compare_ctx *c, unsigned off)
{
	char *more = c->mismatches > MESSAGE_MISMATCHES
			 ? xasprintf("; and %d more (the step's data lists them)",
				     c->mismatches - MESSAGE_MISMATCHES)
			 : xstrdup("");
	char *offs = part_words(off), *msg = NULL;

	if (c->errors || c->text)
		msg =
		    xasprintf("%s%s%s%s%s%s", c->errors ? c->errors : "",
			      c->errors && c->text ? "; " : "", c->text ? c->text : "",
			      c->text ? more : "", offs ? "; not checked: " : "", offs ? offs : "");
	else if (offs)
		msg = xasprintf("not checked (machine.unverified): %s", offs);
	free(more);
	free(offs);
	return msg;
}

/* ["shares[0] (HOST): over 9p: virtiofsd cannot serve here: ..."], or NULL */
static json_t *share_notes(const struct machine *m)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < m->shares_count; i++)
		if (m->shares[i].note[0])
			json_array_append_new(a,
					      json_sprintf("shares[%u] (%s): %s", i,
							   m->shares[i].host, m->shares[i].note));
	if (!json_array_size(a)) {
		json_decref(a);
		return NULL;
	}
	return a;
}

int machine_check_compare(const struct machine *m, const json_t *seen, char **message,
			  json_t **data)
{
	struct compare_ctx c = {
		.m = m,
		.seen = seen,
		.facts = json_array(),
		.unread = json_array(),
		.cmdline = json_string_value(machine_check_lookup(seen, "kernel.cmdline")),
	};
	struct machine_facts facts;
	json_t *notes;
	unsigned checked = 0, off = m->unverified & (MACHINE_PART_BIT(MACHINE_PART_COUNT) - 1);

	if (machine_expected_facts(m, &facts)) {
		json_decref(c.facts);
		json_decref(c.unread);
		return -ENOMEM;
	}
	for (size_t i = 0; i < facts.n; i++) {
		if (off & MACHINE_PART_BIT(facts.v[i].part))
			continue;
		checked |= MACHINE_PART_BIT(facts.v[i].part);
		compare_fact(&c, &facts.v[i]);
	}
	machine_facts_free(&facts);
	*message = final_message(&c, off);
	*data = json_pack("{s:o, s:o, s:i, s:o, s:o}", "checked", part_list(checked), "unverified",
			  part_list(off), "mismatches", c.mismatches, "unread", c.unread, "facts",
			  c.facts);
	if (m->shares_count) /* how the host's folders reach the guest */
		json_object_set_new(*data, "share_transport", json_string(shares_transport(m)));
	notes = share_notes(m); /* and why a share is not over virtiofs */
	if (notes)
		json_object_set_new(*data, "share_notes", notes);
	free(c.text);
	free(c.errors);
	return c.mismatches;
}

void step_machine(struct run_ctx *c, struct step_result *sr, int64_t deadline)
{
	json_t *seen;

	if (step_guest_exec(c, MACHINE_PROBE, NULL, sr, deadline))
		return;
	seen = sr->out ? json_loads(sr->out, 0, NULL) : NULL;
	if (!json_is_object(seen)) {
		sr->status = ST_ERROR;
		sr->message =
		    xasprintf("%s printed no JSON document (exit %d): %s", MACHINE_PROBE,
			      sr->exit_code, sr->err && *sr->err ? sr->err : "no message");
	} else if (machine_check_compare(c->s->machine, seen, &sr->message, &sr->data) < 0) {
		sr->status = ST_ERROR;
		sr->message = xstrdup(strerror(ENOMEM));
	} else if (json_array_size(json_object_get(sr->data, "unread"))) {
		sr->status = ST_ERROR; /* not knowing is neither a pass nor a mismatch */
	} else {
		sr->status =
		    json_integer_value(json_object_get(sr->data, "mismatches")) ? ST_FAIL : ST_PASS;
	}
	json_decref(seen);
}
