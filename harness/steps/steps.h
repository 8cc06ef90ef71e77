/* What the runner shares with the step kinds that live in their own files
 * (power management): the context of one running scenario and the helpers
 * that turn a wait's outcome into a step status. */
#ifndef KTB_STEPS_H
#define KTB_STEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "result.h"
#include "scenario.h"
#include "vm.h"

struct run_opts;

struct run_ctx {
	const struct scenario *s;
	const struct run_opts *o;
	struct scenario_result *r;
	struct vm vm;
	int64_t deadline;        /* the whole scenario's */
	int64_t t0;              /* when the scenario started (now_ms) */
	char *env[6];            /* NULL-terminated guest environment */
	const char *kernel;      /* what the machine boots, for restarts */
	char *append;
	const char *workdir;
	char *restart_append;    /* the kernel arguments of the last restart */
	unsigned boots;          /* times the machine came up (boot, restarts) */
	unsigned boots_checked;  /* of those, checked by the machine step */
	/* the boot (boots) in which the guest saved its ICH9 LPC ACPI registers
	 * (step_pm.c); any other value: not saved since the machine came up */
	unsigned lpc_saved_boot;
};

typedef void (*step_fn)(struct run_ctx *c, const struct step *st, struct step_result *sr,
			int64_t deadline);

/* A wait that ended early (-ECANCELED, -ETIMEDOUT, other) as status and message. */
void step_wait_failed(struct run_ctx *c, struct step_result *sr, int ret, const struct step *st);
/* Pass or fail sr against e, parsing sr->out as JSON when needed. */
void step_judge(struct step_result *sr, const struct expect *e);
/* Run cmd in the guest through the agent: its exit code, stdout and stderr
 * into sr. 0, or the wait's error, already turned into sr's status. */
int step_guest_exec(struct run_ctx *c, const char *cmd, const struct step *st,
		    struct step_result *sr, int64_t deadline);

/* Start the machine again after it powered itself off (S4): the same disks,
 * the kernel arguments plus extra. 0, or -errno with c->vm.err set. */
int run_restart(struct run_ctx *c, const char *extra, int64_t deadline);

/* run, wait, qmp (step_basic.c) */
void step_run(struct run_ctx *c, const struct step *st, struct step_result *sr,
	      int64_t deadline);
void step_wait(struct run_ctx *c, const struct step *st, struct step_result *sr,
	       int64_t deadline);
void step_qmp(struct run_ctx *c, const struct step *st, struct step_result *sr,
	      int64_t deadline);
/* The function that carries out a step of kind k. */
step_fn step_lookup(enum step_kind k);

/* suspend: s3 | s2idle | s4 (step_pm.c) */
void step_suspend(struct run_ctx *c, const struct step *st, struct step_result *sr,
		  int64_t deadline);

/* fail_path, restore_path (step_storage_mp.c) */
void step_fail_path(struct run_ctx *c, const struct step *st, struct step_result *sr,
		    int64_t deadline);
void step_restore_path(struct run_ctx *c, const struct step *st, struct step_result *sr,
		       int64_t deadline);
/* fail_path (up false) or restore_path (up true) judged on a `ktb-probe
 * disk` object. before: may the step act? 0, or -ENOENT with *why naming
 * what the guest showed (no multipath device; for fail_path the path absent
 * or not active). After: 0 when the effect is seen (the path gone or
 * inactive / present and active), 1 not yet, -ENOENT with *why when the
 * multipath device itself is gone. */
int mp_judge(json_t *probe, unsigned path, bool up, bool before, char **why);
/* "ktb.mp=ID:MODE:PATHS:NOPATH,..." for the guest's dm-multipath set-up, or
 * NULL when no disk needs one. Static storage, valid until the next call. */
const char *mp_kernel_arg(const struct machine *m);
/* balloon: SIZE; measure: qemu_rss (step_mem.c) */
void step_balloon(struct run_ctx *c, const struct step *st, struct step_result *sr,
		  int64_t deadline);
void step_measure(struct run_ctx *c, const struct step *st, struct step_result *sr,
		  int64_t deadline);
/* power_loss: all | ID (step_storage.c) */
void step_power_loss(struct run_ctx *c, const struct step *st, struct step_result *sr,
		     int64_t deadline);
/* hybrid_stats: ID, the back end's stats as the step's JSON output */
void step_hybrid_stats(struct run_ctx *c, const struct step *st, struct step_result *sr,
		       int64_t deadline);
/* The hybrid disks' stats into the result's metrics (before the VM stops). */
void storage_collect_metrics(struct run_ctx *c);

#endif
