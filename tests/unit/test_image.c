/* Image recipes and cache keys: parsing errors name file:line, and the key
 * moves with every input and with nothing else. The builder never runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "image.h"
#include "util.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("image")

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);

	assert_int_equal(write_file(path, text, strlen(text)), 0);
	return path;
}

static int load(const char *yaml, struct image_recipe **r, char *err, size_t len)
{
	char *path = put("r.yaml", yaml);
	int ret = image_recipe_load(path, r, err, len);

	free(path);
	return ret;
}

static void test_recipe_good(void **state)
{
	struct image_recipe *r;
	char err[256];

	(void)state;
	assert_int_equal(load("name: t\n"
			      "kernel: {package: linux-image-6.1.0-57-amd64-unsigned}\n"
			      "modules: [virtio_pci, dm-multipath]\n"
			      "binaries: [dmsetup]\n"
			      "packages:\n  - qemu-guest-agent\n",
			      &r, err, sizeof(err)),
			 0);
	assert_string_equal(r->name, "t");
	assert_string_equal(r->kernel->package, "linux-image-6.1.0-57-amd64-unsigned");
	assert_int_equal(r->modules_count, 2);
	assert_string_equal(r->modules[1], "dm-multipath");
	assert_int_equal(r->binaries_count, 1);
	assert_int_equal(r->packages_count, 1);
	assert_string_equal(r->packages[0], "qemu-guest-agent");
	image_recipe_free(r);
}

/* the name defaults to the file's; every list is optional */
static void test_recipe_minimal(void **state)
{
	struct image_recipe *r;
	char err[256];

	(void)state;
	assert_int_equal(load("kernel: {package: k}\n", &r, err, sizeof(err)), 0);
	assert_string_equal(r->name, "r");
	assert_int_equal(r->modules_count, 0);
	assert_null(r->binaries);
	image_recipe_free(r);
}

/* kselftest: a source package and the selftest folders to build from it */
static void test_recipe_kselftest(void **state)
{
	struct image_recipe *r;
	char err[256];

	(void)state;
	assert_int_equal(load("kselftest:\n  source: linux-source-6.1\n  targets: [timers, "
			      "size]\n",
			      &r, err, sizeof(err)),
			 0);
	assert_non_null(r->kselftest);
	assert_string_equal(r->kselftest->source, "linux-source-6.1");
	assert_int_equal(r->kselftest->targets_count, 2);
	assert_string_equal(r->kselftest->targets[1], "size");
	image_recipe_free(r);
	assert_int_equal(load("kernel: {package: k}\n", &r, err, sizeof(err)), 0);
	assert_null(r->kselftest);
	image_recipe_free(r);
}

static void test_recipe_default_parses(void **state)
{
	char *path = xasprintf("%s/images/default.yaml", KTB_SOURCE_DIR_TEST);
	struct image_recipe *r;
	char err[256];

	(void)state;
	assert_int_equal(image_recipe_load(path, &r, err, sizeof(err)), 0);
	assert_string_equal(r->name, "default");
	assert_non_null(r->kernel);
	assert_true(r->modules_count > 5);
	/* the kselftest-timers scenario runs what the default image carries */
	assert_non_null(r->kselftest);
	assert_string_equal(r->kselftest->targets[0], "timers");
	image_recipe_free(r);
	free(path);
}

static void expect_error(const char *yaml, const char *where, const char *what)
{
	struct image_recipe *r = NULL;
	char err[512];

	assert_int_equal(load(yaml, &r, err, sizeof(err)), -EINVAL);
	assert_null(r);
	if (!strstr(err, where) || !strstr(err, what))
		fail_msg("error '%s' lacks '%s' or '%s'", err, where, what);
}

