/* ktb boot: an interactive VM with a scenario's hardware (or hardware given
 * as flags) and its console on this terminal. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_boot.h"
#include "cli.h"
#include "cli_boot_exec.h"
#include "cli_common.h"
#include "proc.h"
#include "util.h"
#include "vm.h"
#include "vm_cmdline.h"

struct boot_cli {
	struct kernel_choice k;
	const char *scenario, *append, *memory, *sleep;
	const char *cmdline; /* the scenario's kernel.cmdline */
	unsigned cpus;
	struct machine m;     /* built from flags when no --scenario */
	struct share *shares; /* --share, added to the machine either way */
	unsigned shares_count;
	struct boot_exec exec; /* --exec / --script */
	char *workdir;	       /* the guest folder the command starts in */
	struct gdb_cli gdb;    /* --gdb[=PORT], --gdb-wait */
	char *gdb_append;      /* --append with nokaslr, for --gdb */
	const char *root;      /* --root: image (NULL), host or debian */
	char **packages;       /* --package, for --root debian */
	unsigned packages_count;
	char *root_dir;		/* the root's folder, once prepared */
	char *root_disk;	/* its disk (a Debian root), once prepared */
	bool packages_borrowed; /* packages are the scenario's */
};

static void boot_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: ktb boot [options]\n"
	    "  --scenario FILE   take the machine from a scenario\n"
	    "  --cpus N --memory SIZE\n"
	    "  --disk id=ID,bus=%s,size=SIZE[,sector=%s][,image=BASE]\n"
	    "  --numa cpus=A[-B],memory=SIZE   one per node, in order\n"
	    "  --sleep s3,s4     sleep states the firmware offers (s3 boots the bzImage)\n"
	    "  --kernel K --modules DIR --recipe R --append ARGS\n"
	    "  --root ROOT       the guest's userspace: image (default), host (this machine's\n"
	    "                    own, read-only, writes kept in guest memory) or debian\n"
	    "  --package P       with --root debian (the default then): a package in the\n"
	    "                    Debian root; repeatable\n"
	    "  --share[=HOST[:GUEST][,ro|,rw][,9p|,virtiofs]]  a host folder in the guest\n"
	    "                    (default: the current folder, read-only, at the same path;\n"
	    "                    rw over virtiofs where virtiofsd is installed); repeatable\n"
	    "  --exec CMD        run CMD in the guest (in the shared current folder), print its\n"
	    "                    output, power off, exit with its status (125: no machine)\n"
	    "  --script FILE     the same with a script copied into the guest\n"
	    "  --gdb[=PORT]      QEMU's gdb server on 127.0.0.1:PORT (a free one by default),\n"
	    "                    nokaslr; prints how to attach\n"
	    "  --gdb-wait        with --gdb: the CPUs wait until a debugger lets them go\n"
	    "  -v, --verbose     show the image builder's output; with --exec, one line naming\n"
	    "                    the kernel and its file, the accelerator, the shares and the\n"
	    "                    guest folder\n"
	    "Without --exec the console is this terminal: Ctrl-A X quits, Ctrl-A C toggles the\n"
	    "QEMU monitor.\n"
	    "Exit: 0 when QEMU ended by itself (--exec: the command's status), 2 bad input,\n"
	    "125 QEMU or the machine failed, 130 interrupted (--exec) (docs/cli.md).\n",
	    HW_NAMES_ALTS(DISK_BUS_TABLE), HW_NAMES_ALTS(DISK_SECTOR_TABLE));
}

static int kv_get(const char *spec, const char *key, char **out)
{
	size_t kl = strlen(key);

	for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			const char *v = p + kl + 1;

			*out = strndup(v, strcspn(v, ","));
			return 0;
		}
	}
	return -ENOENT;
}

