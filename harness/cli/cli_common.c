#include "cli_common.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

#include "cli.h"
#include "image_kconfig.h"
#include "kvm.h"
#include "proc.h"
#include "shard.h"
#include "share.h"
#include "util.h"
#include "virtiofs.h"

const char *scenarios_default_dir(void)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/scenarios", ktb_source_dir());
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = s;
}

static int expand_dir(const char *dir, char ***files, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = *n;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] != '.' && len > 5 && !strcmp(e->d_name + len - 5, ".yaml"))
			push(files, n, xasprintf("%s/%s", dir, e->d_name));
	}
	closedir(d);
	/* an empty folder leaves *files NULL, which qsort may not be given */
	if (*n > first)
		qsort(*files + first, *n - first, sizeof(char *), cmp_str);
	return 0;
}

static int expand_paths(char **paths, int np, char ***files, size_t *n)
{
	for (int i = 0; i < np; i++) {
		struct stat st;

		if (stat(paths[i], &st) < 0) {
			int e = errno;

			cli_err("%s: %s (given as a scenario file or folder)", paths[i],
				strerror(e));
			return -e;
		}
		if (!S_ISDIR(st.st_mode)) {
			push(files, n, xstrdup(paths[i]));
			continue;
		}
		int r = expand_dir(paths[i], files, n);

		if (r) {
			cli_err("%s: %s (given as a scenario folder)", paths[i], strerror(-r));
			return r;
		}
	}
	return 0;
}

static int check_unique(const struct scenario_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(set->items[i]->name, set->items[j]->name)) {
				fprintf(stderr,
					"ktb: %s: scenario name \"%s\" is also used by %s; "
					"names must be unique\n",
					set->items[i]->file, set->items[i]->name,
					set->items[j]->file);
				return -EINVAL;
			}
	return 0;
}

int scenarios_load_all(char **paths, int np, struct scenario_set *set)
{
	char **files = NULL;
	size_t n = 0;
	int bad = 0, unread = 0;

	memset(set, 0, sizeof(*set));
	if (expand_paths(paths, np, &files, &n))
		bad = unread = 1;
	/* every file is loaded, so that each bad one is named at once */
	for (size_t i = 0; !unread && i < n; i++) {
		struct scenario_error err;
		struct scenario *s = NULL;

		if (scenario_load(files[i], &s, &err)) {
			scenario_error_print(stderr, "ktb: ", &err);
			bad = 1;
			continue;
		}
		set->items = xrealloc(set->items, (set->count + 1) * sizeof(*set->items));
		set->items[set->count++] = s;
	}
	if (!bad && !set->count) {
		cli_err("no scenario files (*.yaml) in %s%s", paths[0],
			np > 1 ? " nor in the other folders given" : "");
		bad = 1;
	}
	if (!bad && check_unique(set))
		bad = 1;
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	if (bad)
		scenarios_free(set);
	return bad ? KTB_EXIT_USAGE : 0;
}

void scenarios_free(struct scenario_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		scenario_free(set->items[i]);
	free(set->items);
	memset(set, 0, sizeof(*set));
}

int scenarios_shard(struct scenario_set *set, const char *cmd, const char *arg)
{
	const char **names = xcalloc(set->count + 1, sizeof(*names));
	int64_t *weights = xcalloc(set->count + 1, sizeof(*weights));
	unsigned *of = xcalloc(set->count + 1, sizeof(*of)), k, n;
	char why[200];
	size_t kept = 0;
	int ret = KTB_EXIT_USAGE;

	if (shard_parse(arg, &k, &n, why, sizeof(why))) {
		fprintf(stderr, "ktb %s: %s\n", cmd, why);
		goto out;
	}
	for (size_t i = 0; i < set->count; i++) {
		names[i] = set->items[i]->name;
		weights[i] = set->items[i]->timeout_ms;
	}
	if (shard_assign(names, weights, set->count, n, of)) {
		fprintf(stderr, "ktb %s: --shard: two scenarios share a name\n", cmd);
		goto out;
	}
	for (size_t i = 0; i < set->count; i++) {
		if (of[i] == k - 1)
			set->items[kept++] = set->items[i];
		else
			scenario_free(set->items[i]);
	}
	set->count = kept;
	ret = 0;
out:
	free(names);
	free(weights);
	free(of);
	return ret;
}

