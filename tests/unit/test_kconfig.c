/* Kernel configs: every line form of .config, the errors that name their
 * line, module names with '-' or '_', the order in which an image's config
 * is looked for, and IKCONFIG found in a (synthetic) vmlinux and bzImage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "image.h"
#include "image_kconfig.h"
#include "kconfig.h"
#include "util.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("kconfig")

static char *put_bytes(const char *name, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", tmpdir, name), *dir = xstrdup(path);

	*strrchr(dir, '/') = '\0';
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(write_file(path, data, len), 0);
	free(dir);
	return path;
}

static char *put(const char *name, const char *text)
{
	return put_bytes(name, text, strlen(text));
}

static struct kconfig *parse_ok(const char *text)
{
	struct kconfig *k = NULL;
	char why[256] = "";

	assert_int_equal(kconfig_parse(text, strlen(text), &k, why, sizeof(why)), 0);
	assert_non_null(k);
	return k;
}

static void parse_bad(const char *text, size_t len, const char *want)
{
	struct kconfig *k = (struct kconfig *)1;
	char why[256] = "";

	assert_int_equal(kconfig_parse(text, len, &k, why, sizeof(why)), -EINVAL);
	assert_null(k);
	if (!strstr(why, want))
		fail_msg("why '%s' lacks '%s'", why, want);
}

static void test_line_forms(void **state)
{
	struct kconfig *k = parse_ok("#\n# Automatically generated file; DO NOT EDIT.\n\n"
				     "CONFIG_BLK_DEV_NVME=m\n"
				     "CONFIG_ZSWAP=y\n"
				     "CONFIG_LOCALVERSION=\"-ktb \\\"x\\\" \\\\\"\n"
				     "CONFIG_NR_CPUS=64\n"
				     "CONFIG_NEG=-3\n"
				     "CONFIG_PHYSICAL_START=0x1000000\n"
				     "CONFIG_EMPTY=\"\"\n"
				     "# CONFIG_ACPI_HMAT is not set\n"
				     "# CONFIG_FOO is not set, says a person\n"
				     "CONFIG_OFF=n\n"
				     "  CONFIG_SPACED=y  \n"
				     "CONFIG_TWICE=y\nCONFIG_TWICE=m\n"
				     "# CONFIG_UNSET_LATER is not set\nCONFIG_UNSET_LATER=y\n"
				     "CONFIG_SET_THEN_UNSET=y\n# CONFIG_SET_THEN_UNSET is not set\n"
				     "CONFIG_LAST=y");

	(void)state;
	assert_string_equal(kconfig_value(k, "CONFIG_BLK_DEV_NVME"), "m");
	assert_string_equal(kconfig_value(k, "ZSWAP"), "y");
	assert_string_equal(kconfig_value(k, "CONFIG_LOCALVERSION"), "-ktb \"x\" \\");
	assert_string_equal(kconfig_value(k, "CONFIG_NR_CPUS"), "64");
	assert_string_equal(kconfig_value(k, "CONFIG_NEG"), "-3");
	assert_string_equal(kconfig_value(k, "CONFIG_PHYSICAL_START"), "0x1000000");
	assert_string_equal(kconfig_value(k, "CONFIG_EMPTY"), "");
	assert_null(kconfig_value(k, "CONFIG_ACPI_HMAT"));
	assert_null(kconfig_value(k, "CONFIG_FOO"));
	assert_null(kconfig_value(k, "CONFIG_OFF"));
	assert_null(kconfig_value(k, "CONFIG_ABSENT"));
	assert_string_equal(kconfig_value(k, "CONFIG_SPACED"), "y");
	assert_string_equal(kconfig_value(k, "CONFIG_TWICE"), "m");
	assert_string_equal(kconfig_value(k, "CONFIG_UNSET_LATER"), "y");
	assert_null(kconfig_value(k, "CONFIG_SET_THEN_UNSET"));
	assert_string_equal(kconfig_value(k, "CONFIG_LAST"), "y");
	assert_string_equal(kconfig_source(k), "the given text");
	assert_false(kconfig_has_module(k, "nvme"));
	kconfig_free(k);
}

static void test_crlf(void **state)
{
	struct kconfig *k = parse_ok("CONFIG_A=y\r\n# CONFIG_B is not set\r\nCONFIG_C=\"s\"\r\n");

	(void)state;
	assert_string_equal(kconfig_value(k, "CONFIG_A"), "y");
	assert_null(kconfig_value(k, "CONFIG_B"));
	assert_string_equal(kconfig_value(k, "CONFIG_C"), "s");
	kconfig_free(k);
}

static void test_errors(void **state)
{
	static const char nul[] = "CONFIG_A=y\nCONFIG_B\0=y\n";
	size_t big = KCONFIG_MAX_LINE + 10;
	char *line = xcalloc(1, big + 32);

	(void)state;
	parse_bad("CONFIG_A=y\nCONFIG_B\n", 20, "line 2: CONFIG_B assigns nothing");
	parse_bad("CONFIG_A=y\nCONFIG_B=maybe\n", 26, "line 2: CONFIG_B=maybe: not y, m");
	parse_bad("CONFIG_A=\"open\n", 15, "line 1: CONFIG_A=\"open");
	parse_bad("CONFIG_A=\"a\"b\n", 14, "line 1:");
	parse_bad("\nhello world\n", 13, "line 2: 'hello world' is no CONFIG_NAME=value");
	parse_bad(nul, sizeof(nul) - 1, "line 2: binary data (byte 0x00)");
	parse_bad("\x7f"
		  "ELF\x02\x01",
		  6, "line 1: binary data");
	/* a huge line is refused before anything is kept of it */
	memcpy(line, "CONFIG_A=\"", 10);
	memset(line + 10, 'x', big);
	strcat(line, "\"\n");
	parse_bad(line, strlen(line), "line 1: longer than 4096 bytes");
	parse_bad(line, KCONFIG_MAX_TEXT + 1, "more than a kernel config holds");
	free(line);
}

