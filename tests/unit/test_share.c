/* Shared host folders (hw/share.c and the loader's machine.shares): what
 * validation refuses and names, the defaults it fills, the QEMU arguments
 * (-fsdev + virtio-9p-pci, readonly=on unless rw), init's kernel argument,
 * the machine step's facts, the libvirt <filesystem>, and a scenario's
 * relative host folder (resolved against the file, kept inside its folder). */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "expected.h"
#include "libvirt_xml.h"
#include "machine.h"
#include "machine_check.h"
#include "scenario.h"
#include "util.h"
#include "xml_check.h"

static char *dir; /* a folder that exists, with a subfolder "sub" */

static int setup(void **state)
{
	char *sub;

	(void)state;
	dir = tmp_template("ktb-test-share");
	if (!mkdtemp(dir))
		return -1;
	sub = xasprintf("%s/sub", dir);
	mkdir(sub, 0755);
	free(sub);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

/* A machine with shares of (host, guest, readonly) triples; strings owned
 * by the machine as the loader's are. */
static void machine_with(struct machine *m, struct share *sh, unsigned n)
{
	memset(m, 0, sizeof(*m));
	m->shares = sh;
	m->shares_count = n;
}

static void share_set(struct share *sh, const char *host, const char *guest, const bool *ro)
{
	memset(sh, 0, sizeof(*sh));
	sh->host = host ? xstrdup(host) : NULL;
	sh->guest = guest ? xstrdup(guest) : NULL;
	if (ro) {
		sh->readonly = xcalloc(1, sizeof(bool));
		*sh->readonly = *ro;
	}
}

static void shares_free(struct share *sh, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(sh[i].host);
		free(sh[i].guest);
		free(sh[i].readonly);
	}
}

static void refused(const char *host, const char *guest, const char *field, const char *msg)
{
	struct share sh;
	struct machine m;

	share_set(&sh, host, guest, NULL);
	machine_with(&m, &sh, 1);
	expect_refusal(&m, field, msg);
	shares_free(&sh, 1);
}

static void test_refusals(void **state)
{
	char *missing = xasprintf("%s/nope", dir);

	(void)state;
	refused(missing, "/mnt/x", "machine.shares[0].host", missing);
	refused(missing, "/mnt/x", "machine.shares[0].host", "No such file or directory");
	refused(dir, "mnt/x", "machine.shares[0].guest", "is not an absolute guest path");
	refused(dir, "/mnt/a b", "machine.shares[0].guest", "is not an absolute guest path");
	refused(dir, "/mnt/a,b", "machine.shares[0].guest", "is not an absolute guest path");
	refused(dir, "/", "machine.shares[0].guest", "would hide a folder the guest needs");
	refused(dir, "/proc/x", "machine.shares[0].guest", "would hide a folder the guest needs");
	refused("", "/mnt/x", "machine.shares[0].host", "no host folder");
	free(missing);
}

static void test_duplicate(void **state)
{
	struct share sh[2];
	struct machine m;
	char *sub = xasprintf("%s/sub", dir);

	(void)state;
	share_set(&sh[0], dir, "/mnt/x", NULL);
	share_set(&sh[1], sub, "/mnt/x/", NULL);
	machine_with(&m, sh, 2);
	expect_refusal(&m, "machine.shares[1].guest", "already the guest path of shares[0]");
	shares_free(sh, 2);
	free(sub);
}

/* Defaults: guest = the host's absolute path, read-only; readonly: false
 * makes it writable. */
static void test_defaults(void **state)
{
	static const bool no = false;
	char *real = realpath(dir, NULL), *rel, cwd[PATH_MAX];
	struct share sh[2];
	struct machine m;
	struct hw_error err;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	rel = xstrdup("sub");
	share_set(&sh[0], rel, NULL, NULL);
	share_set(&sh[1], dir, "/mnt/w", &no);
	machine_with(&m, sh, 2);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(chdir(cwd), 0);
	{
		char *want = xasprintf("%s/sub", real);

		assert_string_equal(sh[0].host, want);
		assert_string_equal(sh[0].guest, want);
		free(want);
	}
	assert_false(sh[0].writable);
	assert_true(sh[1].writable);
	free(rel);
	free(real);
	shares_free(sh, 2);
}

static void test_argv_and_cmdline(void **state)
{
	static const bool no = false;
	struct hw_launch l = { .disk_dir = "/w" };
	struct share sh[2];
	struct machine m;
	struct hw_error err;
	struct argv a;
	char *real = realpath(dir, NULL), *want, *cmd;

	(void)state;
	share_set(&sh[0], dir, "/mnt/ro", NULL);
	share_set(&sh[1], dir, "/mnt/rw", &no);
	machine_with(&m, sh, 2);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_to_argv(&m, &l, &a, &err), 0);
	want = xasprintf("local,id=fsdev0,path=%s,security_model=none,readonly=on", real);
	assert_true(argv_has(&a, want, true));
	free(want);
	want = xasprintf("local,id=fsdev1,path=%s,security_model=none", real);
	assert_true(argv_has(&a, want, true));
	free(want);
	assert_true(argv_has(&a, "virtio-9p-pci,fsdev=fsdev0,mount_tag=ktb0", true));
	assert_true(argv_has(&a, "virtio-9p-pci,fsdev=fsdev1,mount_tag=ktb1", true));
	cmd = shares_cmdline(&m);
	assert_string_equal(cmd, "ktb.shares=ktb0:/mnt/ro:ro,ktb1:/mnt/rw:rw");
	free(cmd);
	argv_free(&a);
	free(real);
	shares_free(sh, 2);
}

