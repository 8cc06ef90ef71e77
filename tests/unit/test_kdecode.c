/* kdecode against a program built for it (kdecode_fixture.c, -g -O0): a
 * frame "kd_leaf+0x0/0x..." decodes to the file and the line kd_leaf's body
 * opens on; somewhere in kd_outer an address decodes to the inlined
 * kd_inlined first, then kd_outer, each at its call's line; an unknown
 * symbol stays undecoded; a file without DWARF is refused, saying so. And
 * against a module built for it (kdecode_module.c, -g -c: kd-fixture.ko): a
 * frame "[kd_fixture]" decodes from that file, each function in its own
 * section ('-' and '_' alike in the name), found directly in the modules
 * folder or through a tree's modules.order; a module without its .ko stays
 * undecoded and the note says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kdecode.h"
#include "util.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("kdecode")

/* The line of source file src holding marker. */
static unsigned line_in(const char *src_path, const char *marker)
{
	size_t len;
	char *src = read_file(src_path, &len), *p;
	unsigned line = 1;

	assert_non_null(src);
	p = strstr(src, marker);
	assert_non_null(p);
	for (char *q = src; q < p; q++)
		line += *q == '\n';
	free(src);
	return line;
}

static unsigned line_of(const char *marker)
{
	return line_in(KDECODE_FIXTURE_SRC, marker);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

static void test_decode_leaf(void **state)
{
	char why[256] = "";
	struct kdecode *d = kdecode_open(KDECODE_FIXTURE, NULL, why, sizeof(why));
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
	/* a module's frame needs its .ko (no folder of them given here); an
	 * unknown symbol has no address */
	assert_int_equal(out[1].count, 0);
	assert_int_equal(out[2].count, 0);
	assert_non_null(strstr(why, "module nvme: no folder of module debug files"));
	for (int i = 0; i < 3; i++)
		kdecode_frame_free(&out[i]);
	kdecode_free(d);
}

/* Some address in kd_outer is kd_inlined's code: inlined first, then the
 * function it was inlined into, each at its own line. */
static void test_decode_inlined(void **state)
{
	char why[256] = "", off[32];
	struct kdecode *d = kdecode_open(KDECODE_FIXTURE, NULL, why, sizeof(why));
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
	assert_null(kdecode_open(KDECODE_FIXTURE_NODEBUG, NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "no debug information"));
	assert_null(kdecode_open(KDECODE_FIXTURE_SRC, NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "not a 64-bit ELF file"));
	assert_null(kdecode_open("/nonexistent/vmlinux", NULL, why, sizeof(why)));
	assert_non_null(strstr(why, "No such file"));
}

/* Frames of the module fixture, with the kernel's and an absent module's:
 * each module function at offset 0 of its section opens at the line after
 * its marker, kdm_cold's in .text.unlikely, not .text's first function. */
static void check_module_frames(const char *modules, const char *file_tail)
{
	char why[512] = "";
	struct kdecode *d = kdecode_open(KDECODE_FIXTURE, modules, why, sizeof(why));
	const char *func[] = { "kd_leaf", "kdm_helper", "kdm_cold", "kdm_entry", "no_such", "f" };
	const char *off[] = {
		"0x0/0x20", "0x0/0x10", "0x0/0x10", "0x0/0x20", "0x0/0x4", "0x0/0x4"
	};
	const char *mod[] = { NULL,	    "kd_fixture", "kd_fixture",
			      "kd_fixture", "kd_fixture", "kd_absent" };
	const char *want[] = { NULL, "kdm_helper", "kdm_cold", "kdm_entry" };
	const char *mark[] = { NULL, "kdm_helper-line", "kdm_cold-line", "kdm_entry-line" };
	struct kdecode_frame out[6];

	if (!d)
		fail_msg("%s", why);
	assert_int_equal(kdecode_frames(d, func, off, mod, 6, out, why, sizeof(why)), 0);
	assert_true(out[0].count >= 1);
	assert_string_equal(out[0].locs[0].func, "kd_leaf");
	for (int i = 1; i <= 3; i++) {
		assert_true(out[i].count >= 1);
		assert_string_equal(out[i].locs[0].func, want[i]);
		assert_non_null(out[i].locs[0].file);
		assert_true(ends_with(out[i].locs[0].file, file_tail));
		assert_int_equal(out[i].locs[0].line, line_in(KDECODE_MODULE_SRC, mark[i]) + 1);
	}
	/* a function the .ko lacks stays raw, as in the kernel; a module
	 * without its .ko too, named in the note */
	assert_int_equal(out[4].count, 0);
	assert_int_equal(out[5].count, 0);
	assert_non_null(strstr(why, "module kd_absent: no kd_absent.ko in"));
	assert_null(strstr(why, "kd_fixture"));
	for (int i = 0; i < 6; i++)
		kdecode_frame_free(&out[i]);
	kdecode_free(d);
}

/* An image's debug/modules: the .ko files side by side. */
static void test_decode_module(void **state)
{
	(void)state;
	check_module_frames(KDECODE_MODULES, "kdecode_module.c");
}

/* A kernel build tree: modules.order (6.2 on: "x.o") names where each
 * module's .ko is. */
static void test_decode_module_tree(void **state)
{
	char *tree = xasprintf("%s/tree", tmpdir), *sub = xasprintf("%s/drivers/kd", tree);
	char *ko = xasprintf("%s/kd-fixture.ko", sub), *order = xasprintf("%s/modules.order", tree);
	const char *lines = "drivers/other/kd-fixture-not.o\ndrivers/kd/kd-fixture.o\n";

	(void)state;
	assert_int_equal(mkdir_p(sub, 0755), 0);
	assert_int_equal(symlink(KDECODE_MODULES "/kd-fixture.ko", ko), 0);
	assert_int_equal(write_file(order, lines, strlen(lines)), 0);
	check_module_frames(tree, "kdecode_module.c");
	free(order);
	free(ko);
	free(sub);
	free(tree);
}

/* A .ko that cannot serve says why, the kernel's frames decoded anyway. */
static void test_module_refused(void **state)
{
	char *dir = xasprintf("%s/bad", tmpdir), *ko = xasprintf("%s/kd_bad.ko", dir);
	char why[512] = "";
	struct kdecode *d;
	const char *func[] = { "kd_leaf", "kd_leaf" }, *off[] = { "0x0/0x20", "0x0/0x20" };
	const char *mod[] = { NULL, "kd-bad" };
	struct kdecode_frame out[2];

	(void)state;
	assert_int_equal(mkdir_p(dir, 0755), 0);
	/* a program, not a relocatable object */
	assert_int_equal(symlink(KDECODE_FIXTURE, ko), 0);
	d = kdecode_open(KDECODE_FIXTURE, dir, why, sizeof(why));
	assert_non_null(d);
	assert_int_equal(kdecode_frames(d, func, off, mod, 2, out, why, sizeof(why)), 0);
	assert_true(out[0].count >= 1);
	assert_int_equal(out[1].count, 0);
	assert_non_null(strstr(why, "module kd-bad: "));
	assert_non_null(strstr(why, "is not a 64-bit ELF relocatable file"));
	for (int i = 0; i < 2; i++)
		kdecode_frame_free(&out[i]);
	kdecode_free(d);
	free(ko);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_leaf),
		cmocka_unit_test(test_decode_inlined),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_decode_module),
		cmocka_unit_test(test_decode_module_tree),
		cmocka_unit_test(test_module_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
