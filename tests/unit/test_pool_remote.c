/* ktb's side of a qemu+ssh:// host (harness/remote.c): the ssh command line
 * (URI user, port, key, no_verify, $KTB_SSH_OPTS), running a command there
 * with its output, input, errors and time limit (through a stand-in "ssh" on
 * PATH that runs the command locally), and the remembered file hashes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "remote.h"
#include "util.h"

static char tmp[] = "/tmp/ktb-test-remote-XXXXXX";

static int setup(void **state)
{
	static const char script[] = "#!/bin/sh\nfor a; do last=$a; done\nexec sh -c \"$last\"\n";
	char *path, *fake, *cache;

	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	/* "ssh": ignore the options, run the last argument with sh */
	fake = xasprintf("%s/ssh", tmp);
	write_file(fake, script, strlen(script));
	chmod(fake, 0755);
	free(fake);
	path = xasprintf("%s:%s", tmp, getenv("PATH"));
	setenv("PATH", path, 1);
	free(path);
	cache = xasprintf("%s/cache", tmp);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", tmp);
	int r = system(cmd);

	(void)state;
	free(cmd);
	return r;
}

static void test_argv(void **state)
{
	static const char *const want[] = {
		"ssh",
		"-o",
		"BatchMode=yes",
		"-o",
		"ConnectTimeout=15",
		"-o",
		"ServerAliveInterval=5",
		"-o",
		"ServerAliveCountMax=3",
		"-T",
		"-p",
		"2222",
		"-l",
		"root",
		"-i",
		"/k/id",
		"-o",
		"StrictHostKeyChecking=no",
		"-F",
		"/x/config",
		"-o",
		"A=b",
		"-N",
		"127.0.0.1",
		"true",
	};
	const char *opts[] = { "-N", NULL };
	struct remote r;
	char err[300], **v;
	size_t n = 0;

	(void)state;
	assert_int_equal(
	    remote_init(&r, "qemu+ssh://root@127.0.0.1:2222/system?keyfile=/k/id&no_verify=1", err,
			sizeof(err)),
	    0);
	assert_string_equal(r.label, "root@127.0.0.1:2222");
	setenv("KTB_SSH_OPTS", " -F /x/config\t -o A=b ", 1);
	v = remote_argv(&r, opts, "true");
	unsetenv("KTB_SSH_OPTS");
	while (v[n])
		n++;
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
	remote_argv_free(v);
	remote_free(&r);
	/* the bare form: ssh's own defaults */
	assert_int_equal(remote_init(&r, "qemu+ssh://h/system", err, sizeof(err)), 0);
	assert_string_equal(r.label, "h");
	v = remote_argv(&r, NULL, NULL);
	for (n = 0; v[n]; n++)
		assert_string_not_equal(v[n], "-p");
	assert_string_equal(v[n - 1], "h");
	remote_argv_free(v);
	remote_free(&r);
	assert_int_equal(remote_init(&r, "qemu+tcp://h/system", err, sizeof(err)), -EINVAL);
}

static void test_run(void **state)
{
	struct remote r;
	char err[300], *out = NULL, *in = xasprintf("%s/in", tmp);

	(void)state;
	assert_int_equal(remote_init(&r, "qemu+ssh://u@h/system", err, sizeof(err)), 0);
	assert_int_equal(remote_run(&r, "echo one; echo two", NULL, &out, 5000, err, sizeof(err)),
			 0);
	assert_string_equal(out, "one\ntwo\n");
	free(out);
	/* stdin from a file (an upload) */
	write_file(in, "payload", 7);
	assert_int_equal(remote_run(&r, "cat; echo", in, &out, 5000, err, sizeof(err)), 0);
	assert_string_equal(out, "payload\n");
	free(out);
	/* a failure: the last line of standard error, the exit status */
	assert_int_equal(remote_run(&r, "echo first >&2; echo 'no space left' >&2; exit 3", NULL,
				    &out, 5000, err, sizeof(err)),
			 -EIO);
	assert_null(out);
	assert_string_equal(err, "ssh u@h: no space left (exit status 3)");
	/* no answer: ended at the limit */
	assert_int_equal(remote_run(&r, "sleep 20", NULL, NULL, 300, err, sizeof(err)), -ETIMEDOUT);
	assert_non_null(strstr(err, "no answer within the time limit"));
	/* ssh itself missing */
	{
		char *path = xstrdup(getenv("PATH"));

		setenv("PATH", "/nonexistent", 1);
		assert_int_equal(remote_run(&r, "true", NULL, NULL, 5000, err, sizeof(err)), -EIO);
		assert_non_null(strstr(err, "cannot run ssh"));
		setenv("PATH", path, 1);
		free(path);
	}
	remote_free(&r);
	free(in);
}

static void test_sha256(void **state)
{
	char h[65], *f = xasprintf("%s/file", tmp), *memo = xasprintf("%s/cache/ktb/sha256", tmp);
	char *cmd;

	(void)state;
	write_file(f, "abc", 3);
	assert_int_equal(remote_file_sha256(f, h), 0);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* remembered: the memo file is used, even with another content there */
	cmd = xasprintf("test $(ls %s | wc -l) -eq 1 && for m in %s/*; do printf %%064d 0 >$m; "
			"done",
			memo, memo);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(remote_file_sha256(f, h), 0);
	assert_string_equal(h, "0000000000000000000000000000000000000000000000000000000000000000");
	/* a changed file has another identity: hashed again */
	write_file(f, "abcd", 4);
	assert_int_equal(remote_file_sha256(f, h), 0);
	assert_string_equal(h, "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589");
	assert_int_equal(remote_file_sha256("/nonexistent/file", h), -ENOENT);
	free(f);
	free(memo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_sha256),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
