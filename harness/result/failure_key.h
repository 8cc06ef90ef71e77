/* How a scenario's run ended, as one string that stays the same from run
 * to run when it fails the same way: the status, the step that failed and
 * the clause that failed it (an expect key, a machine fact, the signature
 * of the kernel report), never a measured number or a duration. ktb shrink
 * keeps a smaller machine only when every run of it gives the original's
 * string. docs/debugging.md ("Which part of the machine") has the rules. */
#ifndef KTB_FAILURE_KEY_H
#define KTB_FAILURE_KEY_H

#include "result.h"

/* "pass" for a run that passed; else, for example (steps numbered as in
 * ktb's own messages: the scenario's, the machine step by its name),
 *   "fail: step 1 (run: ktb-io ...): exit: expected 0, got 1"
 *   "fail: step machine: disks[0].sector"
 *   "fail: step 3 (run: x): kernel report 9f2c... (WARNING in nvme_probe)"
 *   "timeout: step 1 (suspend: s3)"
 *   "error: the guest's init failed: ..."   (malloc'd) */
char *failure_key(const struct scenario_result *r);

#endif
