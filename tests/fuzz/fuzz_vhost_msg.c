/* libFuzzer target: a stream of vhost-user messages, as a hostile front end
 * could send them, into the message handler. Memory-table messages get
 * real memfds (as many as they ask for), so mapping is exercised too. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vhost_user.h"

static uint64_t f_features(void *dev)
{
	(void)dev;
	return 1ull << 32;
}

static void f_get_config(void *dev, uint32_t off, uint8_t *buf, uint32_t len)
{
	(void)dev;
	(void)off;
	memset(buf, 0, len);
}

static uint32_t f_handle(void *dev, const struct vq_chain *c)
{
	(void)dev;
	(void)c;
	return 0;
}

static const struct vu_device_ops ops = {
	.features = f_features,
	.get_config = f_get_config,
	.handle = f_handle,
};

static int memfd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vu_dev d;
	static struct vu_msg m, reply;

	if (memfd < 0) {
		memfd = memfd_create("ktb-fuzz", MFD_CLOEXEC);
		if (ftruncate(memfd, 1 << 20) < 0)
			return 0;
	}
	vu_init(&d, &ops, NULL);
	while (size >= VU_HDR_SIZE) {
		int fds[VU_MAX_FDS];
		unsigned nfds = 0;
		size_t n;

		memcpy(&m, data, VU_HDR_SIZE);
		data += VU_HDR_SIZE;
		size -= VU_HDR_SIZE;
		n = m.size < size ? m.size : size;
		if (n > VU_MAX_PAYLOAD)
			n = VU_MAX_PAYLOAD;
		memcpy(m.payload, data, n);
		data += n;
		size -= n;
		if (m.size <= VU_MAX_PAYLOAD)
			m.size = (uint32_t)n;
		if (m.request == VU_SET_MEM_TABLE || m.request == VU_SET_VRING_KICK ||
		    m.request == VU_SET_VRING_CALL) {
			nfds = m.request == VU_SET_MEM_TABLE ? m.payload[0] % (VU_MAX_FDS + 1) : 1;
			for (unsigned i = 0; i < nfds; i++)
				fds[i] = dup(memfd);
		}
		vu_handle(&d, &m, fds, nfds, &reply);
	}
	vu_reset(&d);
	return 0;
}
