/* --kernel DIR: a folder is a kernel tree only with its bzImage built, and
 * the messages say what to build; the tree's modules are what modules.order
 * lists (6.1's .ko entries and 6.2's .o ones), staged as an installed tree
 * without a byte written into the tree. depmod and the builder never run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"
#include "util.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("image-tree")

/* TMPDIR/NAME with TEXT, folders made */
static void put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);

	*strrchr(path, '/') = '\0';
	assert_int_equal(mkdir_p(path, 0755), 0);
	free(path);
	path = xasprintf("%s/%s", tmpdir, name);
	assert_int_equal(write_file(path, text, strlen(text)), 0);
	free(path);
}

static char *at(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void write_bzimage(const char *name, const char *version)
{
	char data[0x400] = { 0 }, *path = at(name);

	memcpy(data + 0x202, "HdrS", 4);
	data[0x20e] = 0x70; /* the version at 0x200 + 0x70 */
	memcpy(data + 0x270, version, strlen(version));
	assert_int_equal(write_file(path, data, sizeof(data)), 0);
	free(path);
}

static void test_tree_kernel(void **state)
{
	char err[1024], *k = (char *)"unset", *dir = at("t1");

	(void)state;
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_true(image_tree_is(dir));
	/* neither Makefile nor .config nor bzImage: not a tree at all */
	assert_int_equal(image_tree_kernel(dir, &k, err, sizeof(err)), -EINVAL);
	assert_null(k);
	assert_non_null(strstr(err, dir));
	assert_non_null(strstr(err, "not a kernel build tree"));
	/* a tree not built yet: what to build */
	put("t1/Makefile", "# linux\n");
	assert_int_equal(image_tree_kernel(dir, &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, dir));
	assert_non_null(strstr(err, "no arch/x86/boot/bzImage in"));
	assert_non_null(strstr(err, "make bzImage"));
	assert_non_null(strstr(err, "make modules"));
	put("t1/arch/x86/boot/bzImage", "any bytes");
	assert_int_equal(image_tree_kernel(dir, &k, err, sizeof(err)), 0);
	free(dir);
	dir = at("t1/arch/x86/boot/bzImage");
	assert_string_equal(k, dir);
	assert_false(image_tree_is(k));
	free(k);
	free(dir);
}

static void test_tree_modules(void **state)
{
	struct image_tree_modules m;
	char err[1024], *dir = at("t2");

	(void)state;
	put("t2/arch/x86/boot/bzImage", "kernel");
	/* a tree that says nothing of modules: none, as before */
	assert_int_equal(image_tree_modules(dir, &m, err, sizeof(err)), 0);
	assert_int_equal(m.count, 0);
	put("t2/drivers/block/vblk.ko", "module vblk");
	put("t2/fs/ext9/ext9.ko", "module ext9");
	put("t2/modules.order", "drivers/block/vblk.ko\n\nfs/ext9/ext9.o\n");
	put("t2/modules.builtin", "kernel/drivers/rtc/rtc-cmos.ko\n");
	put("t2/include/config/kernel.release", "6.1.99-test\n");
	assert_int_equal(image_tree_modules(dir, &m, err, sizeof(err)), 0);
	assert_int_equal(m.ko_count, 2);
	assert_int_equal(m.count, 4);
	assert_string_equal(m.files[0], "drivers/block/vblk.ko");
	assert_string_equal(m.files[1], "fs/ext9/ext9.ko");
	assert_string_equal(m.files[2], "modules.order");
	assert_string_equal(m.files[3], "modules.builtin");
	assert_string_equal(m.release, "6.1.99-test");
	image_tree_modules_free(&m);
	/* listed but not built */
	put("t2/modules.order", "drivers/block/vblk.ko\ndrivers/net/gone.ko\n");
	assert_int_equal(image_tree_modules(dir, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "drivers/net/gone.ko"));
	assert_non_null(strstr(err, "make modules"));
	assert_int_equal(m.count, 0);
	/* a path out of the tree */
	put("t2/modules.order", "../../etc/passwd.ko\n");
	assert_int_equal(image_tree_modules(dir, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not in the tree"));
	/* the bzImage's own release wins over kernel.release: the guest's
	 * uname -r (header: "HdrS" at 0x202, at 0x20e a pointer from 0x200) */
	write_bzimage("t2/arch/x86/boot/bzImage", "6.1.77-hdr (me@here) #1");
	put("t2/modules.order", "");
	assert_int_equal(image_tree_modules(dir, &m, err, sizeof(err)), 0);
	assert_string_equal(m.release, "6.1.77-hdr");
	image_tree_modules_free(&m);
	/* everything built in: no .ko, the lists still count */
	put("t2/modules.order", "");
	assert_int_equal(image_tree_modules(dir, &m, err, sizeof(err)), 0);
	assert_int_equal(m.ko_count, 0);
	assert_int_equal(m.count, 2);
	image_tree_modules_free(&m);
	free(dir);
}

/* every name under DIR, below it too, as one string */
static void listing(const char *dir, const char *rel, char **out)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		char *path = xasprintf("%s/%s", dir, nm), *sub = xasprintf("%s/%s", rel, nm), *t;

		if (strcmp(nm, ".") && strcmp(nm, "..")) {
			t = xasprintf("%s%s\n", *out, sub);
			free(*out);
			*out = t;
			if (ents[i]->d_type == DT_DIR)
				listing(path, sub, out);
		}
		free(path);
		free(sub);
		free(ents[i]);
	}
	free(ents);
}

static void expect_file(const char *path, const char *text)
{
	char *got = read_file(path, NULL);

	assert_non_null(got);
	assert_string_equal(got, text);
	free(got);
}

/* The file REL of the staged release folder holds exactly TEXT. */
static void expect_staged(const char *reldir, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", reldir, rel);

	expect_file(p, text);
	free(p);
}

static void test_tree_stage(void **state)
{
	struct image_tree_modules m;
	char err[1024], *dir = at("t3"), *stage = at("stage"), *reldir = NULL, *p, *q;
	struct stat st;
	char *before = xstrdup(""), *after = xstrdup("");

	(void)state;
	put("t3/drivers/block/vblk.ko", "module vblk");
	/* a module that is a link out of the tree, as a bisection's build
	 * may leave one: staged as the file it points to */
	put("elsewhere/ext9.ko", "module ext9");
	put("t3/fs/ext9/README", "ext9");
	p = at("elsewhere/ext9.ko");
	q = at("t3/fs/ext9/ext9.ko");
	assert_int_equal(symlink(p, q), 0);
	free(p);
	free(q);
	put("t3/modules.order", "drivers/block/vblk.ko\nfs/ext9/ext9.o\n");
	put("t3/modules.builtin", "drivers/rtc/rtc-cmos.ko\n");
	put("t3/modules.builtin.modinfo", "rtc_cmos.file=drivers/rtc/rtc-cmos");
	listing(dir, ".", &before);
	assert_int_equal(image_tree_modules(dir, &m, err, sizeof(err)), 0);
	/* no kernel.release, no bzImage */
	assert_string_equal(m.release, IMAGE_TREE_RELEASE);
	assert_int_equal(image_tree_stage(dir, &m, stage, &reldir, err, sizeof(err)), 0);
	p = at("stage/lib/modules/" IMAGE_TREE_RELEASE);
	assert_string_equal(reldir, p);
	free(p);
	expect_staged(reldir, "kernel/drivers/block/vblk.ko", "module vblk");
	p = xasprintf("%s/kernel/fs/ext9/ext9.ko", reldir);
	expect_file(p, "module ext9");
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	free(p);
	expect_staged(reldir, "modules.order",
		      "kernel/drivers/block/vblk.ko\nkernel/fs/ext9/ext9.ko\n");
	expect_staged(reldir, "modules.builtin", "drivers/rtc/rtc-cmos.ko\n");
	expect_staged(reldir, "modules.builtin.modinfo", "rtc_cmos.file=drivers/rtc/rtc-cmos");
	/* the tree is as it was: nothing written into it */
	listing(dir, ".", &after);
	assert_string_equal(before, after);
	p = at("t3/modules.order");
	expect_file(p, "drivers/block/vblk.ko\nfs/ext9/ext9.o\n");
	free(p);
	image_tree_modules_free(&m);
	free(before);
	free(after);
	free(reldir);
	free(stage);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_kernel),
		cmocka_unit_test(test_tree_modules),
		cmocka_unit_test(test_tree_stage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