static void test_recipe_errors(void **state)
{
	(void)state;
	expect_error("name: t\nmodules: [a]\n\nbogus: 1\n", "r.yaml:4:1:", "Unexpected key: bogus");
	expect_error("kernel:\n  package: k\n  version: 2\n", "r.yaml:3:3:", "version");
	expect_error("modules: 5\n", "r.yaml:1:", "SEQUENCE");
	expect_error("modules:\n  - a\n  - {x: 1}\n", "r.yaml:3:", "STRING");
	expect_error("name: 'a b'\n", "r.yaml: name", "not a valid name");
	expect_error("modules: ['$(rm -rf /)']\n", "modules[0]", "not a valid name");
	expect_error("packages: [-o]\n", "packages[0]", "not a valid name");
	expect_error("", "r.yaml", "empty");
	expect_error("kselftest: {targets: [timers]}\n", "r.yaml:1:", "source");
	expect_error("kselftest: {source: s}\n", "r.yaml:1:", "targets");
	expect_error("kselftest: {source: s, targets: []}\n", "r.yaml:1:", "");
	expect_error("kselftest: {source: s, targets: [../x]}\n", "kselftest.targets[0]",
		     "not a valid name");
	expect_error("kselftest: {source: 's/x', targets: [t]}\n", "kselftest.source",
		     "not a valid name");
}

/* What keeps a hostile recipe's cost bounded: no aliases (each a copy of
 * what it names: a 500 KB file asked for 1 GB) and no file past
 * IMAGE_RECIPE_MAX_BYTES, refused unread. */
static void test_recipe_bounds(void **state)
{
	size_t n = IMAGE_RECIPE_MAX_BYTES + 1;
	char *big = xcalloc(1, n + 1);

	(void)state;
	expect_error("name: &a k\nmodules: [*a, *a]\n", "r.yaml:2:10:", "YAML alias unsupported");
	memset(big, '#', n);
	expect_error(big, "r.yaml: 65537 bytes", "more than a recipe holds (65536): not read");
	big[n - 1] = '\n';
	memcpy(big, "name: k\n", 8);
	big[IMAGE_RECIPE_MAX_BYTES - 1] = '\0'; /* at the limit: read */
	{
		struct image_recipe *r;
		char err[256];

		assert_int_equal(load(big, &r, err, sizeof(err)), 0);
		image_recipe_free(r);
	}
	free(big);
}

static void test_recipe_path(void **state)
{
	char *p;

	(void)state;
	setenv("KTB_SOURCE_DIR", "/src", 1);
	p = image_recipe_path(NULL);
	assert_string_equal(p, "/src/images/default.yaml");
	free(p);
	p = image_recipe_path("big");
	assert_string_equal(p, "/src/images/big.yaml");
	free(p);
	p = image_recipe_path("./my.yaml");
	assert_string_equal(p, "./my.yaml");
	free(p);
	unsetenv("KTB_SOURCE_DIR");
}

static void test_cache_dir(void **state)
{
	char *want = xasprintf("%s/xdg/ktb", tmpdir), *xdg = xasprintf("%s/xdg", tmpdir);
	struct stat st;

	(void)state;
	setenv("XDG_CACHE_HOME", xdg, 1);
	assert_string_equal(ktb_cache_dir(), want);
	assert_int_equal(stat(want, &st), 0);
	unsetenv("XDG_CACHE_HOME");
	free(want);
	free(xdg);
}

/* --- keys ----------------------------------------------------------------- */

struct key_fixture {
	struct image_inputs in;
	char *debs[2];
	char *bins[1];
	char *guest, *modules;
};

static char *key_of(struct key_fixture *f)
{
	char key[IMAGE_KEY_LEN + 1], err[256];

	assert_int_equal(image_key(&f->in, key, err, sizeof(err)), 0);
	assert_int_equal(strlen(key), IMAGE_KEY_LEN);
	return xstrdup(key);
}

static void key_setup(struct key_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->guest = xasprintf("%s/guest", tmpdir);
	f->modules = xasprintf("%s/mods", tmpdir);
	assert_int_equal(mkdir_p(f->guest, 0755), 0);
	assert_int_equal(mkdir_p(f->modules, 0755), 0);
	free(put("guest/init", "init v1"));
	free(put("guest/ktb-probe", "probe v1"));
	free(put("guest/ktb-io", "io v1"));
	free(put("guest/ktb-mem", "mem v1"));
	free(put("guest/ktb-fb", "fb v1"));
	free(put("mods/a.ko", "module a"));
	f->debs[0] = "linux-image-k=1.0";
	f->debs[1] = "qemu-guest-agent=1:7.2";
	f->bins[0] = put("dmsetup", "a program");
	f->in = (struct image_inputs){
		.recipe_path = put("key.yaml", "name: k\n"),
		.builder_path = put("build.sh", "#!/bin/sh\n"),
		.guest_dir = f->guest,
		.debs = f->debs,
		.debs_count = 2,
		.binaries = f->bins,
		.binaries_count = 1,
	};
	free(put("vmlinux", "kernel bytes"));
}

