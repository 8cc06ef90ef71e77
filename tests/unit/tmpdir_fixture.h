/* A temporary folder for a whole cmocka group: TMPDIR_FIXTURE("name")
 * defines tmpdir ("/tmp/ktb-test-name.XXXXXX"), made by setup() and removed
 * with all in it by teardown(), to pass to cmocka_run_group_tests. The test
 * file includes cmocka.h, stdlib.h and util.h (rm_rf) first. */
#ifndef KTB_TEST_TMPDIR_FIXTURE_H
#define KTB_TEST_TMPDIR_FIXTURE_H

#define TMPDIR_FIXTURE(name)                                                                       \
	static char tmpdir[] = "/tmp/ktb-test-" name ".XXXXXX";                                    \
                                                                                                   \
	static int setup(void **state)                                                             \
	{                                                                                          \
		(void)state;                                                                       \
		return mkdtemp(tmpdir) ? 0 : -1;                                                   \
	}                                                                                          \
                                                                                                   \
	static int teardown(void **state)                                                          \
	{                                                                                          \
		(void)state;                                                                       \
		return rm_rf(tmpdir);                                                              \
	}

#endif
