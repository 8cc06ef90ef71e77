/* The virtiofsd preflight (harness/vm/virtiofs.c): the verdict's cache and
 * its key (another chroot, mount namespace, virtiofsd build or kernel means
 * another verdict), the judge that turns a probe into a verdict and
 * virtiofsd's last words into the reason, and the probe itself against
 * stand-ins that die as virtiofsd does in a chroot. The real virtiofsd in a
 * real chroot is tests/vm/t_share_chroot.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "virtiofs.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("virtiofs")

#define CHROOT_ERROR "mount(/, MS_REC|MS_SLAVE): Invalid argument"

static const struct virtiofs_host_key key = {
	.host_release = "6.1.0-57-amd64",
	.bin = "/usr/lib/qemu/virtiofsd",
	.bin_size = 812104,
	.bin_mtime = 1700000000123456789LL,
	.mnt_ns = "mnt:[4026531832]",
	.root_dev = 65024,
	.root_ino = 2,
	.euid = 0,
};

static void test_judge(void **state)
{
	char why[200];

	(void)state;
	assert_true(virtiofs_probe_judge(true, "anything\n", "x", why, sizeof(why)));
	/* its last line is its own error; the lines before are chatter */
	assert_false(
	    virtiofs_probe_judge(false,
				 "virtio_session_mount: Waiting for vhost-user socket "
				 "connection...\nvirtio_session_mount: Received vhost-user "
				 "socket connection\n" CHROOT_ERROR "\n\n",
				 "it closed the connection", why, sizeof(why)));
	assert_string_equal(why, CHROOT_ERROR);
	/* nothing logged: what the probe saw */
	assert_false(
	    virtiofs_probe_judge(false, "", "it did not listen within 5 s", why, sizeof(why)));
	assert_string_equal(why, "it did not listen within 5 s");
	assert_false(virtiofs_probe_judge(false, NULL, "no log", why, sizeof(why)));
	assert_string_equal(why, "no log");
	/* odd bytes neutralised, a short buffer truncated */
	assert_false(virtiofs_probe_judge(false, "\033[1mbad\xff\n", "", why, sizeof(why)));
	assert_string_equal(why, "?[1mbad?");
	char tiny[6];

	assert_false(virtiofs_probe_judge(false, CHROOT_ERROR, "", tiny, sizeof(tiny)));
	assert_string_equal(tiny, "mount");
}

static void test_cache(void **state)
{
	char *dir = xasprintf("%s/cache/ktb", tmpdir);
	struct virtiofs_host_key other;
	bool serves = true;
	char why[200];

	(void)state;
	assert_int_equal(virtiofs_cache_load(dir, &key, &serves, why, sizeof(why)), -ENOENT);
	assert_int_equal(virtiofs_cache_store(dir, &key, false, CHROOT_ERROR, 51), 0);
	assert_int_equal(virtiofs_cache_load(dir, &key, &serves, why, sizeof(why)), 0);
	assert_false(serves);
	assert_string_equal(why, CHROOT_ERROR);
	/* every part of the key matters: a host change is noticed */
	other = key;
	other.host_release[0] = '5';
	assert_int_equal(virtiofs_cache_load(dir, &other, &serves, why, sizeof(why)), -ENOENT);
	other = key;
	other.bin_mtime++;
	assert_int_equal(virtiofs_cache_load(dir, &other, &serves, why, sizeof(why)), -ENOENT);
	other = key;
	other.bin_size++;
	assert_int_equal(virtiofs_cache_load(dir, &other, &serves, why, sizeof(why)), -ENOENT);
	other = key;
	strcpy(other.bin, "/usr/libexec/virtiofsd");
	assert_int_equal(virtiofs_cache_load(dir, &other, &serves, why, sizeof(why)), -ENOENT);
	other = key;
	strcpy(other.mnt_ns, "mnt:[4026532174]"); /* unshare -m, another container */
	assert_int_equal(virtiofs_cache_load(dir, &other, &serves, why, sizeof(why)), -ENOENT);
	other = key;
	other.root_ino = 10953614; /* a chroot */
	assert_int_equal(virtiofs_cache_load(dir, &other, &serves, why, sizeof(why)), -ENOENT);
	other = key;
	other.root_dev++;
	assert_int_equal(virtiofs_cache_load(dir, &other, &serves, why, sizeof(why)), -ENOENT);
	other = key;
	other.euid = 1000;
	assert_int_equal(virtiofs_cache_load(dir, &other, &serves, why, sizeof(why)), -ENOENT);
	/* a newer verdict replaces the old one */
	assert_int_equal(virtiofs_cache_store(dir, &key, true, "answered", 78), 0);
	assert_int_equal(virtiofs_cache_load(dir, &key, &serves, why, sizeof(why)), 0);
	assert_true(serves);
	free(dir);
}

