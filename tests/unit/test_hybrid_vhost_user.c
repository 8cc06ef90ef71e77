/* The vhost-user message handler: replies to the questions QEMU asks,
 * refusal (not a crash) of malformed messages, the memory table from a real
 * memfd, and message framing over a socketpair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <linux/vhost_types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../hw/hybrid/vhost_user.h"

static uint8_t config_space[VU_CONFIG_MAX];

static uint64_t t_features(void *dev)
{
	(void)dev;
	return 1ull << 32;
}

static void t_get_config(void *dev, uint32_t off, uint8_t *buf, uint32_t len)
{
	(void)dev;
	memcpy(buf, config_space + off, len);
}

static uint32_t t_handle(void *dev, const struct vq_chain *c)
{
	(void)dev;
	(void)c;
	return 0;
}

static const struct vu_device_ops ops = {
	.features = t_features,
	.get_config = t_get_config,
	.handle = t_handle,
};

struct fx {
	struct vu_dev d;
	struct vu_msg m, reply;
	int fds[VU_MAX_FDS];
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	vu_init(&f->d, &ops, NULL);
	for (unsigned i = 0; i < 16; i++)
		config_space[i] = (uint8_t)i;
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	vu_reset(&f->d);
	free(f);
	return 0;
}

static int send_msg(struct fx *f, uint32_t req, uint32_t flags, const void *p, uint32_t size,
		    unsigned nfds)
{
	f->m.request = req;
	f->m.flags = VU_FLAG_VERSION | flags;
	f->m.size = size;
	if (size)
		memcpy(f->m.payload, p, size);
	memset(&f->reply, 0, sizeof(f->reply));
	return vu_handle(&f->d, &f->m, f->fds, nfds, &f->reply);
}

static uint64_t reply_u64(const struct fx *f)
{
	uint64_t v;

	assert_int_equal(f->reply.size, 8);
	assert_true(f->reply.flags & VU_FLAG_REPLY);
	memcpy(&v, f->reply.payload, 8);
	return v;
}

static void test_features(void **state)
{
	struct fx *f = *state;
	uint64_t v;

	assert_int_equal(send_msg(f, VU_GET_FEATURES, 0, NULL, 0, 0), 1);
	v = reply_u64(f);
	assert_true(v & 1ull << 32);
	assert_true(v & 1ull << VU_F_PROTOCOL_FEATURES);
	assert_int_equal(send_msg(f, VU_GET_PROTOCOL_FEATURES, 0, NULL, 0, 0), 1);
	v = reply_u64(f);
	assert_true(v & 1ull << VU_PROTOCOL_F_CONFIG);
	assert_true(v & 1ull << VU_PROTOCOL_F_REPLY_ACK);
	assert_int_equal(send_msg(f, VU_SET_PROTOCOL_FEATURES, 0, &v, 8, 0), 0);
	assert_int_equal(send_msg(f, VU_GET_QUEUE_NUM, 0, NULL, 0, 0), 1);
	assert_int_equal(reply_u64(f), VU_MAX_QUEUES);
}

static void test_bad_header(void **state)
{
	struct fx *f = *state;

	f->m.request = VU_GET_FEATURES;
	f->m.flags = 2; /* version 2 */
	f->m.size = 0;
	assert_int_equal(vu_handle(&f->d, &f->m, f->fds, 0, &f->reply), -EPROTO);
	f->m.flags = VU_FLAG_VERSION;
	f->m.size = VU_MAX_PAYLOAD + 1;
	assert_int_equal(vu_handle(&f->d, &f->m, f->fds, 0, &f->reply), -EPROTO);
}

/* Refused requests are answered with a failure when the front end waits. */
static void test_refusals(void **state)
{
	struct fx *f = *state;
	uint64_t pf = 1ull << VU_PROTOCOL_F_REPLY_ACK;
	struct vhost_vring_state s = { .index = 0, .num = 100 };

	assert_int_equal(send_msg(f, VU_SET_PROTOCOL_FEATURES, 0, &pf, 8, 0), 0);
	assert_int_equal(send_msg(f, VU_SET_VRING_NUM, VU_FLAG_NEED_REPLY, &s, sizeof(s), 0), 1);
	assert_int_equal(reply_u64(f), 1);
	s.num = 256;
	assert_int_equal(send_msg(f, VU_SET_VRING_NUM, VU_FLAG_NEED_REPLY, &s, sizeof(s), 0), 1);
	assert_int_equal(reply_u64(f), 0);
	s.index = 5;
	assert_int_equal(send_msg(f, VU_SET_VRING_NUM, 0, &s, sizeof(s), 0), 0);
	assert_int_equal(send_msg(f, VU_SET_VRING_NUM, 0, &s, 3, 0), 0); /* short payload */
	assert_int_equal(send_msg(f, 999, 0, NULL, 0, 0), 0);
	assert_int_equal(f->d.bad_msgs, 4);
}

