/* How power_loss and hybrid_stats judge (step_storage.h): which disks lose
 * their cache, the lost blocks added up over the back ends' answers (a back
 * end that does not answer is the step's error), and the stats as the
 * step's output against expect. No guest, no QEMU, no back end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "step.h"
#include "step_result_clear.h"
#include "step_storage.h"
#include "util.h"

static void test_hits(void **state)
{
	struct disk h1 = { .id = "h1", .bus = DISK_BUS_HYBRID };
	struct disk h2 = { .id = "h2", .bus = DISK_BUS_HYBRID };
	struct disk v = { .id = "v", .bus = DISK_BUS_VIRTIO };

	(void)state;
	assert_true(power_loss_hits("all", &h1));
	assert_true(power_loss_hits("all", &h2));
	assert_true(power_loss_hits("h1", &h1));
	assert_false(power_loss_hits("h1", &h2));
	/* only a hybrid disk has a volatile cache to lose */
	assert_false(power_loss_hits("all", &v));
	assert_false(power_loss_hits("v", &v));
}

static void test_lost_blocks(void **state)
{
	json_t *out = json_pack("{s:I,s:{}}", "lost_blocks", (json_int_t)0, "disks");
	json_t *r1 = json_pack("{s:i}", "lost_blocks", 12),
	       *r2 = json_pack("{s:i}", "lost_blocks", 0);
	json_t *bad = json_pack("{s:s}", "error", "busy");
	char *why;

	(void)state;
	assert_null(power_loss_add(out, "h1", r1));
	assert_null(power_loss_add(out, "h2", r2));
	assert_int_equal(json_integer_value(json_object_get(out, "lost_blocks")), 12);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(out, "disks"), "h1")),
			 12);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(out, "disks"), "h2")),
			 0);
	assert_null(power_loss_add(out, "h3", r1));
	assert_int_equal(json_integer_value(json_object_get(out, "lost_blocks")), 24);
	/* no count, or no answer at all: the step cannot say what was lost */
	why = power_loss_add(out, "h4", bad);
	assert_string_equal(why, "the back end of hybrid disk h4 did not answer the power_loss "
				 "request");
	free(why);
	json_decref(bad);
	bad = json_pack("{s:s}", "lost_blocks", "12");
	why = power_loss_add(out, "h4", bad);
	assert_non_null(why);
	free(why);
	why = power_loss_add(out, "h5", NULL);
	assert_non_null(why);
	free(why);
	assert_int_equal(json_integer_value(json_object_get(out, "lost_blocks")), 24);
	assert_null(json_object_get(json_object_get(out, "disks"), "h4"));
	json_decref(out);
	json_decref(r1);
	json_decref(r2);
	json_decref(bad);
}

static void test_hybrid_stats(void **state)
{
	struct expect flushed = { .json = json_pack("{s:{s:i}}", "flushes", "ge", 1) };
	struct step_result sr = { 0 };

	(void)state;
	hybrid_stats_judge(&sr, "h1", NULL, &flushed);
	assert_int_equal(sr.status, ST_ERROR);
	assert_string_equal(sr.message, "the back end of hybrid disk h1 did not answer");
	step_result_clear(&sr);
	hybrid_stats_judge(&sr, "h1", json_pack("{s:i}", "flushes", 3), &flushed);
	assert_int_equal(sr.status, ST_PASS);
	assert_int_equal(sr.exit_code, 0);
	assert_string_equal(sr.out, "{\"flushes\":3}");
	step_result_clear(&sr);
	hybrid_stats_judge(&sr, "h1", json_pack("{s:i}", "flushes", 0), &flushed);
	assert_int_equal(sr.status, ST_FAIL);
	assert_non_null(strstr(sr.message, "flushes"));
	step_result_clear(&sr);
	/* no expect: the stats are the output, the step passes */
	hybrid_stats_judge(&sr, "h1", json_pack("{s:i}", "flushes", 0), NULL);
	assert_int_equal(sr.status, ST_PASS);
	step_result_clear(&sr);
	json_decref(flushed.json);
}

/* power_loss when the machine cannot come back: the step is an error that
 * says the restart failed and why. The sanitizer build also proves the
 * message step_wait_failed wrote first is freed when it is replaced. */
static void test_power_loss_restart_fails(void **state)
{
	char tmpl[] = "/tmp/ktb-test-power-loss-XXXXXX";
	struct machine m = { .cpus = 1, .memory_bytes = 512ull << 20 };
	struct scenario s = { .name = "power-loss", .machine = &m };
	struct scenario_result r = { .metrics = json_object() };
	struct step st = { .power_loss = "all" };
	struct step_result sr = { .exit_code = -1 };
	struct run_ctx c = { .s = &s, .r = &r, .append = "quiet" };
	char *workdir = mkdtemp(tmpl), *path = getenv("PATH");

	(void)state;
	assert_non_null(workdir);
	path = path ? strdup(path) : NULL;
	/* no QEMU to find: the restart fails as it starts the machine */
	setenv("PATH", workdir, 1);
	c.workdir = workdir;
	c.vm.cfg = (struct vm_config){ .machine = &m, .workdir = workdir, .sig_fd = -1 };
	c.vm.ops = &vm_backend_qemu; /* not started: nothing to cut */
	step_power_loss_ops.run(&c, &st, &sr, now_ms() + 10000);
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
		cmocka_unit_test(test_hits),
		cmocka_unit_test(test_lost_blocks),
		cmocka_unit_test(test_hybrid_stats),
		cmocka_unit_test(test_power_loss_restart_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