static void test_no_shares(void **state)
{
	struct hw_launch l = { .disk_dir = "/w" };
	struct machine m;
	struct hw_error err;
	struct argv a;

	(void)state;
	machine_with(&m, NULL, 0);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_to_argv(&m, &l, &a, &err), 0);
	assert_false(argv_has(&a, "-fsdev", true));
	assert_null(shares_cmdline(&m));
	argv_free(&a);
}

static void test_facts(void **state)
{
	static const bool no = false;
	struct share sh[2];
	struct machine m;
	struct hw_error err;
	struct machine_facts f;
	unsigned seen = 0;

	(void)state;
	share_set(&sh[0], dir, "/mnt/ro", NULL);
	share_set(&sh[1], dir, "/mnt/rw", &no);
	machine_with(&m, sh, 2);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_expected_facts(&m, &f), 0);
	for (size_t i = 0; i < f.n; i++) {
		const struct machine_fact *x = &f.v[i];

		if (x->part != MACHINE_PART_SHARES)
			continue;
		seen++;
		if (!strcmp(x->path, "shares.tag=ktb0.path")) {
			assert_string_equal(x->want, "\"/mnt/ro\"");
			assert_true(x->presence);
		} else if (!strcmp(x->path, "shares.tag=ktb0.readonly")) {
			assert_string_equal(x->want, "true");
		} else if (!strcmp(x->path, "shares.tag=ktb1.path")) {
			assert_string_equal(x->want, "\"/mnt/rw\"");
		} else if (!strcmp(x->path, "shares.tag=ktb1.readonly")) {
			assert_string_equal(x->want, "false");
		} else {
			fail_msg("unexpected fact %s", x->path);
		}
	}
	assert_int_equal(seen, 4);
	machine_facts_free(&f);
	shares_free(sh, 2);
}

static void test_libvirt(void **state)
{
	static const bool no = false;
	static const struct hw_launch l = { .kernel = "/k/vmlinux", .disk_dir = "/w" };
	static const struct hw_domain dom = { .name = "ktb-1-share" };
	struct share sh[2];
	struct machine m;
	struct hw_error err;
	char *xml = NULL, *real = realpath(dir, NULL), *src;

	(void)state;
	share_set(&sh[0], dir, "/mnt/ro", NULL);
	share_set(&sh[1], dir, "/mnt/rw", &no);
	machine_with(&m, sh, 2);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_to_domain_xml(&m, &l, &dom, &xml, &err), 0);
	assert_true(xml_wellformed(xml));
	src = xasprintf("<source dir='%s'/>", real);
	assert_non_null(strstr(xml, src));
	assert_non_null(strstr(xml, "<filesystem type='mount' accessmode='squash'>"));
	assert_non_null(strstr(xml, "<target dir='ktb0'/>\n      <readonly/>"));
	assert_non_null(strstr(xml, "<target dir='ktb1'/>\n    </filesystem>"));
	free(src);
	free(xml);
	free(real);
	shares_free(sh, 2);
}

static int load(const char *text, struct scenario **s, char *msg, size_t len)
{
	char *path = xasprintf("%s/s.yaml", dir);
	struct scenario_error err;
	int ret;

	assert_int_equal(write_file(path, text, strlen(text)), 0);
	ret = scenario_load(path, s, &err);
	if (ret)
		scenario_error_format(&err, msg, len);
	free(path);
	return ret;
}

static void test_scenario(void **state)
{
	struct scenario *s = NULL;
	char msg[1024] = "", *want, *real = realpath(dir, NULL);

	(void)state;
	assert_int_equal(load("name: sh\nmachine:\n  shares:\n"
			      "    - {host: sub, guest: /mnt/src, readonly: false}\n"
			      "    - {host: .}\nsteps:\n  - run: \"true\"\n",
			      &s, msg, sizeof(msg)),
			 0);
	want = xasprintf("%s/sub", real);
	assert_string_equal(s->machine->shares[0].host, want);
	assert_true(s->machine->shares[0].writable);
	assert_string_equal(s->machine->shares[1].host, real);
	assert_string_equal(s->machine->shares[1].guest, real);
	assert_false(s->machine->shares[1].writable);
	scenario_free(s);
	free(want);
	s = NULL;
	assert_int_not_equal(load("name: sh\nmachine:\n  shares:\n    - {host: gone}\n"
				  "steps:\n  - run: \"true\"\n",
				  &s, msg, sizeof(msg)),
			     0);
	if (!strstr(msg, "s.yaml:4:") || !strstr(msg, "machine.shares[0].host") ||
	    !strstr(msg, "gone"))
		fail_msg("%s", msg);
	assert_int_not_equal(load("name: sh\nmachine:\n  shares:\n    - {host: /etc}\n"
				  "steps:\n  - run: \"true\"\n",
				  &s, msg, sizeof(msg)),
			     0);
	if (!strstr(msg, "not inside the scenario's folder"))
		fail_msg("%s", msg);
	free(real);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),  cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_defaults),  cmocka_unit_test(test_argv_and_cmdline),
		cmocka_unit_test(test_no_shares), cmocka_unit_test(test_facts),
		cmocka_unit_test(test_libvirt),	  cmocka_unit_test(test_scenario),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
