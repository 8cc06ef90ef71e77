#include "vring.h"

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

struct walk {
	const struct guest_mem *mem;
	struct vq_chain *c;
	unsigned steps;
	bool seen_in;
};

/* One descriptor's buffer into the out or in list. */
static int walk_buffer(struct walk *w, const struct vring_desc *d)
{
	struct vq_chain *c = w->c;
	bool in = le16toh(d->flags) & VRING_DESC_F_WRITE;
	struct iovec *iov = in ? c->in + c->nin : c->out + c->nout;
	unsigned room = VQ_MAX_IOV - (in ? c->nin : c->nout);
	uint32_t len = le32toh(d->len);
	int n;

	if (!in && w->seen_in)
		return -EINVAL; /* readable buffers come first */
	w->seen_in |= in;
	n = guest_mem_iov(w->mem, le64toh(d->addr), len, iov, room);
	if (n < 0)
		return n;
	if (in) {
		c->nin += (unsigned)n;
		c->in_len += len;
	} else {
		c->nout += (unsigned)n;
		c->out_len += len;
	}
	return 0;
}

/* Follow next links through a table of num entries. Every descriptor is
 * copied once before use: the guest may change the table under us. */
static int walk_table(struct walk *w, const struct vring_desc *table, unsigned num, uint16_t idx,
		      bool indirect);

static int walk_indirect(struct walk *w, const struct vring_desc *d)
{
	uint32_t len = le32toh(d->len);
	const struct vring_desc *t;

	if (!len || len % sizeof(*t) || len / sizeof(*t) > VQ_MAX_CHAIN)
		return -EINVAL;
	if (le16toh(d->flags) & VRING_DESC_F_NEXT)
		return -EINVAL;
	t = guest_mem_gpa(w->mem, le64toh(d->addr), len);
	if (!t)
		return -EFAULT;
	return walk_table(w, t, len / sizeof(*t), 0, true);
}

static int walk_table(struct walk *w, const struct vring_desc *table, unsigned num, uint16_t idx,
		      bool indirect)
{
	unsigned local = 0;

	for (;;) {
		struct vring_desc d;
		uint16_t flags;
		int ret;

		if (idx >= num)
			return -EINVAL;
		/* more steps than entries: the chain loops */
		if (++local > num)
			return -EINVAL;
		if (++w->steps > VQ_MAX_CHAIN)
			return -E2BIG;
		memcpy(&d, &table[idx], sizeof(d));
		flags = le16toh(d.flags);
		if (flags & VRING_DESC_F_INDIRECT) {
			if (indirect)
				return -EINVAL; /* no indirect table inside another */
			return walk_indirect(w, &d);
		}
		ret = walk_buffer(w, &d);
		if (ret < 0)
			return ret;
		if (!(flags & VRING_DESC_F_NEXT))
			return 0;
		idx = le16toh(d.next);
	}
}

int vq_walk(const struct vring_desc *table, unsigned num, uint16_t head,
	    const struct guest_mem *mem, struct vq_chain *c)
{
	struct walk w = { .mem = mem, .c = c };

	c->head = head;
	c->nout = c->nin = 0;
	c->out_len = c->in_len = 0;
	return walk_table(&w, table, num, head, false);
}

int vring_map(struct vring_state *vr, const struct guest_mem *mem)
{
	uint64_t n = vr->num;
	void *desc, *avail, *used;

	vr->desc = NULL;
	vr->avail = NULL;
	vr->used = NULL;
	if (!n || n > VQ_MAX_SIZE || (n & (n - 1)))
		return -EINVAL;
	/* the alignments virtio requires of the three parts */
	if (vr->desc_uva % 16 || vr->avail_uva % 2 || vr->used_uva % 4)
		return -EINVAL;
	desc = guest_mem_uva(mem, vr->desc_uva, 16 * n);
	avail = guest_mem_uva(mem, vr->avail_uva, 6 + 2 * n);
	used = guest_mem_uva(mem, vr->used_uva, 6 + 8 * n);
	if (!desc || !avail || !used)
		return -EFAULT;
	/* an odd region offset can misalign what the addresses did not */
	if ((uintptr_t)desc % 16 || (uintptr_t)avail % 2 || (uintptr_t)used % 4)
		return -EINVAL;
	vr->desc = desc;
	vr->avail = avail;
	vr->used = used;
	return 0;
}

int vring_pop(struct vring_state *vr, const struct guest_mem *mem, struct vq_chain *c)
{
	uint16_t avail_idx, head;

	if (!vr->desc)
		return 0;
	avail_idx = le16toh(__atomic_load_n(&vr->avail->idx, __ATOMIC_ACQUIRE));
	if (avail_idx == vr->last_avail)
		return 0;
	if ((uint16_t)(avail_idx - vr->last_avail) > vr->num)
		return -EIO;
	head = le16toh(vr->avail->ring[vr->last_avail % vr->num]);
	vr->last_avail++;
	c->head = head;
	if (head >= vr->num)
		return -EINVAL;
	{
		int ret = vq_walk(vr->desc, vr->num, head, mem, c);

		return ret < 0 ? ret : 1;
	}
}

void vring_push(struct vring_state *vr, uint16_t head, uint32_t len)
{
	struct vring_used_elem *e = &vr->used->ring[vr->used_idx % vr->num];

	e->id = htole32(head);
	e->len = htole32(len);
	vr->used_idx++;
	__atomic_store_n(&vr->used->idx, htole16(vr->used_idx), __ATOMIC_RELEASE);
}

void vring_notify(struct vring_state *vr)
{
	uint64_t one = 1;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (le16toh(vr->avail->flags) & VRING_AVAIL_F_NO_INTERRUPT)
		return;
	if (vr->call_fd >= 0 && write(vr->call_fd, &one, sizeof(one)) < 0) {
		/* a full eventfd already means "interrupt pending" */
	}
}

void vring_reset(struct vring_state *vr)
{
	int kick = vr->kick_fd, call = vr->call_fd;

	memset(vr, 0, sizeof(*vr));
	vr->kick_fd = kick;
	vr->call_fd = call;
}
