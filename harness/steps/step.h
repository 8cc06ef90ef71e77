/* What the step kinds share (step.c): the context of one running scenario,
 * the helpers that turn a wait's outcome into a step status, and struct
 * step_ops, a kind's entry in the table the runner dispatches through
 * (step_table.c). Each kind lives in its own file with its
 * own header (step_basic.h: run, wait, qmp; step_pm.h: suspend;
 * step_storage_mp.h: fail_path, restore_path; step_mem.h: balloon, measure;
 * step_storage.h: power_loss, hybrid_stats; step_ktap.h: ktap; step_screen.h: screen), which
 * declares its step_ops. */
#ifndef KTB_STEP_H
#define KTB_STEP_H

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
	int64_t deadline;   /* the whole scenario's */
	int64_t t0;	    /* when the scenario started (now_ms) */
	char *env[6];	    /* NULL-terminated guest environment */
	const char *kernel; /* what the machine boots, for restarts */
	char *append;
	const char *workdir;
	char *restart_append;	/* the kernel arguments of the last restart */
	unsigned boots;		/* times the machine came up (boot, restarts) */
	unsigned boots_checked; /* of those, checked by the machine step */
	/* the boot (boots) in which the guest saved its ICH9 LPC ACPI registers
	 * (step_pm.c); any other value: not saved since the machine came up */
	unsigned lpc_saved_boot;
	int64_t wake_ms; /* loop time of the last wake request or S4 restore (step_pm.c); 0: none */
};

/* The runner's half of a step kind: how a step of it runs. Its keyword,
 * its load-time checks, what expect may check on it, the machine parts it
 * drives and its kernel options are its row in the scenario layer
 * (harness/scenario/kind_FILE.c, step_kind.h), which the loader needs
 * below this layer. run fills sr: status, message, exit
 * code, output and data; deadline is the step's (and the scenario's). */
struct step_ops {
	enum step_kind kind;
	void (*run)(struct run_ctx *c, const struct step *st, struct step_result *sr,
		    int64_t deadline);
};

/* A wait that ended early (-ECANCELED, -ETIMEDOUT, other) as status and message. */
void step_wait_failed(struct run_ctx *c, struct step_result *sr, int ret, const struct step *st);
/* Pass or fail sr against e, parsing sr->out as JSON when needed. */
void step_judge(struct step_result *sr, const struct expect *e);
/* A run step's metrics: each field of its parsed output copied into the
 * scenario's metrics (step_metric_name); one that is missing or not a
 * number fails a step that had passed, naming it. */
void step_metrics(struct run_ctx *c, const struct step *st, struct step_result *sr);
/* Run cmd in the guest through the agent: its exit code, stdout and stderr
 * into sr. 0, or the wait's error, already turned into sr's status. */
int step_guest_exec(struct run_ctx *c, const char *cmd, const struct step *st,
		    struct step_result *sr, int64_t deadline);

/* Start the machine again after it powered itself off (S4): the same disks,
 * the kernel arguments plus extra. 0, or -errno with c->vm.err set. */
int run_restart(struct run_ctx *c, const char *extra, int64_t deadline);

#endif