static void key_teardown(struct key_fixture *f)
{
	free((char *)f->in.recipe_path);
	free((char *)f->in.builder_path);
	free(f->bins[0]);
	free(f->guest);
	free(f->modules);
}

/* KEY differs from BASE after a change, and is BASE again once undone */
static void expect_moves(struct key_fixture *f, const char *base, const char *file,
			 const char *changed, const char *orig)
{
	char *k;

	free(put(file, changed));
	k = key_of(f);
	assert_string_not_equal(k, base);
	free(k);
	free(put(file, orig));
	k = key_of(f);
	assert_string_equal(k, base);
	free(k);
}

static void test_key_content(void **state)
{
	struct key_fixture f;
	char *base, *again;

	(void)state;
	key_setup(&f);
	base = key_of(&f);
	again = key_of(&f);
	assert_string_equal(base, again);
	expect_moves(&f, base, "key.yaml", "name: k2\n", "name: k\n");
	expect_moves(&f, base, "build.sh", "#!/bin/bash\n", "#!/bin/sh\n");
	expect_moves(&f, base, "guest/init", "init v2", "init v1");
	expect_moves(&f, base, "guest/ktb-probe", "probe v2", "probe v1");
	expect_moves(&f, base, "guest/ktb-io", "io v2", "io v1");
	free(again);
	free(base);
	key_teardown(&f);
}

static void expect_differs(struct key_fixture *f, const char *base)
{
	char *k = key_of(f);

	assert_string_not_equal(k, base);
	free(k);
}

static void test_key_versions_and_options(void **state)
{
	struct key_fixture f;
	char *base, *vmlinux = xasprintf("%s/vmlinux", tmpdir);

	(void)state;
	key_setup(&f);
	base = key_of(&f);
	f.debs[0] = "linux-image-k=1.1";
	expect_differs(&f, base);
	f.debs[0] = "linux-image-k=1.0";
	f.debs[1] = "qemu-guest-agent=1:7.3";
	expect_differs(&f, base);
	f.debs[1] = "qemu-guest-agent=1:7.2";
	f.in.debs_count = 1;
	expect_differs(&f, base);
	f.in.debs_count = 2;
	f.in.kernel_abi = "6.1.0-47";
	expect_differs(&f, base);
	f.in.kernel_abi = NULL;
	f.in.binaries_count = 0;
	expect_differs(&f, base);
	f.in.binaries_count = 1;
	f.in.kernel_path = vmlinux;
	expect_differs(&f, base);
	f.in.kernel_path = NULL;
	f.in.modules_dir = f.modules;
	expect_differs(&f, base);
	f.in.modules_dir = NULL;
	free(vmlinux);
	free(base);
	key_teardown(&f);
}

/* the selftests' source tarball counts by size and mtime, like a host
 * program; a tarball gone is an error naming it */
static void test_key_kselftest_src(void **state)
{
	struct key_fixture f;
	char *base, *src = put("linux-source.tar.xz", "source v1");
	struct timeval tv[2] = { { 2000000, 0 }, { 2000000, 0 } };
	char key[IMAGE_KEY_LEN + 1], err[256];

	(void)state;
	key_setup(&f);
	base = key_of(&f);
	f.in.kselftest_src = src;
	expect_differs(&f, base);
	free(base);
	assert_int_equal(utimes(src, tv), 0);
	base = key_of(&f);
	free(put("linux-source.tar.xz", "source v1.1"));
	assert_int_equal(utimes(src, tv), 0);
	expect_differs(&f, base);
	free(put("linux-source.tar.xz", "source v1"));
	expect_differs(&f, base);
	unlink(src);
	assert_int_equal(image_key(&f.in, key, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "kselftest source"));
	free(src);
	free(base);
	key_teardown(&f);
}

/* a user's kernel counts by content, a modules tree by listing and mtimes,
 * a host program by size and mtime */