/* --- an image's config -------------------------------------------------------- */

static struct image fake_image(const char *name)
{
	struct image img = { .dir = xasprintf("%s/%s", tmpdir, name) };

	assert_int_equal(mkdir_p(img.dir, 0755), 0);
	return img;
}

static void test_cached_config_and_modules(void **state)
{
	struct image img = fake_image("img-cached");
	struct kconfig *k;
	char why[512];

	(void)state;
	free(put("img-cached/config", "CONFIG_BLK_DEV_NVME=m\nCONFIG_DM_MULTIPATH=m\n"));
	free(put("img-cached/modules.txt", "nvme_core\nnvme\ndm_multipath\ndm-round-robin\n"));
	free(put("img-cached/manifest.json",
		 "{\"config_from\": \"linux-image.deb boot/config-6.1\","
		 " \"kernel_file\": \"\"}"));
	assert_int_equal(image_kernel_config(&img, &k, why, sizeof(why)), 0);
	assert_string_equal(kconfig_value(k, "CONFIG_BLK_DEV_NVME"), "m");
	assert_true(kconfig_has_module(k, "nvme"));
	assert_true(kconfig_has_module(k, "dm-multipath"));
	assert_true(kconfig_has_module(k, "dm_multipath"));
	assert_true(kconfig_has_module(k, "dm_round_robin"));
	assert_false(kconfig_has_module(k, "nvm"));
	assert_false(kconfig_has_module(k, "nvme_core_x"));
	assert_false(kconfig_has_module(k, "zswap"));
	assert_non_null(strstr(kconfig_source(k), "img-cached/config (from linux-image.deb"));
	kconfig_free(k);
	image_free(&img);
}

static void test_cached_config_bad(void **state)
{
	struct image img = fake_image("img-bad");
	struct kconfig *k;
	char why[512], *big;

	(void)state;
	free(put("img-bad/config", "CONFIG_A=y\ngarbage\n"));
	assert_int_equal(image_kernel_config(&img, &k, why, sizeof(why)), -EINVAL);
	assert_null(k);
	assert_non_null(strstr(why, "img-bad/config: line 2:"));
	/* a huge file is refused by its size, unread */
	big = put("img-bad/config", "");
	assert_int_equal(truncate(big, (off_t)KCONFIG_MAX_TEXT + 1), 0);
	assert_int_equal(kconfig_read_file(big, NULL, &k, why, sizeof(why)), -EINVAL);
	assert_null(k);
	assert_non_null(strstr(why, "too big for a kernel config: not read"));
	free(big);
	big = xasprintf("%s/img-bad/absent", tmpdir);
	assert_int_equal(kconfig_read_file(big, NULL, &k, why, sizeof(why)), -ENOENT);
	free(big);
	image_free(&img);
}

/* A minimal bzImage header: "HdrS" at 514, the release string at 0x200 +
 * the pointer at 0x20e, the payload at (setup_sects + 1) * 512 + 0x248's. */
