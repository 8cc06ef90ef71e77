/* The host pool of ktb run --connect (harness/pool.c): parsing URI[,slots=N],
 * spreading scenarios over hosts by load within their slot limits, taking a
 * failed host out, and what is left when no host is. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pool.h"

static void add_ok(struct hosts *p, const char *arg)
{
	char err[300];

	if (hosts_add(p, arg, err, sizeof(err)))
		fail_msg("%s: %s", arg, err);
}

static void test_parse(void **state)
{
	static const char *const bad[] = {
		"qemu:///system,slots=0",
		"qemu:///system,slots=65",
		"qemu:///system,slots=",
		"qemu:///system,slots=2x",
		"qemu:///system,slot=2",
		"qemu:///system,",
		"nocolon",
		"",
		",slots=2",
		"qemu:///system,slots=-1",
	};
	struct hosts p = { 0 };
	char err[300];

	(void)state;
	add_ok(&p, "qemu:///system");
	add_ok(&p, "qemu+ssh://root@h2/system,slots=4");
	add_ok(&p, "qemu+ssh://h3/system?keyfile=/k,slots=64");
	assert_int_equal(p.n, 3);
	assert_string_equal(p.h[0].uri, "qemu:///system");
	assert_int_equal(p.h[0].slots, 1);
	assert_string_equal(p.h[1].uri, "qemu+ssh://root@h2/system");
	assert_int_equal(p.h[1].slots, 4);
	assert_string_equal(p.h[2].uri, "qemu+ssh://h3/system?keyfile=/k");
	assert_int_equal(p.h[2].slots, 64);
	assert_int_equal(hosts_capacity(&p), 69);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (hosts_add(&p, bad[i], err, sizeof(err)) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
		if (!strstr(err, "--connect"))
			fail_msg("\"%s\": message \"%s\" does not name --connect", bad[i], err);
	}
	assert_int_equal(p.n, 3);
	hosts_free(&p);
}

/* Least loaded first (by busy/slots), never over a host's slots. */
static void test_spread(void **state)
{
	struct hosts p = { 0 };
	int got[6];

	(void)state;
	add_ok(&p, "qemu:///a,slots=2");
	add_ok(&p, "qemu:///b,slots=1");
	add_ok(&p, "qemu:///c,slots=3");
	for (int i = 0; i < 6; i++)
		got[i] = hosts_acquire(&p);
	/* a 0/2, b 0/1, c 0/3 -> a; then b (0) ; then c (0); then a 1/2 vs c 1/3
	 * -> c; then a (1/2 < 2/3); then c */
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2], 2);
	assert_int_equal(got[3], 2);
	assert_int_equal(got[4], 0);
	assert_int_equal(got[5], 2);
	assert_int_equal(p.h[0].busy, 2);
	assert_int_equal(p.h[1].busy, 1);
	assert_int_equal(p.h[2].busy, 3);
	assert_int_equal(hosts_acquire(&p), -EBUSY);
	hosts_release(&p, 1);
	assert_int_equal(hosts_acquire(&p), 1);
	assert_int_equal(hosts_acquire(&p), -EBUSY);
	/* releasing more than was acquired, or an unknown host, changes nothing */
	hosts_release(&p, 7);
	hosts_release(&p, -1);
	assert_int_equal(p.h[1].busy, 1);
	hosts_free(&p);
}

