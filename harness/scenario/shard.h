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

struct run_selection;
struct run_result;

/* The selection's identity, for ktb merge to tell shards of one selection
 * from another's: the sha256 (hex, 65 bytes with the NUL) of a canonical
 * text: "ktb selection 1", then "tag T", "exclude-tag T", "name G" for the
 * filters (each kind sorted), "repeat N", then "scenario NAME WEIGHT" for
 * each item in name order (weights count: they decide the split). The
 * kernel is not in it (a path to it may differ from job to job); merge
 * compares it apart. sel's filters and repeat are read; its hash is not. */
void shard_selection_hash(const struct run_selection *sel, const char *const *names,
			  const int64_t *weights, size_t count, char hex[65]);

/* The run id of a shard without --run-id: "sel-" and 16 hex digits of the
 * selection's hash with the kernel and recipe asked for, so every job of
 * one CI run derives the same. Caller frees. */
char *shard_run_id(const struct run_selection *sel);

/* A --run-id: 1 to 64 of [A-Za-z0-9._-], not starting with a dot (it names
 * the artifacts folder). 0 or -EINVAL with why. */
int shard_run_id_check(const char *id, char *why, size_t len);

/* ktb merge's check over runs[0..n) read from paths[]: either none is a
 * shard (a plain merge), or all are shards of one run: one selection (its
 * hash), one kernel (the release they booted where both booted, else the
 * --kernel asked for), one run id, one N; each K once and every K from 1 to
 * N. 0, or -EINVAL with why naming the file and what is wrong. */
int shard_merge_check(const struct run_result *runs, const char *const *paths, size_t n, char *why,
		      size_t len);

#endif
