/* The guest's root from the host (guest.root host or debian, ktb boot
 * --root): what the loader accepts and refuses in a scenario's guest
 * section, the QEMU arguments (the host's root a read-only 9p export with
 * multidevs=remap, a Debian root a read-only virtio disk), the libvirt
 * <filesystem> and <disk>, init's kernel argument and the drivers that
 * come with it, and the kernel options each needs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kreq.h"
#include "libvirt_xml.h"
#include "machine.h"
#include "machine_check.h"
#include "scenario.h"
#include "util.h"
#include "vm_cmdline.h"
#include "xml_check.h"

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = tmp_template("ktb-test-root");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

static int load(const char *text, struct scenario **s, char *msg, size_t len)
{
	char *path = xasprintf("%s/s.yaml", dir);
	struct scenario_error err;
	int ret;

	assert_int_equal(write_file(path, text, strlen(text)), 0);
	*s = NULL;
	ret = scenario_load(path, s, &err);
	if (ret)
		scenario_error_format(&err, msg, len);
	free(path);
	return ret;
}

static void test_load(void **state)
{
	struct scenario *s;
	char msg[2048] = "";

	(void)state;
	assert_int_equal(load("guest: {root: debian, packages: [fio, nvme-cli, g++]}\n"
			      "steps:\n  - run: \"true\"\n",
			      &s, msg, sizeof(msg)),
			 0);
	assert_string_equal(s->guest->root, "debian");
	assert_int_equal(s->guest->packages_count, 3);
	assert_string_equal(s->guest->packages[2], "g++");
	scenario_free(s);
	assert_int_equal(load("steps:\n  - run: \"true\"\n", &s, msg, sizeof(msg)), 0);
	assert_null(s->guest);
	scenario_free(s);
}

static void refused(const char *guest, const char *want)
{
	struct scenario *s;
	char msg[2048] = "", *text = xasprintf("guest: %s\nsteps:\n  - run: \"true\"\n", guest);

	assert_int_not_equal(load(text, &s, msg, sizeof(msg)), 0);
	if (!strstr(msg, want))
		fail_msg("guest %s: no \"%s\" in: %s", guest, want, msg);
	free(text);
}

static void test_refusals(void **state)
{
	(void)state;
	refused("{root: hosts}", "s.yaml:1:15: guest.root: \"hosts\" is no root; give image, "
				 "host or debian");
	refused("{root: host, packages: [fio]}",
		"guest.packages: packages go into a Debian root; give root: debian");
	refused("{packages: [fio]}", "guest.packages: packages go into a Debian root");
	refused("{root: debian, packages: [Fio]}",
		"guest.packages[0]: \"Fio\" is no Debian package name");
	refused("{root: debian, packages: [-x]}",
		"guest.packages[0]: \"-x\" is no Debian package name");
	refused("{root: debian, packages: [fio, fio]}",
		"guest.packages[1]: fio is already guest.packages[0]");
	refused("{root: debian, release: trixie}", "release");
}

/* 9p does not come back from a sleep in 6.1: no suspend on the host's
 * root; a Debian root is a disk, which does. */
static void test_no_sleep(void **state)
{
	struct scenario *s;
	char msg[2048] = "";

	(void)state;
	assert_int_not_equal(load("guest: {root: host}\nmachine: {sleep: [s3]}\n"
				  "steps:\n  - suspend: s3\n",
				  &s, msg, sizeof(msg)),
			     0);
	if (!strstr(msg, "s.yaml:4:14: steps[0].suspend: the guest's root is shared over 9p "
			 "(guest.root host), which does not come back from a sleep"))
		fail_msg("%s", msg);
	assert_int_equal(load("guest: {root: image}\nmachine: {sleep: [s3]}\n"
			      "steps:\n  - suspend: s3\n",
			      &s, msg, sizeof(msg)),
			 0);
	scenario_free(s);
	assert_int_equal(load("guest: {root: debian}\nmachine: {sleep: [s3]}\n"
			      "steps:\n  - suspend: s3\n",
			      &s, msg, sizeof(msg)),
			 0);
	scenario_free(s);
	/* pm_test: freezer stops before the devices: nothing to refuse */
	assert_int_equal(load("guest: {root: host}\nmachine: {sleep: [s3]}\n"
			      "steps:\n  - {suspend: s3, pm_test: freezer}\n",
			      &s, msg, sizeof(msg)),
			 0);
	scenario_free(s);
}