static int enum_index(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

static int add_disk(struct machine *m, const char *spec)
{
	static const char *const buses[] = { DISK_BUS_TABLE(HW_NAMES_STR) };
	static const char *const sectors[] = { DISK_SECTOR_TABLE(HW_NAMES_STR) };
	struct disk *d;
	char *bus = NULL, *sector = NULL;
	int b, s = 0;

	m->disks = xrealloc(m->disks, (m->disks_count + 1) * sizeof(*m->disks));
	d = &m->disks[m->disks_count++];
	memset(d, 0, sizeof(*d));
	if (kv_get(spec, "id", &d->id) || kv_get(spec, "bus", &bus) ||
	    kv_get(spec, "size", &d->size)) {
		fprintf(stderr, "ktb boot: --disk %s: needs id=, bus= and size=\n", spec);
		free(bus);
		return KTB_EXIT_USAGE;
	}
	kv_get(spec, "image", &d->image);
	kv_get(spec, "sector", &sector);
	b = enum_index(bus, buses, DISK_BUS_COUNT);
	if (sector)
		s = enum_index(sector, sectors, DISK_SECTOR_COUNT);
	free(bus);
	free(sector);
	if (b < 0 || s < 0) {
		fprintf(stderr, "ktb boot: --disk %s: bus is one of %s; sector one of %s\n", spec,
			HW_NAMES_LIST(DISK_BUS_TABLE), HW_NAMES_LIST(DISK_SECTOR_TABLE));
		return KTB_EXIT_USAGE;
	}
	d->bus = (enum disk_bus)b;
	d->sector = (enum disk_sector)s;
	return 0;
}

static int parse_cpulist(const char *s, struct numa_node *n)
{
	char *end;
	long a, b;

	a = strtol(s, &end, 10);
	b = *end == '-' ? strtol(end + 1, &end, 10) : a;
	if (end == s || (*end && *end != ',') || a < 0 || b < a || b > 63)
		return -EINVAL;
	for (long c = a; c <= b; c++) {
		n->cpus = xrealloc(n->cpus, (n->cpus_count + 1) * sizeof(unsigned));
		n->cpus[n->cpus_count++] = (unsigned)c;
	}
	return 0;
}

static int add_node(struct machine *m, const char *spec)
{
	struct numa_node *n;
	char *cpus = NULL;

	if (!m->numa)
		m->numa = xcalloc(1, sizeof(*m->numa));
	m->numa->nodes = xrealloc(m->numa->nodes, (m->numa->nodes_count + 1) * sizeof(*n));
	n = &m->numa->nodes[m->numa->nodes_count++];
	memset(n, 0, sizeof(*n));
	if (kv_get(spec, "memory", &n->memory)) {
		fprintf(stderr, "ktb boot: --numa %s: needs memory=SIZE\n", spec);
		return KTB_EXIT_USAGE;
	}
	if (!kv_get(spec, "cpus", &cpus) && parse_cpulist(cpus, n)) {
		fprintf(stderr, "ktb boot: --numa %s: cpus is N or A-B\n", spec);
		free(cpus);
		return KTB_EXIT_USAGE;
	}
	free(cpus);
	return 0;
}

/* "s3", "s4", "s3,s4"; anything else is refused, not ignored. */
static int parse_sleep(const char *s, unsigned *flags)
{
	static const char *const names[] = { SLEEP_TABLE(HW_NAMES_STR) };
	char *copy = xstrdup(s), *save = NULL;
	int ret = 0;

	*flags = 0;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int b = enum_index(w, names, SLEEP_COUNT);

		if (b >= 0) {
			*flags |= 1u << b;
		} else {
			fprintf(stderr, "ktb boot: --sleep %s: \"%s\" is not s3 or s4\n", s, w);
			ret = KTB_EXIT_USAGE;
		}
	}
	free(copy);
	return ret;
}

/* Strip the trailing ",ro", ",rw", ",9p", ",virtiofs" words off copy, in
 * any order, into sh. */
