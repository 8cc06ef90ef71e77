/* Shared host folders (hw/share.c and the loader's machine.shares): what
 * validation refuses and names, the defaults it fills, the QEMU arguments
 * (-fsdev + virtio-9p-pci, readonly=on unless rw; for virtiofs -chardev +
 * vhost-user-fs-pci, shared guest RAM and virtiofsd's argv), which
 * transport a share gets (ro stays on 9p), init's kernel argument, the
 * machine step's facts, the libvirt <filesystem>, and a scenario's relative
 * host folder (resolved against the file, kept inside its folder). The
 * virtiofsd is named through $KTB_VIRTIOFSD so the host's does not matter:
 * empty (none, 9p) unless a test names one. */
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
	return setenv("KTB_VIRTIOFSD", "", 1);
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
		free(sh[i].transport);
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
			/* which share, in the machine step's message */
			assert_string_equal(x->what, "share ktb0 read-only");
		} else if (!strcmp(x->path, "shares.tag=ktb1.path")) {
			assert_string_equal(x->want, "\"/mnt/rw\"");
		} else if (!strcmp(x->path, "shares.tag=ktb1.readonly")) {
			assert_string_equal(x->want, "false");
			assert_string_equal(x->what, "share ktb1 read-only");
		} else if (!strcmp(x->path, "shares.tag=ktb0.fstype")) {
			assert_string_equal(x->want, "\"9p\""); /* read-only: always 9p */
		} else if (!strcmp(x->path, "shares.tag=ktb1.fstype")) {
			/* what the host gives it here: virtiofs where a virtiofsd runs */
			assert_int_equal(strlen(x->want), strlen(share_transport(&sh[1])) + 2);
			assert_non_null(strstr(x->want, share_transport(&sh[1])));
		} else {
			fail_msg("unexpected fact %s", x->path);
		}
	}
	assert_int_equal(seen, 6);
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

/* An explicit transport that cannot be had, or no transport at all, is
 * named on the share's transport field. */
static void test_transport_refusals(void **state)
{
	static const bool no = false;
	static const struct {
		const char *transport, *virtiofsd;
		bool ro;
		const char *msg;
	} rows[] = {
		{ "virtiofs", "/opt/virtiofsd", true, "stays on 9p" },
		{ "virtiofs", "", false, "no virtiofsd" },
		{ "nfs", "/opt/virtiofsd", false, "no transport" },
	};
	struct share sh;
	struct machine m;
	struct hw_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		setenv("KTB_VIRTIOFSD", rows[i].virtiofsd, 1);
		share_set(&sh, dir, "/mnt/x", rows[i].ro ? NULL : &no);
		sh.transport = xstrdup(rows[i].transport);
		machine_with(&m, &sh, 1);
		assert_int_not_equal(machine_validate(&m, &err), 0);
		assert_string_equal(err.field, "machine.shares[0].transport");
		if (!strstr(err.msg, rows[i].msg))
			fail_msg("%s: %s", rows[i].transport, err.msg);
		shares_free(&sh, 1);
	}
	setenv("KTB_VIRTIOFSD", "", 1);
}

/* auto: a read-only share stays on 9p (QEMU refuses its writes), a
 * writable one goes over virtiofs where there is a virtiofsd (as root);
 * "9p" forces 9p. */
static void test_transport_auto(void **state)
{
	static const bool no = false;
	struct share sh[3];
	struct machine m;
	struct hw_error err;

	(void)state;
	setenv("KTB_VIRTIOFSD", "/opt/virtiofsd", 1);
	share_set(&sh[0], dir, "/mnt/ro", NULL);
	share_set(&sh[1], dir, "/mnt/rw", &no);
	share_set(&sh[2], dir, "/mnt/p9", &no);
	sh[2].transport = xstrdup("9p");
	machine_with(&m, sh, 3);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_string_equal(share_transport(&sh[0]), "9p");
	assert_string_equal(share_transport(&sh[1]), geteuid() == 0 ? "virtiofs" : "9p");
	assert_string_equal(share_transport(&sh[2]), "9p");
	shares_free(sh, 3);
	/* no virtiofsd: 9p */
	setenv("KTB_VIRTIOFSD", "", 1);
	share_set(&sh[0], dir, "/mnt/rw", &no);
	machine_with(&m, sh, 1);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_string_equal(share_transport(&sh[0]), "9p");
	assert_string_equal(shares_transport(&m), "9p");
	shares_free(sh, 1);
}

