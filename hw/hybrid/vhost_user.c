#include "vhost_user.h"

#include <endian.h>
#include <errno.h>
#include <linux/vhost_types.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define VU_KICK_NOFD 0x100u
#define VU_KICK_INDEX 0xffu

struct vu_region {
	uint64_t gpa, size, uva, mmap_offset;
};

struct vu_config_hdr {
	uint32_t offset, size, flags;
};

/* Handler context: the message, its fds, the reply. */
struct vu_call {
	struct vu_dev *d;
	const struct vu_msg *m;
	int *fds;
	unsigned nfds;
	struct vu_msg *reply;
};

static void close_fds(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

static void vu_log(struct vu_dev *d, const char *what, uint32_t req, int err)
{
	if (d->ops->log)
		d->ops->log(d->dev, "vhost-user request %u: %s (%s)", req, what, strerror(-err));
}

void vu_init(struct vu_dev *d, const struct vu_device_ops *ops, void *dev)
{
	memset(d, 0, sizeof(*d));
	d->ops = ops;
	d->dev = dev;
	for (unsigned q = 0; q < VU_MAX_QUEUES; q++)
		d->vq[q].kick_fd = d->vq[q].call_fd = -1;
}

static void vq_close(struct vring_state *vr)
{
	if (vr->kick_fd >= 0)
		close(vr->kick_fd);
	if (vr->call_fd >= 0)
		close(vr->call_fd);
	vr->kick_fd = vr->call_fd = -1;
	vring_reset(vr);
}

void vu_reset(struct vu_dev *d)
{
	for (unsigned q = 0; q < VU_MAX_QUEUES; q++)
		vq_close(&d->vq[q]);
	guest_mem_clear(&d->mem);
	d->features = d->protocol_features = 0;
}

/* ---- replies ---- */

static int reply_u64(struct vu_call *c, uint64_t v)
{
	c->reply->request = c->m->request;
	c->reply->flags = VU_FLAG_VERSION | VU_FLAG_REPLY;
	c->reply->size = sizeof(v);
	memcpy(c->reply->payload, &v, sizeof(v));
	return 1;
}

static int payload_is(struct vu_call *c, size_t size)
{
	return c->m->size == size ? 0 : -EINVAL;
}

static int get_u64(struct vu_call *c, uint64_t *v)
{
	int ret = payload_is(c, sizeof(*v));

	if (!ret)
		memcpy(v, c->m->payload, sizeof(*v));
	return ret;
}

/* A vring state or address names its queue first. */
static struct vring_state *queue_of(struct vu_call *c, uint32_t index)
{
	return index < VU_MAX_QUEUES ? &c->d->vq[index] : NULL;
}

static int get_state(struct vu_call *c, struct vhost_vring_state *s, struct vring_state **vr)
{
	int ret = payload_is(c, sizeof(*s));

	if (ret)
		return ret;
	memcpy(s, c->m->payload, sizeof(*s));
	*vr = queue_of(c, s->index);
	return *vr ? 0 : -EINVAL;
}

/* ---- handlers ---- */

static int on_get_features(struct vu_call *c)
{
	return reply_u64(c, c->d->ops->features(c->d->dev) | 1ull << VU_F_PROTOCOL_FEATURES);
}

static int on_set_features(struct vu_call *c)
{
	uint64_t v;
	int ret = get_u64(c, &v);

	if (ret)
		return ret;
	c->d->features = v;
	/* without protocol features the rings start enabled */
	for (unsigned q = 0; q < VU_MAX_QUEUES; q++)
		if (!(v & 1ull << VU_F_PROTOCOL_FEATURES))
			c->d->vq[q].enabled = true;
	return 0;
}

static uint64_t protocol_features(void)
{
	return 1ull << VU_PROTOCOL_F_MQ | 1ull << VU_PROTOCOL_F_REPLY_ACK |
	       1ull << VU_PROTOCOL_F_CONFIG;
}

static int on_set_protocol_features(struct vu_call *c)
{
	uint64_t v;
	int ret = get_u64(c, &v);

	if (!ret)
		c->d->protocol_features = v & protocol_features();
	return ret;
}

static int map_region(struct guest_region *g, const struct vu_region *r, int fd)
{
	struct stat st;
	void *p;

	if (!r->size || r->mmap_offset > SIZE_MAX - r->size || r->gpa > UINT64_MAX - r->size ||
	    r->uva > UINT64_MAX - r->size)
		return -EINVAL;
	/* a mapping past the end of the file would fault when touched */
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode) && r->size + r->mmap_offset > (uint64_t)st.st_size)
		return -EINVAL;
	p = mmap(NULL, r->size + r->mmap_offset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*g = (struct guest_region){ .gpa = r->gpa,
				    .size = r->size,
				    .uva = r->uva,
				    .host = (char *)p + r->mmap_offset,
				    .map = p,
				    .map_len = r->size + r->mmap_offset };
	return 0;
}

