/* The spawn module, on real children: streams captured and fed (more than a
 * pipe holds, both ways at once), exit statuses, a deadline that takes the
 * whole process group (grandchildren too), the policy every child gets (its
 * own group, PR_SET_PDEATHSIG(SIGKILL), the observer told), a program that
 * does not exist, and start_async. Children that must report on their own
 * policy are this very program, run again with --report (see main). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

/* a test that would deadlock fails instead of hanging the suite */
#define TEST_ALARM_S 30

static char *const sh_out_err[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };

static void test_capture(void **state)
{
	struct child_process cp = { .argv = sh_out_err };
	struct spawn_buf out = { 0 }, err = { 0 };

	(void)state;
	assert_int_equal(pipe_command(&cp, NULL, 0, &out, &err, 10000), 3);
	assert_string_equal(out.buf, "out\n");
	assert_int_equal(out.len, 4);
	assert_string_equal(err.buf, "err\n");
	assert_true(cp.exited);
	assert_int_equal(cp.out_fd, -1);
	free(out.buf);
	free(err.buf);
}

/* cat writes back while it reads: 1 MiB cannot be written first and read
 * after (a pipe holds 64 KiB), so this deadlocks unless both go at once. */
static void test_feed_big(void **state)
{
	char *const argv[] = { "cat", NULL };
	struct child_process cp = { .argv = argv };
	size_t n = 1 << 20;
	char *in = malloc(n);
	struct spawn_buf out = { 0 };

	(void)state;
	for (size_t i = 0; i < n; i++)
		in[i] = (char)('a' + i % 23);
	alarm(TEST_ALARM_S);
	assert_int_equal(pipe_command(&cp, in, n, &out, NULL, 20000), 0);
	alarm(0);
	assert_int_equal(out.len, n);
	assert_memory_equal(out.buf, in, n);
	free(out.buf);
	free(in);
}

static void test_exit_status(void **state)
{
	char *const killed[] = { "sh", "-c", "kill -9 $$", NULL };
	char *const ok[] = { "true", NULL };
	struct child_process cp = { .argv = killed };
	char why[64];

	(void)state;
	assert_int_equal(run_command(&cp, -1), 128 + SIGKILL);
	spawn_describe(cp.status, why, sizeof(why));
	assert_string_equal(why, "killed by signal 9");
	cp = (struct child_process){ .argv = ok };
	assert_int_equal(run_command(&cp, 5000), 0);
	cp = (struct child_process){ .argv = sh_out_err,
				     .out.how = SPAWN_NULL,
				     .err.how = SPAWN_NULL };
	assert_int_equal(run_command(&cp, 5000), 3);
	spawn_describe(cp.status, why, sizeof(why));
	assert_string_equal(why, "exited with status 3");
}

/* Is pid gone (or a zombie, which holds nothing)? Waits up to 3 s. */
static bool gone(pid_t pid)
{
	int64_t until = now_ms() + 3000;

	while (now_ms() < until) {
		char path[64], line[512], *p;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			return true;
		p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		fclose(f);
		if (p && (p[2] == 'Z' || p[2] == 'X'))
			return true;
		usleep(20000);
	}
	return false;
}

/* The child prints a grandchild's pid and waits for it: past the deadline
 * both go, the grandchild with the group. HOLD: the grandchild keeps the
 * stdout pipe open (pipe_command's pump sees the deadline) or not (the wait
 * after it does). */
static void deadline_kills_group(bool hold)
{
	char *const argv[] = { "sh", "-c",
			       hold ? "sleep 100 & echo $!; wait"
				    : "sleep 100 >/dev/null 2>&1 & echo $!; wait",
			       NULL };
	struct child_process cp = { .argv = argv, .own_group = true };
	struct spawn_buf out = { 0 };
	int64_t t0 = now_ms();
	pid_t grandchild;

	assert_int_equal(pipe_command(&cp, NULL, 0, &out, NULL, 500), -ETIMEDOUT);
	assert_true(now_ms() - t0 < 5000);
	assert_true(cp.exited);
	assert_true(WIFSIGNALED(cp.status));
	grandchild = (pid_t)atoi(out.buf);
	assert_true(grandchild > 1);
	assert_true(gone(grandchild));
	free(out.buf);
}

static void test_deadline_pump(void **state)
{
	(void)state;
	deadline_kills_group(true);
}

static void test_deadline_wait(void **state)
{
	(void)state;
	deadline_kills_group(false);
}

/* This program run again: what its own policy is, as "PGRP PDEATHSIG
 * THP-DISABLED SIGINT-IGNORED". */
