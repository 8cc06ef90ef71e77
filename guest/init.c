/* init: PID 1 of the testbed's initramfs. Mounts the kernel filesystems,
 * loads the image's modules, names disks by scenario id, starts the guest
 * agent, prints KTB_READY_MARKER, then reaps children and restarts the agent
 * until busybox poweroff/reboot signal it to shut down. */
#include "disk.h"
#include "mpath.h"
#include "protocol.h"
#include "root.h"
#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

#define INIT_PATH "/usr/bin:/bin:/sbin:/usr/sbin"
#define INIT_QGA "/usr/sbin/qemu-ga" /* where Debian's package puts it */
#define INIT_DISK_WAIT_MS 10000
#define INIT_PORT_WAIT_MS 5000
#define INIT_POLL_MS 100
#define INIT_MAX_BACKOFF_MS 30000

static char init_cmdline[4096];

static void init_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void init_log(const char *fmt, ...)
{
	va_list ap;

	fputs("ktb: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static int64_t init_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void init_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

struct init_mount {
	const char *src, *target, *type;
	unsigned long flags;
	const char *data;
	bool optional; /* absent from some kernels; no complaint */
};

static const struct init_mount init_mounts[] = {
	{ "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL, false },
	{ "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL, false },
	{ "devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755", false },
	{ "devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "mode=620,ptmxmode=666", false },
	{ "tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777", true },
	{ "tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755", false },
	{ "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777", false },
	{ "debugfs", "/sys/kernel/debug", "debugfs", 0, NULL, true },
};

static void init_mount_all(void)
{
	const struct init_mount *m;
	size_t i;

	for (i = 0; i < sizeof(init_mounts) / sizeof(init_mounts[0]); i++) {
		m = &init_mounts[i];
		mkdir(m->target, 0755);
		if (!mount(m->src, m->target, m->type, m->flags, m->data) || errno == EBUSY)
			continue;
		if (!m->optional)
			init_log("mount %s on %s: %s", m->type, m->target, strerror(errno));
	}
}

/* The links udev makes on a full system and devtmpfs lacks: scripts that
 * write to /dev/stdout (the kselftest runner, for one) would otherwise make
 * a plain file of that name. */
static const char *const init_dev_links[][2] = {
	{ "/proc/self/fd", "/dev/fd" },
	{ "/proc/self/fd/0", "/dev/stdin" },
	{ "/proc/self/fd/1", "/dev/stdout" },
	{ "/proc/self/fd/2", "/dev/stderr" },
};

static void init_dev_links_make(void)
{
	size_t i;

	for (i = 0; i < sizeof(init_dev_links) / sizeof(init_dev_links[0]); i++)
		if (symlink(init_dev_links[i][0], init_dev_links[i][1]) && errno != EEXIST)
			init_log("symlink %s: %s", init_dev_links[i][1], strerror(errno));
}

/* The kernel opens /dev/console for init only if the initramfs has the node;
 * with devtmpfs mounted it surely exists. */
static void init_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Looks up a kernel argument: returns true if "name" or "name=value" is on
 * the command line, with value (or "") copied to val. */
static bool init_arg(const char *name, char *val, size_t len)
{
	size_t nlen = strlen(name), tlen;
	const char *p = init_cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		tlen = strcspn(p, " ");
		if (tlen == 2 && !strncmp(p, "--", 2))
			break; /* what follows is init's argv, not kernel arguments */
		if (tlen >= nlen && !strncmp(p, name, nlen) && (tlen == nlen || p[nlen] == '=')) {
			tlen = tlen == nlen ? 0 : tlen - nlen - 1;
			if (tlen >= len)
				tlen = len - 1;
			memcpy(val, p + nlen + 1, tlen); /* skips the '=' */
			val[tlen] = '\0';
			return true;
		}
		p += tlen;
	}
	return false;
}

/* Serial output still in the UART buffer is lost at power-off; the host
 * waits for the marker, so drain the console before going down. */
static void init_power(int how)
{
	fflush(stdout);
	tcdrain(STDOUT_FILENO);
	sync();
	reboot(how);
	init_log("reboot: %s", strerror(errno));
	for (;;)
		pause(); /* PID 1 must never exit: the kernel would panic */
}

/* The module's name as the kernel knows it: the file name of the first
 * word of path, without its extensions, '-' written '_'. */
static void init_module_name(const char *path, char *name, size_t len)
{
	const char *base = path, *end = path + strcspn(path, " \t");
	size_t n, i;

	for (const char *p = path; p < end; p++)
		if (*p == '/')
			base = p + 1;
	n = strcspn(base, ". \t");
	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[n] = '\0';
}

/* Appends the kernel arguments "MOD.param=value" for module file path to
 * params, as modprobe does: the kernel applies them only to built-in code,
 * so without this `nvme_core.multipath=N` would do nothing to a module. */
static void init_module_args(const char *path, char *params, size_t len)
{
	const char *p = init_cmdline;
	char mod[64];
	size_t n, tlen, used = strlen(params);

	init_module_name(path, mod, sizeof(mod));
	n = strlen(mod);
	while (*p) {
		while (*p == ' ')
			p++;
		tlen = strcspn(p, " ");
		if (tlen == 2 && !strncmp(p, "--", 2))
			break;
		if (tlen > n + 1 && !strncmp(p, mod, n) && p[n] == '.' && memchr(p, '=', tlen) &&
		    used + tlen - n + 1 < len) {
			used += (size_t)snprintf(params + used, len - used, "%s%.*s",
						 used ? " " : "", (int)(tlen - n - 1), p + n + 1);
		}
		p += tlen;
	}
}

/* One line of KTB_MODULES_LIST: "/path/mod.ko [param=value ...]". */
static int init_load_module(char *line)
{
	char *params = line + strcspn(line, " \t"), all[1024];
	size_t len;
	int fd, flags = 0, ret = 0;

	if (*params)
		*params++ = '\0';
	snprintf(all, sizeof(all), "%s", params);
	init_module_args(line, all, sizeof(all));
	params = all;
	len = strlen(line);
	if ((len > 3 && !strcmp(line + len - 3, ".xz")) ||
	    (len > 4 && !strcmp(line + len - 4, ".zst")) ||
	    (len > 3 && !strcmp(line + len - 3, ".gz")))
		flags = MODULE_INIT_COMPRESSED_FILE;
	fd = open(line, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params, flags) && errno != EEXIST)
		ret = -errno;
	close(fd);
	return ret;
}

/* Whether name is a word of the comma-separated list. */
static bool init_in_list(const char *list, const char *name)
{
	size_t n = strlen(name), tlen;

	while (*list) {
		tlen = strcspn(list, ",");
		if (tlen == n && !strncmp(list, name, n))
			return true;
		list += tlen;
		if (*list == ',')
			list++;
	}
	return false;
}

/* Appends name to the comma-separated list unless it is there already. */
static void init_list_add(char *list, size_t len, const char *name)
{
	size_t used = strlen(list);

	if (init_in_list(list, name) || used + strlen(name) + 2 > len)
		return;
	snprintf(list + used, len - used, "%s%s", used ? "," : "", name);
}

/* The modules to load when the host left some out (ktb.nomod=a,b: the
 * machine has no device for them): every module the recipe names, less
 * those, with what each needs (KTB_MODULES_NEEDS, written by the image
 * builder: "module dep ... module" per recipe module). A dependency the
 * left-out modules share with a loaded one stays. false: load them all
 * (no list, or an image without the needs file). */
static bool init_modules_wanted(char *want, size_t len, char *nomod, size_t nlen)
{
	char line[2048], name[64], *tok, *save;
	FILE *f;

	want[0] = '\0';
	if (!init_arg("ktb.nomod", nomod, nlen) || !nomod[0])
		return false;
	f = fopen(KTB_MODULES_NEEDS, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok || tok[0] == '#' || init_in_list(nomod, tok))
			continue;
		while (tok) {
			init_module_name(tok, name, sizeof(name));
			init_list_add(want, len, name);
			tok = strtok_r(NULL, " \t\r\n", &save);
		}
	}
	fclose(f);
	return true;
}

static void init_load_modules(void)
{
	char line[PATH_MAX + 256], name[64], want[8192], nomod[1024];
	int n = 0, failed = 0, skipped = 0, ret;
	bool select;
	FILE *f;

	select = init_modules_wanted(want, sizeof(want), nomod, sizeof(nomod));
	f = fopen(KTB_MODULES_LIST, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		init_module_name(line, name, sizeof(name));
		if (select && !init_in_list(want, name)) {
			skipped++;
			continue;
		}
		ret = init_load_module(line);
		n++;
		if (ret) {
			failed++;
			init_log("module %s: %s", line, strerror(-ret));
		}
	}
	fclose(f);
	if (skipped)
		init_log("loaded %d modules, %d failed, %d left out (ktb.nomod=%s)", n - failed,
			 failed, skipped, nomod);
	else
		init_log("loaded %d modules, %d failed", n - failed, failed);
}

/* Polls until every id in the comma-separated list names a disk, or the
 * deadline passes. Returns the ids still missing in missing[]. */
static int init_wait_disks(const char *ids, int timeout_ms, char *missing, size_t len)
{
	int64_t deadline = init_now_ms() + timeout_ms;
	struct disk_info d;
	char copy[1024], *id, *save;
	int nmissing;

	for (;;) {
		nmissing = 0;
		missing[0] = '\0';
		snprintf(copy, sizeof(copy), "%s", ids);
		for (id = strtok_r(copy, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
			if (!disk_find("", id, &d))
				continue;
			nmissing++;
			snprintf(missing + strlen(missing), len - strlen(missing), "%s%s",
				 nmissing > 1 ? "," : "", id);
		}
		if (!nmissing || init_now_ms() >= deadline)
			return nmissing;
		init_sleep_ms(INIT_POLL_MS);
	}
}

/* ktb.resume=MAJ:MIN or ktb.resume=ID: point the kernel at the hibernation
 * image before anything touches the disks, as hibernation resume requires. */
static void init_resume(const char *arg)
{
	char missing[256], majmin[64];
	struct disk_info d;
	unsigned maj, min;
	char tail;
	int ret;

	if (sscanf(arg, "%u:%u%c", &maj, &min, &tail) == 2) {
		snprintf(majmin, sizeof(majmin), "%u:%u", maj, min);
	} else {
		init_wait_disks(arg, INIT_DISK_WAIT_MS, missing, sizeof(missing));
		if (disk_find("", arg, &d)) {
			init_log("resume: no disk with id %s", arg);
			return;
		}
		snprintf(majmin, sizeof(majmin), "%s", d.majmin);
	}
	init_log("resume from %s", majmin);
	ret = sysfs_write("/sys/power/resume", majmin);
	if (ret)
		init_log("resume: /sys/power/resume: %s", strerror(-ret));
}

/* KTB_DISK_DIR/<id> -> /dev/<name>, for shell steps; the guest tools
 * resolve ids through sysfs themselves. */
static void init_link_disks(void)
{
	static struct disk_info d[DISK_MAX];
	char path[PATH_MAX];
	int n, i;

	mkdir(KTB_DISK_DIR, 0755);
	n = disk_scan("", d, DISK_MAX);
	for (i = 0; i < n; i++) {
		if (!d[i].id[0] || strchr(d[i].id, '/') || d[i].id[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", KTB_DISK_DIR, d[i].id);
		unlink(path);
		if (symlink(d[i].dev, path))
			init_log("symlink %s: %s", path, strerror(errno));
	}
}

/* Runs argv (PATH search) and waits: its exit status, or -errno. */
static int init_run(char *const *argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int init_path_cmp(const void *a, const void *b)
{
	const struct mpath_path *x = a, *y = b;

	return x->path - y->path;
}

/* The SCSI paths of disk id, ordered by target id (= scenario path number);
 * waits until n of them are there. Returns how many were found. */
static int init_mp_paths(const char *id, int n, struct mpath_path *p, uint64_t *sectors)
{
	static struct disk_info d[DISK_MAX];
	int64_t deadline = init_now_ms() + INIT_DISK_WAIT_MS;
	int found, total, i;

	do {
		total = disk_scan("", d, DISK_MAX);
		for (i = found = 0; i < total && found < MPATH_MAX; i++) {
			if (strcmp(d[i].id, id) || strcmp(d[i].transport, "scsi"))
				continue;
			p[found].path = mpath_scsi_target("", d[i].name);
			snprintf(p[found].majmin, sizeof(p[found].majmin), "%s", d[i].majmin);
			*sectors = d[i].size_bytes / 512;
			found++;
		}
		if (found >= n)
			break;
		init_sleep_ms(INIT_POLL_MS);
	} while (init_now_ms() < deadline);
	qsort(p, found, sizeof(*p), init_path_cmp);
	return found;
}

/* One "ID:MODE:PATHS:NOPATH" of ktb.mp: a dm-multipath device "ktb-ID" over
 * the disk's SCSI paths (no multipathd in the guest: init builds the table). */
static void init_mp_one(char *spec)
{
	char *id = strtok(spec, ":"), *mode = strtok(NULL, ":"), *np = strtok(NULL, ":");
	char *nopath = strtok(NULL, ":"), table[512], name[64], uuid[80];
	struct mpath_path p[MPATH_MAX];
	const char *majmin[MPATH_MAX];
	uint64_t sectors = 0;
	int n, want = np ? atoi(np) : 0, ret;

	if (!id || !mode || want < 2 || !nopath) {
		init_log("ktb.mp: cannot read \"%s\"", spec);
		return;
	}
	n = init_mp_paths(id, want, p, &sectors);
	if (n < want)
		init_log("multipath %s: %d of %d paths", id, n, want);
	for (int i = 0; i < n; i++)
		majmin[i] = p[i].majmin;
	snprintf(name, sizeof(name), "ktb-%s", id);
	snprintf(uuid, sizeof(uuid), "%sktb-%s", MPATH_UUID_PREFIX, id);
	if (!n || mpath_dm_table(table, sizeof(table), sectors, !strcmp(mode, "bio"),
				 !strcmp(nopath, "queue"), majmin, n)) {
		init_log("multipath %s: no table", id);
		return;
	}
	ret = init_run(
	    (char *const[]){ "dmsetup", "create", name, "-u", uuid, "--table", table, NULL });
	if (ret)
		init_log("multipath %s: dmsetup create %s failed (%d): %s", id, name, ret, table);
}

static void init_multipath(void)
{
	char arg[512], *save = NULL, *spec;

	if (!init_arg("ktb.mp", arg, sizeof(arg)))
		return;
	for (spec = strtok_r(arg, ",", &save); spec; spec = strtok_r(NULL, ",", &save))
		init_mp_one(spec);
}

static void init_disks(void)
{
	char ids[1024], missing[1024];

	if (init_arg("ktb.disks", ids, sizeof(ids)) && ids[0] &&
	    init_wait_disks(ids, INIT_DISK_WAIT_MS, missing, sizeof(missing)))
		init_log("disks missing after %d s: %s", INIT_DISK_WAIT_MS / 1000, missing);
	init_multipath();
	init_link_disks();
}

/* One "TAG:PATH:ro|rw[:virtiofs]" of ktb.shares: a 9p export of QEMU's (or,
 * with ":virtiofs", a virtiofsd's) mounted at PATH. The virtio channel is
 * there once 9pnet_virtio or virtiofs has probed the device, which may trail
 * the module's load a little: ENOENT (9p) and EINVAL (virtiofs: "tag not
 * found") are retried. */
static void init_share_one(char *spec)
{
	char *tag = strtok(spec, ":"), *path = strtok(NULL, ":"), *mode = strtok(NULL, ":");
	char *transport = strtok(NULL, ":");
	bool vfs = transport && !strcmp(transport, "virtiofs");
	unsigned long flags = MS_NOSUID | MS_NODEV;
	int64_t deadline = init_now_ms() + INIT_PORT_WAIT_MS;
	int ret;

	if (!tag || !path || !mode) {
		init_log("ktb.shares: cannot read \"%s\"", spec);
		return;
	}
	if (!strcmp(mode, "ro"))
		flags |= MS_RDONLY;
	root_mkdir_p(path); /* the root is writable: the initramfs, or the overlay */
	do {
		if (vfs)
			ret = mount(tag, path, "virtiofs", flags, NULL);
		else
			ret = mount(tag, path, "9p", flags,
				    "trans=virtio,version=9p2000.L,msize=262144");
		if (!ret || (errno != ENOENT && !(vfs && errno == EINVAL)))
			break;
		init_sleep_ms(INIT_POLL_MS);
	} while (init_now_ms() < deadline);
	if (ret)
		init_log("share %s: mount %s on %s: %s", tag, vfs ? "virtiofs" : "9p", path,
			 strerror(errno));
}

static void init_shares(void)
{
	char arg[2048], *save = NULL, *spec;

	if (!init_arg("ktb.shares", arg, sizeof(arg)))
		return;
	for (spec = strtok_r(arg, ",", &save); spec; spec = strtok_r(NULL, ",", &save))
		init_share_one(spec);
}

/* Without udev there is no /dev/virtio-ports/<name>: match the name in
 * sysfs. The port can show up a little after virtio_console loads. */
static int init_find_port(char *dev, size_t len)
{
	int64_t deadline = init_now_ms() + INIT_PORT_WAIT_MS;
	char path[PATH_MAX], name[128];
	struct dirent *de;
	DIR *dir;

	do {
		dir = opendir("/sys/class/virtio-ports");
		while (dir && (de = readdir(dir))) {
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", de->d_name);
			if (sysfs_read(path, name, sizeof(name)) < 0 || strcmp(name, KTB_QGA_PORT))
				continue;
			snprintf(dev, len, "/dev/%s", de->d_name);
			closedir(dir);
			return 0;
		}
		if (dir)
			closedir(dir);
		init_sleep_ms(INIT_POLL_MS);
	} while (init_now_ms() < deadline);
	return -ENOENT;
}

/* A child init keeps running: the guest agent, and with ktb.shell a shell
 * on the console for `ktb boot`. */
struct init_svc {
	const char *name;
	char *argv[12]; /* room for root_agent_argv's three more */
	bool on_tty;	/* gets the console as controlling terminal */
	bool enabled;
	pid_t pid;
	int64_t started_ms, next_ms;
	int backoff_ms;
};

static char init_qga_port[NAME_MAX + 8]; /* /dev/vportNpM */

static struct init_svc init_svcs[] = {
	{ .name = "qemu-ga",
	  .argv = { INIT_QGA, "-m", "virtio-serial", "-p", init_qga_port, "-t", "/run", NULL } },
	{ .name = "shell", .argv = { "/bin/sh", "-l", NULL }, .on_tty = true },
};

#define INIT_NR_SVCS (sizeof(init_svcs) / sizeof(init_svcs[0]))

/* /dev/console cannot be a controlling terminal; the tty behind it can
 * (the last one listed in /sys/class/tty/console/active). */
static void init_take_tty(void)
{
	char active[128], path[160], *last;
	int fd;

	if (sysfs_read("/sys/class/tty/console/active", active, sizeof(active)) <= 0)
		return;
	last = strrchr(active, ' ');
	snprintf(path, sizeof(path), "/dev/%s", last ? last + 1 : active);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return;
	ioctl(fd, TIOCSCTTY, 1);
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void init_svc_start(struct init_svc *s, const sigset_t *orig)
{
	pid_t pid = fork();

	if (pid < 0) {
		init_log("fork %s: %s", s->name, strerror(errno));
		s->next_ms = init_now_ms() + 1000;
		return;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, orig, NULL);
		setsid();
		if (s->on_tty)
			init_take_tty();
		execv(s->argv[0], s->argv);
		fprintf(stderr, "ktb: exec %s: %s\n", s->argv[0], strerror(errno));
		_exit(127);
	}
	s->pid = pid;
	s->started_ms = init_now_ms();
}

/* Restart with a growing delay, so an agent that dies at once does not
 * flood the console; one that ran a minute starts over at one second. */
static void init_svc_exited(struct init_svc *s, int status)
{
	int64_t now = init_now_ms();

	if (now - s->started_ms > 60000 || !s->backoff_ms)
		s->backoff_ms = 1000;
	else if (s->backoff_ms < INIT_MAX_BACKOFF_MS)
		s->backoff_ms *= 2;
	s->pid = 0;
	s->next_ms = now + s->backoff_ms;
	if (WIFSIGNALED(status))
		init_log("%s killed by signal %d, restarting", s->name, WTERMSIG(status));
	else if (strcmp(s->name, "shell"))
		init_log("%s exited with %d, restarting", s->name, WEXITSTATUS(status));
}

static void init_reap(void)
{
	int status;
	size_t i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < INIT_NR_SVCS; i++)
			if (init_svcs[i].pid == pid)
				init_svc_exited(&init_svcs[i], status);
}

static void init_svc_tick(const sigset_t *orig)
{
	int64_t now = init_now_ms();
	size_t i;

	for (i = 0; i < INIT_NR_SVCS; i++)
		if (init_svcs[i].enabled && !init_svcs[i].pid && now >= init_svcs[i].next_ms)
			init_svc_start(&init_svcs[i], orig);
}

/* TERM, then KILL after 2 s, to every process but init; then sync and go. */
static void init_shutdown(int how)
{
	int64_t deadline;
	pid_t pid;

	init_log("%s", how == RB_AUTOBOOT ? "rebooting" : "powering off");
	kill(-1, SIGTERM);
	deadline = init_now_ms() + 2000;
	while (init_now_ms() < deadline) {
		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (pid < 0 && errno == ECHILD)
			break; /* everyone is gone */
		init_sleep_ms(50);
	}
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	init_power(how);
}

/* Returns 0 once the agent is started, or -errno with the failure marker
 * printed: the host stops waiting for the ready marker when it sees it. */
static int init_agent(const sigset_t *orig, bool rooted)
{
	if (rooted ? root_agent_argv(INIT_QGA, init_svcs[0].argv, 12) : access(INIT_QGA, X_OK)) {
		printf("%s %s%s missing\n", KTB_INIT_FAIL_MARKER, rooted ? ROOT_IMAGE : "",
		       INIT_QGA);
		return -ENOENT;
	}
	if (init_find_port(init_qga_port, sizeof(init_qga_port))) {
		printf("%s no virtio-serial port named %s\n", KTB_INIT_FAIL_MARKER, KTB_QGA_PORT);
		return -ENODEV;
	}
	init_svcs[0].enabled = true;
	init_svc_start(&init_svcs[0], orig);
	return 0;
}

static void init_loop(const sigset_t *set, const sigset_t *orig)
{
	struct timespec tick = { 1, 0 };
	siginfo_t info;
	int sig;

	for (;;) {
		init_svc_tick(orig);
		sig = sigtimedwait(set, &info, &tick);
		switch (sig) {
		case SIGCHLD:
			init_reap();
			break;
		case SIGTERM: /* busybox reboot */
		case SIGINT:  /* ctrl-alt-del */
			init_shutdown(RB_AUTOBOOT);
			break;
		case SIGUSR1: /* busybox halt */
		case SIGUSR2: /* busybox poweroff */
			init_shutdown(RB_POWER_OFF);
			break;
		default:
			break;
		}
	}
}

/* Before the first mount nothing can be logged: stdout may not exist yet. */
static void init_early(void)
{
	init_mount_all();
	init_dev_links_make();
	init_console();
	if (sysfs_read("/proc/cmdline", init_cmdline, sizeof(init_cmdline)) < 0)
		init_cmdline[0] = '\0';
	setenv("PATH", INIT_PATH, 1);
	setenv("HOME", "/", 1);
	setenv("TERM", "linux", 0);
	if (sethostname("ktb", 3))
		init_log("sethostname: %s", strerror(errno));
}

int main(void)
{
	sigset_t set, orig;
	char arg[256], why[512];
	bool rooted;

	/* signals are taken synchronously in init_loop(), never by handlers */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, &orig);
	reboot(RB_DISABLE_CAD); /* ctrl-alt-del becomes SIGINT to us */

	init_early();
	if (init_arg("ktb.probe", arg, sizeof(arg))) {
		printf("%s\n", KTB_PROBE_MARKER);
		init_power(RB_POWER_OFF);
	}
	init_load_modules();
	if (init_arg("ktb.resume", arg, sizeof(arg)) && arg[0])
		init_resume(arg);
	init_disks();
	rooted = init_arg("ktb.root", arg, sizeof(arg)) && arg[0];
	if (rooted && root_switch(arg, why, sizeof(why))) {
		printf("%s root %s: %s\n", KTB_INIT_FAIL_MARKER, arg, why);
	} else {
		if (rooted && why[0])
			init_log("root %s: %s", arg, why);
		init_shares();
		if (!init_agent(&orig, rooted))
			printf("%s\n", KTB_READY_MARKER);
	}
	fflush(stdout);
	init_svcs[1].enabled = init_arg("ktb.shell", arg, sizeof(arg));
	init_loop(&set, &orig);
	return 0;
}