/* A share does not sleep either: 9p hangs after the wake, virtio_fs
 * refuses to freeze; named by its index, for each transport; a step with
 * pm_test: freezer (before the devices) is not refused, the next one is. */
static void test_no_sleep_shares(void **state)
{
	static const struct {
		const char *share, *want;
	} rows[] = {
		{ "{host: ., transport: 9p}",
		  ") reaches the guest over 9p, which does not come back from a sleep in this "
		  "kernel (9pnet_virtio has no suspend or resume): the guest would hang after "
		  "the wake; suspend on a machine without shares (or with pm_test: freezer, "
		  "which stops before the devices)" },
		{ "{host: ., transport: virtiofs, readonly: false}",
		  ") reaches the guest over virtiofs, which this kernel cannot put to sleep "
		  "(virtio_fs refuses to freeze, -EOPNOTSUPP): the kernel would give the sleep "
		  "up" },
		/* auto, read-only: 9p */
		{ "{host: .}", ") reaches the guest over 9p, which does not come back" },
	};

	struct scenario *s;
	char msg[2048], text[512];

	(void)state;
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(text, sizeof(text),
			 "machine:\n  sleep: [s3]\n  shares: [%s]\n"
			 "steps:\n  - {suspend: s3, pm_test: freezer}\n  - suspend: s3\n",
			 rows[i].share);
		msg[0] = 0;
		assert_int_not_equal(load(text, &s, msg, sizeof(msg)), 0);
		/* the share's folder, made absolute, between the two */
		if (!strstr(msg, "s.yaml:6:14: steps[1].suspend: machine.shares[0] (/") ||
		    !strstr(msg, rows[i].want))
			fail_msg("row %u: %s", i, msg);
	}
}

static void test_argv(void **state)
{
	struct hw_launch l = { .disk_dir = "/w" };
	struct machine m = { .root = "/" };
	struct hw_error err;
	struct argv a;

	(void)state;
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_to_argv(&m, &l, &a, &err), 0);
	assert_true(argv_has(
	    &a, "local,id=fsroot,path=/,security_model=none,readonly=on,multidevs=remap", true));
	assert_true(argv_has(&a, "virtio-9p-pci,fsdev=fsroot,mount_tag=ktbroot", true));
	argv_free(&a);
	/* the image as the root: no export */
	m.root = NULL;
	assert_int_equal(machine_to_argv(&m, &l, &a, &err), 0);
	assert_false(argv_has(&a, "fsroot", false));
	assert_false(argv_has(&a, "ktbroot", false));
	argv_free(&a);
	/* a Debian root: its image, read-only, on a virtio disk with the
	 * serial init looks for, after the machine's own disks */
	m.root_disk = "/c/roots/k/root.ext4";
	assert_int_equal(machine_to_argv(&m, &l, &a, &err), 0);
	assert_true(argv_has(&a,
			     "driver=raw,node-name=ktbroot,read-only=on,file.driver=file,"
			     "file.filename=/c/roots/k/root.ext4",
			     true));
	assert_true(argv_has(&a, "virtio-blk-pci,drive=ktbroot,serial=ktbroot", true));
	assert_false(argv_has(&a, "fsroot", false));
	argv_free(&a);
}

static void test_libvirt(void **state)
{
	static const struct hw_launch l = { .kernel = "/k/vmlinux", .disk_dir = "/w" };
	static const struct hw_domain dom = { .name = "ktb-1-root" };
	struct machine m = { .root = "/var/cache/ktb/roots/k/root" };
	struct hw_error err;
	char *xml = NULL;

	(void)state;
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_to_domain_xml(&m, &l, &dom, &xml, &err), 0);
	assert_true(xml_wellformed(xml));
	assert_non_null(strstr(xml, "<filesystem type='mount' accessmode='squash' "
				    "multidevs='remap'>\n      <driver type='path'/>\n"
				    "      <source dir='/var/cache/ktb/roots/k/root'/>\n"
				    "      <target dir='ktbroot'/>\n      <readonly/>"));
	free(xml);
	/* a Debian root: a read-only <disk>, named after the machine's own */
	m.root = NULL;
	m.root_disk = "/c/roots/k/root.ext4";
	assert_int_equal(machine_to_domain_xml(&m, &l, &dom, &xml, &err), 0);
	assert_true(xml_wellformed(xml));
	assert_null(strstr(xml, "<filesystem"));
	assert_non_null(strstr(xml, "<disk type='file' device='disk'>\n"
				    "      <driver name='qemu' type='raw'/>\n"
				    "      <source file='/c/roots/k/root.ext4'/>\n"
				    "      <target dev='vda' bus='virtio'/>\n"
				    "      <serial>ktbroot</serial>\n      <readonly/>\n"));
	free(xml);
}

