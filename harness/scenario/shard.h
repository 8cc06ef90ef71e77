/* CI shards: --shard K/N runs the K-th of N shares of the selected
 * scenarios. Every scenario lands in exactly one shard whatever K is, and the
 * shares depend on the inputs alone (names and weights, not on the order the
 * files were found, the clock or the host), so N jobs that each run one
 * shard run the whole selection once between them. */
#ifndef KTB_SHARD_H
#define KTB_SHARD_H

#include <stddef.h>
#include <stdint.h>

/* "K/N" with 1 <= K <= N <= SHARD_MAX. 0, or -EINVAL with why filled. */
#define SHARD_MAX 1000
int shard_parse(const char *arg, unsigned *k, unsigned *n, char *why, size_t whylen);

/* shard_of[i] (0..n-1) for each of count items named names[i] with weight
 * weights[i] (a scenario's timeout: what bounds its time): heaviest first,
 * each onto the lightest shard so far (ties: the lower shard), items of equal
 * weight in name order. So the shards' loads differ by at most the heaviest
 * item's weight. 0, or -EINVAL when n is 0 or names repeat. */
int shard_assign(const char *const *names, const int64_t *weights, size_t count, unsigned n,
		 unsigned *shard_of);

#endif
