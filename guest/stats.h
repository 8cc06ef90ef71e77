/* Latency statistics for the guest tools: sort the samples once, then read
 * percentiles off them. */
#ifndef KTB_GUEST_STATS_H
#define KTB_GUEST_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v[0..n) ascending. */
void stats_sort(uint64_t *v, size_t n);

/* Nearest-rank percentile (p in 0..100) of sorted[0..n); 0 when n is 0. */
uint64_t stats_percentile(const uint64_t *sorted, size_t n, double p);

#endif