/* The preflight's answer, as the harness's check would give it. */
static int check_calls;
static int check_serves(const char *bin, char *why, size_t len)
{
	(void)bin;
	check_calls++;
	snprintf(why, len, "virtiofsd answered over vhost-user");
	return 0;
}

static int check_chroot(const char *bin, char *why, size_t len)
{
	(void)bin;
	check_calls++;
	snprintf(why, len, "mount(/, MS_REC|MS_SLAVE): Invalid argument");
	return -EOPNOTSUPP;
}

/* Where virtiofsd cannot serve (its sandbox fails in a chroot): auto falls
 * back to 9p with virtiofsd's error in the note; virtiofs stays virtiofs but
 * is refused, the error named, for the runner to refuse before boot; ro and
 * 9p never ask. Where it serves: virtiofs, no note. */
static void test_transport_preflight(void **state)
{
	static const bool no = false;
	struct share sh[4];
	struct machine m;
	struct hw_error err;
	unsigned idx = 9;

	(void)state;
	if (geteuid() != 0)
		skip(); /* auto never picks virtiofs but as root */
	setenv("KTB_VIRTIOFSD", "/opt/virtiofsd", 1);
	share_set_virtiofsd_check(check_chroot);
	share_set(&sh[0], dir, "/mnt/ro", NULL);
	share_set(&sh[1], dir, "/mnt/p9", &no);
	sh[1].transport = xstrdup("9p");
	share_set(&sh[2], dir, "/mnt/auto", &no);
	share_set(&sh[3], dir, "/mnt/vfs", &no);
	sh[3].transport = xstrdup("virtiofs");
	machine_with(&m, sh, 4);
	check_calls = 0;
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(check_calls, 2); /* only auto rw and virtiofs ask */
	assert_string_equal(sh[0].note, "");
	assert_string_equal(sh[1].note, "");
	assert_string_equal(share_transport(&sh[2]), "9p");
	assert_false(sh[2].refused);
	assert_string_equal(sh[2].note, "over 9p: /opt/virtiofsd cannot serve here: "
					"mount(/, MS_REC|MS_SLAVE): Invalid argument");
	assert_string_equal(share_transport(&sh[3]), "virtiofs");
	assert_true(sh[3].refused);
	assert_non_null(strstr(sh[3].note, "machine.shares[3].transport: transport virtiofs, "
					   "but /opt/virtiofsd cannot serve here: mount(/, "
					   "MS_REC|MS_SLAVE): Invalid argument; "));
	assert_ptr_equal(shares_refused(&m, &idx), &sh[3]);
	assert_int_equal(idx, 3);
	shares_free(sh, 4);

	/* where it serves, both go over virtiofs, nothing noted or refused */
	share_set_virtiofsd_check(check_serves);
	share_set(&sh[0], dir, "/mnt/auto", &no);
	share_set(&sh[1], dir, "/mnt/vfs", &no);
	sh[1].transport = xstrdup("virtiofs");
	machine_with(&m, sh, 2);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_string_equal(shares_transport(&m), "virtiofs");
	assert_string_equal(sh[0].note, "");
	assert_null(shares_refused(&m, NULL));
	shares_free(sh, 2);
	share_set_virtiofsd_check(NULL);
	setenv("KTB_VIRTIOFSD", "", 1);
}

static void test_virtiofs_argv(void **state)
{
	static const bool no = false;
	struct hw_launch l = { .disk_dir = "/w" };
	struct share sh[2];
	struct machine m;
	struct hw_error err;
	struct argv a, d;
	char *real = realpath(dir, NULL), *want, *cmd;

	(void)state;
	setenv("KTB_VIRTIOFSD", "/opt/virtiofsd", 1);
	share_set(&sh[0], dir, "/mnt/ro", NULL);
	share_set(&sh[1], dir, "/mnt/rw", &no);
	sh[1].transport = xstrdup("virtiofs");
	machine_with(&m, sh, 2);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_string_equal(shares_transport(&m), "9p+virtiofs");
	assert_int_equal(machine_to_argv(&m, &l, &a, &err), 0);
	assert_true(argv_has(&a, "virtio-9p-pci,fsdev=fsdev0,mount_tag=ktb0", true));
	assert_false(argv_has(&a, "local,id=fsdev1", false));
	assert_true(argv_has(&a, "socket,id=vfs1,path=/w/ktb1.virtiofs", true));
	assert_true(argv_has(&a, "vhost-user-fs-pci,chardev=vfs1,tag=ktb1", true));
	/* virtiofsd maps guest RAM */
	assert_true(argv_has(&a, "memory-backend-memfd,id=ram0,size=", false));
	assert_true(argv_has(&a, "memory-backend=ram0", true));
	cmd = shares_cmdline(&m);
	assert_string_equal(cmd, "ktb.shares=ktb0:/mnt/ro:ro,ktb1:/mnt/rw:rw:virtiofs");
	free(cmd);
	assert_int_equal(share_virtiofsd_argv(&m, &l, 1, &d), 0);
	assert_string_equal(d.v[0], "/opt/virtiofsd");
	assert_true(argv_has(&d, "--socket-path=/w/ktb1.virtiofs", true));
	want = xasprintf("source=%s", real);
	assert_true(argv_has(&d, want, true));
	free(want);
	argv_free(&d);
	argv_free(&a);
	free(real);
	shares_free(sh, 2);
	setenv("KTB_VIRTIOFSD", "", 1);
}

