/* Split virtqueues, the device side: find the rings in guest memory, walk a
 * descriptor chain (direct or indirect) into readable and writable iovecs,
 * and return used buffers. The chain comes from the guest: every address is
 * bounded by the memory table, chains are capped and loops refused. */
#ifndef KTB_HYBRID_VRING_H
#define KTB_HYBRID_VRING_H

#include <linux/virtio_ring.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "guest_mem.h"

#define VQ_MAX_SIZE 1024  /* the largest ring we accept (QEMU's limit too) */
#define VQ_MAX_IOV 256	  /* iovecs one request may use */
#define VQ_MAX_CHAIN 1024 /* descriptors one chain may use, indirect ones included */

/* One request: the head to return, what the device reads (out) and what it
 * writes (in). */
struct vq_chain {
	uint16_t head;
	struct iovec out[VQ_MAX_IOV], in[VQ_MAX_IOV];
	unsigned nout, nin;
	uint64_t out_len, in_len;
};

struct vring_state {
	unsigned num;
	uint64_t desc_uva, avail_uva, used_uva;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t last_avail; /* next avail entry to take */
	uint16_t used_idx;
	int kick_fd, call_fd;
	bool enabled, started;
};

/* Walk the chain that starts at head of a num-entry descriptor table.
 * 0, or -EINVAL (bad index, loop, writable before readable, nested or bad
 * indirect table), -EFAULT (address outside guest memory), -E2BIG (chain
 * too long or too many iovecs). */
int vq_walk(const struct vring_desc *table, unsigned num, uint16_t head,
	    const struct guest_mem *mem, struct vq_chain *c);

/* Translate the ring addresses; -EFAULT when a ring is not in guest memory,
 * -EINVAL when num is not a power of two up to VQ_MAX_SIZE or a part is
 * misaligned. */
int vring_map(struct vring_state *vr, const struct guest_mem *mem);
/* Take the next available chain: 1 with c filled, 0 when none, -errno when
 * the chain is bad (c->head is then still the head to return), -EIO when
 * the avail index itself is impossible (the ring is broken). */
int vring_pop(struct vring_state *vr, const struct guest_mem *mem, struct vq_chain *c);
/* Put head back as used with len bytes written. */
void vring_push(struct vring_state *vr, uint16_t head, uint32_t len);
/* Interrupt the guest unless it asked not to be. */
void vring_notify(struct vring_state *vr);
/* Forget the ring (fds are closed by the caller). */
void vring_reset(struct vring_state *vr);

#endif