static void test_key_user_kernel(void **state)
{
	struct key_fixture f;
	char *base, *k, *vmlinux = xasprintf("%s/vmlinux", tmpdir);
	struct timeval tv[2] = { { 1000000, 0 }, { 1000000, 0 } };

	(void)state;
	key_setup(&f);
	f.in.kernel_path = vmlinux;
	f.in.modules_dir = f.modules;
	base = key_of(&f);
	expect_moves(&f, base, "vmlinux", "other kernel", "kernel bytes");
	free(put("mods/b.ko", "module b"));
	expect_differs(&f, base);
	k = xasprintf("%s/mods/b.ko", tmpdir);
	unlink(k);
	free(k);
	k = xasprintf("%s/mods/a.ko", tmpdir);
	assert_int_equal(utimes(k, tv), 0);
	free(k);
	expect_differs(&f, base);
	assert_int_equal(utimes(f.bins[0], tv), 0);
	free(base);
	base = key_of(&f);
	tv[1].tv_sec++;
	assert_int_equal(utimes(f.bins[0], tv), 0);
	expect_differs(&f, base);
	free(vmlinux);
	free(base);
	key_teardown(&f);
}

/* a kernel tree's modules count like a modules dir: by name, size, mtime */
static void test_key_tree_modules(void **state)
{
	struct key_fixture f;
	struct image_tree_modules m;
	struct timeval tv[2] = { { 2000000, 0 }, { 2000000, 0 } };
	char *base, *again, err[256], *tree = xasprintf("%s/tree", tmpdir);
	char *ko = xasprintf("%s/tree/x.ko", tmpdir);

	(void)state;
	key_setup(&f);
	assert_int_equal(mkdir_p(tree, 0755), 0);
	free(put("tree/x.ko", "module x"));
	free(put("tree/modules.order", "x.ko\n"));
	assert_int_equal(image_tree_modules(tree, &m, err, sizeof(err)), 0);
	f.in.kernel_path = f.bins[0];
	base = key_of(&f);
	f.in.tree_dir = tree;
	f.in.tree_files = m.files;
	f.in.tree_files_count = m.count;
	expect_differs(&f, base);
	free(base);
	base = key_of(&f);
	again = key_of(&f);
	assert_string_equal(base, again);
	free(again);
	free(put("tree/x.ko", "module x, rebuilt"));
	expect_differs(&f, base);
	/* the lists count by their bytes: make writes them anew each time */
	free(base);
	base = key_of(&f);
	free(put("tree/modules.order", "x.ko\n"));
	again = key_of(&f);
	assert_string_equal(base, again);
	free(again);
	free(put("tree/modules.order", "x.ko\ny.ko\n"));
	expect_differs(&f, base);
	free(put("tree/modules.order", "x.ko\n"));
	assert_int_equal(utimes(ko, tv), 0);
	free(base);
	base = key_of(&f);
	tv[1].tv_sec++;
	assert_int_equal(utimes(ko, tv), 0);
	expect_differs(&f, base);
	image_tree_modules_free(&m);
	free(ko);
	free(tree);
	free(base);
	key_teardown(&f);
}

static void test_key_missing_guest(void **state)
{
	struct key_fixture f;
	char key[IMAGE_KEY_LEN + 1], err[512], *p;

	(void)state;
	key_setup(&f);
	p = xasprintf("%s/ktb-io", f.guest);
	unlink(p);
	assert_int_equal(image_key(&f.in, key, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "ktb-io"));
	assert_non_null(strstr(err, "cmake --build"));
	free(p);
	key_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recipe_good),
		cmocka_unit_test(test_recipe_minimal),
		cmocka_unit_test(test_recipe_kselftest),
		cmocka_unit_test(test_recipe_default_parses),
		cmocka_unit_test(test_recipe_errors),
		cmocka_unit_test(test_recipe_bounds),
		cmocka_unit_test(test_recipe_path),
		cmocka_unit_test(test_cache_dir),
		cmocka_unit_test(test_key_content),
		cmocka_unit_test(test_key_versions_and_options),
		cmocka_unit_test(test_key_kselftest_src),
		cmocka_unit_test(test_key_user_kernel),
		cmocka_unit_test(test_key_tree_modules),
		cmocka_unit_test(test_key_missing_guest),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
