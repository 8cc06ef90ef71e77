/* The vhost-user protocol, back-end side: message framing on a Unix socket
 * (with file descriptors alongside), one switch that hands each request to
 * a small handler, the memory table and the vrings. The device behind it is
 * a table of callbacks; this file knows nothing of block devices. */
#ifndef KTB_HYBRID_VHOST_USER_H
#define KTB_HYBRID_VHOST_USER_H

#include <stdbool.h>
#include <stdint.h>

#include "guest_mem.h"
#include "vring.h"

#define VU_MAX_QUEUES 1
#define VU_MAX_FDS 8
#define VU_HDR_SIZE 12
#define VU_MAX_PAYLOAD 4096
#define VU_CONFIG_MAX 256

enum vu_request {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_RESET_OWNER = 4,
	VU_SET_MEM_TABLE = 5,
	VU_SET_LOG_BASE = 6,
	VU_SET_LOG_FD = 7,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_GET_VRING_BASE = 11,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_SET_VRING_ERR = 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
	VU_SET_BACKEND_REQ_FD = 21,
	VU_GET_CONFIG = 24,
	VU_SET_CONFIG = 25,
};

#define VU_FLAG_VERSION 0x1u
#define VU_FLAG_REPLY (1u << 2)
#define VU_FLAG_NEED_REPLY (1u << 3)
#define VU_F_PROTOCOL_FEATURES 30
#define VU_PROTOCOL_F_MQ 0
#define VU_PROTOCOL_F_REPLY_ACK 3
#define VU_PROTOCOL_F_CONFIG 9

struct vu_msg {
	uint32_t request, flags, size;
	uint8_t payload[VU_MAX_PAYLOAD];
};

/* What the device behind the transport provides. */
struct vu_device_ops {
	uint64_t (*features)(void *dev);
	/* config space bytes [off, off + len) into buf */
	void (*get_config)(void *dev, uint32_t off, uint8_t *buf, uint32_t len);
	void (*set_config)(void *dev, uint32_t off, const uint8_t *buf, uint32_t len);
	/* one request; returns the used length */
	uint32_t (*handle)(void *dev, const struct vq_chain *c);
	void (*log)(void *dev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

struct vu_dev {
	const struct vu_device_ops *ops;
	void *dev;
	struct guest_mem mem;
	struct vring_state vq[VU_MAX_QUEUES];
	uint64_t features, protocol_features;
	struct vq_chain chain; /* scratch for the request being handled */
	uint64_t bad_msgs, bad_chains;
};

void vu_init(struct vu_dev *d, const struct vu_device_ops *ops, void *dev);
/* Drop the session: memory, rings and their fds (the front end went away). */
void vu_reset(struct vu_dev *d);

/* Handle one message whose fds (owned from now on) came with it. Returns 1
 * with reply filled when the front end waits for one, 0 when not, -EPROTO
 * when the message cannot be made sense of (drop the connection). Bad
 * content fails the request and is logged; it never crashes. */
int vu_handle(struct vu_dev *d, const struct vu_msg *m, int *fds, unsigned nfds,
	      struct vu_msg *reply);

/* Read one message from the socket: 1, 0 on EOF, -errno. */
int vu_recv(int sock, struct vu_msg *m, int *fds, unsigned *nfds);
int vu_send(int sock, const struct vu_msg *m);

/* The guest kicked queue q (its eventfd was read): run what it queued. */
void vu_process(struct vu_dev *d, unsigned q);

#endif