static char *fake_bzimage(const char *name, const char *release, const void *payload, size_t plen)
{
	size_t len = 1024 + plen;
	unsigned char *b = xcalloc(1, len);
	char *path;

	memcpy(b + 514, "HdrS", 4);
	b[0x20e] = 0x100 & 0xff;
	b[0x20f] = 0x100 >> 8;
	strcpy((char *)b + 0x300, release);
	b[0x1f1] = 1;
	b[0x24c] = (unsigned char)(plen & 0xff);
	b[0x24d] = (unsigned char)(plen >> 8 & 0xff);
	b[0x24e] = (unsigned char)(plen >> 16 & 0xff);
	if (payload)
		memcpy(b + 1024, payload, plen);
	path = put_bytes(name, b, len);
	free(b);
	return path;
}

static void test_find_beside(void **state)
{
	char *kernel, *path, why[1024];

	(void)state;
	/* a build tree: arch/x86/boot/bzImage and .config at the top */
	kernel = fake_bzimage("tree/arch/x86/boot/bzImage", "6.1.99-mine (me@host) #1", NULL, 0);
	free(put("tree/.config", "CONFIG_A=y\n"));
	free(put("tree/arch/x86/boot/config-6.1.99-mine", "CONFIG_A=m\n"));
	assert_int_equal(kconfig_find_beside(kernel, &path, why, sizeof(why)), 0);
	assert_non_null(strstr(path, "/tree/.config"));
	free(path);
	free(kernel);
	/* the tree's bzImage a link to a file elsewhere: still the tree's */
	kernel = fake_bzimage("elsewhere/bzImage", "6.1.99-mine (me@host) #1", NULL, 0);
	free(put("elsewhere/config-6.1.99-mine", "CONFIG_A=m\n"));
	path = xasprintf("%s/tree/arch/x86/boot/bzImage", tmpdir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(kernel, path), 0);
	free(kernel);
	kernel = path;
	assert_int_equal(kconfig_find_beside(kernel, &path, why, sizeof(why)), 0);
	assert_non_null(strstr(path, "/tree/.config"));
	free(path);
	free(kernel);
	/* a vmlinux at the top of its tree */
	kernel = put("tree/vmlinux", "\177ELF...Linux version 6.1.99-mine (me@host)");
	assert_int_equal(kconfig_find_beside(kernel, &path, why, sizeof(why)), 0);
	assert_non_null(strstr(path, "/tree/.config"));
	free(path);
	free(kernel);
	/* a kernel in a folder: config-RELEASE before config */
	kernel = fake_bzimage("boot/vmlinuz", "6.1.99-mine (me@host) #1", NULL, 0);
	free(put("boot/config", "CONFIG_A=y\n"));
	free(put("boot/config-6.1.99-mine", "CONFIG_A=m\n"));
	assert_int_equal(kconfig_find_beside(kernel, &path, why, sizeof(why)), 0);
	assert_non_null(strstr(path, "/boot/config-6.1.99-mine"));
	free(path);
	free(kernel);
	/* config alone */
	kernel = fake_bzimage("boot2/vmlinuz", "6.1.98 #1", NULL, 0);
	free(put("boot2/config", "CONFIG_A=y\n"));
	assert_int_equal(kconfig_find_beside(kernel, &path, why, sizeof(why)), 0);
	assert_non_null(strstr(path, "/boot2/config"));
	free(path);
	free(kernel);
	/* nothing: every place is named */
	kernel = fake_bzimage("none/arch/x86/boot/bzImage", "6.1.97 #1", NULL, 0);
	assert_int_equal(kconfig_find_beside(kernel, &path, why, sizeof(why)), -ENOENT);
	assert_null(path);
	assert_non_null(strstr(why, "/none/.config"));
	assert_non_null(strstr(why, "/none/arch/x86/boot/config-6.1.97"));
	assert_non_null(strstr(why, "/none/arch/x86/boot/config)"));
	free(kernel);
}

/* an old image (no cached config): beside the manifest's kernel_file */
static void test_image_beside_kernel_file(void **state)
{
	struct image img = fake_image("img-old");
	char *kernel, *manifest, why[1024];
	struct kconfig *k;

	(void)state;
	kernel = fake_bzimage("own/vmlinuz", "6.2.0 #1", NULL, 0);
	free(put("own/config-6.2.0", "CONFIG_ZSWAP=y\n"));
	manifest = xasprintf("{\"kernel_file\": \"%s\"}", kernel);
	free(put("img-old/manifest.json", manifest));
	assert_int_equal(image_kernel_config(&img, &k, why, sizeof(why)), 0);
	assert_string_equal(kconfig_value(k, "CONFIG_ZSWAP"), "y");
	assert_non_null(strstr(kconfig_source(k), "/own/config-6.2.0"));
	assert_false(kconfig_has_module(k, "nvme")); /* no modules.txt */
	kconfig_free(k);
	/* the cached config comes first */
	free(put("img-old/config", "CONFIG_ZSWAP=m\n"));
	assert_int_equal(image_kernel_config(&img, &k, why, sizeof(why)), 0);
	assert_string_equal(kconfig_value(k, "CONFIG_ZSWAP"), "m");
	kconfig_free(k);
	free(manifest);
	free(kernel);
	image_free(&img);
}