static void report(struct child_process *cp, struct spawn_buf *out)
{
	char *const argv[] = { "/proc/self/exe", "--report", NULL };

	cp->argv = argv;
	assert_int_equal(pipe_command(cp, NULL, 0, out, NULL, 10000), 0);
}

static void test_policy(void **state)
{
	struct child_process cp = { .own_group = true };
	struct spawn_buf out = { 0 };
	int pgrp, sig;

	(void)state;
	report(&cp, &out);
	assert_int_equal(sscanf(out.buf, "%d %d", &pgrp, &sig), 2);
	assert_int_equal(pgrp, cp.pid); /* its own group */
	assert_int_equal(sig, SIGKILL); /* survives exec */
	free(out.buf);

	/* the image build stays in ktb's group, dying with it all the same */
	cp = (struct child_process){ .own_group = false };
	out = (struct spawn_buf){ 0 };
	report(&cp, &out);
	assert_int_equal(sscanf(out.buf, "%d %d", &pgrp, &sig), 2);
	assert_int_equal(pgrp, getpgrp());
	assert_int_equal(sig, SIGKILL);
	free(out.buf);

	/* the guardian's exception */
	cp = (struct child_process){ .no_death_signal = true };
	out = (struct spawn_buf){ 0 };
	report(&cp, &out);
	assert_int_equal(sscanf(out.buf, "%d %d", &pgrp, &sig), 2);
	assert_int_equal(sig, 0);
	free(out.buf);
}

/* QEMU's flags: no THP (survives exec); ktb boot's terminal QEMU ignores
 * the Ctrl-C that is the guest's, any other child takes SIGINT as usual. */
static void test_thp_interactive(void **state)
{
	struct child_process cp = { .no_thp = true, .interactive = true };
	struct spawn_buf out = { 0 };
	int pgrp, sig, thp, ign;

	(void)state;
	report(&cp, &out);
	assert_int_equal(sscanf(out.buf, "%d %d %d %d", &pgrp, &sig, &thp, &ign), 4);
	assert_int_equal(thp, 1);
	assert_int_equal(ign, 1);
	free(out.buf);
	cp = (struct child_process){ 0 };
	out = (struct spawn_buf){ 0 };
	signal(SIGINT, SIG_IGN); /* as inherited: exec keeps an ignored signal ignored */
	report(&cp, &out);
	signal(SIGINT, SIG_DFL);
	assert_int_equal(sscanf(out.buf, "%d %d %d %d", &pgrp, &sig, &thp, &ign), 4);
	assert_int_equal(thp, 0);
	assert_int_equal(ign, 0);
	free(out.buf);
}

/* The image build's log: stdout to a descriptor the caller keeps, stderr
 * where stdout goes; stdin from a file. */
static void test_fd_stdout_file_in(void **state)
{
	char *const argv[] = { "sh", "-c", "echo out; echo err >&2; cat", NULL };
	char path[] = "/tmp/ktb-spawn-log-XXXXXX", *text;
	int fd = mkstemp(path);
	struct child_process cp = { .argv = argv,
				    .in = { .how = SPAWN_FILE, .path = "/proc/self/comm" },
				    .out = { .how = SPAWN_FD, .fd = fd },
				    .err.how = SPAWN_STDOUT };
	size_t n;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(run_command(&cp, 5000), 0);
	assert_true(fcntl(fd, F_GETFD) >= 0); /* still the caller's */
	close(fd);
	text = read_file(path, &n);
	assert_non_null(text);
	assert_string_equal(text, "out\nerr\ntest_spawn\n");
	free(text);
	unlink(path);
}

static pid_t told_started, told_reaped;

static void on_started(pid_t pgid)
{
	told_started = pgid;
}

static void on_reaped(pid_t pgid)
{
	told_reaped = pgid;
}

static void test_observer(void **state)
{
	char *const argv[] = { "true", NULL };
	struct child_process cp = { .argv = argv, .own_group = true };

	(void)state;
	spawn_set_group_observer(on_started, on_reaped);
	assert_int_equal(start_command(&cp), 0);
	assert_int_equal(told_started, cp.pid);
	assert_int_equal(told_reaped, 0);
	assert_int_equal(finish_command(&cp, 5000), 0);
	assert_int_equal(told_reaped, cp.pid);
	/* a child in ktb's own group is no group to tell */
	told_started = told_reaped = 0;
	cp = (struct child_process){ .argv = argv };
	assert_int_equal(run_command(&cp, 5000), 0);
	assert_int_equal(told_started, 0);
	assert_int_equal(told_reaped, 0);
	spawn_set_group_observer(NULL, NULL);
}