void shares_preflight_enable(void)
{
	share_set_virtiofsd_check(virtiofs_check);
}

void shares_notes_print(const struct scenario_set *set, FILE *f)
{
	for (size_t i = 0; i < set->count; i++) {
		const struct machine *m = set->items[i]->machine;

		for (unsigned j = 0; m && j < m->shares_count; j++)
			if (m->shares[j].note[0] && !m->shares[j].refused)
				fprintf(f, "ktb %s: note: %s: machine.shares[%u] (%s): %s\n",
					cli_name(), set->items[i]->name, j, m->shares[j].host,
					m->shares[j].note);
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void scenarios_selection(const struct scenario_set *set, struct run_selection *sel)
{
	const char **names = xcalloc(set->count + 1, sizeof(*names));
	int64_t *weights = xcalloc(set->count + 1, sizeof(*weights));
	char hex[65];

	for (size_t i = 0; i < set->count; i++) {
		names[i] = set->items[i]->name;
		weights[i] = set->items[i]->timeout_ms;
	}
	shard_selection_hash(sel, names, weights, set->count, hex);
	free(sel->hash);
	sel->hash = xstrdup(hex);
	qsort(names, set->count, sizeof(*names), name_cmp);
	sel->scenarios = run_selection_words(names, set->count);
	sel->scenarios_count = set->count;
	free(names);
	free(weights);
}

/* "6.1.0-57" is an ABI name; anything with a slash or an existing file is a path. */
static bool is_abi(const char *k)
{
	return k && !strchr(k, '/') && access(k, F_OK) != 0;
}

/* --kernel DIR: the tree's bzImage becomes kernel_path, the tree comes along
 * for its modules. 0, or KTB_EXIT_USAGE after saying what DIR lacks. */
static int tree_prepare(struct image_opts *o, char **bzimage)
{
	char err[1024] = "";

	if (!o->kernel_path || !image_tree_is(o->kernel_path))
		return 0;
	if (image_tree_kernel(o->kernel_path, bzimage, err, sizeof(err))) {
		cli_err("%s", err);
		return KTB_EXIT_USAGE;
	}
	o->kernel_tree = o->kernel_path;
	o->kernel_path = *bzimage;
	return 0;
}

int image_prepare(const struct kernel_choice *k, struct image *img)
{
	struct image_opts o = {
		.recipe = k->recipe,
		.kernel_abi = is_abi(k->kernel) ? k->kernel : NULL,
		.kernel_path = k->kernel && !is_abi(k->kernel) ? k->kernel : NULL,
		.modules_dir = k->modules,
		.verbose = k->verbose,
	};
	char err[2048] = "", *bzimage = NULL;
	int r;

	if (o.kernel_path && access(o.kernel_path, R_OK) != 0) {
		cli_err("--kernel %s: %s (give a Debian ABI such as 6.1.0-57, a kernel "
			"build tree, or a path to a bzImage or vmlinux)",
			o.kernel_path, strerror(errno));
		return KTB_EXIT_USAGE;
	}
	if (k->modules && !o.kernel_path) {
		cli_err("--modules goes with --kernel PATH (a kernel of your own)");
		return KTB_EXIT_USAGE;
	}
	r = tree_prepare(&o, &bzimage);
	if (!r)
		r = image_ensure(&o, img, err, sizeof(err));
	free(bzimage);
	if (r == KTB_EXIT_USAGE)
		return r;
	if (r == -EINVAL) {
		cli_err("%s", err);
		return KTB_EXIT_USAGE;
	}
	if (r) {
		cli_err("cannot build the guest image: %s", err);
		return KTB_EXIT_UNTESTED;
	}
	return 0;
}

int guest_root_prepare(const char *root, char *const *packages, unsigned n, char **dir, char **disk,
		       char *why, size_t len)
{
	char err[1024] = "";
	int r;

	*dir = *disk = NULL;
	why[0] = '\0';
	if (!root || !strcmp(root, GUEST_ROOT_IMAGE))
		return 0;
	if (!strcmp(root, GUEST_ROOT_HOST)) {
		*dir = xstrdup("/");
		return 0;
	}
	r = image_debian_root(packages, n, dir, err, sizeof(err));
	if (!r && (r = image_root_disk(*dir, disk, err, sizeof(err)))) {
		free(*dir);
		*dir = NULL;
	}
	if (!r)
		return 0;
	snprintf(why, len, "the Debian root cannot be made: %s", err);
	return r == -EINVAL ? KTB_EXIT_USAGE : KTB_EXIT_UNTESTED;
}

void guest_root_machine(struct machine *m, const char *dir, const char *disk)
{
	m->root = disk ? NULL : dir;
	m->root_disk = disk;
}

bool accel_prepare(const struct image *img, bool quiet)
{
	enum kvm_verdict v = KVM_ABSENT;
	char why[512] = "";
	const char *k = img->vmlinux ? img->vmlinux : img->bzimage;

	if (kvm_detect(k, img->initrd, false, &v, why, sizeof(why))) {
		/* a setting the user got wrong must not quietly turn into TCG */
		if (strncmp(why, "KTB_ACCEL=", 10) == 0) {
			cli_err("%s", why);
			exit(KTB_EXIT_USAGE);
		}
		if (!quiet)
			cli_err("note: %s; using TCG", why);
		return false;
	}
	if (v == KVM_BROKEN && !quiet)
		cli_err("note: /dev/kvm does not work here (%s); using TCG", why);
	return v == KVM_WORKS;
}

bool kernel_choice_option(struct kernel_choice *k, int ch, const char *arg)
{
	switch (ch) {
	case 'k':
		k->kernel = arg;
		return true;
	case 'm':
		k->modules = arg;
		return true;
	case 'r':
		k->recipe = arg;
		return true;
	}
	return false;
}

struct kconfig *kconfig_prepare(const struct image *img)
{
	struct kconfig *k = NULL;
	char why[1024] = "";

	if (image_kernel_config(img, &k, why, sizeof(why))) {
		cli_err("note: the kernel's config is not known (%s); scenarios boot without "
			"a check of the options they need",
			why);
		return NULL;
	}
	return k;
}

char *cli_self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xstrdup("ktb");
	buf[n] = '\0';
	return xstrdup(buf);
}

static bool child_running(const struct child_process *cp)
{
	return cp && cp->pid > 0 && !cp->exited;
}

void cli_stop_children(struct child_process *const *cps, size_t n, int grace_ms)
{
	for (size_t i = 0; i < n; i++)
		if (child_running(cps[i]))
			signal_command(cps[i], SIGTERM);
	for (size_t i = 0; i < n; i++)
		if (child_running(cps[i]))
			finish_command(cps[i], grace_ms);
}

int cli_wait_children(struct child_process *const *cps, size_t n, int grace_ms,
		      void (*done)(void *arg, size_t i, int code), void *arg)
{
	struct pollfd pfd = { .fd = proc_signals_install(), .events = POLLIN };
	size_t left = 0;

	for (size_t i = 0; i < n; i++)
		left += child_running(cps[i]);
	while (left) {
		poll(&pfd, 1, 200);
		if (proc_interrupted()) {
			cli_stop_children(cps, n, grace_ms);
			return -EINTR;
		}
		for (size_t i = 0; i < n; i++) {
			if (!child_running(cps[i]) || !poll_command(cps[i]))
				continue;
			left--;
			if (done)
				done(arg, i, command_exit_code(cps[i]->status));
		}
	}
	return 0;
}

int cli_count(const char *cmd, const char *opt, const char *arg, long max, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < 1 || v > max) {
		fprintf(stderr, "ktb %s: %s %s: give a number from 1 to %ld\n", cmd, opt, arg, max);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

/* A report path that cannot be meant: why, or NULL. */
static const char *report_path_bad(const char *path)
{
	size_t n = strlen(path);
	struct stat st;

	if (!n)
		return "give a file name, or - for standard output";
	if (path[0] == '-' && path[1])
		return "a file name cannot start with '-' (an option after a report option "
		       "that lacks its FILE?); give the file, or - for standard output";
	if ((n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml")))
		return "that names a scenario file, which a report would overwrite; give the "
		       "report's own file, or - for standard output";
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return "that is a folder; give the report's file in it, or - for standard output";
	return NULL;
}

int reports_check(const struct report_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *why;

		if (!files[i].path)
			continue;
		why = report_path_bad(files[i].path);
		if (why) {
			cli_err("%s %s: %s", files[i].opt, files[i].path, why);
			return KTB_EXIT_USAGE;
		}
		for (size_t j = 0; j < i; j++)
			if (files[j].path && !strcmp(files[i].path, files[j].path)) {
				cli_err("%s %s: %s writes %s already; give each report its own %s",
					files[i].opt, files[i].path, files[j].opt,
					strcmp(files[i].path, "-") ? "that file"
								   : "standard output",
					strcmp(files[i].path, "-") ? "file" : "place");
				return KTB_EXIT_USAGE;
			}
	}
	return 0;
}

bool reports_to_stdout(const struct report_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (files[i].path && !strcmp(files[i].path, "-"))
			return true;
	return false;
}

static int report_write_tmp(const struct report_file *rf, const char *tmp,
			    const struct run_result *rr)
{
	FILE *f = fopen(tmp, "w");
	int r;

	if (!f) {
		cli_err("cannot write %s %s: %s", rf->opt, rf->path, strerror(errno));
		return -EIO;
	}
	r = rf->fn(rr, f);
	if (fclose(f) || r) {
		cli_err("writing %s %s failed", rf->opt, rf->path);
		return -EIO;
	}
	return 0;
}

/* The report for standard output, kept in memory until the files are. */
static int report_write_mem(const struct report_file *rf, char **buf, size_t *len,
			    const struct run_result *rr)
{
	FILE *f = open_memstream(buf, len);
	int r;

	if (!f) {
		cli_err("cannot write %s -: %s", rf->opt, strerror(errno));
		return -EIO;
	}
	r = rf->fn(rr, f);
	if (fclose(f) || r) {
		cli_err("writing %s - failed", rf->opt);
		return -EIO;
	}
	return 0;
}

int reports_write(const struct report_file *files, size_t n, const struct run_result *rr)
{
	char **tmp = xcalloc(n + 1, sizeof(*tmp)), *out = NULL;
	size_t i, len = 0;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		if (!files[i].path)
			continue;
		if (!strcmp(files[i].path, "-")) {
			ret = report_write_mem(&files[i], &out, &len, rr);
			continue;
		}
		tmp[i] = xasprintf("%s.tmp-%ld", files[i].path, (long)getpid());
		ret = report_write_tmp(&files[i], tmp[i], rr);
	}
	/* every file is written: standard output gets its report, then the
	 * files go into place */
	if (!ret && out) {
		fflush(stdout);
		if (fwrite(out, 1, len, stdout) != len || fflush(stdout)) {
			cli_err("cannot write the report to standard output: %s", strerror(errno));
			ret = -EIO;
		}
	}
	for (i = 0; i < n && !ret; i++)
		if (tmp[i] && rename(tmp[i], files[i].path)) {
			cli_err("cannot write %s %s: %s", files[i].opt, files[i].path,
				strerror(errno));
			ret = -EIO;
		}
	for (i = 0; i < n; i++) {
		/* after a failure: no half-written file stays */
		if (tmp[i] && ret)
			unlink(tmp[i]);
		free(tmp[i]);
	}
	free(tmp);
	free(out);
	return ret;
}

int run_document_load(const char *path, struct run_result *r)
{
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);
	char why[300];
	int ret;

	if (!j && access(path, R_OK)) {
		cli_err("%s: cannot read: %s", path, strerror(errno));
		return KTB_EXIT_USAGE;
	}
	if (!j) {
		cli_err("%s: not a JSON file (line %d: %s)", path, jerr.line, jerr.text);
		return KTB_EXIT_USAGE;
	}
	ret = run_result_from_json(j, r, why, sizeof(why));
	json_decref(j);
	if (ret) {
		cli_err("%s: %s", path, why);
		return KTB_EXIT_USAGE;
	}
	return 0;
}

/* "10%", "10" or "0.1" as 0.1, in the open interval (lo, hi); -1 otherwise */
static double cli_fraction(const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return -1;
	if (*end == '%' || v > 1) {
		v /= 100;
		end += *end == '%';
	}
	return *end || v <= lo || v >= hi ? -1 : v;
}

int cli_threshold(const char *arg, double *out)
{
	*out = cli_fraction(arg, 0, 10);
	if (*out >= 0)
		return 0;
	cli_err("--threshold %s: give a change above 0, as 10%% or 0.1", arg);
	return KTB_EXIT_USAGE;
}

int cli_confidence(const char *arg, double *out)
{
	*out = cli_fraction(arg, 0.5, 1);
	if (*out >= 0)
		return 0;
	cli_err("--confidence %s: give a level between 50%% and 100%%, as 95%% or 0.95", arg);
	return KTB_EXIT_USAGE;
}

int cli_gdb_option(struct gdb_cli *g, const char *arg)
{
	char *end;
	long port;

	g->on = true;
	if (!arg)
		return 0;
	port = strtol(arg, &end, 10);
	if (*end || end == arg || port < 1024 || port > 65535) {
		cli_err(
		    "--gdb=%s: give a TCP port from 1024 to 65535, or --gdb alone for a free one",
		    arg);
		return KTB_EXIT_USAGE;
	}
	g->port = (unsigned)port;
	return 0;
}

/* A port nothing listens on now, on the loopback: bind port 0 and read
 * what the kernel gave. 0 when none could be had. */
static unsigned free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unsigned port = 0;

	if (fd < 0)
		return 0;
	if (!bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* Does the ELF file at path have a symbol table (.symtab)? A distribution's
 * vmlinux, unpacked from its bzImage, has none. */
static bool elf_has_symtab(const char *path)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	bool found = false;

	if (!f)
		return false;
	if (fread(&eh, sizeof(eh), 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(sh))
		for (unsigned i = 0; i < eh.e_shnum && !found; i++)
			found =
			    !fseek(f, (long)(eh.e_shoff + (Elf64_Off)i * sizeof(sh)), SEEK_SET) &&
			    fread(&sh, sizeof(sh), 1, f) == 1 && sh.sh_type == SHT_SYMTAB;
	fclose(f);
	return found;
}

int cli_gdb_check(const struct gdb_cli *g)
{
	if (g->wait && !g->on) {
		cli_err("--gdb-wait holds the CPUs for a debugger; give --gdb too");
		return KTB_EXIT_USAGE;
	}
	return 0;
}

int cli_gdb_prepare(struct gdb_cli *g, const struct kernel_choice *k, const struct image *img)
{
	struct stat st;
	const char *tree =
	    k->kernel && !stat(k->kernel, &st) && S_ISDIR(st.st_mode) ? k->kernel : NULL;
	char *scripts = tree ? xasprintf("%s/vmlinux-gdb.py", tree) : NULL;
	char *vmlinux =
	    tree ? xasprintf("%s/vmlinux", tree) : xstrdup(img->vmlinux ? img->vmlinux : "");
	bool syms = elf_has_symtab(vmlinux);
	int ret = 0;

	if (!g->on)
		goto out;
	if (!g->port && !(g->port = free_port())) {
		cli_err("--gdb: no free TCP port on 127.0.0.1: %s", strerror(errno));
		ret = KTB_EXIT_UNTESTED;
		goto out;
	}
	cli_err("gdb: QEMU's gdb server on 127.0.0.1:%u%s (nokaslr); attach with:", g->port,
		g->wait ? ", the CPUs held until a debugger lets them go" : "");
	fprintf(stderr, "  gdb -q%s%s -ex 'target remote 127.0.0.1:%u'%s%s%s\n", syms ? " " : "",
		syms ? vmlinux : "", g->port,
		scripts && !access(scripts, R_OK) ? " -ex 'source " : "",
		scripts && !access(scripts, R_OK) ? scripts : "",
		scripts && !access(scripts, R_OK) ? "'" : "");
	if (!syms)
		cli_err(
		    "note: the kernel's vmlinux has no symbol table (a distribution's has none; "
		    "give --kernel a build tree for one): read addresses from the guest's "
		    "/proc/kallsyms, which nokaslr keeps the same from boot to boot");
out:
	free(scripts);
	free(vmlinux);
	return ret;
}

char *cli_gdb_append(const char *append)
{
	return xasprintf("%s%snokaslr", append ? append : "", append ? " " : "");
}
