/* A step kind's loading, as one row (struct step_kind_row) that the kind's
 * own file in this folder defines, kind_FILE.c: the schema of its keys, its
 * load-time checks, what expect may check on it, the machine parts it
 * drives, its kernel options and what later steps ask of it. The rows are
 * one table, step_kinds[] (step_kind.c), indexed by kind and built from
 * KTB_STEP_KINDS (scenario.h); the loader and the kernel options (kreq.c)
 * ask the row and never name a kind. How a step of a kind runs is the
 * steps layer's (harness/steps/step_FILE.c). step_kind.c also holds the
 * steps' loading every kind shares (steps_load) and the helpers the rows
 * use. */
#ifndef KTB_STEP_KIND_H
#define KTB_STEP_KIND_H

#include <cyaml/cyaml.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario_types.h"

struct load_ctx;
struct kreq_list;
struct kreq_opts;

/* The step's default timeout */
#define STEP_TIMEOUT_MS 60000

/* What a step leaves the VM in, for the steps after it (step_kind_row's
 * vm_after). */
enum step_vm {
	VM_SAME,      /* as it was */
	VM_PAUSED,    /* qmp: stop holds the vCPUs */
	VM_RESUMED,   /* qmp: cont runs them again */
	VM_RESTARTED, /* a new machine, every part as declared (power_loss) */
	VM_RESTORED,  /* a hibernated kernel back in a new QEMU (suspend: s4) */
};

/* The checks a row's hooks take: c the load, st the step, path its field
 * path ("steps[2]"); 0 or -EINVAL, the error reported. */
typedef int step_check_fn(struct load_ctx *c, struct step *st, const char *path);
typedef int step_check_const_fn(struct load_ctx *c, const struct step *st, const char *path);

struct step_kind_row {
	const char *keyword; /* the YAML key naming the action */
	enum step_kind kind;
	size_t field;	  /* offsetof(struct step, KEYWORD): its argument, set or NULL */
	unsigned expects; /* the EXPECT_ flags expect may check on it */
	unsigned needs;	  /* enum step_need: the machine parts it drives */
	const char *keys; /* the step keys only this kind takes, space-separated */
	const cyaml_schema_field_t *fields; /* its keys' schema (schema.c), END-ended */
	/* loading, in this order; NULL: nothing to do */
	step_check_fn *read;  /* from the document, before any kind is known (every row's,
				 on every step) */
	step_check_fn *check; /* its own checks, once the kind is known */
	int64_t (*timeout_ms)(const struct step *st); /* its default timeout; NULL: 60s */
	const char *timeout_note;  /* how messages name that default; NULL: "the default" */
	step_check_const_fn *fits; /* its durations fit in the step's limit (step_check_fit) */
	step_check_const_fn *after_expect; /* checks that need expect loaded */
	void (*release)(struct step *st);  /* frees what read or check filled, on every step */
	/* what the steps after it ask of it; NULL: nothing of the sort */
	const char *(*guest_key)(const struct step *st); /* the key of what the guest must
							    carry out; NULL: the host alone */
	int64_t (*sure_ms)(const struct step *st);	 /* the time it pauses or sleeps for sure */
	enum step_vm (*vm_after)(const struct step *st);
	const char *(*capture)(const struct step *st);	/* the screen capture it saves */
	const char *(*saved_as)(const struct step *st); /* the value it saves (measure's as) */
	/* the multipath path it takes away (*fails) or brings back */
	const struct path_ref *(*path_ref)(const struct step *st, bool *fails);
	/* kernel options (kreq.c): its own row, whatever its argument, and those
	 * its argument adds (i: the step's index) */
	const struct kreq_opts *kopts;
	int (*kreq)(struct kreq_list *l, unsigned i, const struct step *st);
};

extern const struct step_kind_row *const step_kinds[STEP_KIND_COUNT];

/* Load and check every step, each whatever the steps before it held; then
 * their pauses together against the scenario's timeout. */
int steps_load(struct load_ctx *c, struct scenario *s);
/* Release what rows filled outside the schema (scenario_free). */
void steps_release(struct scenario *s);

/* For the rows' checks: */
/* A step's own guest_key: its keyword. */
const char *step_in_guest(const struct step *st);
/* What limits a step: its timeout, or the scenario's when that is shorter. */
int64_t step_limit(const struct load_ctx *c, const struct step *st);
/* need ms of what (plural: "do" for "does") reaches the step's limit:
 * the error on field f, naming the timeout that is too short. */
int step_fail_fit(struct load_ctx *c, const struct step *st, const char *f, int64_t need,
		  const char *what, bool plural);
/* An earlier step than st saved the screen capture name. */
bool step_capture_before(const struct scenario *s, const struct step *st, const char *name);
/* An earlier step than st saved a value as name (measure's as). */
bool step_saved_before(const struct scenario *s, const struct step *st, const char *name);
/* A capture's name on field f: the machine has a display, the name is a
 * file-name-safe word no earlier step used. */
int step_check_capture_name(struct load_ctx *c, const struct step *st, const char *name,
			    const char *f);
/* The index of the step before st that last left the VM paused (qmp: stop)
 * with nothing after it resuming or restarting it; -1 if none. */
int step_paused_before(const struct scenario *s, const struct step *st);

#endif