static void share_flags(char *copy, struct share *sh)
{
	char *comma;

	while ((comma = strrchr(copy, ','))) {
		if (!strcmp(comma, ",ro") || !strcmp(comma, ",rw"))
			*sh->readonly = !strcmp(comma, ",ro");
		else if (!strcmp(comma, ",9p") || !strcmp(comma, ",virtiofs")) {
			free(sh->transport);
			sh->transport = xstrdup(comma + 1);
		} else
			return;
		*comma = '\0';
	}
}

/* HOST[:GUEST][,ro|,rw][,9p|,virtiofs]; NULL: the current folder. The
 * folder must be there now: the error names the option, not the machine's
 * field. */
static int add_share(struct boot_cli *c, const char *spec)
{
	char *copy = xstrdup(spec ? spec : "."), *colon;
	struct share *sh;
	struct stat st;
	int ret = 0;

	c->shares = xrealloc(c->shares, (c->shares_count + 1) * sizeof(*c->shares));
	sh = &c->shares[c->shares_count++];
	memset(sh, 0, sizeof(*sh));
	sh->readonly = xcalloc(1, sizeof(bool));
	*sh->readonly = true;
	share_flags(copy, sh);
	colon = strchr(copy, ':');
	if (colon) {
		*colon = '\0';
		sh->guest = xstrdup(colon + 1);
	}
	sh->host = xstrdup(copy[0] ? copy : ".");
	if (stat(sh->host, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ktb boot: --share %s: %s is not a folder here%s%s\n",
			spec ? spec : "", sh->host, errno ? ": " : "",
			errno ? strerror(errno) : "");
		ret = KTB_EXIT_USAGE;
	}
	free(copy);
	return ret;
}

static const struct option boot_options[] = {
	{ "scenario", required_argument, 0, 'S' }, { "cpus", required_argument, 0, 'c' },
	{ "memory", required_argument, 0, 'M' },   { "disk", required_argument, 0, 'd' },
	{ "numa", required_argument, 0, 'n' },	   { "sleep", required_argument, 0, 's' },
	{ "kernel", required_argument, 0, 'k' },   { "modules", required_argument, 0, 'm' },
	{ "recipe", required_argument, 0, 'r' },   { "append", required_argument, 0, 'a' },
	{ "share", optional_argument, 0, 'F' },	   { "exec", required_argument, 0, 'x' },
	{ "script", required_argument, 0, 'X' },   { "verbose", no_argument, 0, 'v' },
	{ "gdb", optional_argument, 0, 'g' },	   { "gdb-wait", no_argument, 0, 'w' },
	{ "root", required_argument, 0, 'R' },	   { "package", required_argument, 0, 'P' },
	{ "help", no_argument, 0, 'h' },	   { 0, 0, 0, 0 },
};

