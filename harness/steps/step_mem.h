/* balloon and measure (step_mem.c): the memory steps driven from the host,
 * and the pure parts of their verdicts. */
#ifndef KTB_STEP_MEM_H
#define KTB_STEP_MEM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "step.h"

extern const struct step_ops step_balloon_ops;
extern const struct step_ops step_measure_ops;

/* One balloon step's readings, in bytes and ms since it asked QEMU. */
struct balloon_run {
	int64_t target, actual0, memtotal0, actual, memtotal, expected;
	int64_t t0, target_ms, memtotal_ms; /* target_ms 0: QEMU's balloon not there yet */
};

/* Has QEMU's balloon ("actual") reached the target? To the page: the
 * driver never stops short, it only takes longer (step_mem.c). */
bool balloon_reached(int64_t actual, int64_t target);
/* The guest's MemTotal once the balloon took or gave what it did: its
 * MemTotal before, moved by as much as QEMU's actual moved. */
int64_t balloon_memtotal_expected(const struct balloon_run *b);
/* Has the guest's MemTotal followed? To the page, like actual: the driver
 * moves MemTotal before it reports a batch to QEMU. */
bool balloon_memtotal_reached(int64_t memtotal, int64_t expected);
/* Why a balloon step that ran out of time failed: QEMU's balloon short of
 * size, or the guest's MemTotal not following. */
char *balloon_miss(const char *size, const struct balloon_run *b);
/* The step's output: sizes in MB, times in ms. */
json_t *balloon_json(const struct balloon_run *b);

/* settled: this many samples, MEM_SAMPLE_MS apart, within this much */
#define RSS_STEADY_SAMPLES 4
#define RSS_STEADY_BYTES (2 * 1024 * 1024)

/* One qemu_rss sample of a measure step. settled_ms: how long settle took,
 * -1 when the step has no settle. */
struct rss_sample {
	int64_t rss, min_rss; /* bytes: this sample, the least of the step's */
	unsigned samples;
	int64_t waited_ms, settled_ms;
};

/* The step's output; with since and base (the MB saved under that name by
 * an earlier step's as:, NULL when none) also the change since. */
json_t *measure_json(const struct rss_sample *r, const char *since, json_t *base);
/* Output o (taken) as sr's, judged against e afresh. True when sampling
 * stops: passed, or the next sample would come after until (within:'s end;
 * without within:, the first sample's time). */
bool measure_judge(struct step_result *sr, json_t *o, const struct expect *e, int64_t now,
		   int64_t until);
/* A step with within: that failed says how long it sampled. */
void measure_within_note(struct step_result *sr, unsigned samples, const char *within);
/* The memory a QEMU process holds for its guest, in bytes, from the text of
 * /proc/PID/status: RssAnon + RssShmem + VmSwap. Not VmRSS: its RssFile part
 * (the -kernel and -initrd files QEMU maps, its own binary: ~100 MB) is page
 * cache the host may reclaim at any moment, which moved "QEMU's RSS" by as
 * much as the guest's own memory does. 0, or -EPROTO when a field is
 * missing. */
int proc_status_held(const char *status, int64_t *bytes);
/* settle: do the last samples (win, a ring of the steadiness window's size;
 * n samples taken) lie close enough together? *lo, *hi: their range. */
bool rss_steady(const int64_t *win, unsigned n, int64_t *lo, int64_t *hi);

#endif
