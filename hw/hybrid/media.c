#include "media.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLASH_MAGIC "KTBFLSH1"
#define FLASH_HDR 4096u
#define SLOT_ENTRY 16u
#define SLOT_DIRTY 1u
#define SLOT_PINNED 2u
#define NO_SLOT (-1)

struct slot {
	uint64_t chunk;
	uint64_t lru;
	bool used, dirty, pinned;
};

struct flash_hdr {
	char magic[8];
	uint64_t chunk, nslots, capacity;
};

struct media {
	struct media_config cfg;
	struct media_stats st;
	int platter_fd, flash_fd;
	uint64_t head; /* where the platter's head is, bytes */
	/* flash tier */
	struct slot *slots;
	uint32_t nslots;
	uint64_t data_off; /* where slot 0's data starts in the flash file */
	int32_t *map;	   /* chunk -> slot or NO_SLOT */
	uint8_t *heat;	   /* platter reads of each chunk, saturating */
	uint64_t nchunks, clock;
	/* volatile write cache: open addressing, cleared only as a whole */
	uint32_t vcap, vn, vmask;
	uint64_t *vblk;
	uint32_t *vhash; /* index + 1, 0 empty */
	uint8_t *vdata;
	uint8_t *bounce;
	size_t bounce_len;
};

void media_config_defaults(struct media_config *c)
{
	memset(c, 0, sizeof(*c));
	c->model = true;
	c->flash_size = 64ull << 20;
	c->wcache_size = 8ull << 20;
	c->rpm = 5400;
	c->promote_after = 2;
	c->seek_full_ns = 18000000;
	c->seek_min_ns = 1000000;
	c->platter_bps = 120000000;
	c->flash_read_ns = 60000;
	c->flash_write_ns = 80000;
	c->flash_bps = 500000000;
	c->cache_ns = 5000;
}

/* ---- the arithmetic ---- */

uint64_t media_seek_ns(const struct media_config *c, uint64_t from, uint64_t to)
{
	uint64_t dist = from > to ? from - to : to - from;
	double frac;

	if (!dist || !c->capacity)
		return 0;
	frac = (double)dist / (double)c->capacity;
	if (frac > 1)
		frac = 1;
	/* seek time grows with the square root of the distance (the arm
	 * accelerates, coasts, then settles) */
	return c->seek_min_ns + (uint64_t)((double)(c->seek_full_ns - c->seek_min_ns) * sqrt(frac));
}

uint64_t media_rotation_ns(const struct media_config *c)
{
	return c->rpm ? 60000000000ull / c->rpm : 0;
}

uint64_t media_transfer_ns(uint64_t bytes, uint64_t bps)
{
	return bps ? (uint64_t)((double)bytes * 1e9 / (double)bps) : 0;
}

/* Moving the head away costs a seek plus, on average, half a revolution. */
static uint64_t platter_cost(struct media *m, uint64_t off, uint64_t len)
{
	uint64_t ns = media_transfer_ns(len, m->cfg.platter_bps);

	if (off != m->head)
		ns += media_seek_ns(&m->cfg, m->head, off) + media_rotation_ns(&m->cfg) / 2;
	m->head = off + len;
	return ns;
}

