/* The hybrid drive's media model: latency arithmetic, promotion, eviction,
 * write-back, the volatile cache lost on power loss, persistence across a
 * clean stop, pass-through. Real files in a temporary directory. */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../hw/hybrid/media.h"

#define CAP (1024 * 1024)	/* 16 chunks */
#define FLASH (4 * MEDIA_CHUNK) /* 4 slots */

struct fx {
	char dir[64], platter[96], flash[96];
	struct media_config cfg;
	struct media *m;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	FILE *p;

	strcpy(f->dir, "/tmp/ktb-hybrid-test-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->platter, sizeof(f->platter), "%s/platter", f->dir);
	snprintf(f->flash, sizeof(f->flash), "%s/flash", f->dir);
	p = fopen(f->platter, "w");
	assert_non_null(p);
	assert_int_equal(ftruncate(fileno(p), CAP), 0);
	fclose(p);
	media_config_defaults(&f->cfg);
	f->cfg.platter_path = f->platter;
	f->cfg.flash_path = f->flash;
	f->cfg.capacity = CAP;
	f->cfg.flash_size = FLASH;
	f->cfg.wcache_size = 16 * MEDIA_BLOCK;
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	if (f->m)
		media_close(f->m);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static void fx_open(struct fx *f)
{
	const char *why = NULL;

	assert_int_equal(media_open(&f->cfg, &f->m, &why), 0);
}

static uint64_t rd(struct fx *f, uint64_t off, void *buf, uint64_t len)
{
	struct iovec v = { buf, len };
	uint64_t lat = 0;

	assert_int_equal(media_read(f->m, off, &v, 1, len, &lat), 0);
	return lat;
}

static uint64_t wr(struct fx *f, uint64_t off, int byte, uint64_t len)
{
	char *b = malloc(len);
	struct iovec v = { b, len };
	uint64_t lat = 0;

	memset(b, byte, len);
	assert_int_equal(media_write(f->m, off, &v, 1, len, &lat), 0);
	free(b);
	return lat;
}

static void file_byte(const char *path, uint64_t off, int want)
{
	FILE *p = fopen(path, "r");
	int c;

	assert_non_null(p);
	fseek(p, (long)off, SEEK_SET);
	c = fgetc(p);
	fclose(p);
	assert_int_equal(c, want);
}

static void test_latency_math(void **state)
{
	struct media_config c;

	(void)state;
	media_config_defaults(&c);
	c.capacity = 1000000;
	assert_int_equal(media_seek_ns(&c, 5, 5), 0);
	assert_true(media_seek_ns(&c, 0, 1000) < media_seek_ns(&c, 0, 100000));
	assert_int_equal(media_seek_ns(&c, 0, 1000000), c.seek_full_ns);
	assert_int_equal(media_seek_ns(&c, 1000000, 0), c.seek_full_ns);
	assert_true(media_seek_ns(&c, 0, 1) >= c.seek_min_ns);
	c.rpm = 5400;
	assert_int_equal(media_rotation_ns(&c), 11111111);
	c.rpm = 7200;
	assert_int_equal(media_rotation_ns(&c), 8333333);
	assert_int_equal(media_transfer_ns(120000000, 120000000), 1000000000);
}

/* Sequential platter reads pay no seek; a jump pays seek and rotation. */
static void test_platter_cost(void **state)
{
	struct fx *f = *state;
	char buf[4096];
	uint64_t a, b;

	f->cfg.promote_after = 100;
	fx_open(f);
	rd(f, 0, buf, sizeof(buf));
	a = rd(f, 4096, buf, sizeof(buf));
	b = rd(f, 512 * 1024, buf, sizeof(buf));
	assert_int_equal(a, media_transfer_ns(4096, f->cfg.platter_bps));
	assert_true(b > a + media_rotation_ns(&f->cfg) / 2);
}

static void test_promotion(void **state)
{
	struct fx *f = *state;
	char buf[4096];
	uint64_t first, third;

	fx_open(f);
	first = rd(f, 128 * 1024, buf, sizeof(buf));
	assert_int_equal(media_stats(f->m)->promotions, 0);
	rd(f, 128 * 1024, buf, sizeof(buf));
	assert_int_equal(media_stats(f->m)->promotions, 1);
	third = rd(f, 128 * 1024 + 4096, buf, sizeof(buf));
	assert_int_equal(media_stats(f->m)->hits, 1);
	assert_int_equal(media_stats(f->m)->misses, 2);
	assert_true(third * 5 < first);
}

static void test_eviction_and_writeback(void **state)
{
	struct fx *f = *state;
	char buf[4096];
	uint64_t lat = 0;

	f->cfg.promote_after = 1;
	fx_open(f);
	rd(f, 0, buf, sizeof(buf)); /* chunk 0 into flash */
	wr(f, 0, 0xab, 4096);
	assert_int_equal(media_flush(f->m, &lat), 0);
	/* write-back: the flash holds it, the platter not yet */
	file_byte(f->platter, 0, 0);
	for (unsigned c = 1; c <= 4; c++)
		rd(f, c * MEDIA_CHUNK, buf, sizeof(buf));
	assert_int_equal(media_stats(f->m)->evictions, 1);
	assert_int_equal(media_stats(f->m)->writebacks, 1);
	file_byte(f->platter, 0, 0xab);
	rd(f, 0, buf, sizeof(buf));
	assert_int_equal((unsigned char)buf[0], 0xab);
}

static void test_power_loss(void **state)
{
	struct fx *f = *state;
	char buf[8192];
	uint64_t lat = 0;

	fx_open(f);
	wr(f, 0, 0x11, 4096);
	assert_int_equal(media_flush(f->m, &lat), 0);
	wr(f, 4096, 0x22, 8192);
	rd(f, 4096, buf, 4096);
	assert_int_equal((unsigned char)buf[0], 0x22); /* the cache answers reads */
	assert_int_equal(media_dirty_blocks(f->m), 2);
	assert_int_equal(media_power_loss(f->m), 2);
	rd(f, 0, buf, sizeof(buf));
	assert_int_equal((unsigned char)buf[0], 0x11);
	assert_int_equal((unsigned char)buf[4096], 0);
	assert_int_equal(media_stats(f->m)->lost_blocks, 2);
}

/* A partial-block write merges with what the block held. */
static void test_partial_block(void **state)
{
	struct fx *f = *state;
	char buf[4096];
	uint64_t lat = 0;

	fx_open(f);
	wr(f, 0, 0x33, 4096);
	assert_int_equal(media_flush(f->m, &lat), 0);
	wr(f, 512, 0x44, 512);
	rd(f, 0, buf, sizeof(buf));
	assert_int_equal((unsigned char)buf[0], 0x33);
	assert_int_equal((unsigned char)buf[512], 0x44);
	assert_int_equal((unsigned char)buf[1024], 0x33);
}

/* A full volatile cache is written out before it takes more. */
static void test_cache_full(void **state)
{
	struct fx *f = *state;

	fx_open(f);
	for (unsigned i = 0; i < 17; i++)
		wr(f, i * 4096ull, 0x55, 4096);
	assert_int_equal(media_dirty_blocks(f->m), 1);
	file_byte(f->platter, 15 * 4096, 0x55);
	assert_int_equal(media_power_loss(f->m), 1);
}

/* A clean stop writes the cache out; the flash map survives a restart. */
static void test_persistence(void **state)
{
	struct fx *f = *state;
	char buf[4096];

	f->cfg.promote_after = 1;
	fx_open(f);
	rd(f, 2 * MEDIA_CHUNK, buf, sizeof(buf));
	wr(f, 2 * MEDIA_CHUNK, 0x66, 4096);
	wr(f, 9 * MEDIA_CHUNK, 0x77, 4096);
	assert_int_equal(media_close(f->m), 0);
	f->m = NULL;
	fx_open(f);
	rd(f, 2 * MEDIA_CHUNK, buf, sizeof(buf));
	assert_int_equal((unsigned char)buf[0], 0x66);
	assert_int_equal(media_stats(f->m)->hits, 1);
	rd(f, 9 * MEDIA_CHUNK, buf, sizeof(buf));
	assert_int_equal((unsigned char)buf[0], 0x77);
}

static void test_pinned(void **state)
{
	struct fx *f = *state;
	char buf[4096];

	f->cfg.pins[0] = (struct media_range){ 0, MEDIA_CHUNK };
	f->cfg.npins = 1;
	f->cfg.promote_after = 1;
	fx_open(f);
	rd(f, 0, buf, sizeof(buf));
	for (unsigned c = 1; c < 10; c++)
		rd(f, c * MEDIA_CHUNK, buf, sizeof(buf));
	rd(f, 0, buf, sizeof(buf));
	assert_int_equal(media_stats(f->m)->hits, 1); /* never evicted */
}

static void test_passthrough(void **state)
{
	struct fx *f = *state;
	char buf[4096];
	uint64_t lat = 0;

	f->cfg.model = false;
	fx_open(f);
	assert_int_equal(wr(f, 8192, 0x5a, 4096), 0);
	assert_int_equal(rd(f, 8192, buf, sizeof(buf)), 0);
	assert_int_equal((unsigned char)buf[0], 0x5a);
	file_byte(f->platter, 8192, 0x5a);
	assert_int_equal(media_power_loss(f->m), 0);
	assert_int_equal(media_flush(f->m, &lat), 0);
}

/* Discarded and zeroed ranges read back as zeros, in both modes. */
static void test_discard_zeroes(void **state)
{
	struct fx *f = *state;
	char buf[8192];
	uint64_t lat = 0;

	for (int model = 1; model >= 0; model--) {
		f->cfg.model = model;
		fx_open(f);
		wr(f, 0, 0x99, sizeof(buf));
		assert_int_equal(media_flush(f->m, &lat), 0);
		assert_int_equal(media_discard(f->m, 0, 4096, &lat), 0);
		assert_int_equal(media_write_zeroes(f->m, 4096, 2048, &lat), 0);
		rd(f, 0, buf, sizeof(buf));
		assert_int_equal(buf[0], 0);
		assert_int_equal(buf[4095], 0);
		assert_int_equal(buf[4096 + 2047], 0);
		assert_int_equal((unsigned char)buf[4096 + 2048], 0x99);
		assert_int_equal(media_discard(f->m, CAP, 4096, &lat), -ERANGE);
		assert_int_equal(media_close(f->m), 0);
		f->m = NULL;
	}
}

static void test_bad_config(void **state)
{
	struct fx *f = *state;
	const char *why = NULL;
	struct iovec v = { NULL, 0 };
	uint64_t lat = 0;
	char buf[16];

	f->cfg.capacity = CAP + 512;
	assert_int_equal(media_open(&f->cfg, &f->m, &why), -EINVAL);
	assert_non_null(why);
	f->cfg.capacity = CAP;
	f->cfg.pins[0] = (struct media_range){ CAP, 1 };
	f->cfg.npins = 1;
	assert_int_equal(media_open(&f->cfg, &f->m, &why), -EINVAL);
	f->cfg.npins = 0;
	fx_open(f);
	v.iov_base = buf;
	v.iov_len = sizeof(buf);
	assert_int_equal(media_read(f->m, CAP - 8, &v, 1, 16, &lat), -ERANGE);
	assert_int_equal(media_write(f->m, UINT64_MAX - 4, &v, 1, 16, &lat), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_math),
		cmocka_unit_test_setup_teardown(test_platter_cost, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_promotion, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_eviction_and_writeback, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_power_loss, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_partial_block, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_cache_full, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_persistence, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_pinned, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_passthrough, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_discard_zeroes, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_bad_config, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
