/* The kernel reports of a scenario's run as findings (kreport.c reads them
 * out of console.log and dmesg.txt), each given to the step it was printed
 * in and judged: expected by that step's expect: {finding: RE}, tolerated
 * by the scenario's tolerate: list, or a failure of that step. */
#ifndef KTB_FINDINGS_JUDGE_H
#define KTB_FINDINGS_JUDGE_H

#include "step.h"

/* Read the run's console.log and dmesg.txt in c->r->artifacts into
 * c->r->findings and judge them: a step that passed fails on a report it
 * did not expect ("kernel report: TITLE (console line N)") and on an
 * expect: {finding: RE} no report of the step matched. Reports before the
 * first step, or only in dmesg, fail the scenario unless tolerated; the
 * runner words that (findings_message). With vmlinux (a kernel with
 * DWARF), each finding's frames are decoded to file:line (kdecode.c), a
 * module's from its .ko in modules (may be NULL); without, or when it
 * cannot serve, each says why not (undecoded), as does a finding with a
 * module's frames left undecoded. */
void findings_collect(struct run_ctx *c, const char *vmlinux, const char *modules);

/* The scenario's message for a failing finding that no step holds
 * ("kernel report during boot: TITLE", "kernel report in dmesg: TITLE"),
 * malloc'd, or NULL when there is none. */
char *findings_message(const struct scenario_result *r);

#endif