/* ---- file helpers ---- */

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) { /* past the end of a sparse file: zeros */
			memset(buf, 0, len);
			return 0;
		}
		buf = (char *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf = (const char *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* ---- flash tier ---- */

static bool chunk_pinned(const struct media *m, uint64_t chunk)
{
	uint64_t a = chunk * MEDIA_CHUNK, b = a + MEDIA_CHUNK;

	for (unsigned i = 0; i < m->cfg.npins; i++) {
		const struct media_range *p = &m->cfg.pins[i];

		if (a < p->off + p->len && p->off < b)
			return true;
	}
	return false;
}

static uint64_t chunk_len(const struct media *m, uint64_t chunk)
{
	uint64_t left = m->cfg.capacity - chunk * MEDIA_CHUNK;

	return left < MEDIA_CHUNK ? left : MEDIA_CHUNK;
}

static int slot_save(struct media *m, uint32_t s)
{
	const struct slot *sl = &m->slots[s];
	uint8_t e[SLOT_ENTRY] = { 0 };
	uint64_t tag = sl->used ? sl->chunk + 1 : 0;
	uint32_t flags = (sl->dirty ? SLOT_DIRTY : 0) | (sl->pinned ? SLOT_PINNED : 0);

	memcpy(e, &tag, 8);
	memcpy(e + 8, &flags, 4);
	return pwrite_all(m->flash_fd, e, sizeof(e), FLASH_HDR + (uint64_t)s * SLOT_ENTRY);
}

static uint64_t slot_data(const struct media *m, uint32_t s)
{
	return m->data_off + (uint64_t)s * MEDIA_CHUNK;
}

/* Give a slot back: a dirty chunk goes to the platter first. */
static int slot_evict(struct media *m, uint32_t s)
{
	struct slot *sl = &m->slots[s];
	uint64_t len = chunk_len(m, sl->chunk);
	int ret = 0;

	if (sl->dirty) {
		ret = pread_all(m->flash_fd, m->bounce, len, slot_data(m, s));
		if (!ret)
			ret = pwrite_all(m->platter_fd, m->bounce, len, sl->chunk * MEDIA_CHUNK);
		if (ret < 0)
			return ret;
		m->st.writebacks++;
		m->st.flash_read += len;
		m->st.platter_written += len;
	}
	m->map[sl->chunk] = NO_SLOT;
	memset(sl, 0, sizeof(*sl));
	m->st.evictions++;
	return slot_save(m, s);
}

/* A free slot, or the least recently used one that is not pinned. */
static int slot_alloc(struct media *m)
{
	int victim = -1;
	int ret;

	for (uint32_t s = 0; s < m->nslots; s++) {
		if (!m->slots[s].used)
			return (int)s;
		if (!m->slots[s].pinned && (victim < 0 || m->slots[s].lru < m->slots[victim].lru))
			victim = (int)s;
	}
	if (victim < 0)
		return -ENOSPC;
	ret = slot_evict(m, (uint32_t)victim);
	return ret < 0 ? ret : victim;
}

/* Copy a chunk from the platter into flash (in the background: no latency). */
static int promote(struct media *m, uint64_t chunk)
{
	uint64_t len = chunk_len(m, chunk);
	int s = slot_alloc(m);
	int ret;

	if (s < 0)
		return s == -ENOSPC ? 0 : s;
	ret = pread_all(m->platter_fd, m->bounce, len, chunk * MEDIA_CHUNK);
	if (!ret)
		ret = pwrite_all(m->flash_fd, m->bounce, len, slot_data(m, (uint32_t)s));
	if (ret < 0)
		return ret;
	m->slots[s] = (struct slot){
		.chunk = chunk, .lru = ++m->clock, .used = true, .pinned = chunk_pinned(m, chunk)
	};
	m->map[chunk] = s;
	m->st.promotions++;
	m->st.platter_read += len;
	m->st.flash_written += len;
	return slot_save(m, (uint32_t)s);
}

/* The bounce buffer also carries whole chunks during promotion and eviction,
 * so stable I/O works on its caller's buffer. */
static int stable_piece_read(struct media *m, uint64_t off, uint8_t *buf, uint64_t len,
			     uint64_t *lat)
{
	uint64_t chunk = off / MEDIA_CHUNK;
	int32_t s = m->map[chunk];
	int ret;

	if (s != NO_SLOT) {
		m->slots[s].lru = ++m->clock;
		m->st.hits++;
		m->st.flash_read += len;
		*lat += m->cfg.flash_read_ns + media_transfer_ns(len, m->cfg.flash_bps);
		return pread_all(m->flash_fd, buf, len,
				 slot_data(m, (uint32_t)s) + off % MEDIA_CHUNK);
	}
	m->st.misses++;
	m->st.platter_read += len;
	*lat += platter_cost(m, off, len);
	ret = pread_all(m->platter_fd, buf, len, off);
	if (ret < 0)
		return ret;
	if (m->heat[chunk] < 255)
		m->heat[chunk]++;
	if (m->nslots && (chunk_pinned(m, chunk) || m->heat[chunk] >= m->cfg.promote_after))
		return promote(m, chunk);
	return 0;
}

static int stable_piece_write(struct media *m, uint64_t off, const uint8_t *buf, uint64_t len,
			      uint64_t *lat)
{
	uint64_t chunk = off / MEDIA_CHUNK;
	int ret;

	if (m->map[chunk] == NO_SLOT && m->nslots && chunk_pinned(m, chunk)) {
		ret = promote(m, chunk);
		if (ret < 0)
			return ret;
	}
	if (m->map[chunk] != NO_SLOT) {
		int32_t s = m->map[chunk];
		bool was_dirty = m->slots[s].dirty;

		m->slots[s].lru = ++m->clock;
		m->slots[s].dirty = true;
		m->st.flash_written += len;
		*lat += m->cfg.flash_write_ns + media_transfer_ns(len, m->cfg.flash_bps);
		ret = pwrite_all(m->flash_fd, buf, len,
				 slot_data(m, (uint32_t)s) + off % MEDIA_CHUNK);
		return ret < 0 || was_dirty ? ret : slot_save(m, (uint32_t)s);
	}
	m->st.platter_written += len;
	*lat += platter_cost(m, off, len);
	return pwrite_all(m->platter_fd, buf, len, off);
}

typedef int (*piece_fn)(struct media *m, uint64_t off, uint8_t *buf, uint64_t len, uint64_t *lat);

/* Split [off, off + len) at chunk boundaries. */
static int for_pieces(struct media *m, uint64_t off, uint8_t *buf, uint64_t len, uint64_t *lat,
		      piece_fn fn)
{
	while (len) {
		uint64_t piece = MEDIA_CHUNK - off % MEDIA_CHUNK;
		int ret;

		if (piece > len)
			piece = len;
		ret = fn(m, off, buf, piece, lat);
		if (ret < 0)
			return ret;
		off += piece;
		buf += piece;
		len -= piece;
	}
	return 0;
}

static int stable_write_fn(struct media *m, uint64_t off, uint8_t *buf, uint64_t len, uint64_t *lat)
{
	return stable_piece_write(m, off, buf, len, lat);
}

/* ---- volatile write cache ---- */

static uint32_t vc_hash(const struct media *m, uint64_t blk)
{
	return (uint32_t)((blk * 0x9E3779B97F4A7C15ull) >> 32) & m->vmask;
}

static int vc_find(const struct media *m, uint64_t blk)
{
	for (uint32_t h = vc_hash(m, blk);; h = (h + 1) & m->vmask) {
		uint32_t e = m->vhash[h];

		if (!e)
			return -1;
		if (m->vblk[e - 1] == blk)
			return (int)(e - 1);
	}
}

static uint32_t vc_insert(struct media *m, uint64_t blk)
{
	uint32_t h = vc_hash(m, blk), i = m->vn++;

	while (m->vhash[h])
		h = (h + 1) & m->vmask;
	m->vhash[h] = i + 1;
	m->vblk[i] = blk;
	return i;
}

static void vc_clear(struct media *m)
{
	m->vn = 0;
	memset(m->vhash, 0, ((size_t)m->vmask + 1) * sizeof(*m->vhash));
}

static int cmp_index_blk(const void *a, const void *b, void *ctx)
{
	const uint64_t *blk = ctx;
	uint64_t x = blk[*(const uint32_t *)a], y = blk[*(const uint32_t *)b];

	return (x > y) - (x < y);
}

/* Write the whole volatile cache to stable media, in LBA order. */
static int vc_destage(struct media *m, uint64_t *lat)
{
	uint32_t *order;
	int ret = 0;

	if (!m->vn)
		return 0;
	order = malloc(m->vn * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->vn; i++)
		order[i] = i;
	qsort_r(order, m->vn, sizeof(*order), cmp_index_blk, m->vblk);
	for (uint32_t i = 0; i < m->vn && !ret; i++) {
		uint64_t blk = m->vblk[order[i]];
		uint64_t off = blk * MEDIA_BLOCK;

		ret = for_pieces(m, off, m->vdata + (size_t)order[i] * MEDIA_BLOCK, MEDIA_BLOCK,
				 lat, stable_write_fn);
	}
	free(order);
	if (!ret)
		vc_clear(m);
	return ret;
}

static int stable_read_fn(struct media *m, uint64_t off, uint8_t *buf, uint64_t len, uint64_t *lat)
{
	return stable_piece_read(m, off, buf, len, lat);
}

/* Overlay the cached blocks on buf (which holds [off, off + len)); the
 * number of bytes that came from the cache. */
static uint64_t vc_overlay(struct media *m, uint64_t off, uint8_t *buf, uint64_t len)
{
	uint64_t got = 0;

	for (uint64_t blk = off / MEDIA_BLOCK; blk * MEDIA_BLOCK < off + len; blk++) {
		uint64_t b0 = blk * MEDIA_BLOCK, a = b0 > off ? b0 : off;
		uint64_t e = b0 + MEDIA_BLOCK < off + len ? b0 + MEDIA_BLOCK : off + len;
		int i = vc_find(m, blk);

		if (i < 0)
			continue;
		memcpy(buf + (a - off), m->vdata + (size_t)i * MEDIA_BLOCK + (a - b0), e - a);
		got += e - a;
	}
	return got;
}

/* ---- I/O entry points ---- */

static int bounce_reserve(struct media *m, size_t len)
{
	uint8_t *b;

	if (len < MEDIA_CHUNK)
		len = MEDIA_CHUNK;
	if (len <= m->bounce_len)
		return 0;
	b = realloc(m->bounce, len);
	if (!b)
		return -ENOMEM;
	m->bounce = b;
	m->bounce_len = len;
	return 0;
}

static void iov_to_buf(const struct iovec *iov, unsigned n, uint8_t *buf, uint64_t len)
{
	for (unsigned i = 0; i < n && len; i++) {
		size_t c = iov[i].iov_len < len ? iov[i].iov_len : len;

		memcpy(buf, iov[i].iov_base, c);
		buf += c;
		len -= c;
	}
}

static void buf_to_iov(const uint8_t *buf, uint64_t len, const struct iovec *iov, unsigned n)
{
	for (unsigned i = 0; i < n && len; i++) {
		size_t c = iov[i].iov_len < len ? iov[i].iov_len : len;

		memcpy(iov[i].iov_base, buf, c);
		buf += c;
		len -= c;
	}
}

static int check_range(const struct media *m, uint64_t off, uint64_t len)
{
	return off > m->cfg.capacity || len > m->cfg.capacity - off ? -ERANGE : 0;
}

static int passthrough_io(struct media *m, bool write, uint64_t off, const struct iovec *iov,
			  unsigned n, uint64_t len)
{
	ssize_t r = write ? pwritev(m->platter_fd, iov, (int)n, (off_t)off)
			  : preadv(m->platter_fd, iov, (int)n, (off_t)off);

	if (r < 0)
		return -errno;
	if ((uint64_t)r != len) {
		/* short: finish through the slow path */
		uint8_t *b = malloc(len);
		int ret;

		if (!b)
			return -ENOMEM;
		if (write) {
			iov_to_buf(iov, n, b, len);
			ret = pwrite_all(m->platter_fd, b, len, off);
		} else {
			ret = pread_all(m->platter_fd, b, len, off);
			if (!ret)
				buf_to_iov(b, len, iov, n);
		}
		free(b);
		return ret;
	}
	return 0;
}

int media_read(struct media *m, uint64_t off, const struct iovec *iov, unsigned n, uint64_t len,
	       uint64_t *lat)
{
	uint64_t from_cache = 0, stable_lat = 0;
	int ret = check_range(m, off, len);

	if (ret < 0)
		return ret;
	m->st.reads++;
	if (!m->cfg.model) {
		m->st.platter_read += len;
		return passthrough_io(m, false, off, iov, n, len);
	}
	ret = bounce_reserve(m, len + MEDIA_CHUNK);
	if (ret < 0)
		return ret;
	/* the first len bytes hold the data; promotion uses what follows */
	{
		uint8_t *saved = m->bounce;

		m->bounce += len;
		ret = for_pieces(m, off, saved, len, &stable_lat, stable_read_fn);
		m->bounce = saved;
	}
	if (ret < 0)
		return ret;
	if (m->vn)
		from_cache = vc_overlay(m, off, m->bounce, len);
	m->st.cache_read += from_cache;
	if (from_cache)
		m->st.cache_hits++;
	*lat += from_cache == len ? m->cfg.cache_ns : stable_lat;
	buf_to_iov(m->bounce, len, iov, n);
	return 0;
}

/* One block into the cache: the stable copy first when only part of it is
 * written. */
static int vc_write_block(struct media *m, uint64_t blk, uint64_t a, uint64_t e, const uint8_t *src,
			  uint64_t *lat)
{
	int i = vc_find(m, blk);
	uint64_t b0 = blk * MEDIA_BLOCK, ignored = 0;
	int ret;

	if (i < 0) {
		if (m->vn == m->vcap) {
			ret = vc_destage(m, lat);
			if (ret < 0)
				return ret;
		}
		i = (int)vc_insert(m, blk);
		if (a != b0 || e != b0 + MEDIA_BLOCK) {
			uint8_t *saved = m->bounce;

			m->bounce = m->bounce + m->bounce_len - MEDIA_CHUNK;
			ret = for_pieces(m, b0, m->vdata + (size_t)i * MEDIA_BLOCK, MEDIA_BLOCK,
					 &ignored, stable_read_fn);
			m->bounce = saved;
			if (ret < 0)
				return ret;
		}
	}
	memcpy(m->vdata + (size_t)i * MEDIA_BLOCK + (a - b0), src, e - a);
	return 0;
}

/* The bounce buffer's first len bytes into the cache, block by block; the
 * rest of the buffer is scratch meanwhile. */
static int vc_write(struct media *m, uint64_t off, uint64_t len, uint64_t *lat)
{
	uint8_t *src = m->bounce;
	int ret = 0;

	m->bounce += len;
	m->bounce_len -= len;
	for (uint64_t blk = off / MEDIA_BLOCK; !ret && blk * MEDIA_BLOCK < off + len; blk++) {
		uint64_t b0 = blk * MEDIA_BLOCK, a = b0 > off ? b0 : off;
		uint64_t e = b0 + MEDIA_BLOCK < off + len ? b0 + MEDIA_BLOCK : off + len;

		ret = vc_write_block(m, blk, a, e, src + (a - off), lat);
	}
	m->bounce = src;
	m->bounce_len += len;
	return ret;
}

int media_write(struct media *m, uint64_t off, const struct iovec *iov, unsigned n, uint64_t len,
		uint64_t *lat)
{
	int ret = check_range(m, off, len);

	if (ret < 0)
		return ret;
	m->st.writes++;
	if (!m->cfg.model) {
		m->st.platter_written += len;
		return passthrough_io(m, true, off, iov, n, len);
	}
	ret = bounce_reserve(m, len + 2 * MEDIA_CHUNK);
	if (ret < 0)
		return ret;
	iov_to_buf(iov, n, m->bounce, len);
	if (!m->vcap) {
		uint8_t *saved = m->bounce;

		m->bounce += len;
		ret = for_pieces(m, off, saved, len, lat, stable_write_fn);
		m->bounce = saved;
		return ret;
	}
	ret = vc_write(m, off, len, lat);
	m->st.cache_written += len;
	*lat += m->cfg.cache_ns;
	return ret;
}

int media_flush(struct media *m, uint64_t *lat)
{
	int ret = 0;

	m->st.flushes++;
	if (m->cfg.model) {
		ret = bounce_reserve(m, MEDIA_CHUNK);
		if (!ret)
			ret = vc_destage(m, lat);
		if (!ret && m->flash_fd >= 0 && fdatasync(m->flash_fd) < 0)
			ret = -errno;
	}
	if (!ret && fdatasync(m->platter_fd) < 0)
		ret = -errno;
	return ret;
}

int media_write_zeroes(struct media *m, uint64_t off, uint64_t len, uint64_t *lat)
{
	static const uint8_t zeros[MEDIA_CHUNK];
	int ret = check_range(m, off, len);

	while (!ret && len) {
		struct iovec v = { (void *)zeros, len < MEDIA_CHUNK ? len : MEDIA_CHUNK };

		ret = media_write(m, off, &v, 1, v.iov_len, lat);
		m->st.writes--; /* one request, counted once below */
		off += v.iov_len;
		len -= v.iov_len;
	}
	m->st.writes++;
	return ret;
}

int media_discard(struct media *m, uint64_t off, uint64_t len, uint64_t *lat)
{
	int ret = check_range(m, off, len);

	if (ret < 0)
		return ret;
	m->st.discards++;
	if (m->cfg.model)
		return media_write_zeroes(m, off, len, lat);
	if (fallocate(m->platter_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)len) < 0)
		return media_write_zeroes(m, off, len, lat);
	return 0;
}

uint64_t media_power_loss(struct media *m)
{
	uint64_t lost = m->vn;

	if (m->vcap)
		vc_clear(m);
	m->st.lost_blocks += lost;
	m->st.power_losses++;
	return lost;
}

void media_account(struct media *m, uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned b = 0;

	while (us && b < MEDIA_HIST_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	m->st.hist[b]++;
}

const struct media_stats *media_stats(const struct media *m)
{
	return &m->st;
}

const struct media_config *media_config(const struct media *m)
{
	return &m->cfg;
}

uint64_t media_dirty_blocks(const struct media *m)
{
	return m->vn;
}

/* ---- open and close ---- */

static int flash_load(struct media *m, const char **why)
{
	struct flash_hdr h = { { 0 }, 0, 0, 0 },
			 want = { FLASH_MAGIC, MEDIA_CHUNK, m->nslots, m->cfg.capacity };
	uint8_t e[SLOT_ENTRY];
	int ret = pread_all(m->flash_fd, &h, sizeof(h), 0);

	if (ret < 0)
		return ret;
	if (!h.magic[0]) { /* a new file */
		ret = pwrite_all(m->flash_fd, &want, sizeof(want), 0);
		return ret < 0 ? ret
			       : (ftruncate(m->flash_fd, (off_t)(m->data_off + (uint64_t)m->nslots *
										   MEDIA_CHUNK)) < 0
				      ? -errno
				      : 0);
	}
	if (memcmp(&h, &want, sizeof(h))) {
		*why = "the flash file belongs to a disk of another size or flash size";
		return -EINVAL;
	}
	for (uint32_t s = 0; s < m->nslots; s++) {
		uint64_t tag;
		uint32_t flags;

		ret = pread_all(m->flash_fd, e, sizeof(e), FLASH_HDR + (uint64_t)s * SLOT_ENTRY);
		if (ret < 0)
			return ret;
		memcpy(&tag, e, 8);
		memcpy(&flags, e + 8, 4);
		if (!tag)
			continue;
		if (tag - 1 >= m->nchunks || m->map[tag - 1] != NO_SLOT) {
			*why = "the flash map is damaged";
			return -EINVAL;
		}
		m->slots[s] = (struct slot){ .chunk = tag - 1,
					     .used = true,
					     .dirty = flags & SLOT_DIRTY,
					     .pinned = flags & SLOT_PINNED };
		m->map[tag - 1] = (int32_t)s;
	}
	return 0;
}

static int media_alloc(struct media *m)
{
	uint32_t hsize = 1;

	m->nchunks = (m->cfg.capacity + MEDIA_CHUNK - 1) / MEDIA_CHUNK;
	m->nslots = (uint32_t)(m->cfg.flash_size / MEDIA_CHUNK);
	m->vcap = (uint32_t)(m->cfg.wcache_size / MEDIA_BLOCK);
	while (hsize < 2 * m->vcap)
		hsize <<= 1;
	m->vmask = hsize - 1;
	m->map = malloc(m->nchunks * sizeof(*m->map));
	m->heat = calloc(m->nchunks, 1);
	m->slots = calloc(m->nslots ? m->nslots : 1, sizeof(*m->slots));
	m->vblk = calloc(m->vcap ? m->vcap : 1, sizeof(*m->vblk));
	m->vhash = calloc(hsize, sizeof(*m->vhash));
	m->vdata = malloc((m->vcap ? m->vcap : 1) * (size_t)MEDIA_BLOCK);
	if (!m->map || !m->heat || !m->slots || !m->vblk || !m->vhash || !m->vdata)
		return -ENOMEM;
	for (uint64_t i = 0; i < m->nchunks; i++)
		m->map[i] = NO_SLOT;
	m->data_off =
	    FLASH_HDR +
	    (((uint64_t)m->nslots * SLOT_ENTRY + MEDIA_CHUNK - 1) / MEDIA_CHUNK) * MEDIA_CHUNK;
	return bounce_reserve(m, 4 * MEDIA_CHUNK);
}

static void media_free(struct media *m)
{
	if (m->platter_fd >= 0)
		close(m->platter_fd);
	if (m->flash_fd >= 0)
		close(m->flash_fd);
	free(m->map);
	free(m->heat);
	free(m->slots);
	free(m->vblk);
	free(m->vhash);
	free(m->vdata);
	free(m->bounce);
	free(m);
}

static int media_check(const struct media_config *c, const char **why)
{
	if (!c->capacity || c->capacity % MEDIA_CHUNK) {
		*why = "the capacity must be a non-zero multiple of 64 KiB";
		return -EINVAL;
	}
	if (c->model && (c->flash_size % MEDIA_CHUNK || c->wcache_size % MEDIA_BLOCK)) {
		*why = "the flash size must be a multiple of 64 KiB, the write cache of 4 KiB";
		return -EINVAL;
	}
	if (c->model && (!c->rpm || !c->promote_after || c->flash_size > c->capacity)) {
		*why =
		    "rpm and promote_after must be at least 1, the flash no larger than the disk";
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->npins; i++) {
		if (c->pins[i].off > c->capacity || c->pins[i].len > c->capacity - c->pins[i].off) {
			*why = "a pinned range lies beyond the end of the disk";
			return -EINVAL;
		}
	}
	return 0;
}

int media_open(const struct media_config *cfg, struct media **out, const char **why)
{
	struct media *m;
	int ret = media_check(cfg, why);

	if (ret < 0)
		return ret;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cfg = *cfg;
	m->flash_fd = -1;
	if (!cfg->model)
		m->cfg.flash_size = m->cfg.wcache_size = 0;
	m->platter_fd = open(cfg->platter_path, O_RDWR | O_CLOEXEC);
	if (m->platter_fd < 0) {
		ret = -errno;
		*why = "cannot open the platter file";
		goto fail;
	}
	ret = media_alloc(m);
	if (ret < 0) {
		*why = "out of memory";
		goto fail;
	}
	if (m->nslots) {
		m->flash_fd = open(cfg->flash_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		ret = m->flash_fd < 0 ? -errno : flash_load(m, why);
		if (ret < 0) {
			if (m->flash_fd < 0)
				*why = "cannot open the flash file";
			goto fail;
		}
	}
	*out = m;
	return 0;
fail:
	media_free(m);
	return ret;
}

int media_close(struct media *m)
{
	uint64_t lat = 0;
	int ret = 0;

	if (!m)
		return 0;
	if (m->cfg.model)
		ret = vc_destage(m, &lat);
	if (m->flash_fd >= 0 && fsync(m->flash_fd) < 0 && !ret)
		ret = -errno;
	if (fsync(m->platter_fd) < 0 && !ret)
		ret = -errno;
	media_free(m);
	return ret;
}
