/* The ktb-io block pattern: every block carries a header that says who wrote
 * it (seed, LBA, generation) and a checksum, followed by a PRNG stream, so a
 * verifier can tell a misplaced, stale, torn or zeroed block apart. Pure
 * functions only; the I/O loop lives in io.c. */
#ifndef KTB_GUEST_PATTERN_H
#define KTB_GUEST_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define PATTERN_MAGIC 0x4b5442494f424c4bULL /* "KTBIOBLK" */
#define PATTERN_SECTOR 512		    /* LBAs count 512-byte units */
#define PATTERN_MIN_BS 512

/* On-disk header, little-endian (the guests are x86-64), 48 bytes. */
struct pattern_hdr {
	uint64_t magic;
	uint64_t seed;
	uint64_t lba; /* byte offset of the block / 512 */
	uint64_t gen;
	uint32_t bs;
	uint32_t version;
	uint64_t csum; /* pattern_checksum() of the block, this field as 0 */
};

_Static_assert(sizeof(struct pattern_hdr) == 48, "on-disk header layout");

enum pattern_verdict {
	PATTERN_OK,
	PATTERN_WRONG_LBA,    /* intact block that belongs elsewhere */
	PATTERN_STALE_GEN,    /* intact block of another generation */
	PATTERN_BAD_CHECKSUM, /* torn, bit-flipped or garbage */
	PATTERN_ZEROED,	      /* all zeroes: never written, or discarded */
	PATTERN_FOREIGN,      /* intact block written with another seed or bs */
	PATTERN_NR_VERDICTS,
};

/* Name of a verdict as used in the JSON report ("wrong_lba", ...). */
const char *pattern_verdict_name(enum pattern_verdict v);

/* The PRNG (splitmix64): small, fast and good enough for test patterns. */
uint64_t pattern_rand(uint64_t *state);

/* FNV-1a-64 over 64-bit words (len must be a multiple of 8): byte-wise FNV is
 * too slow under TCG, and word-wise still catches any flipped bit. */
uint64_t pattern_checksum(const void *buf, size_t len);

/* Fills buf (bs bytes, bs >= PATTERN_MIN_BS, multiple of 8) with the block
 * that (seed, lba, gen) defines. */
void pattern_fill(void *buf, uint32_t bs, uint64_t seed, uint64_t lba, uint64_t gen);

/* Classifies a block read back at lba against what (seed, gen) expects. */
enum pattern_verdict pattern_classify(const void *buf, uint32_t bs, uint64_t seed, uint64_t lba,
				      uint64_t gen);

/* Fills order[0..n) with a permutation of 0..n-1 drawn from seed. */
void pattern_permute(uint64_t *order, uint64_t n, uint64_t seed);

#endif