static void test_image_none(void **state)
{
	struct image img = fake_image("img-none");
	struct kconfig *k;
	char why[1024];

	(void)state;
	img.vmlinux = put("img-none/vmlinux", "\177ELF no config here");
	img.bzimage = fake_bzimage("img-none/bzImage", "6.1.0 #1", NULL, 0);
	assert_int_equal(image_kernel_config(&img, &k, why, sizeof(why)), -ENOENT);
	assert_null(k);
	assert_non_null(strstr(why, "img-none/config"));
	assert_non_null(strstr(why, "IKCONFIG in the vmlinux"));
	assert_non_null(strstr(why, "IKCONFIG in the bzImage"));
	image_free(&img);
}

/* DATA in gzip format */
static unsigned char *gz(const void *data, size_t dlen, size_t *len)
{
	z_stream z = { 0 };
	unsigned char *out = xcalloc(1, dlen + 256);

	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
			 Z_OK);
	z.next_in = (unsigned char *)(uintptr_t)data;
	z.avail_in = (uInt)dlen;
	z.next_out = out;
	z.avail_out = (uInt)dlen + 256;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*len = z.total_out;
	deflateEnd(&z);
	return out;
}

/* "junk IKCFG_ST <gzip> IKCFG_ED junk", as the kernel lays it out */
static unsigned char *ikconfig_blob(const char *config, size_t *len)
{
	size_t zlen;
	unsigned char *z = gz(config, strlen(config), &zlen), *b = xcalloc(1, zlen + 64);

	memcpy(b, "\177ELF\0\1\2junk", 12);
	memcpy(b + 12, "IKCFG_ST", 8);
	memcpy(b + 20, z, zlen);
	memcpy(b + 20 + zlen, "IKCFG_ED\0\0more", 15);
	*len = 20 + zlen + 15;
	free(z);
	return b;
}

static void test_ikconfig(void **state)
{
	struct image img = fake_image("img-ik");
	unsigned char *blob, *payload;
	size_t len, plen;
	struct kconfig *k;
	char why[1024];

	(void)state;
	/* in the vmlinux */
	blob = ikconfig_blob("CONFIG_IKCONFIG=y\nCONFIG_BLK_DEV_NVME=y\n", &len);
	img.vmlinux = put_bytes("img-ik/vmlinux", blob, len);
	assert_int_equal(image_kernel_config(&img, &k, why, sizeof(why)), 0);
	assert_string_equal(kconfig_value(k, "CONFIG_BLK_DEV_NVME"), "y");
	assert_non_null(strstr(kconfig_source(k), "img-ik/vmlinux (IKCONFIG)"));
	kconfig_free(k);
	free(blob);
	free(img.vmlinux);
	img.vmlinux = NULL;
	/* in a bzImage whose payload is a gzip'd vmlinux */
	blob = ikconfig_blob("CONFIG_IKCONFIG=y\nCONFIG_ZSWAP=m\n", &len);
	payload = gz(blob, len, &plen);
	img.bzimage = fake_bzimage("img-ik/bzImage", "6.1.0 #1", payload, plen);
	assert_int_equal(image_kernel_config(&img, &k, why, sizeof(why)), 0);
	assert_string_equal(kconfig_value(k, "CONFIG_ZSWAP"), "m");
	assert_non_null(strstr(kconfig_source(k), "img-ik/bzImage (IKCONFIG)"));
	kconfig_free(k);
	free(payload);
	free(blob);
	/* a broken stream after the marker is an error, not "none" */
	img.vmlinux = put("img-ik/vmlinux", "IKCFG_ST not gzip IKCFG_ED");
	assert_int_equal(image_kernel_config(&img, &k, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "IKCONFIG is no gzip stream"));
	image_free(&img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_forms),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cached_config_and_modules),
		cmocka_unit_test(test_cached_config_bad),
		cmocka_unit_test(test_find_beside),
		cmocka_unit_test(test_image_beside_kernel_file),
		cmocka_unit_test(test_image_none),
		cmocka_unit_test(test_ikconfig),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