static void remap_rings(struct vu_dev *d)
{
	for (unsigned q = 0; q < VU_MAX_QUEUES; q++) {
		struct vring_state *vr = &d->vq[q];

		vr->desc = NULL;
		vr->avail = NULL;
		vr->used = NULL;
		if (vr->desc_uva && vring_map(vr, &d->mem) < 0)
			vu_log(d, "ring outside the new memory table", VU_SET_MEM_TABLE, -EFAULT);
	}
}

static int on_set_mem_table(struct vu_call *c)
{
	struct guest_mem mem = { .n = 0 };
	uint32_t n;
	int ret = 0;

	if (c->m->size < 8)
		return -EINVAL;
	memcpy(&n, c->m->payload, sizeof(n));
	if (!n || n > GUEST_MEM_MAX_REGIONS || n != c->nfds ||
	    c->m->size != 8 + n * sizeof(struct vu_region))
		return -EINVAL;
	for (uint32_t i = 0; i < n && !ret; i++) {
		struct vu_region r;

		memcpy(&r, c->m->payload + 8 + i * sizeof(r), sizeof(r));
		ret = map_region(&mem.r[i], &r, c->fds[i]);
		if (!ret)
			mem.n++;
	}
	if (ret) {
		guest_mem_clear(&mem);
		return ret;
	}
	guest_mem_clear(&c->d->mem);
	c->d->mem = mem;
	remap_rings(c->d);
	return 0;
}

static int on_set_vring_num(struct vu_call *c)
{
	struct vhost_vring_state s;
	struct vring_state *vr;
	int ret = get_state(c, &s, &vr);

	if (ret)
		return ret;
	if (!s.num || s.num > VQ_MAX_SIZE || (s.num & (s.num - 1)))
		return -EINVAL;
	vr->num = s.num;
	return 0;
}

static int on_set_vring_addr(struct vu_call *c)
{
	struct vhost_vring_addr a;
	struct vring_state *vr;
	int ret = payload_is(c, sizeof(a));

	if (ret)
		return ret;
	memcpy(&a, c->m->payload, sizeof(a));
	vr = queue_of(c, a.index);
	if (!vr)
		return -EINVAL;
	vr->desc_uva = a.desc_user_addr;
	vr->avail_uva = a.avail_user_addr;
	vr->used_uva = a.used_user_addr;
	ret = vring_map(vr, &c->d->mem);
	if (ret)
		vr->desc_uva = 0;
	return ret;
}

static int on_set_vring_base(struct vu_call *c)
{
	struct vhost_vring_state s;
	struct vring_state *vr;
	int ret = get_state(c, &s, &vr);

	if (!ret)
		vr->last_avail = vr->used_idx = (uint16_t)s.num;
	return ret;
}

/* Stop the ring and tell where the next request would come from. */
static int on_get_vring_base(struct vu_call *c)
{
	struct vhost_vring_state s;
	struct vring_state *vr;
	int ret = get_state(c, &s, &vr);

	if (ret)
		return ret;
	vr->started = false;
	if (vr->kick_fd >= 0)
		close(vr->kick_fd);
	vr->kick_fd = -1;
	s.num = vr->last_avail;
	c->reply->request = c->m->request;
	c->reply->flags = VU_FLAG_VERSION | VU_FLAG_REPLY;
	c->reply->size = sizeof(s);
	memcpy(c->reply->payload, &s, sizeof(s));
	return 1;
}

