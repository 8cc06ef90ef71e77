/* power_loss when the machine cannot come back: the step is an error that
 * says the restart failed and why. The sanitizer build also proves the
 * message step_wait_failed wrote first is freed when it is replaced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "steps.h"
#include "util.h"

static void test_power_loss_restart_fails(void **state)
{
	char tmpl[] = "/tmp/ktb-test-power-loss-XXXXXX";
	struct machine m = {.cpus = 1, .memory_bytes = 512ull << 20};
	struct scenario s = {.name = "power-loss", .machine = &m};
	struct scenario_result r = {.metrics = json_object()};
	struct step st = {.power_loss = "all"};
	struct step_result sr = {.exit_code = -1};
	struct run_ctx c = {.s = &s, .r = &r, .append = "quiet"};
	char *workdir = mkdtemp(tmpl), *path = getenv("PATH");

	(void)state;
	assert_non_null(workdir);
	path = path ? strdup(path) : NULL;
	/* no QEMU to find: the restart fails as it starts the machine */
	setenv("PATH", workdir, 1);
	c.workdir = workdir;
	c.vm.cfg = (struct vm_config){.machine = &m, .workdir = workdir, .sig_fd = -1};
	c.vm.proc = (struct proc){.pid = -1, .out_fd = -1};
	step_power_loss(&c, &st, &sr, now_ms() + 10000);
	if (path)
		setenv("PATH", path, 1);
	assert_int_equal(sr.status, ST_ERROR);
	assert_non_null(sr.message);
	assert_non_null(strstr(sr.message, "restart after the power loss failed: cannot start "
					   "qemu-system-x86_64"));
	assert_int_equal(c.boots, 0);
	vm_stop(&c.vm);
	free(c.restart_append);
	free(sr.message);
	json_decref(r.metrics);
	rm_rf(workdir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_power_loss_restart_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