static void test_missing(void **state)
{
	char *const argv[] = { "ktb-no-such-program", NULL };
	char *const ok[] = { "true", NULL };
	struct child_process cp = { .argv = argv, .own_group = true };
	char why[128];

	(void)state;
	assert_int_equal(start_command(&cp), -ENOENT);
	assert_true(cp.exited); /* and reaped */
	assert_int_equal(run_command(&cp, 1000), -ENOENT);
	cp = (struct child_process){ .argv = ok, .dir = "/nonexistent/dir" };
	assert_int_equal(run_command(&cp, 1000), -ENOENT);
	assert_int_equal(spawn_tool(argv, why, sizeof(why), NULL), -ENOENT);
	assert_string_equal(why, "cannot run ktb-no-such-program: No such file or directory");
}

static void test_tool_env_dir_file(void **state)
{
	char *const fails[] = { "sh", "-c", "echo first >&2; echo second >&2; exit 1", NULL };
	char *const pwd_env[] = { "sh", "-c", "echo $PWD $KTB_SPAWN_T${HOME:-unset}", NULL };
	const char *const env[] = { "KTB_SPAWN_T=set", "HOME", NULL };
	char tmpl[] = "/tmp/ktb-spawn-XXXXXX", why[64], *path, *text;
	struct child_process cp;
	size_t n;

	(void)state;
	assert_int_equal(spawn_tool(fails, why, sizeof(why), NULL), -EIO);
	assert_string_equal(why, "first");
	assert_non_null(mkdtemp(tmpl));
	path = xasprintf("%s/out.log", tmpl);
	for (int i = 0; i < 2; i++) {
		cp = (struct child_process){ .argv = pwd_env,
					     .env = env,
					     .dir = tmpl,
					     .out = { .how = SPAWN_FILE, .path = path } };
		assert_int_equal(run_command(&cp, 5000), 0);
	}
	text = read_file(path, &n);
	assert_non_null(text);
	/* appended, not truncated */
	char *want = xasprintf("%s setunset\n%s setunset\n", tmpl, tmpl);
	assert_string_equal(text, want);
	free(want);
	free(text);
	unlink(path);
	rmdir(tmpl);
	free(path);
}

static int cancel_now(void)
{
	return 1;
}

static void test_cancel(void **state)
{
	char *const argv[] = { "sleep", "100", NULL };
	struct child_process cp = { .argv = argv, .own_group = true, .cancel = cancel_now };
	int64_t t0 = now_ms();

	(void)state;
	assert_int_equal(pipe_command(&cp, NULL, 0, NULL, NULL, 60000), -EINTR);
	assert_true(now_ms() - t0 < 5000);
	assert_true(cp.exited);
	assert_true(WIFSIGNALED(cp.status));
}

static int async_fn(void *arg)
{
	int sig = -1;

	prctl(PR_GET_PDEATHSIG, &sig);
	/* exit code: the death signal, and whether arg came through */
	return sig + (*(int *)arg == 42 ? 100 : 0);
}

static void test_async(void **state)
{
	struct child_process cp = { .own_group = true };
	int arg = 42;

	(void)state;
	assert_int_equal(start_async(&cp, async_fn, &arg), 0);
	assert_int_equal(finish_command(&cp, 5000), 100 + SIGKILL);
	cp = (struct child_process){ .no_death_signal = true };
	assert_int_equal(start_async(&cp, async_fn, &arg), 0);
	assert_int_equal(finish_command(&cp, 5000), 100);
}

static int async_write(void *arg)
{
	return write(STDOUT_FILENO, arg, strlen(arg)) < 0;
}

/* a forked function's stdout into a pipe, as for a program */
static void test_async_pipe(void **state)
{
	struct child_process cp = { .out.how = SPAWN_PIPE, .own_group = true };
	char buf[16] = "";

	(void)state;
	assert_int_equal(start_async(&cp, async_write, "hello"), 0);
	assert_true(cp.out_fd > STDERR_FILENO);
	assert_int_equal(read(cp.out_fd, buf, sizeof(buf) - 1), 5);
	assert_string_equal(buf, "hello");
	assert_int_equal(finish_command(&cp, 5000), 0);
	assert_int_equal(cp.out_fd, -1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_feed_big),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_deadline_pump),
		cmocka_unit_test(test_deadline_wait),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_thp_interactive),
		cmocka_unit_test(test_fd_stdout_file_in),
		cmocka_unit_test(test_observer),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_tool_env_dir_file),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_async),
		cmocka_unit_test(test_async_pipe),
	};

	if (argc > 1 && !strcmp(argv[1], "--report")) {
		struct sigaction sa;
		int sig = -1;

		prctl(PR_GET_PDEATHSIG, &sig);
		sigaction(SIGINT, NULL, &sa);
		printf("%d %d %d %d\n", (int)getpgrp(), sig, prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0),
		       sa.sa_handler == SIG_IGN);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
