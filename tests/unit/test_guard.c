/* The run's guardian: its set of process groups, reading /proc, and the real
 * thing -- a "ktb" killed with SIGKILL leaves neither its folder nor a process
 * of its groups behind, and a normal end waits for the clean-up. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"
#include "proc.h"
#include "util.h"

static void test_set(void **state)
{
	struct guard_set s = { 0 };

	(void)state;
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 100 }), 0);
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 200 }), 0);
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 100 }), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ GUARD_UNTRACK, 100 }), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0], 200);
	/* a group never told is no error */
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ GUARD_UNTRACK, 300 }), 0);
	assert_int_equal(s.n, 1);
	/* kill(-1) is every process, kill(0) our own group: never */
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 1 }), -EINVAL);
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 0 }), -EINVAL);
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, -5 }), -EINVAL);
	assert_int_equal(guard_set_apply(&s, &(struct guard_msg){ 7, 400 }), -EINVAL);
	assert_int_equal(s.n, 1);
	for (int i = 0; i < 100; i++)
		guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 1000 + i });
	assert_int_equal(s.n, 101);
	guard_set_free(&s);
	assert_int_equal(s.n, 0);
}

static void test_parse_stat(void **state)
{
	char st;
	pid_t pg;

	(void)state;
	assert_int_equal(guard_parse_stat("1234 (qemu-system-x86) S 1 1234 1234 0 -1", &st, &pg),
			 0);
	assert_int_equal(st, 'S');
	assert_int_equal(pg, 1234);
	/* a name may hold ") " and digits: the last ')' ends it */
	assert_int_equal(guard_parse_stat("99 (a) Z 5 7) R 1 42 42 0", &st, &pg), 0);
	assert_int_equal(st, 'R');
	assert_int_equal(pg, 42);
	assert_int_equal(guard_parse_stat("", &st, &pg), -EINVAL);
	assert_int_equal(guard_parse_stat("12 (x)", &st, &pg), -EINVAL);
	assert_int_equal(guard_parse_stat("12 (x) 5 1 2", &st, &pg), -EINVAL);
}

static void fake_stat(const char *root, const char *pid, const char *line)
{
	char *dir = xasprintf("%s/%s", root, pid), *path = xasprintf("%s/stat", dir);

	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(write_file(path, line, strlen(line)), 0);
	free(dir);
	free(path);
}

/* A zombie holds no file: its group counts as gone. */
static void test_groups_alive(void **state)
{
	char root[] = "/tmp/ktb-guard-proc-XXXXXX";
	struct guard_set s = { 0 };

	(void)state;
	assert_non_null(mkdtemp(root));
	fake_stat(root, "10", "10 (qemu) S 1 500 500 0\n");
	fake_stat(root, "11", "11 (qemu) Z 1 600 600 0\n");
	fake_stat(root, "self", "12 (x) R 1 700 700 0\n");
	guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 600 });
	assert_false(guard_groups_alive(&s, root));
	guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 700 });
	assert_false(guard_groups_alive(&s, root));
	guard_set_apply(&s, &(struct guard_msg){ GUARD_TRACK, 500 });
	assert_true(guard_groups_alive(&s, root));
	guard_set_free(&s);
	assert_false(guard_groups_alive(&s, "/nonexistent"));
	rm_rf(root);
}

static bool gone(const char *path)
{
	struct stat sb;

	return stat(path, &sb) < 0 && errno == ENOENT;
}

/* A process that is gone, or a zombie nobody reaped yet. */
static bool dead(pid_t pid)
{
	char path[64], line[512], st;
	pid_t pg;
	size_t len;
	char *s;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	s = read_file(path, &len);
	if (!s)
		return true;
	snprintf(line, sizeof(line), "%s", s);
	free(s);
	return !guard_parse_stat(line, &st, &pg) && (st == 'Z' || st == 'X');
}

static bool wait_until(bool (*cond)(const void *), const void *arg, int ms)
{
	struct timespec t = { 0, 20 * 1000000 };

	for (int i = 0; i < ms / 20; i++) {
		if (cond(arg))
			return true;
		nanosleep(&t, NULL);
	}
	return cond(arg);
}

static bool cond_gone(const void *p)
{
	return gone(p);
}

static bool cond_dead(const void *p)
{
	return dead(*(const pid_t *)p);
}

/* "ktb": starts a guardian for dir and, through proc_spawn, a shell whose
 * background sleep has no death signal of its own (only the guardian's kill
 * of the group reaches it); tells the test the sleep's pid, then waits to be
 * killed. */
static _Noreturn void fake_ktb(const char *dir, int tell)
{
	char *argv[] = { "sh", "-c", "sleep 60 & echo $!; wait", NULL };
	struct proc_opts po = { .capture_stdout = true };
	struct proc p;
	char buf[32] = "";
	ssize_t n;

	if (guard_start(dir) || proc_spawn(&p, argv, &po))
		_exit(1);
	n = read(p.out_fd, buf, sizeof(buf) - 1);
	if (n <= 0 || write(tell, buf, (size_t)n) != n)
		_exit(1);
	for (;;)
		pause();
}

static void test_guardian_after_sigkill(void **state)
{
	char dir[] = "/tmp/ktb-guard-run-XXXXXX";
	int fds[2], status;
	char buf[32] = "", *file;
	pid_t ktb, sleeper;

	(void)state;
	assert_non_null(mkdtemp(dir));
	file = xasprintf("%s/qmp.sock", dir);
	assert_int_equal(write_file(file, "x", 1), 0);
	assert_int_equal(pipe(fds), 0);
	ktb = fork();
	assert_true(ktb >= 0);
	if (ktb == 0) {
		close(fds[0]);
		fake_ktb(dir, fds[1]);
	}
	close(fds[1]);
	assert_true(read(fds[0], buf, sizeof(buf) - 1) > 0);
	close(fds[0]);
	sleeper = atoi(buf);
	assert_true(sleeper > 1);
	assert_false(dead(sleeper));
	kill(ktb, SIGKILL);
	assert_int_equal(waitpid(ktb, &status, 0), ktb);
	assert_true(wait_until(cond_dead, &sleeper, 10000));
	assert_true(wait_until(cond_gone, dir, 10000));
	free(file);
}

/* ktb's own end: when guard_finish returns, the folder is gone. */
static void test_guardian_finish(void **state)
{
	char dir[] = "/tmp/ktb-guard-end-XXXXXX";
	char *sub, *file;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sub = xasprintf("%s/ktb-abc", dir);
	file = xasprintf("%s/data.img", sub);
	assert_int_equal(guard_start(dir), 0);
	assert_int_equal(mkdir_p(sub, 0700), 0);
	assert_int_equal(write_file(file, "x", 1), 0);
	guard_finish();
	assert_true(gone(dir));
	guard_finish(); /* twice is harmless */
	free(sub);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_groups_alive),
		cmocka_unit_test(test_guardian_after_sigkill),
		cmocka_unit_test(test_guardian_finish),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