/* NUMA nodes get one backend each: with a virtiofs share each is memfd. */
static void test_virtiofs_numa(void **state)
{
	struct hw_launch l = { .disk_dir = "/w" };
	struct scenario *s = NULL;
	struct hw_error err;
	struct argv a;
	char msg[1024] = "";

	(void)state;
	setenv("KTB_VIRTIOFSD", "/opt/virtiofsd", 1);
	assert_int_equal(load("name: sh\nmachine:\n  cpus: 2\n  memory: 512M\n  numa:\n"
			      "    nodes:\n      - {cpus: [0], memory: 256M}\n"
			      "      - {cpus: [1], memory: 256M}\n  shares:\n"
			      "    - {host: ., readonly: false, transport: virtiofs}\n"
			      "steps:\n  - run: \"true\"\n",
			      &s, msg, sizeof(msg)),
			 0);
	assert_int_equal(machine_to_argv(s->machine, &l, &a, &err), 0);
	assert_true(argv_has(&a, "memory-backend-memfd,share=on,size=268435456,id=m0", true));
	assert_true(argv_has(&a, "memory-backend-memfd,share=on,size=268435456,id=m1", true));
	assert_false(argv_has(&a, "memory-backend=ram0", true));
	argv_free(&a);
	scenario_free(s);
	setenv("KTB_VIRTIOFSD", "", 1);
}

static void test_libvirt_virtiofs(void **state)
{
	static const bool no = false;
	static const struct hw_launch l = { .kernel = "/k/vmlinux", .disk_dir = "/w" };
	static const struct hw_domain dom = { .name = "ktb-1-share" };
	struct share sh;
	struct machine m;
	struct hw_error err;
	char *xml = NULL, *real = realpath(dir, NULL), *src;

	(void)state;
	setenv("KTB_VIRTIOFSD", "/opt/virtiofsd", 1);
	share_set(&sh, dir, "/mnt/rw", &no);
	sh.transport = xstrdup("virtiofs");
	machine_with(&m, &sh, 1);
	assert_int_equal(machine_validate(&m, &err), 0);
	assert_int_equal(machine_to_domain_xml(&m, &l, &dom, &xml, &err), 0);
	assert_true(xml_wellformed(xml));
	src = xasprintf("<filesystem type='mount' accessmode='passthrough'>\n"
			"      <driver type='virtiofs'/>\n"
			"      <binary path='/opt/virtiofsd'/>\n"
			"      <source dir='%s'/>\n"
			"      <target dir='ktb0'/>\n    </filesystem>",
			real);
	if (!strstr(xml, src))
		fail_msg("%s", xml);
	assert_non_null(strstr(xml, "<memoryBacking>\n    <source type='memfd'/>\n"
				    "    <access mode='shared'/>\n  </memoryBacking>"));
	free(src);
	free(xml);
	free(real);
	shares_free(&sh, 1);
	setenv("KTB_VIRTIOFSD", "", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_argv_and_cmdline),
		cmocka_unit_test(test_no_shares),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_libvirt),
		cmocka_unit_test(test_scenario),
		cmocka_unit_test(test_transport_refusals),
		cmocka_unit_test(test_transport_auto),
		cmocka_unit_test(test_transport_preflight),
		cmocka_unit_test(test_virtiofs_argv),
		cmocka_unit_test(test_virtiofs_numa),
		cmocka_unit_test(test_libvirt_virtiofs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