static void test_vring_base(void **state)
{
	struct fx *f = *state;
	struct vhost_vring_state s = { .index = 0, .num = 42 };

	assert_int_equal(send_msg(f, VU_SET_VRING_BASE, 0, &s, sizeof(s), 0), 0);
	s.num = 0;
	assert_int_equal(send_msg(f, VU_GET_VRING_BASE, 0, &s, sizeof(s), 0), 1);
	memcpy(&s, f->reply.payload, sizeof(s));
	assert_int_equal(s.num, 42);
}

static void test_config(void **state)
{
	struct fx *f = *state;
	uint8_t p[12 + 16] = { 0 };
	uint32_t off = 4, size = 8;

	memcpy(p, &off, 4);
	memcpy(p + 4, &size, 4);
	assert_int_equal(send_msg(f, VU_GET_CONFIG, 0, p, 12 + size, 0), 1);
	assert_int_equal(f->reply.size, 12 + size);
	assert_int_equal(f->reply.payload[12], 4);
	assert_int_equal(f->reply.payload[12 + 7], 11);
	/* past the config space, or a size that disagrees with the payload */
	off = VU_CONFIG_MAX - 4;
	memcpy(p, &off, 4);
	assert_int_equal(send_msg(f, VU_GET_CONFIG, 0, p, 12 + size, 0), 0);
	off = 0;
	size = 16;
	memcpy(p, &off, 4);
	memcpy(p + 4, &size, 4);
	assert_int_equal(send_msg(f, VU_GET_CONFIG, 0, p, 12 + 8, 0), 0);
}

static void test_mem_table(void **state)
{
	struct fx *f = *state;
	uint8_t p[8 + 32] = { 0 };
	uint32_t n = 1;
	uint64_t r[4] = { 0x100000, 1 << 20, 0x7f0000000000ull, 0 };
	int fd = memfd_create("ktb-test", MFD_CLOEXEC);
	uint8_t *host;

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	memcpy(p, &n, 4);
	memcpy(p + 8, r, sizeof(r));
	/* one region but no fd with it */
	assert_int_equal(send_msg(f, VU_SET_MEM_TABLE, 0, p, sizeof(p), 0), 0);
	assert_int_equal(f->d.mem.n, 0);
	f->fds[0] = fd;
	assert_int_equal(send_msg(f, VU_SET_MEM_TABLE, 0, p, sizeof(p), 1), 0);
	assert_int_equal(f->d.mem.n, 1);
	host = guest_mem_gpa(&f->d.mem, 0x100000 + 16, 16);
	assert_non_null(host);
	host[0] = 7;
	assert_ptr_equal(guest_mem_uva(&f->d.mem, 0x7f0000000000ull + 16, 1), host);
	assert_null(guest_mem_gpa(&f->d.mem, 0x100000 + (1 << 20) - 8, 16));
	/* a region whose end wraps */
	r[1] = UINT64_MAX;
	memcpy(p + 8, r, sizeof(r));
	f->fds[0] = memfd_create("ktb-test", MFD_CLOEXEC);
	assert_int_equal(send_msg(f, VU_SET_MEM_TABLE, 0, p, sizeof(p), 1), 0);
	assert_int_equal(f->d.mem.n, 1); /* the old table stays */
}

static void test_vring_fds(void **state)
{
	struct fx *f = *state;
	uint64_t v = 0x100; /* queue 0, no fd */
	int efd[2];

	assert_int_equal(send_msg(f, VU_SET_VRING_CALL, 0, &v, 8, 0), 0);
	assert_int_equal(f->d.vq[0].call_fd, -1);
	assert_int_equal(pipe(efd), 0);
	v = 0;
	f->fds[0] = efd[0];
	assert_int_equal(send_msg(f, VU_SET_VRING_KICK, 0, &v, 8, 1), 0);
	assert_int_equal(f->d.vq[0].kick_fd, efd[0]);
	assert_true(f->d.vq[0].started);
	v = 3; /* no such queue: the fd is closed, not leaked */
	f->fds[0] = efd[1];
	assert_int_equal(send_msg(f, VU_SET_VRING_CALL, 0, &v, 8, 1), 0);
	assert_int_equal(f->fds[0], -1);
	/* nothing happens on a kick before the ring has addresses */
	vu_process(&f->d, 0);
}

/* Framing: a header, a payload and an fd across a socketpair. */
static void test_framing(void **state)
{
	struct fx *f = *state;
	int sv[2], fds[VU_MAX_FDS];
	unsigned nfds = 0;
	uint64_t v = 5;

	(void)f;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	f->m.request = VU_SET_FEATURES;
	f->m.flags = VU_FLAG_VERSION;
	f->m.size = 8;
	memcpy(f->m.payload, &v, 8);
	assert_int_equal(vu_send(sv[0], &f->m), 0);
	memset(&f->m, 0, sizeof(f->m));
	assert_int_equal(vu_recv(sv[1], &f->m, fds, &nfds), 1);
	assert_int_equal(f->m.request, VU_SET_FEATURES);
	assert_int_equal(f->m.size, 8);
	assert_int_equal(nfds, 0);
	close(sv[0]);
	assert_int_equal(vu_recv(sv[1], &f->m, fds, &nfds), 0);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_features, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_header, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_vring_base, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_config, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_mem_table, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_vring_fds, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_framing, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
