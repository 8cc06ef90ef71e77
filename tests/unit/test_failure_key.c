/* failure_key: how a run ended, the same string whenever it fails the same
 * way: the step and its clause (an expect key, a machine fact, a kernel
 * report's signature), never a measured value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "failure_key.h"
#include "util.h"

static void check(const struct scenario_result *r, const char *want)
{
	char *k = failure_key(r);

	assert_string_equal(k, want);
	free(k);
}

static void test_keys(void **state)
{
	struct step_result st[2] = {
		{ .name = "machine", .status = ST_PASS },
		{ .name = "run: ktb-io write --disk data",
		  .status = ST_FAIL,
		  .message = "exit: expected 0, got 1; stdout did not match /ok/: \"x\"" },
	};
	struct finding f = { .kind = "warning",
			     .title = "WARNING in nvme_probe",
			     .signature = "abc",
			     .step = 1,
			     .verdict = FINDING_FAILS };
	struct scenario_result r = { .status = ST_PASS, .steps = st, .steps_count = 2 };

	(void)state;
	check(&r, "pass");
	r.status = ST_FAIL;
	check(&r, "fail: step 1 (run: ktb-io write --disk data): exit: expected 0, got 1");
	/* a json clause: its path, not the values */
	st[1].message = "json .lbs: expected 512, got 4096";
	check(&r, "fail: step 1 (run: ktb-io write --disk data): json .lbs");
	/* a machine fact: its name, not what was seen */
	st[0].status = ST_FAIL;
	st[0].message = "disks[0].sector: declared 4kn, the guest sees 512n (the nvme driver?)";
	check(&r, "fail: step machine: disks[0].sector");
	/* a kernel report: its signature and title */
	st[0].status = ST_PASS;
	st[1].message = "kernel report: WARNING in nvme_probe (console line 412)";
	r.findings = &f;
	r.findings_count = 1;
	check(&r, "fail: step 1 (run: ktb-io write --disk data): kernel report abc (WARNING in "
		  "nvme_probe)");
	/* a timeout: the step, whatever it says */
	st[1].status = ST_TIMEOUT;
	st[1].message = "timed out after 30000 ms";
	check(&r, "timeout: step 1 (run: ktb-io write --disk data)");
	/* no step failed: the message, numbers as N */
	st[1].status = ST_PASS;
	r.status = ST_ERROR;
	r.message = "the guest did not answer within 120 s";
	check(&r, "error: the guest did not answer within N s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
