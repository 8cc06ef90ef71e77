/* The hybrid drive's media: a rotating platter behind a flash tier, behind a
 * volatile write cache. Knows offsets and buffers, never virtqueues. Each
 * operation returns the latency the model charges for it (0 with the model
 * off: pure pass-through to the platter file). */
#ifndef KTB_HYBRID_MEDIA_H
#define KTB_HYBRID_MEDIA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#define MEDIA_CHUNK (64u * 1024) /* flash tier granularity */
#define MEDIA_BLOCK 4096u	 /* volatile cache granularity */
#define MEDIA_MAX_PINS 8
#define MEDIA_HIST_BUCKETS 24 /* latency histogram: < 1, 2, 4 ... 2^23 us */

struct media_range {
	uint64_t off, len;
};

struct media_config {
	const char *platter_path; /* the disk image: the rotating tier */
	const char *flash_path;	  /* the flash tier's data and map (created if missing) */
	uint64_t capacity;	  /* bytes; the platter file is at least this big */
	bool model;		  /* false: pass-through, no tiers, no latency */
	uint64_t flash_size;	  /* bytes of flash, a multiple of MEDIA_CHUNK */
	uint64_t wcache_size;	  /* bytes of volatile write cache */
	unsigned rpm;
	unsigned promote_after; /* platter reads of a chunk before it moves to flash */
	uint64_t seek_full_ns;	/* full-stroke seek */
	uint64_t seek_min_ns;	/* track-to-track seek */
	uint64_t platter_bps;	/* sustained platter transfer, bytes/s */
	uint64_t flash_read_ns, flash_write_ns; /* per-access flash cost */
	uint64_t flash_bps;
	uint64_t cache_ns;			 /* a hit in the volatile cache */
	struct media_range pins[MEDIA_MAX_PINS]; /* kept in flash: the host's hint */
	unsigned npins;
};

struct media_stats {
	uint64_t reads, writes, flushes, discards;
	uint64_t hits, misses, cache_hits, promotions, evictions, writebacks;
	uint64_t platter_read, platter_written, flash_read, flash_written;
	uint64_t cache_read, cache_written;
	uint64_t lost_blocks, power_losses;
	uint64_t hist[MEDIA_HIST_BUCKETS];
};

struct media;

/* Fill cfg's model parameters with the defaults (5400 rpm, 64M flash, ...). */
void media_config_defaults(struct media_config *cfg);
/* Open the tiers. 0 or -errno; *why says what went wrong. */
int media_open(const struct media_config *cfg, struct media **out, const char **why);
/* Clean stop: write the volatile cache out, save the flash map, sync. */
int media_close(struct media *m);

/* I/O; off and lengths are bytes. Each returns 0 or -errno and adds the
 * modelled latency to *lat_ns. */
int media_read(struct media *m, uint64_t off, const struct iovec *iov, unsigned n, uint64_t len,
	       uint64_t *lat_ns);
int media_write(struct media *m, uint64_t off, const struct iovec *iov, unsigned n, uint64_t len,
		uint64_t *lat_ns);
int media_flush(struct media *m, uint64_t *lat_ns);
int media_discard(struct media *m, uint64_t off, uint64_t len, uint64_t *lat_ns);
int media_write_zeroes(struct media *m, uint64_t off, uint64_t len, uint64_t *lat_ns);

/* Power cut: what the volatile cache held is gone. Returns the blocks lost. */
uint64_t media_power_loss(struct media *m);
/* Latency of one request into the histogram. */
void media_account(struct media *m, uint64_t ns);
const struct media_stats *media_stats(const struct media *m);
const struct media_config *media_config(const struct media *m);
/* Blocks now in the volatile cache. */
uint64_t media_dirty_blocks(const struct media *m);

/* The model's arithmetic, exposed for tests. */
uint64_t media_seek_ns(const struct media_config *c, uint64_t from, uint64_t to);
uint64_t media_rotation_ns(const struct media_config *c);
uint64_t media_transfer_ns(uint64_t bytes, uint64_t bps);

#endif