static int boot_parse(int argc, char **argv, struct boot_cli *c)
{
	int ch, r = 0;

	optind = 1;
	while (!r && (ch = getopt_long(argc, argv, "vh", boot_options, NULL)) != -1) {
		if (kernel_choice_option(&c->k, ch, optarg))
			continue;
		switch (ch) {
		case 'S':
			c->scenario = optarg;
			break;
		case 'c': {
			int n = 0;

			r = cli_count("boot", "--cpus", optarg, 64, &n) ? KTB_EXIT_USAGE : 0;
			c->m.cpus = (unsigned)n;
			break;
		}
		case 'M':
			c->m.memory = xstrdup(optarg);
			break;
		case 'd':
			r = add_disk(&c->m, optarg);
			break;
		case 'n':
			r = add_node(&c->m, optarg);
			break;
		case 's':
			r = parse_sleep(optarg, &c->m.sleep);
			break;
		case 'a':
			c->append = optarg;
			break;
		case 'F':
			/* --share DIR as well as --share=DIR; a bare --share is "." */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			errno = 0;
			r = add_share(c, optarg);
			break;
		case 'x':
			c->exec.cmd = optarg;
			break;
		case 'X':
			c->exec.script = optarg;
			break;
		case 'v':
			c->k.verbose = true;
			break;
		case 'g':
			r = cli_gdb_option(&c->gdb, optarg);
			break;
		case 'w':
			c->gdb.wait = true;
			break;
		case 'R':
			c->root = optarg;
			break;
		case 'P':
			c->packages =
			    xrealloc(c->packages, (c->packages_count + 1) * sizeof(*c->packages));
			c->packages[c->packages_count++] = optarg;
			break;
		case 'h':
			boot_usage(stdout);
			exit(0);
		default:
			cli_usage_hint();
			return KTB_EXIT_USAGE;
		}
	}
	if (!r && optind < argc) {
		fprintf(stderr, "ktb boot: unexpected argument '%s'\n", argv[optind]);
		r = KTB_EXIT_USAGE;
	}
	if (!r && c->exec.cmd && c->exec.script) {
		fprintf(stderr, "ktb boot: --exec and --script each give the command; give one\n");
		r = KTB_EXIT_USAGE;
	}
	if (!r && c->packages_count && !c->root)
		c->root = "debian";
	if (!r && c->root && !guest_root_name_valid(c->root)) {
		fprintf(stderr, "ktb boot: --root %s: give image, host or debian\n", c->root);
		r = KTB_EXIT_USAGE;
	}
	if (!r && c->packages_count && strcmp(c->root, "debian")) {
		fprintf(stderr, "ktb boot: --package is for --root debian, not --root %s\n",
			c->root);
		r = KTB_EXIT_USAGE;
	}
	if (!r)
		r = cli_gdb_check(&c->gdb);
	return r ? r : boot_exec_check(&c->exec);
}

static void shares_free(struct share *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(v[i].host);
		free(v[i].guest);
		free(v[i].readonly);
		free(v[i].transport);
	}
	free(v);
}

static void machine_free_flags(struct machine *m)
{
	for (unsigned i = 0; i < m->disks_count; i++) {
		free(m->disks[i].id);
		free(m->disks[i].size);
		free(m->disks[i].image);
	}
	free(m->disks);
	shares_free(m->shares, m->shares_count);
	if (m->numa) {
		for (unsigned i = 0; i < m->numa->nodes_count; i++) {
			free(m->numa->nodes[i].cpus);
			free(m->numa->nodes[i].memory);
		}
		free(m->numa->nodes);
		free(m->numa);
	}
	free(m->memory);
}

static bool boot_execs(const struct boot_cli *c)
{
	return c->exec.cmd || c->exec.script;
}

static char *boot_append(const struct machine *m, const struct boot_cli *c)
{
	/* ktb.shell: init keeps a shell on the console for the user */
	const char *shell = boot_execs(c) ? "" : "ktb.shell";
	char *extra =
	    xasprintf("%s%s%s", shell, c->append && *shell ? " " : "", c->append ? c->append : "");
	char *s = vm_kernel_cmdline(m, c->cmdline, extra);

	free(extra);
	return s;
}

/* "; sharing HOST at GUEST (ro, 9p), ..." for the banner. */
static char *shares_banner(const struct machine *m)
{
	char *s = xstrdup(""), *n;

	for (unsigned i = 0; i < m->shares_count; i++) {
		n = xasprintf("%s%s %s at %s (%s, %s%s%s)", s, i ? "," : "; sharing",
			      m->shares[i].host, m->shares[i].guest,
			      m->shares[i].writable ? "rw" : "ro", share_transport(&m->shares[i]),
			      m->shares[i].note[0] ? ": " : "", m->shares[i].note);
		free(s);
		s = n;
	}
	return s;
}

/* The same start as `ktb run` (vm_start), with QEMU on the terminal; or,
 * with --exec, without a terminal and the command's output instead. */
