#include "blk.h"

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#define SECTOR 512u

uint64_t blk_features(void)
{
	return 1ull << VIRTIO_BLK_F_SIZE_MAX | 1ull << VIRTIO_BLK_F_SEG_MAX |
	       1ull << VIRTIO_BLK_F_BLK_SIZE | 1ull << VIRTIO_BLK_F_TOPOLOGY |
	       1ull << VIRTIO_BLK_F_FLUSH | 1ull << VIRTIO_BLK_F_CONFIG_WCE |
	       1ull << VIRTIO_BLK_F_DISCARD | 1ull << VIRTIO_BLK_F_WRITE_ZEROES |
	       1ull << VIRTIO_RING_F_INDIRECT_DESC | 1ull << 32 /* VIRTIO_F_VERSION_1 */;
}

static unsigned log2u(uint32_t v)
{
	unsigned n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

void blk_config(const struct blk *b, struct virtio_blk_config *cfg)
{
	const struct media_config *mc = media_config(b->media);

	memset(cfg, 0, sizeof(*cfg));
	cfg->capacity = htole64(mc->capacity / SECTOR);
	cfg->size_max = htole32(BLK_SIZE_MAX);
	cfg->seg_max = htole32(BLK_SEG_MAX);
	cfg->blk_size = htole32(b->logical);
	cfg->physical_block_exp = (uint8_t)log2u(b->physical / b->logical);
	cfg->min_io_size = htole16(1);
	cfg->opt_io_size = htole32(0);
	cfg->wce = b->wce;
	cfg->num_queues = htole16(1);
	cfg->max_discard_sectors = htole32(BLK_MAX_REQ / SECTOR);
	cfg->max_discard_seg = htole32(1);
	cfg->discard_sector_alignment = htole32(b->logical / SECTOR);
	cfg->max_write_zeroes_sectors = htole32(BLK_MAX_REQ / SECTOR);
	cfg->max_write_zeroes_seg = htole32(1);
	cfg->write_zeroes_may_unmap = 1;
}

void blk_config_write(struct blk *b, uint32_t off, const uint8_t *data, uint32_t len)
{
	uint32_t at = offsetof(struct virtio_blk_config, wce);

	if (off <= at && len > at - off)
		b->wce = data[at - off] != 0;
}

/* Copy up to len bytes starting skip bytes into iov. */
static uint64_t iov_copy_from(const struct iovec *iov, unsigned n, uint64_t skip, void *dst,
			      uint64_t len)
{
	uint64_t done = 0;

	for (unsigned i = 0; i < n && done < len; i++) {
		uint64_t l = iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		l -= skip;
		if (l > len - done)
			l = len - done;
		memcpy((char *)dst + done, (char *)iov[i].iov_base + skip, l);
		done += l;
		skip = 0;
	}
	return done;
}

/* iov without its first skip bytes, at most len bytes of it, into out. */
static unsigned iov_slice(const struct iovec *iov, unsigned n, uint64_t skip, uint64_t len,
			  struct iovec *out)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n && len; i++) {
		uint64_t l = iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		l -= skip;
		if (l > len)
			l = len;
		out[k].iov_base = (char *)iov[i].iov_base + skip;
		out[k++].iov_len = l;
		len -= l;
		skip = 0;
	}
	return k;
}

/* The last byte of the in buffers: the status. */
static void put_status(const struct vq_chain *c, uint8_t status)
{
	uint64_t skip = c->in_len - 1;

	for (unsigned i = 0; i < c->nin; i++) {
		if (skip < c->in[i].iov_len) {
			((uint8_t *)c->in[i].iov_base)[skip] = status;
			return;
		}
		skip -= c->in[i].iov_len;
	}
}

static uint8_t errno_status(int err)
{
	return err == 0		 ? VIRTIO_BLK_S_OK
	       : err == -ENOTSUP ? VIRTIO_BLK_S_UNSUPP
				 : VIRTIO_BLK_S_IOERR;
}

/* Is [off, off + len) a whole number of logical sectors inside the disk? */
static bool blk_range_ok(const struct blk *b, uint64_t sector, uint64_t len)
{
	uint64_t cap = media_config(b->media)->capacity;

	if (sector > cap / SECTOR || len > cap - sector * SECTOR)
		return false;
	return (sector * SECTOR) % b->logical == 0 && len % b->logical == 0;
}

/* Does [off, off + len) touch debug range f? */
static bool blk_in_range(const struct media_range *f, uint64_t off, uint64_t len)
{
	return f->len && off < f->off + f->len && f->off < off + len;
}

static bool blk_fails_write(const struct blk *b, uint64_t off, uint64_t len)
{
	return blk_in_range(&b->fail_writes, off, len);
}