/* KICK, CALL and ERR: a u64 naming the queue, with the fd alongside unless
 * the no-fd bit is set. */
static int on_vring_fd(struct vu_call *c)
{
	struct vring_state *vr;
	uint64_t v;
	int fd = -1, *slot, ret = get_u64(c, &v);

	if (ret)
		return ret;
	vr = queue_of(c, (uint32_t)(v & VU_KICK_INDEX));
	if (!vr || (v & ~(uint64_t)(VU_KICK_INDEX | VU_KICK_NOFD)))
		return -EINVAL;
	if (!(v & VU_KICK_NOFD)) {
		if (c->nfds != 1)
			return -EINVAL;
		fd = c->fds[0];
		c->fds[0] = -1;
	}
	if (c->m->request == VU_SET_VRING_ERR) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	slot = c->m->request == VU_SET_VRING_KICK ? &vr->kick_fd : &vr->call_fd;
	if (*slot >= 0)
		close(*slot);
	*slot = fd;
	if (c->m->request == VU_SET_VRING_KICK) {
		vr->started = true;
		if (vr->used)
			vr->used_idx = le16toh(vr->used->idx);
	}
	return 0;
}

static int on_set_vring_enable(struct vu_call *c)
{
	struct vhost_vring_state s;
	struct vring_state *vr;
	int ret = get_state(c, &s, &vr);

	if (!ret)
		vr->enabled = s.num != 0;
	return ret;
}

static int config_hdr(struct vu_call *c, struct vu_config_hdr *h)
{
	if (c->m->size < sizeof(*h))
		return -EINVAL;
	memcpy(h, c->m->payload, sizeof(*h));
	if (h->size > VU_CONFIG_MAX || h->offset > VU_CONFIG_MAX - h->size ||
	    c->m->size != sizeof(*h) + h->size)
		return -EINVAL;
	return 0;
}

static int on_get_config(struct vu_call *c)
{
	struct vu_config_hdr h;
	int ret = config_hdr(c, &h);

	if (ret)
		return ret;
	c->reply->request = c->m->request;
	c->reply->flags = VU_FLAG_VERSION | VU_FLAG_REPLY;
	c->reply->size = c->m->size;
	memcpy(c->reply->payload, &h, sizeof(h));
	c->d->ops->get_config(c->d->dev, h.offset, c->reply->payload + sizeof(h), h.size);
	return 1;
}

static int on_set_config(struct vu_call *c)
{
	struct vu_config_hdr h;
	int ret = config_hdr(c, &h);

	if (!ret && c->d->ops->set_config)
		c->d->ops->set_config(c->d->dev, h.offset, c->m->payload + sizeof(h), h.size);
	return ret;
}

static int on_nothing(struct vu_call *c)
{
	(void)c;
	return 0;
}

static int on_reset_owner(struct vu_call *c)
{
	for (unsigned q = 0; q < VU_MAX_QUEUES; q++)
		vq_close(&c->d->vq[q]);
	return 0;
}

static int dispatch(struct vu_call *c)
{
	switch (c->m->request) {
	case VU_GET_FEATURES:
		return on_get_features(c);
	case VU_SET_FEATURES:
		return on_set_features(c);
	case VU_SET_OWNER:
		return on_nothing(c);
	case VU_RESET_OWNER:
		return on_reset_owner(c);
	case VU_SET_MEM_TABLE:
		return on_set_mem_table(c);
	case VU_SET_VRING_NUM:
		return on_set_vring_num(c);
	case VU_SET_VRING_ADDR:
		return on_set_vring_addr(c);
	case VU_SET_VRING_BASE:
		return on_set_vring_base(c);
	case VU_GET_VRING_BASE:
		return on_get_vring_base(c);
	case VU_SET_VRING_KICK:
	case VU_SET_VRING_CALL:
	case VU_SET_VRING_ERR:
		return on_vring_fd(c);
	case VU_GET_PROTOCOL_FEATURES:
		return reply_u64(c, protocol_features());
	case VU_SET_PROTOCOL_FEATURES:
		return on_set_protocol_features(c);
	case VU_GET_QUEUE_NUM:
		return reply_u64(c, VU_MAX_QUEUES);
	case VU_SET_VRING_ENABLE:
		return on_set_vring_enable(c);
	case VU_GET_CONFIG:
		return on_get_config(c);
	case VU_SET_CONFIG:
		return on_set_config(c);
	default:
		return -ENOTSUP;
	}
}