static int boot_vm(struct machine *m, const struct boot_cli *c, struct image *img, bool kvm)
{
	char *dir = tmp_template("ktb-boot");
	struct vm_config vc = {
		.machine = m, .initrd = img->initrd, .kvm = kvm, .sig_fd = -1, .interactive = true
	};
	struct vm vm;
	char *banner = NULL, *append = NULL, *shares = NULL;
	const char *kfile;
	int ret;

	memset(&vm, 0, sizeof(vm));
	if (!mkdtemp(dir)) {
		fprintf(stderr, "ktb boot: cannot create %s: %s\n", dir, strerror(errno));
		free(dir);
		return KTB_EXIT_UNTESTED;
	}
	vc.kernel = vm_pick_kernel(m, img);
	if (!vc.kernel) {
		fprintf(stderr, "ktb boot: the machine offers S3, which needs a bzImage, but the "
				"image has only a vmlinux\n");
		ret = KTB_EXIT_USAGE;
		goto out;
	}
	append = boot_append(m, c);
	shares = shares_banner(m);
	kfile = strrchr(vc.kernel, '/') ? strrchr(vc.kernel, '/') + 1 : vc.kernel;
	banner = xasprintf("ktb boot: booting %s (%s, %s); QMP %s/qmp.sock, guest agent "
			   "%s/qga.sock%s; Ctrl-A X quits",
			   img->release, kfile, kvm ? "kvm" : "tcg", dir, dir, shares);
	vc.append = append;
	vc.workdir = dir;
	vc.banner = banner;
	vc.gdb_port = c->gdb.port;
	vc.gdb_wait = c->gdb.wait;
	if (boot_execs(c)) {
		vc.interactive = false;
		vc.banner = NULL;
		vc.sig_fd = proc_signals_install();
		if (c->k.verbose)
			fprintf(stderr, "ktb boot: booting %s (%s, %s)%s; running in %s\n",
				img->release, kfile, kvm ? "kvm" : "tcg", shares, c->workdir);
		ret = boot_exec_run(&vc, &c->exec);
		goto out;
	}
	/* hybrid disks: their back ends listen before QEMU connects (logs in dir) */
	ret = vm_start(&vm, &vc, now_ms() + 10000);
	if (!ret)
		ret = vm_wait_exit(&vm);
	if (ret) {
		fprintf(stderr, "ktb boot: %s\n", vm.err);
		ret = vm.bad_config ? KTB_EXIT_USAGE : KTB_EXIT_UNTESTED;
	}
	vm_stop(&vm);
out:
	rm_rf(dir);
	free(dir);
	free(append);
	free(banner);
	free(shares);
	return ret;
}

/* --exec with no --share shares the current folder (read-only, at the same
 * path) unless the machine already shares it; then the --share folders
 * join the machine's own (a scenario's too: a share is no hardware under
 * test). The machine owns them from here. */
static void boot_shares(struct boot_cli *c, struct machine *m)
{
	char *cwd = realpath(".", NULL);
	bool have = false;

	for (unsigned i = 0; cwd && i < m->shares_count; i++) {
		char *h = realpath(m->shares[i].host, NULL);

		have = have || (h && !strcmp(h, cwd));
		free(h);
	}
	if (boot_execs(c) && !c->shares_count && !have)
		add_share(c, NULL);
	free(cwd);
	if (!c->shares_count)
		return;
	m->shares = xrealloc(m->shares, (m->shares_count + c->shares_count) * sizeof(*m->shares));
	memcpy(m->shares + m->shares_count, c->shares, c->shares_count * sizeof(*c->shares));
	m->shares_count += c->shares_count;
	free(c->shares);
	c->shares = NULL;
	c->shares_count = 0;
}

/* Where the current folder is in the guest: under the share that holds it
 * (the deepest), else /. The machine is validated: hosts are absolute. */
