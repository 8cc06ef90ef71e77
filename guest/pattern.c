#include "pattern.h"

#include <string.h>

#define PATTERN_VERSION 1
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static const char *const pattern_names[PATTERN_NR_VERDICTS] = {
	[PATTERN_OK] = "ok",
	[PATTERN_WRONG_LBA] = "wrong_lba",
	[PATTERN_STALE_GEN] = "stale_gen",
	[PATTERN_BAD_CHECKSUM] = "bad_checksum",
	[PATTERN_ZEROED] = "zeroed",
	[PATTERN_FOREIGN] = "foreign",
};

const char *pattern_verdict_name(enum pattern_verdict v)
{
	return (unsigned)v < PATTERN_NR_VERDICTS ? pattern_names[v] : "?";
}

uint64_t pattern_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t pattern_checksum(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = FNV_OFFSET, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * FNV_PRIME;
	}
	return h;
}

/* Distinct (seed, lba, gen) triples must give unrelated streams; running the
 * mix through the PRNG once decorrelates neighbouring LBAs. */
static uint64_t pattern_stream_seed(uint64_t seed, uint64_t lba, uint64_t gen)
{
	uint64_t s = seed ^ (lba * 0xd6e8feb86659fd93ULL) ^ (gen * 0xa0761d6478bd642fULL);

	return pattern_rand(&s);
}

/* The checksum covers the header too (with csum as 0), so a flipped bit in
 * the LBA or generation field reads as corruption, not as a misplaced block. */
static uint64_t pattern_block_csum(const void *buf, uint32_t bs)
{
	struct pattern_hdr h;
	uint64_t csum;

	memcpy(&h, buf, sizeof(h));
	h.csum = 0;
	csum = pattern_checksum(&h, sizeof(h));
	csum ^= pattern_checksum((const char *)buf + sizeof(h), bs - sizeof(h));
	return csum * FNV_PRIME;
}

void pattern_fill(void *buf, uint32_t bs, uint64_t seed, uint64_t lba, uint64_t gen)
{
	struct pattern_hdr h = {
		.magic = PATTERN_MAGIC,
		.seed = seed,
		.lba = lba,
		.gen = gen,
		.bs = bs,
		.version = PATTERN_VERSION,
		.csum = 0,
	};
	uint64_t state = pattern_stream_seed(seed, lba, gen), w;
	char *p = buf;
	size_t off;

	memcpy(p, &h, sizeof(h));
	for (off = sizeof(h); off + 8 <= bs; off += 8) {
		w = pattern_rand(&state);
		memcpy(p + off, &w, 8);
	}
	h.csum = pattern_block_csum(buf, bs);
	memcpy(p, &h, sizeof(h));
}

static int pattern_is_zero(const void *buf, uint32_t bs)
{
	const unsigned char *p = buf;
	uint32_t i;

	for (i = 0; i < bs; i++)
		if (p[i])
			return 0;
	return 1;
}

/* An intact header names (seed, lba, gen), which fully determine the payload,
 * and the checksum proves the payload intact: no need to regenerate it. */
enum pattern_verdict pattern_classify(const void *buf, uint32_t bs, uint64_t seed, uint64_t lba,
				      uint64_t gen)
{
	struct pattern_hdr h;

	if (pattern_is_zero(buf, bs))
		return PATTERN_ZEROED;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != PATTERN_MAGIC)
		return PATTERN_BAD_CHECKSUM;
	if (h.bs != bs || h.version != PATTERN_VERSION)
		return PATTERN_FOREIGN;
	if (h.csum != pattern_block_csum(buf, bs))
		return PATTERN_BAD_CHECKSUM;
	if (h.seed != seed)
		return PATTERN_FOREIGN;
	if (h.lba != lba)
		return PATTERN_WRONG_LBA;
	if (h.gen != gen)
		return PATTERN_STALE_GEN;
	return PATTERN_OK;
}

/* Fisher-Yates; the modulo bias is irrelevant for block counts far below
 * 2^64. */
void pattern_permute(uint64_t *order, uint64_t n, uint64_t seed)
{
	uint64_t state = seed ^ 0x5bd1e9955bd1e995ULL, i, j, t;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		j = pattern_rand(&state) % i;
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}