static void test_cache_garbage(void **state)
{
	char *dir = xasprintf("%s/garbage", tmpdir), *path = xasprintf("%s/virtiofsd.json", dir);
	bool serves;
	char why[200];

	(void)state;
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(write_file(path, "{not json", 9), 0);
	assert_int_equal(virtiofs_cache_load(dir, &key, &serves, why, sizeof(why)), -ENOENT);
	assert_int_equal(write_file(path, "[]", 2), 0);
	assert_int_equal(virtiofs_cache_load(dir, &key, &serves, why, sizeof(why)), -ENOENT);
	free(path);
	free(dir);
}

/* The key of this host: its root, its mount namespace, the binary's stamp. */
static void test_key_fill(void **state)
{
	struct virtiofs_host_key k;
	struct stat st;
	char why[200] = "";

	(void)state;
	assert_int_equal(virtiofs_host_key_fill(&k, "/bin/sh", why, sizeof(why)), 0);
	assert_string_equal(k.bin, "/bin/sh");
	assert_int_equal(stat("/", &st), 0);
	assert_int_equal(k.root_ino, (long long)st.st_ino);
	assert_non_null(strstr(k.mnt_ns, "mnt:["));
	assert_int_equal(k.euid, (long long)geteuid());
	assert_int_equal(virtiofs_host_key_fill(&k, "/nonexistent/virtiofsd", why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, "/nonexistent/virtiofsd"));
}

/* A stand-in virtiofsd: a shell script that says what it says and exits. */
static char *fake_virtiofsd(const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	char *text = xasprintf("#!/bin/sh\n%s\n", body);

	assert_int_equal(write_file(path, text, strlen(text)), 0);
	assert_int_equal(chmod(path, 0755), 0);
	free(text);
	return path;
}

/* One that dies before it listens: its error is the reason, the verdict
 * cached; the second ask comes from the cache, a changed binary asks again. */
static void test_probe_dies(void **state)
{
	char *bin = fake_virtiofsd("dies", "echo '" CHROOT_ERROR "' >&2; exit 1");
	char *dir = xasprintf("%s/probe-cache", tmpdir);
	bool serves = true, cached = true;
	char why[200];

	(void)state;
	assert_int_equal(virtiofs_check_in(dir, bin, false, &serves, &cached, why, sizeof(why)), 0);
	assert_false(serves);
	assert_false(cached);
	assert_string_equal(why, CHROOT_ERROR);
	assert_int_equal(virtiofs_check_in(dir, bin, false, &serves, &cached, why, sizeof(why)), 0);
	assert_false(serves);
	assert_true(cached);
	assert_string_equal(why, CHROOT_ERROR);
	/* force probes again */
	assert_int_equal(virtiofs_check_in(dir, bin, true, &serves, &cached, why, sizeof(why)), 0);
	assert_false(cached);
	/* another build of the binary: the cache no longer answers */
	free(fake_virtiofsd("dies", "echo 'other words' >&2; exit 1"));
	assert_int_equal(virtiofs_check_in(dir, bin, false, &serves, &cached, why, sizeof(why)), 0);
	assert_false(cached);
	assert_string_equal(why, "other words");
	free(dir);
	free(bin);
}

/* One that says nothing and never listens: the probe gives up in time. */
static void test_probe_silent(void **state)
{
	char *bin = fake_virtiofsd("silent", "exit 0");
	bool serves = true;
	char why[200];

	(void)state;
	assert_int_equal(virtiofs_probe(bin, &serves, why, sizeof(why)), 0);
	assert_false(serves);
	assert_string_equal(why, "it exited before it listened");
	free(bin);
}

/* The host's own virtiofsd, where there is one and we are root: it serves. */
static void test_probe_real(void **state)
{
	const char *bin = "/usr/lib/qemu/virtiofsd";
	bool serves = false;
	char why[200];

	(void)state;
	if (geteuid() != 0 || access(bin, X_OK))
		skip();
	assert_int_equal(virtiofs_probe(bin, &serves, why, sizeof(why)), 0);
	/* in a chroot this host cannot serve: then the reason is virtiofsd's */
	if (!serves)
		print_message("virtiofsd does not serve here: %s\n", why);
	else
		assert_string_equal(why, "virtiofsd answered over vhost-user");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge),	      cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cache_garbage), cmocka_unit_test(test_key_fill),
		cmocka_unit_test(test_probe_dies),    cmocka_unit_test(test_probe_silent),
		cmocka_unit_test(test_probe_real),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