static int blk_rw(struct blk *b, const struct vq_chain *c, uint64_t sector, bool write,
		  uint64_t *lat)
{
	struct iovec data[VQ_MAX_IOV];
	uint64_t len = write ? c->out_len - sizeof(struct virtio_blk_outhdr) : c->in_len - 1;
	unsigned n;
	int ret;

	if (!blk_range_ok(b, sector, len) || len > BLK_MAX_REQ)
		return -EINVAL;
	if (write && blk_fails_write(b, sector * SECTOR, len))
		return -EIO;
	if (!write && blk_in_range(&b->fail_reads, sector * SECTOR, len))
		return -EIO;
	if (write)
		n = iov_slice(c->out, c->nout, sizeof(struct virtio_blk_outhdr), len, data);
	else
		n = iov_slice(c->in, c->nin, 0, len, data);
	if (write) {
		ret = media_write(b->media, sector * SECTOR, data, n, len, lat);
		if (!ret && !b->wce)
			ret = media_flush(b->media, lat);
		return ret;
	}
	return media_read(b->media, sector * SECTOR, data, n, len, lat);
}

/* DISCARD and WRITE_ZEROES carry one segment after the header. */
static int blk_segment(struct blk *b, const struct vq_chain *c, bool zeroes, uint64_t *lat)
{
	struct virtio_blk_discard_write_zeroes seg;
	uint64_t sector, len;

	if (c->out_len != sizeof(struct virtio_blk_outhdr) + sizeof(seg))
		return -EINVAL;
	iov_copy_from(c->out, c->nout, sizeof(struct virtio_blk_outhdr), &seg, sizeof(seg));
	sector = le64toh(seg.sector);
	len = (uint64_t)le32toh(seg.num_sectors) * SECTOR;
	if (!blk_range_ok(b, sector, len) || len > BLK_MAX_REQ)
		return -EINVAL;
	if (blk_fails_write(b, sector * SECTOR, len))
		return -EIO;
	return zeroes ? media_write_zeroes(b->media, sector * SECTOR, len, lat)
		      : media_discard(b->media, sector * SECTOR, len, lat);
}

static uint32_t blk_get_id(const struct blk *b, const struct vq_chain *c)
{
	struct iovec data[VQ_MAX_IOV];
	char id[VIRTIO_BLK_ID_BYTES] = { 0 };
	uint64_t len = c->in_len - 1 < sizeof(id) ? c->in_len - 1 : sizeof(id);
	unsigned n = iov_slice(c->in, c->nin, 0, len, data);
	uint64_t done = 0;

	memcpy(id, b->serial, strnlen(b->serial, sizeof(id)));
	for (unsigned i = 0; i < n; i++) {
		memcpy(data[i].iov_base, id + done, data[i].iov_len);
		done += data[i].iov_len;
	}
	put_status(c, VIRTIO_BLK_S_OK);
	return (uint32_t)(len + 1);
}

static int blk_do(struct blk *b, const struct vq_chain *c, uint32_t type, uint64_t sector,
		  uint64_t *lat)
{
	switch (type) {
	case VIRTIO_BLK_T_IN:
		return blk_rw(b, c, sector, false, lat);
	case VIRTIO_BLK_T_OUT:
		return blk_rw(b, c, sector, true, lat);
	case VIRTIO_BLK_T_FLUSH:
		return b->ignore_flush ? 0 : media_flush(b->media, lat);
	case VIRTIO_BLK_T_DISCARD:
		return blk_segment(b, c, false, lat);
	case VIRTIO_BLK_T_WRITE_ZEROES:
		return blk_segment(b, c, true, lat);
	default:
		return -ENOTSUP;
	}
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The modelled latency is served by holding the request: the drive has one
 * arm, so requests queue behind each other as they would on a real disk. */
static void blk_delay(int64_t start, uint64_t lat)
{
	int64_t until = start + (int64_t)lat;
	struct timespec ts = { (time_t)(until / 1000000000), (long)(until % 1000000000) };

	if (lat)
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
}

uint32_t blk_handle(struct blk *b, const struct vq_chain *c)
{
	struct virtio_blk_outhdr h;
	int64_t t0 = mono_ns();
	uint64_t lat = 0;
	uint32_t type;
	int ret;

	if (c->out_len < sizeof(h) || c->in_len < 1) {
		b->bad_requests++;
		return 0; /* nowhere to put a status */
	}
	iov_copy_from(c->out, c->nout, 0, &h, sizeof(h));
	type = le32toh(h.type);
	if (type == VIRTIO_BLK_T_GET_ID)
		return blk_get_id(b, c);
	ret = blk_do(b, c, type, le64toh(h.sector), &lat);
	if (ret == -EINVAL)
		b->bad_requests++;
	blk_delay(t0, lat);
	media_account(b->media, (uint64_t)(mono_ns() - t0));
	put_status(c, errno_status(ret));
	return type == VIRTIO_BLK_T_IN && !ret ? (uint32_t)c->in_len : 1;
}
