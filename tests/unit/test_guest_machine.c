/* ktb-probe machine's own sections against fake sysfs trees: the balloon
 * (device, bound driver, negotiated free page reporting) and the sleep
 * states offered as booleans; what is absent (sysfs mounted, the kernel
 * has no such thing) against what could not be read (noted, "unread"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts_machine.h"
#include "facts_display.h"
#include "unread.h"

static void check_section(int (*fn)(const char *, struct json_out *), const char *root,
			  const char *want)
{
	struct json_out j;
	size_t len;
	char *out;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	json_init(&j, f);
	json_obj_begin(&j);
	assert_int_equal(fn(root, &j), 0);
	json_obj_end(&j);
	fclose(f);
	assert_string_equal(out, want);
	free(out);
}

static void test_balloon(void **state)
{
	(void)state;
	/* virtio1 is type 5, bound to virtio_balloon, feature bit 5 set */
	check_section(facts_balloon, KTB_TEST_DATA "/guest-machine",
		      "{\"device\":true,\"driver\":true,\"free_page_reporting\":true}");
	/* the device without its driver (module_blacklist=virtio_balloon) */
	check_section(facts_balloon, KTB_TEST_DATA "/guest-machine-off",
		      "{\"device\":true,\"driver\":false,\"free_page_reporting\":false}");
}

/* Only PCI class 03 (display) counts; sorted; none is an empty list. */
static void test_display(void **state)
{
	(void)state;
	check_section(facts_display, KTB_TEST_DATA "/guest-machine",
		      "{\"pci\":[\"1234:1111 030000\",\"1234:1111 038000\"]}");
	check_section(facts_display, KTB_TEST_DATA "/guest-machine-off", "{\"pci\":[]}");
}

static void test_sleep_offered(void **state)
{
	(void)state;
	check_section(
	    facts_sleep_offered, KTB_TEST_DATA "/guest-machine",
	    "{\"states\":[\"freeze\",\"mem\",\"disk\"],\"mem_sleep\":[\"s2idle\",\"deep\"],"
	    "\"mem_sleep_default\":\"deep\",\"disk\":[\"platform\",\"shutdown\",\"reboot\","
	    "\"suspend\",\"test_resume\"],\"disk_default\":\"platform\",\"s3\":true,"
	    "\"s4\":true}");
	check_section(facts_sleep_offered, KTB_TEST_DATA "/guest-machine-off",
		      "{\"states\":[],\"mem_sleep\":[\"s2idle\"],\"mem_sleep_default\":\"s2idle\","
		      "\"disk\":[\"shutdown\",\"reboot\",\"suspend\",\"test_resume\"],"
		      "\"disk_default\":\"shutdown\",\"s3\":false,\"s4\":false}");
}

/* Runs fn on root (its return ignored) and checks the note it left for
 * part: NULL for none. */
static void check_note(int (*fn)(const char *, struct json_out *), const char *root,
		       const char *part, const char *want)
{
	struct json_out j;
	FILE *f = fopen("/dev/null", "w");

	assert_non_null(f);
	unread_clear();
	json_init(&j, f);
	json_obj_begin(&j);
	fn(root, &j);
	json_obj_end(&j);
	fclose(f);
	if (!want)
		assert_null(unread_get(part));
	else
		assert_string_equal(unread_get(part), want);
	unread_clear();
}

/* sysfs mounted, and no PCI bus, no virtio bus, no /sys/power: the kernel
 * has none of them, which is an answer: no display, no balloon, no S3 */
static void test_absent(void **state)
{
	(void)state;
	check_section(facts_display, KTB_TEST_DATA "/guest-machine-none", "{\"pci\":[]}");
	check_section(facts_balloon, KTB_TEST_DATA "/guest-machine-none",
		      "{\"device\":false,\"driver\":false,\"free_page_reporting\":false}");
	check_note(facts_display, KTB_TEST_DATA "/guest-machine-none", "display", NULL);
	check_note(facts_balloon, KTB_TEST_DATA "/guest-machine-none", "balloon", NULL);
	check_note(facts_sleep_offered, KTB_TEST_DATA "/guest-machine-none", "sleep", NULL);
	/* the balloon's driver not bound is absent too */
	check_note(facts_balloon, KTB_TEST_DATA "/guest-machine-off", "balloon", NULL);
}

/* Folders that are no folders, files that are folders, or no sysfs at all:
 * not "none" but an error naming what could not be read. */
static void test_unread(void **state)
{
	(void)state;
	check_note(facts_display, KTB_TEST_DATA "/guest-machine-bad", "display",
		   "/sys/bus/pci/devices: Not a directory");
	check_note(facts_balloon, KTB_TEST_DATA "/guest-machine-bad", "balloon",
		   "/sys/bus/virtio/devices: Not a directory");
	check_note(facts_sleep_offered, KTB_TEST_DATA "/guest-machine-bad", "sleep",
		   "/sys/power/mem_sleep: Is a directory");
	check_note(facts_display, "/nonexistent", "display",
		   "/sys/bus/pci/devices: No such file or directory");
	check_note(facts_balloon, "/nonexistent", "balloon",
		   "/sys/bus/virtio/devices: No such file or directory");
	check_note(facts_sleep_offered, "/nonexistent", "sleep",
		   "/sys/power/mem_sleep: No such file or directory");
	check_note(facts_shares, "/nonexistent", "shares",
		   "/proc/mounts: No such file or directory");
}

/* The machine document lists the notes, and exits non-zero with them. */
static void test_machine_unread(void **state)
{
	struct json_out j;
	size_t len;
	char *out;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_non_null(f);
	unread_clear();
	json_init(&j, f);
	assert_int_not_equal(facts_machine(KTB_TEST_DATA "/guest-machine-bad", &j), 0);
	fclose(f);
	assert_non_null(strstr(out, "\"unread\":{"));
	assert_non_null(strstr(out, "\"display\":\"/sys/bus/pci/devices: Not a directory\""));
	assert_non_null(strstr(out, "\"sleep\":\"/sys/power/mem_sleep: Is a directory\""));
	assert_non_null(strstr(out, "\"display\":{\"pci\":null}"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_display),	      cmocka_unit_test(test_balloon),
		cmocka_unit_test(test_sleep_offered), cmocka_unit_test(test_absent),
		cmocka_unit_test(test_unread),	      cmocka_unit_test(test_machine_unread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
