/* Regression bisection as pure logic: which candidates of an ordered list to
 * test next (one point per round, or k points for multisection), what a
 * candidate's exit code says, and what the search found. No I/O: the CLI
 * (cli_bisect.c) runs the candidates and records their verdicts here. */
#ifndef KTB_BISECT_H
#define KTB_BISECT_H

#include <stdbool.h>
#include <stddef.h>

enum bisect_verdict {
	BISECT_UNKNOWN, /* not tested yet */
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP,  /* could not be tested (exit 125) */
	BISECT_ABORT, /* stop the search: bad input or interrupted */
};

struct bisect {
	size_t n; /* candidates, oldest first */
	enum bisect_verdict *v;
};

/* n >= 2 candidates, all unknown. 0 or -EINVAL. */
int bisect_init(struct bisect *b, size_t n);
void bisect_free(struct bisect *b);
void bisect_record(struct bisect *b, size_t i, enum bisect_verdict v);

/* The verdict of one candidate from the exit code of its `ktb run` (which,
 * with --repeat N, exits 1 when any of the N runs failed): 0 good, 1 bad,
 * 125 skip; anything else (2 bad input, 130 interrupted, a crash) aborts. */
enum bisect_verdict bisect_verdict_of_exit(int code);
const char *bisect_verdict_name(enum bisect_verdict v);

enum bisect_ends {
	BISECT_ENDS_OK,
	BISECT_ENDS_FIRST_NOT_GOOD, /* the first candidate fails */
	BISECT_ENDS_LAST_NOT_BAD,   /* the last candidate passes */
	BISECT_ENDS_UNTESTED,	    /* one of them could not be tested */
	BISECT_ENDS_ABORT,
};
/* What the verdicts of the first and the last candidate allow. */
enum bisect_ends bisect_check_ends(enum bisect_verdict first, enum bisect_verdict last);

/* The open range: lo is the last good candidate before hi, hi the first bad
 * one (a good verdict above a bad one, which flakiness can give, is
 * ignored). Needs a good and a bad verdict recorded. */
void bisect_range(const struct bisect *b, size_t *lo, size_t *hi);
/* Up to k untested candidates strictly inside the open range, spread so
 * that they cut it into k + 1 parts of (nearly) equal size; skipped ones
 * are passed over, as git does. Writes them, ascending, to out (room for k)
 * and returns how many; 0 when the search is over. */
size_t bisect_next(const struct bisect *b, unsigned k, size_t *out);
/* Once bisect_next returns 0: the first bad candidate is hi; when
 * candidates between lo and hi were skipped it is only known to be one of
 * lo+1..hi, and this returns true (ambiguous). */
bool bisect_ambiguous(const struct bisect *b);
/* The most rounds of k points that n candidates, endpoints known, can need
 * with nothing skipped: the least r with (k+1)^r >= n - 1. */
unsigned bisect_rounds_max(size_t n, unsigned k);

#endif
