/* kernel_check: a scenario's requirements against a kernel's config and the
 * image's module list, as the runner asks before it boots. An =m option
 * counts only when the image holds its module; an image without a module
 * list (built before the builder wrote one) cannot say a module is missing,
 * so =m counts there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_check.h"
#include "util.h"

static const char nvme_yaml[] = "name: nvme\n"
				"machine:\n"
				"  disks:\n"
				"    - {id: data, bus: nvme, size: 64M}\n"
				"steps:\n"
				"  - run: \"true\"\n";

static struct scenario *load(void)
{
	struct scenario_error err;
	struct scenario *s = NULL;

	assert_int_equal(scenario_load_buffer("nvme.yaml", nvme_yaml, strlen(nvme_yaml), &s, &err),
			 0);
	return s;
}

/* The Debian image's config, cut to what the scenario needs, with NVMe as
 * given; modules: NULL for no list, else the list's text. */
static struct kconfig *config(const char *nvme, const char *modules)
{
	char *text, *why = xcalloc(1, 256), tmpl[] = "/tmp/ktb-test-kcheck-XXXXXX";
	static const char *const base[] = {
		"SERIAL_8250",
		"SERIAL_8250_CONSOLE",
		"BLK_DEV_INITRD",
		"BINFMT_ELF",
		"FUTEX",
		"PROC_FS",
		"SYSFS",
		"DEVTMPFS",
		"TMPFS",
		"UNIX98_PTYS",
		"PCI",
		"ACPI",
		"VIRTIO_MENU",
		"UNIX",
		"VIRTIO_PCI",
		"VIRTIO_CONSOLE",
		"PVH",
		NULL,
	};
	struct kconfig *k = NULL;
	int fd;

	text = xstrdup("");
	for (size_t i = 0; base[i]; i++) {
		char *n = xasprintf("%sCONFIG_%s=y\n", text, base[i]);

		free(text);
		text = n;
	}
	if (nvme) {
		char *n = xasprintf("%sCONFIG_BLK_DEV_NVME=%s\n", text, nvme);

		free(text);
		text = n;
	}
	assert_int_equal(kconfig_parse(text, strlen(text), &k, why, 256), 0);
	if (modules) {
		fd = mkstemp(tmpl);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, modules, strlen(modules)), (ssize_t)strlen(modules));
		close(fd);
		kconfig_read_modules(k, tmpl);
		unlink(tmpl);
	}
	free(text);
	free(why);
	return k;
}

/* 0 when nothing is missing, else 1 with the option checked */
static int missing(const char *nvme, const char *modules)
{
	struct scenario *s = load();
	struct kconfig *k = config(nvme, modules);
	struct kernel_check c;
	int n;

	assert_int_equal(kernel_check(s, k, &c), 0);
	n = (int)c.count;
	if (n) {
		assert_int_equal(n, 1);
		assert_string_equal(c.missing[0], "CONFIG_BLK_DEV_NVME");
		assert_null(c.missing[1]);
		assert_non_null(strstr(c.message, "disk 'data' is on bus nvme"));
	} else {
		assert_null(c.missing);
		assert_null(c.message);
	}
	kernel_check_free(&c);
	kconfig_free(k);
	scenario_free(s);
	return n;
}

static void test_built_in(void **state)
{
	(void)state;
	assert_int_equal(missing("y", NULL), 0);
	assert_int_equal(missing("y", ""), 0);
}

static void test_not_set(void **state)
{
	(void)state;
	assert_int_equal(missing(NULL, NULL), 1);
	assert_int_equal(missing("n", "nvme\n"), 1);
}

static void test_module(void **state)
{
	(void)state;
	/* the list holds it: there; the list lacks it: missing */
	assert_int_equal(missing("m", "virtio_pci\nnvme\nnvme_core\n"), 0);
	assert_int_equal(missing("m", "virtio_pci\nvirtio_console\n"), 1);
	/* an empty list is a list: nothing is there */
	assert_int_equal(missing("m", ""), 1);
	/* no list at all: cannot tell, so the option counts */
	assert_int_equal(missing("m", NULL), 0);
}

/* kernel.requires: CONFIG_X=y must be built in, a module does not do and
 * the message says it is one; plain CONFIG_X takes either. With the nvme
 * disk, which a module would serve, =y still wins. */
static int requires_missing(const char *requires, bool disk, const char *nvme, char **msg)
{
	char *yaml = xasprintf(
	    "name: req\nkernel:\n  requires: [%s]\n%s"
	    "steps:\n  - run: \"true\"\n",
	    requires, disk ? "machine:\n  disks:\n    - {id: data, bus: nvme, size: 64M}\n" : "");
	struct scenario_error err;
	struct scenario *s = NULL;
	struct kconfig *k = config(nvme, "virtio_pci\nnvme\nnvme_core\n");
	struct kernel_check c;
	int n;

	if (scenario_load_buffer("req.yaml", yaml, strlen(yaml), &s, &err))
		fail_msg("%d:%d: %s", err.line, err.col, err.msg);
	assert_int_equal(kernel_check(s, k, &c), 0);
	n = (int)c.count;
	*msg = c.message ? xstrdup(c.message) : NULL;
	kernel_check_free(&c);
	kconfig_free(k);
	scenario_free(s);
	free(yaml);
	return n;
}

static void test_requires_built_in(void **state)
{
	char *msg;

	(void)state;
	assert_int_equal(requires_missing("CONFIG_BLK_DEV_NVME=y", false, "y", &msg), 0);
	assert_int_equal(requires_missing("CONFIG_BLK_DEV_NVME", false, "m", &msg), 0);
	assert_int_equal(requires_missing("CONFIG_BLK_DEV_NVME=y", false, "m", &msg), 1);
	assert_string_equal(msg, "CONFIG_BLK_DEV_NVME=m but it must be built in (=y): "
				 "kernel.requires");
	free(msg);
	assert_int_equal(requires_missing("CONFIG_BLK_DEV_NVME=y", true, "m", &msg), 1);
	assert_non_null(strstr(msg, "=m but it must be built in (=y)"));
	free(msg);
	assert_int_equal(requires_missing("CONFIG_BLK_DEV_NVME=y", false, NULL, &msg), 1);
	assert_string_equal(msg, "CONFIG_BLK_DEV_NVME is not set: kernel.requires");
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_built_in),
		cmocka_unit_test(test_not_set),
		cmocka_unit_test(test_module),
		cmocka_unit_test(test_requires_built_in),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