static void test_take_out(void **state)
{
	struct hosts p = { 0 };
	char *s;

	(void)state;
	add_ok(&p, "qemu:///good,slots=1");
	add_ok(&p, "qemu+ssh://bad/system,slots=2");
	assert_int_equal(hosts_acquire(&p), 0);
	assert_int_equal(hosts_acquire(&p), 1);
	assert_int_equal(hosts_acquire(&p), 1);
	assert_int_equal(hosts_acquire(&p), -EBUSY);
	/* both scenarios on bad fail; the first takes it out, the second only
	 * gives its slot back */
	hosts_take_out(&p, 1, "cannot connect");
	hosts_take_out(&p, 1, "again");
	assert_true(p.h[1].out);
	assert_int_equal(p.h[1].busy, 0);
	assert_int_equal(hosts_capacity(&p), 1);
	/* a taken-out host is never picked, even with free slots */
	assert_int_equal(hosts_acquire(&p), -EBUSY);
	hosts_release(&p, 0);
	assert_int_equal(hosts_acquire(&p), 0);
	s = hosts_describe_out(&p);
	assert_string_equal(s, "qemu+ssh://bad/system: cannot connect");
	free(s);
	hosts_take_out(&p, 0, "");
	assert_int_equal(hosts_acquire(&p), -EHOSTDOWN);
	assert_int_equal(hosts_capacity(&p), 0);
	s = hosts_describe_out(&p);
	assert_string_equal(s, "qemu:///good: failed; qemu+ssh://bad/system: cannot connect");
	free(s);
	hosts_free(&p);
	/* an empty pool has no host */
	assert_int_equal(hosts_acquire(&p), -EHOSTDOWN);
}

static void test_local(void **state)
{
	static const char *const local[] = {
		"qemu:///system",
		"qemu:///session",
		"qemu+unix:///system?socket=/s",
		"qemu://localhost/system",
	};
	static const char *const remote[] = {
		"qemu+ssh://h/system", "qemu+ssh://root@h:22/system", "qemu+tcp://h/system",
		"qemu+tls://h/system", "qemu+libssh2://h/system",     "qemu://h/system",
		"qemu+ext:///system",  "qemu+ssh:///system",	      "nocolon",
		"qemu:/system",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if (!hosts_uri_local(local[i]))
			fail_msg("%s is local", local[i]);
	for (size_t i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if (hosts_uri_local(remote[i]))
			fail_msg("%s is not local", remote[i]);
}

static void test_ssh(void **state)
{
	static const char *const bad[] = {
		"qemu:///system",
		"qemu+tcp://h/system",
		"qemu+libssh2://h/system",
		"qemu+ssh:///system",
		"qemu+ssh://root@/system",
		"qemu+ssh://@h/system",
		"qemu+ssh://h:/system",
		"qemu+ssh://h:0/system",
		"qemu+ssh://h:65536/system",
		"qemu+ssh://h:22x/system",
		"qemu+ssh://-oProxy=x/system",
		"qemu+ssh://[::1/system",
		"qemu+ssh://a%20b/system",
	};
	struct ssh_target t;
	char err[300];

	(void)state;
	assert_int_equal(hosts_uri_ssh("qemu+ssh://h/system", &t, err, sizeof(err)), 0);
	assert_string_equal(t.host, "h");
	assert_null(t.user);
	assert_int_equal(t.port, 0);
	assert_null(t.keyfile);
	assert_false(t.no_verify);
	ssh_target_free(&t);
	assert_int_equal(
	    hosts_uri_ssh("qemu+ssh://root@127.0.0.1:2222/system?keyfile=/k/id&no_verify=1", &t,
			  err, sizeof(err)),
	    0);
	assert_string_equal(t.user, "root");
	assert_string_equal(t.host, "127.0.0.1");
	assert_int_equal(t.port, 2222);
	assert_string_equal(t.keyfile, "/k/id");
	assert_true(t.no_verify);
	ssh_target_free(&t);
	assert_int_equal(hosts_uri_ssh("qemu+ssh://u@[::1]:22?no_verify=0", &t, err, sizeof(err)),
			 0);
	assert_string_equal(t.user, "u");
	assert_string_equal(t.host, "::1");
	assert_int_equal(t.port, 22);
	assert_false(t.no_verify);
	ssh_target_free(&t);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (hosts_uri_ssh(bad[i], &t, err, sizeof(err)) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
		if (!strstr(err, bad[i]))
			fail_msg("\"%s\": message \"%s\" does not name it", bad[i], err);
		assert_null(t.host);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),	 cmocka_unit_test(test_spread),
		cmocka_unit_test(test_take_out), cmocka_unit_test(test_local),
		cmocka_unit_test(test_ssh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
