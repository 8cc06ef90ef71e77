/* virtio-blk request handling: the header, the data, the status byte of one
 * descriptor chain, turned into media operations. Also the device's config
 * space and feature bits. Transport-free: it sees iovecs, not rings. */
#ifndef KTB_HYBRID_BLK_H
#define KTB_HYBRID_BLK_H

#include <linux/virtio_blk.h>
#include <stdbool.h>
#include <stdint.h>

#include "media.h"
#include "vring.h"

#define BLK_SEG_MAX 126		/* data segments per request */
#define BLK_SIZE_MAX (1u << 20) /* bytes per segment */
#define BLK_MAX_REQ (32u << 20) /* bytes per request */

struct blk {
	struct media *media;
	char serial[VIRTIO_BLK_ID_BYTES + 1];
	uint32_t logical, physical;	/* sector sizes */
	bool wce;			/* write-back cache on (config.wce) */
	bool ignore_flush;		/* debug: acknowledge flushes, do nothing */
	struct media_range fail_writes; /* debug: writes here fail with IOERR */
	struct media_range fail_reads;	/* debug: reads here fail with IOERR */
	uint64_t bad_requests;		/* malformed chains and headers */
};

/* Feature bits the device offers (virtio-blk and ring features). */
uint64_t blk_features(void);
/* The config space as the guest reads it. */
void blk_config(const struct blk *b, struct virtio_blk_config *cfg);
/* A guest write to config space; only wce is writable. */
void blk_config_write(struct blk *b, uint32_t off, const uint8_t *data, uint32_t len);
/* Carry out one request; returns the bytes written into the chain's in
 * buffers (the used length). A malformed request fails without touching
 * the media. */
uint32_t blk_handle(struct blk *b, const struct vq_chain *c);

#endif