static void test_cmdline(void **state)
{
	struct machine m = { .root = "/" };
	char *line = vm_kernel_cmdline(&m, NULL, NULL);

	(void)state;
	assert_non_null(strstr(line, " ktb.root=ktbroot"));
	/* 9p and overlay come along; the rest of a bare machine stays out */
	assert_null(strstr(line, ",9p,"));
	assert_null(strstr(line, "overlay"));
	assert_non_null(strstr(line, "virtio_blk"));
	free(line);
	m.root = NULL;
	line = vm_kernel_cmdline(&m, NULL, NULL);
	assert_null(strstr(line, "ktb.root"));
	assert_non_null(strstr(line, ",overlay,"));
	assert_non_null(strstr(line, ",ext4"));
	free(line);
	/* a Debian root's disk: virtio_blk, ext4 and overlay, no 9p */
	m.root_disk = "/c/roots/k/root.ext4";
	line = vm_kernel_cmdline(&m, NULL, NULL);
	assert_non_null(strstr(line, " ktb.root=disk:ktbroot"));
	assert_null(strstr(line, "virtio_blk"));
	assert_null(strstr(line, "ext4"));
	assert_null(strstr(line, "overlay"));
	assert_non_null(strstr(line, "9pnet_virtio,9p,"));
	free(line);
}

static void test_kreq(void **state)
{
	static const char *const want[] = { "CONFIG_9P_FS", "CONFIG_NET_9P_VIRTIO",
					    "CONFIG_OVERLAY_FS" };
	struct scenario *s;
	struct kreq_list l;
	char msg[1024] = "";
	bool found;

	(void)state;
	assert_int_equal(
	    load("guest: {root: host}\nsteps:\n  - run: \"true\"\n", &s, msg, sizeof(msg)), 0);
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		found = false;
		for (size_t j = 0; j < l.n; j++)
			if (!strcmp(l.v[j].option, want[i])) {
				found = true;
				assert_string_equal(l.v[j].why, "guest.root is host (9p with an "
								"overlay)");
			}
		if (!found)
			fail_msg("%s not required", want[i]);
	}
	kreq_list_free(&l);
	scenario_free(s);
	/* a Debian root: an ext4 disk, no 9p */
	assert_int_equal(
	    load("guest: {root: debian}\nsteps:\n  - run: \"true\"\n", &s, msg, sizeof(msg)), 0);
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	found = false;
	for (size_t j = 0; j < l.n; j++) {
		assert_string_not_equal(l.v[j].option, "CONFIG_9P_FS");
		if (!strcmp(l.v[j].option, "CONFIG_EXT4_FS")) {
			found = true;
			assert_string_equal(l.v[j].why,
					    "guest.root is debian (an ext4 disk with an "
					    "overlay)");
		}
	}
	assert_true(found);
	kreq_list_free(&l);
	scenario_free(s);
	/* the image's root needs none of it */
	assert_int_equal(
	    load("guest: {root: image}\nsteps:\n  - run: \"true\"\n", &s, msg, sizeof(msg)), 0);
	assert_int_equal(kreq_for_scenario(s, &l), 0);
	for (size_t j = 0; j < l.n; j++)
		assert_string_not_equal(l.v[j].option, "CONFIG_OVERLAY_FS");
	kreq_list_free(&l);
	scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),	 cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_argv),	 cmocka_unit_test(test_libvirt),
		cmocka_unit_test(test_cmdline),	 cmocka_unit_test(test_kreq),
		cmocka_unit_test(test_no_sleep), cmocka_unit_test(test_no_sleep_shares),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