int vu_handle(struct vu_dev *d, const struct vu_msg *m, int *fds, unsigned nfds,
	      struct vu_msg *reply)
{
	struct vu_call c = { d, m, fds, nfds, reply };
	int ret;

	if ((m->flags & 0x3) != VU_FLAG_VERSION || m->size > VU_MAX_PAYLOAD) {
		close_fds(fds, nfds);
		return -EPROTO;
	}
	ret = dispatch(&c);
	close_fds(fds, nfds); /* whatever a handler did not keep */
	if (ret < 0) {
		d->bad_msgs++;
		vu_log(d, ret == -ENOTSUP ? "not supported" : "refused", m->request, ret);
	}
	if (ret == 1)
		return 1;
	if ((m->flags & VU_FLAG_NEED_REPLY) &&
	    (d->protocol_features & 1ull << VU_PROTOCOL_F_REPLY_ACK))
		return reply_u64(&c, ret < 0 ? 1 : 0);
	return 0;
}

/* ---- the socket ---- */

static int read_full(int sock, void *buf, size_t len)
{
	while (len) {
		ssize_t n = recv(sock, buf, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPROTO;
		buf = (char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

static void take_fds(struct msghdr *mh, int *fds, unsigned *nfds)
{
	*nfds = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*nfds < VU_MAX_FDS)
				fds[(*nfds)++] = fd;
			else
				close(fd);
		}
	}
}

int vu_recv(int sock, struct vu_msg *m, int *fds, unsigned *nfds)
{
	char ctl[CMSG_SPACE(VU_MAX_FDS * sizeof(int))];
	struct iovec iov = { m, VU_HDR_SIZE };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)
	};
	ssize_t n;
	int ret;

	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	take_fds(&mh, fds, nfds);
	ret = (size_t)n < VU_HDR_SIZE ? read_full(sock, (char *)m + n, VU_HDR_SIZE - (size_t)n) : 0;
	if (!ret && m->size > VU_MAX_PAYLOAD)
		ret = -EPROTO;
	if (!ret)
		ret = read_full(sock, m->payload, m->size);
	if (ret) {
		close_fds(fds, *nfds);
		*nfds = 0;
		return ret;
	}
	return 1;
}

int vu_send(int sock, const struct vu_msg *m)
{
	size_t len = VU_HDR_SIZE + m->size;
	const char *p = (const char *)m;

	while (len) {
		ssize_t n = send(sock, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- requests ---- */

void vu_process(struct vu_dev *d, unsigned q)
{
	struct vring_state *vr = &d->vq[q];
	bool pushed = false;
	int r;

	if (q >= VU_MAX_QUEUES || !vr->started || !vr->enabled || !vr->desc)
		return;
	while ((r = vring_pop(vr, &d->mem, &d->chain)) != 0) {
		if (r == -EIO) {
			vu_log(d, "the avail index is impossible; queue stopped", 0, r);
			vr->started = false;
			break;
		}
		if (r < 0) {
			d->bad_chains++;
			vu_log(d, "bad descriptor chain, request failed", 0, r);
			vring_push(vr, d->chain.head, 0);
		} else {
			vring_push(vr, d->chain.head, d->ops->handle(d->dev, &d->chain));
		}
		pushed = true;
	}
	if (pushed)
		vring_notify(vr);
}
