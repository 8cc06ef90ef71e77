/* run, wait and qmp (step_basic.c): the step kinds that need no machine
 * part of their own, and the pure parts of their verdicts. */
#ifndef KTB_STEP_BASIC_H
#define KTB_STEP_BASIC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "step.h"

extern const struct step_ops step_run_ops;
extern const struct step_ops step_wait_ops;
extern const struct step_ops step_qmp_ops;

/* What ended a wait step's loop (ret: loop_run_until's, run until the
 * earlier of until, the step's own end, and deadline): 0 passed, -ENOMSG
 * the console (console true) did not show the regex by until, else the
 * error for step_wait_failed (-ETIMEDOUT for a plain pause the deadline
 * cut short). */
int wait_verdict(int ret, bool console, int64_t until, int64_t deadline);

/* A qmp step's command name and arguments: st->qmp a name (arguments from
 * st->arguments) or a JSON object {"execute": NAME, "arguments": {...}}.
 * 0, or -EINVAL for an object without a string "execute". */
int qmp_split(const struct step *st, char **cmd, json_t **args);

/* A QMP reply as a step's result, then judged against e (step_judge): an
 * error reply (ret -EREMOTEIO) exits 1 with errmsg as stderr, a success
 * (ret 0) exits 0 with the return value as stdout and data. Takes ret_val
 * and errmsg. */
void qmp_reply_judge(struct step_result *sr, int ret, json_t *ret_val, char *errmsg,
		     const struct expect *e);

#endif
