/* kdecode against a program built for it (kdecode_fixture.c, -g -O0): a
 * frame "kd_leaf+0x0/0x..." decodes to the file and the line kd_leaf's body
 * opens on; somewhere in kd_outer an address decodes to the inlined
 * kd_inlined first, then kd_outer, each at its call's line; a module's frame
 * and an unknown symbol stay undecoded; a file without DWARF is refused,
 * saying so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kdecode.h"
#include "util.h"

/* The line of the fixture's source holding marker. */
static unsigned line_of(const char *marker)
{
	size_t len;
	char *src = read_file(KDECODE_FIXTURE_SRC, &len), *p;
	unsigned line = 1;

	assert_non_null(src);
	p = strstr(src, marker);
	assert_non_null(p);
	for (char *q = src; q < p; q++)
		line += *q == '\n';
	free(src);
	return line;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static void test_decode_leaf(void **state)
{
	char why[256] = "";
	struct kdecode *d = kdecode_open(KDECODE_FIXTURE, why, sizeof(why));
	const char *func[] = { "kd_leaf", "kd_leaf", "no_such_function" };
	const char *off[] = { "0x0/0x20", "0x0/0x20", "0x4/0x10" };
	const char *module[] = { NULL, "nvme", NULL };
	struct kdecode_frame out[3];

	(void)state;
	if (!d)
		fail_msg("%s", why);
	assert_int_not_equal(kdecode_address(d, "kd_leaf", "0x0/0x20"), 0);
	assert_int_equal(kdecode_address(d, "kd_leaf", "0x4/0x20") -
			     kdecode_address(d, "kd_leaf", "0x0/0x20"),
			 4);
	assert_int_equal(kdecode_address(d, "kd_leaf", "zz"), 0);
	assert_int_equal(kdecode_frames(d, func, off, module, 3, out, why, sizeof(why)), 0);
	assert_true(out[0].count >= 1);
	assert_string_equal(out[0].locs[0].func, "kd_leaf");
	assert_non_null(out[0].locs[0].file);
	assert_true(ends_with(out[0].locs[0].file, "kdecode_fixture.c"));
	/* the function's entry is its opening brace's line, the one after */
	assert_int_equal(out[0].locs[0].line, line_of("kd_leaf-line") + 1);
	/* a module's frame needs its .ko; an unknown symbol has no address */
	assert_int_equal(out[1].count, 0);
	assert_int_equal(out[2].count, 0);
	for (int i = 0; i < 3; i++)
		kdecode_frame_free(&out[i]);
	kdecode_free(d);
}

/* Some address in kd_outer is kd_inlined's code: inlined first, then the
 * function it was inlined into, each at its own line. */
static void test_decode_inlined(void **state)
{
	char why[256] = "", off[32];
	struct kdecode *d = kdecode_open(KDECODE_FIXTURE, why, sizeof(why));
	unsigned call = line_of("kd_inlined-call"), outer = line_of("kd_outer-call");
	bool seen = false;

	(void)state;
	if (!d)
		fail_msg("%s", why);
	for (unsigned o = 0; o < 64 && !seen; o++) {
		const char *func[] = { "kd_outer" }, *offs[] = { off }, *mod[] = { NULL };
		struct kdecode_frame f;

		snprintf(off, sizeof(off), "0x%x/0x40", o);
		assert_int_equal(kdecode_frames(d, func, offs, mod, 1, &f, why, sizeof(why)), 0);
		seen = f.count == 2 && f.locs[0].func && !strcmp(f.locs[0].func, "kd_inlined") &&
		       f.locs[0].line == call && f.locs[1].func &&
		       !strcmp(f.locs[1].func, "kd_outer") && f.locs[1].line == outer;
		kdecode_frame_free(&f);
	}
	assert_true(seen);
	kdecode_free(d);
}

static void test_refused(void **state)
{
	char why[256] = "";

	(void)state;
	assert_null(kdecode_open(KDECODE_FIXTURE_NODEBUG, why, sizeof(why)));
	assert_non_null(strstr(why, "no debug information"));
	assert_null(kdecode_open(KDECODE_FIXTURE_SRC, why, sizeof(why)));
	assert_non_null(strstr(why, "not a 64-bit ELF file"));
	assert_null(kdecode_open("/nonexistent/vmlinux", why, sizeof(why)));
	assert_non_null(strstr(why, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_leaf),
		cmocka_unit_test(test_decode_inlined),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
