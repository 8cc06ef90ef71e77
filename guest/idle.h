/* Idle accounting: how much of an interval the CPUs spent idle, from the
 * aggregate "cpu" line of /proc/stat read twice. */
#ifndef KTB_GUEST_IDLE_H
#define KTB_GUEST_IDLE_H

#include <stdint.h>

#include "json_out.h"

struct cpu_ticks {
	uint64_t idle;	/* idle + iowait */
	uint64_t total; /* every field of the line */
};

/* Parse the "cpu " line of a /proc/stat text. 0 or -EINVAL. */
int idle_parse(const char *stat, struct cpu_ticks *t);
/* Percentage of b - a spent idle (0..100), or -1 when no time passed. */
double idle_pct(const struct cpu_ticks *a, const struct cpu_ticks *b);
/* Sample /proc/stat, sleep interval_ms, sample again, print
 * {"interval_ms", "idle_pct", "busy_pct", "ticks"}. */
int facts_idle(const char *root, uint64_t interval_ms, struct json_out *j);

#endif
