/* The terminal's view of a run: a line per scenario as it ends, a live
 * progress line, and the summary. */
#ifndef KTB_REPORT_TERM_H
#define KTB_REPORT_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "findings.h"
#include "result.h"

/* One line per scenario ("PASS  smoke  4.2s  boot 3.1s"); on failure also the
 * failing step, its message, the console tail and the artifacts path. */
void report_term_scenario(const struct scenario_result *s, FILE *f, bool verbose);
/* "summary: 3 passed, 1 failed[, N skipped]" alone on its line (timeouts and
 * errors counted as failed there, spelled out on the next line), then the
 * total time. */
void report_term_summary(const struct run_result *r, FILE *f);
/* Live progress line on a TTY ("\r[2/6] disk-4kn-scsi: booting"); idx counts
 * from 1. name NULL only wipes the line. No-op when f is not a TTY. */
void report_term_progress(FILE *f, size_t idx, size_t total, const char *name, const char *what);

/* ktb findings: per signature "COUNTx KIND: TITLE" and below it the
 * signature, the verdicts, the runs, scenarios and kernels it was seen in;
 * then "findings: N with S signatures in R runs", or "no findings in R
 * runs". */
void report_term_findings(const struct finding_groups *g, FILE *f);

#endif