static char *boot_workdir(const struct machine *m)
{
	char *cwd = realpath(".", NULL), *w = NULL;
	size_t best = 0;

	for (unsigned i = 0; cwd && i < m->shares_count; i++) {
		const char *h = m->shares[i].host;
		size_t n = strlen(h);

		if (n == 1)
			n = 0; /* the host's / */
		if (strncmp(cwd, h, n) || (cwd[n] && cwd[n] != '/') || (w && n < best))
			continue;
		free(w);
		w = xasprintf("%s%s", strcmp(m->shares[i].guest, "/") ? m->shares[i].guest : "",
			      cwd + n);
		best = n;
	}
	free(cwd);
	if (w && *w)
		return w;
	free(w);
	return xstrdup("/");
}

static int cli_boot(int argc, char **argv)
{
	struct boot_cli c;
	struct scenario_set set = { 0 };
	struct machine *m;
	struct image img = { 0 };
	struct hw_error he = { { 0 }, { 0 } };
	char why[1100];
	int ret;

	memset(&c, 0, sizeof(c));
	ret = boot_parse(argc, argv, &c);
	shares_preflight_enable();
	if (!ret && c.scenario)
		ret = scenarios_load_all((char **)&c.scenario, 1, &set);
	if (ret)
		goto out;
	m = c.scenario ? set.items[0]->machine : &c.m;
	if (c.scenario && set.items[0]->kernel)
		c.cmdline = set.items[0]->kernel->cmdline;
	if (c.scenario && (c.m.disks_count || c.m.numa || c.m.cpus || c.m.memory || c.m.sleep)) {
		fprintf(stderr, "ktb boot: --scenario takes the whole machine from the scenario; "
				"drop the hardware flags, or the --scenario\n");
		ret = KTB_EXIT_USAGE;
		goto out;
	}
	boot_shares(&c, m);
	if (machine_validate(m, &he)) {
		fprintf(stderr, "ktb boot: %s: %s\n", he.field, he.msg);
		ret = KTB_EXIT_USAGE;
		goto out;
	}
	if (shares_refused(m, NULL)) {
		/* the machine is right, this host cannot carry it */
		fprintf(stderr, "ktb boot: %s\n", shares_refused(m, NULL)->note);
		ret = KTB_EXIT_UNTESTED;
		goto out;
	}
	c.workdir = boot_workdir(m);
	c.exec.workdir = c.workdir;
	/* --root, else the scenario's guest.root (ktb boot is the user's own
	 * choice: the host's root needs no --allow-host-root here) */
	if (!c.root && c.scenario && set.items[0]->guest) {
		c.root = set.items[0]->guest->root;
		c.packages = set.items[0]->guest->packages;
		c.packages_count = set.items[0]->guest->packages_count;
		c.packages_borrowed = true;
	}
	ret = guest_root_prepare(c.root, c.packages, c.packages_count, &c.root_dir, &c.root_disk,
				 why, sizeof(why));
	if (ret) {
		fprintf(stderr, "ktb boot: %s\n", why);
		goto out;
	}
	guest_root_machine(m, c.root_dir, c.root_disk);
	ret = image_prepare(&c.k, &img);
	if (!ret && c.gdb.on) {
		/* nokaslr: the symbols' addresses hold */
		ret = cli_gdb_prepare(&c.gdb, &c.k, &img);
		c.gdb_append = cli_gdb_append(c.append);
		c.append = c.gdb_append;
	}
	if (!ret)
		ret = boot_vm(m, &c, &img, accel_prepare(&img, false));
out:
	image_free(&img);
	scenarios_free(&set);
	machine_free_flags(&c.m);
	shares_free(c.shares, c.shares_count); /* those not handed to the machine */
	free(c.workdir);
	free(c.gdb_append);
	free(c.root_dir);
	free(c.root_disk);
	if (!c.packages_borrowed)
		free(c.packages);
	return ret;
}

const struct cli_command cli_boot_command = {
	.name = "boot",
	.fn = cli_boot,
	.summary = "a VM with its console on this terminal, or running one command: ktb boot "
		   "[options]",
	.usage = boot_usage,
	.options = boot_options,
	.shortopts = "vh",
};
