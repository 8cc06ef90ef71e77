/* suspend (step_pm.c): S3, s2idle and S4 driven from the host, and the pure
 * parts of how a step and each of its cycles are judged. */
#ifndef KTB_STEP_PM_H
#define KTB_STEP_PM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "step.h"

extern const struct step_ops step_suspend_ops;

/* One suspend/resume cycle, as the host timed it. */
struct sleep_cycle {
	long long pid;	  /* the guest's "echo mem > /sys/power/state" */
	bool pid_pending; /* the guest slept before the agent told the pid */
	int64_t t_req, t_wake;
	int64_t suspend_ms, resume_ms;
	int64_t cycle_ms;	/* request → agent answering again */
	int *fixups;		/* firmware fix-ups so far in this step */
	json_t **counts;	/* the wakeup sources' event counts before this cycle */
	json_t *wakeup_sources; /* the sources whose count grew during it */
	int wakeup_irq;		/* the IRQ that ended the sleep, 0 if none */
	bool refused;		/* the sleep command exited non-zero */
	json_t *asleep_screen;	/* the capture taken while asleep (asleep_screen) */
	json_t *awake_screen;	/* how the display came back after the wake */
	char *awake_fail;	/* it did not (awake_screen's verdict), or NULL */
};

/* The sleep command exited non-zero: the kernel refused, err (its stderr,
 * trimmed in place; may be NULL) says why. */
char *pm_refusal(char *err);
/* The freezer gave up: ff is a kernel cycle's freeze_failed object
 * (pmlog.h's JSON); "freezing failed: 1 task refusing to freeze after
 * 2.009 s: ktb-io (pid 127, state D)". */
char *pm_freeze_message(const json_t *ff);
/* QEMU saw no S3 in time. collected: the sleep command's exit was read
 * (exited_ok: it returned 0, the guest claims it slept); else the guest
 * hangs. -EIO or -ETIMEDOUT, *msg the failure (NULL when a refusal,
 * pm_refusal, already said why). */
int pm_unreached(bool collected, bool exited_ok, char **msg);
/* The kernel's log must show a suspend entry per cycle (before and after:
 * the counts around the step, -1 unread; not checked under pm_test): NULL,
 * or the failure. */
char *pm_entries_verdict(const struct step *st, int before, int after);
/* The kernel's own count of suspends (/sys/power/suspend_stats/success
 * and fail; -1 unread): the entries in its log, its successes and its
 * failures. */
struct pm_counts {
	int entries, success, fail;
};
/* Around a step: a success per cycle and no failure, or with refused:
 * exactly one failure and no success (not checked under pm_test, nor on a
 * kernel without suspend_stats): NULL, or the failure. */
char *pm_stats_verdict(const struct step *st, const struct pm_counts *before,
		       const struct pm_counts *after);
/* S4: the restarted guest restored its image only if its log has more
 * images created than before the hibernation (a fresh boot has none). */
bool hib_restored(int before, int after);
/* The guest's wakeup list ("W COUNT NAME" lines, "I IRQ", "restored" when
 * the firmware fix-up ran), out cut up in place: {NAME: COUNT}. */
json_t *pm_wakeup_parse(char *out, int *irq, bool *restored);
/* The sources whose count grew from before to after, sorted by name. */
json_t *pm_wakeup_grew(json_t *before, json_t *after);
/* Cycle i's entry in the step's data (no resume under pm_test). */
json_t *pm_cycle_json(unsigned i, const struct sleep_cycle *cy, const struct step *st);
/* The median of the integer key over the cycles, -1 when none has it. */
int64_t median_of(json_t *cycles, const char *key);

#endif
