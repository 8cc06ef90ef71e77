/* ktb-probe machine's own sections against fake sysfs trees: the balloon
 * (device, bound driver, negotiated free page reporting) and the sleep
 * states offered as booleans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "facts_machine.h"
#include "facts_display.h"

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
	check_section(facts_balloon, "/nonexistent",
		      "{\"device\":false,\"driver\":false,\"free_page_reporting\":false}");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_display),
		cmocka_unit_test(test_balloon),
		cmocka_unit_test(test_sleep_offered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
