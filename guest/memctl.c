/* memctl: the memory-controller commands of ktb-mem (memctl.h). The load
 * runs in a child moved into the group; the parent stays outside it, so it
 * can watch the group, and its own pattern-filled buffer shows whether an
 * OOM kill stayed inside. */
#include "memctl.h"

#include "json_out.h"
#include "memcheck.h"
#include "size.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CG_ROOT "/sys/fs/cgroup"
#define CTL_SAMPLE_US 10000 /* memory.current every 10 ms */

struct ctl_opts {
	const char *op, *size, *max, *high, *swap_max, *group, *trigger;
	uint64_t seed, outside_sz, timeout_ms, quiet_ms;
	bool corrupt;
};

/* What the load child sends its parent once it has verified its pages. */
struct load_res {
	uint64_t bad;
	int64_t first;
};

static int64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ctl_fail(const char *op, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ctl_fail(const char *op, const char *fmt, ...)
{
	struct json_out j;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", op);
	json_kv_str(&j, "error", msg);
	json_obj_end(&j);
	json_finish(&j);
	fprintf(stderr, "ktb-mem %s: %s\n", op, msg);
	return 1;
}

static char *cg_path(const char *dir, const char *file)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, file);
	return buf[k];
}

static int cg_write(const char *dir, const char *file, const char *text)
{
	int fd = open(cg_path(dir, file), O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static int cg_read(const char *dir, const char *file, char *buf, size_t len)
{
	int fd = open(cg_path(dir, file), O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return 0;
}

/* A file holding one number: true with it in *v; false when the file is
 * absent (an older kernel) or says "max". */
static bool cg_u64(const char *dir, const char *file, uint64_t *v)
{
	char buf[64], *end;

	if (cg_read(dir, file, buf, sizeof(buf)) || buf[0] < '0' || buf[0] > '9')
		return false;
	*v = strtoull(buf, &end, 10);
	return true;
}

/* cgroup v2 at /sys/fs/cgroup (mounted here when init did not), with the
 * memory controller on for the groups below the root. */
static int cg_root_ready(void)
{
	if (access(CG_ROOT "/cgroup.controllers", F_OK)) {
		if (mount("cgroup2", CG_ROOT, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) &&
		    errno != EBUSY)
			return -errno;
	}
	return cg_write(CG_ROOT, "cgroup.subtree_control", "+memory");
}

/* Writes a size option ("64M") to a limit file as bytes; NULL: left alone. */
static int cg_limit(const char *dir, const char *file, const char *size)
{
	uint64_t v;
	char num[32];

	if (!size)
		return 0;
	if (size_parse(size, &v))
		return -EINVAL;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	return cg_write(dir, file, num);
}

/* A fresh group (an old one of the name removed first) with the limits
 * asked for; a message for the JSON in msg on failure. */
static int cg_make(const struct ctl_opts *o, char *dir, size_t dlen, char *msg, size_t mlen)
{
	static const char *const files[] = { "memory.high", "memory.max", "memory.swap.max" };
	const char *vals[] = { o->high, o->max, o->swap_max };
	int err = cg_root_ready();

	if (err) {
		snprintf(msg, mlen, "no cgroup v2 memory controller at " CG_ROOT ": %s",
			 strerror(-err));
		return err;
	}
	snprintf(dir, dlen, CG_ROOT "/%s", o->group);
	rmdir(dir);
	if (mkdir(dir, 0755)) {
		snprintf(msg, mlen, "mkdir %s: %s", dir, strerror(errno));
		return -errno;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		err = cg_limit(dir, files[i], vals[i]);
		if (err) {
			snprintf(msg, mlen, "%s = %s: %s", files[i], vals[i], strerror(-err));
			rmdir(dir);
			return err;
		}
	}
	return 0;
}

static void *ctl_map(uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE); /* 4 KiB pages: reclaim page by page */
	return p;
}

static void ctl_fill(char *p, uint64_t pages, uint64_t seed)
{
	for (uint64_t i = 0; i < pages; i++)
		memcheck_fill(p + i * MEMCHECK_PAGE, i, seed);
}

static struct load_res ctl_verify(const char *p, uint64_t pages, uint64_t seed)
{
	struct load_res r = { 0, -1 };

	for (uint64_t i = 0; i < pages; i++)
		if (!memcheck_ok(p + i * MEMCHECK_PAGE, i, seed) && !r.bad++)
			r.first = (int64_t)i;
	return r;
}

/* The load: into the group (dir, or stay where it is for NULL), fill sz,
 * verify, send the result on fd; with loop, again and again until killed.
 * The OOM killer, if it must kill, should take this one. */
static void load_child(const struct ctl_opts *o, const char *dir, uint64_t sz, int fd, bool loop)
{
	uint64_t pages = sz / MEMCHECK_PAGE;
	struct load_res r;
	char *p;

	if (dir && cg_write(dir, "cgroup.procs", "0"))
		_exit(3);
	if (cg_write("/proc/self", "oom_score_adj", "1000"))
		fprintf(stderr, "ktb-mem: cannot raise oom_score_adj\n");
	p = ctl_map(sz);
	if (!p)
		_exit(3);
	do {
		ctl_fill(p, pages, o->seed);
		if (o->corrupt)
			((uint64_t *)(p + (pages / 2) * MEMCHECK_PAGE))[7] ^= 0x5a;
		r = ctl_verify(p, pages, o->seed);
	} while (loop);
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(3);
	_exit(0);
}

static pid_t load_start(const struct ctl_opts *o, const char *dir, uint64_t sz, int pfd[2],
			bool loop)
{
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (!pid) {
		close(pfd[0]);
		load_child(o, dir, sz, pfd[1], loop);
	}
	close(pfd[1]);
	return pid;
}

/* A load size: "96M", or "1.5x" of MemTotal; page-aligned, not 0. */
static int ctl_size(const char *s, uint64_t *sz)
{
	char mi[8192];
	uint64_t total = 0;

	if (!cg_read("/proc", "meminfo", mi, sizeof(mi)))
		total = memcheck_meminfo_kb(mi, "MemTotal") * 1024;
	if (memcheck_size(s, total, sz))
		return -EINVAL;
	*sz &= ~(uint64_t)(MEMCHECK_PAGE - 1);
	return *sz ? 0 : -EINVAL;
}

/* ---- memcg ---- */

struct memcg_run {
	uint64_t cur_max, swap_max_seen, samples;
	bool swap_ok, completed, killed, timed_out, got_res;
	struct load_res res;
	int status;
	int64_t ms;
};

static void memcg_sample(const char *dir, struct memcg_run *m)
{
	uint64_t v;

	if (cg_u64(dir, "memory.current", &v) && v > m->cur_max)
		m->cur_max = v;
	m->swap_ok = cg_u64(dir, "memory.swap.current", &v);
	if (m->swap_ok && v > m->swap_max_seen)
		m->swap_max_seen = v;
	m->samples++;
}

/* Watch the group until the load ends (or the timeout kills it). */
static void memcg_watch(const struct ctl_opts *o, const char *dir, pid_t pid, int rfd,
			struct memcg_run *m)
{
	int64_t t0 = ms_now(), dl = t0 + (int64_t)o->timeout_ms;

	while (waitpid(pid, &m->status, WNOHANG) != pid) {
		memcg_sample(dir, m);
		if (!m->timed_out && ms_now() > dl) {
			m->timed_out = true;
			kill(pid, SIGKILL);
		}
		usleep(CTL_SAMPLE_US);
	}
	memcg_sample(dir, m);
	m->ms = ms_now() - t0;
	m->completed = WIFEXITED(m->status) && !WEXITSTATUS(m->status);
	m->killed = !m->timed_out && WIFSIGNALED(m->status) && WTERMSIG(m->status) == SIGKILL;
	m->got_res = read(rfd, &m->res, sizeof(m->res)) == (ssize_t)sizeof(m->res);
}

static void kv_kb(struct json_out *j, const char *key, bool ok, uint64_t bytes)
{
	json_kv_u64_or_null(j, key, ok, bytes >> 10);
}

/* A flat "name N" file (memory.events) as an object; each name null when the
 * file or its line is missing. */
static void report_events(struct json_out *j, const char *key, const char *dir, const char *file,
			  const char *const *names)
{
	char buf[512];
	bool ok = !cg_read(dir, file, buf, sizeof(buf)), has;
	uint64_t v = 0;

	json_key(j, key);
	json_obj_begin(j);
	for (; *names; names++) {
		has = ok && memcheck_vmstat(buf, *names, &v);
		json_kv_u64_or_null(j, *names, has, v);
	}
	json_obj_end(j);
}

static void report_limit(struct json_out *j, const char *key, const char *dir, const char *file,
			 const char *asked)
{
	uint64_t v = 0;
	bool ok = asked && cg_u64(dir, file, &v);

	kv_kb(j, key, ok, v);
}

/* memory.peak, memory.swap.peak: null on a kernel without them (before 5.19, 6.5) */
static void report_peak(struct json_out *j, const char *key, const char *dir, const char *file)
{
	report_limit(j, key, dir, file, "");
}

static void memcg_report(const struct ctl_opts *o, const char *dir, uint64_t sz,
			 const struct memcg_run *m, struct load_res out)
{
	static const char *const ev[] = { "low",      "high",		"max", "oom",
					  "oom_kill", "oom_group_kill", NULL };
	static const char *const swev[] = { "high", "max", "fail", NULL };
	struct json_out j;
	bool res = m->completed && m->got_res;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "memcg");
	json_kv_str(&j, "group", o->group);
	json_kv_u64(&j, "size_mb", sz >> 20);
	report_limit(&j, "max_kb", dir, "memory.max", o->max);
	report_limit(&j, "high_kb", dir, "memory.high", o->high);
	report_limit(&j, "swap_max_kb", dir, "memory.swap.max", o->swap_max);
	json_kv_bool(&j, "load_completed", m->completed);
	json_kv_bool(&j, "load_killed", m->killed);
	json_kv_bool(&j, "timed_out", m->timed_out);
	json_kv_u64(&j, "pages", sz / MEMCHECK_PAGE);
	json_kv_u64_or_null(&j, "pages_verified", res, sz / MEMCHECK_PAGE - m->res.bad);
	json_kv_u64_or_null(&j, "mismatches", res, m->res.bad);
	json_kv_u64(&j, "samples", m->samples);
	kv_kb(&j, "current_max_kb", m->samples > 0, m->cur_max);
	report_peak(&j, "peak_kb", dir, "memory.peak");
	kv_kb(&j, "swap_current_max_kb", m->swap_ok, m->swap_max_seen);
	report_peak(&j, "swap_peak_kb", dir, "memory.swap.peak");
	report_events(&j, "events", dir, "memory.events", ev);
	report_events(&j, "swap_events", dir, "memory.swap.events", swev);
	json_kv_u64(&j, "outside_pages", o->outside_sz / MEMCHECK_PAGE);
	json_kv_u64(&j, "outside_mismatches", out.bad);
	json_kv_i64(&j, "elapsed_ms", m->ms);
	json_obj_end(&j);
	json_finish(&j);
}

static int op_memcg(const struct ctl_opts *o)
{
	char dir[512], msg[256], *outside;
	struct memcg_run m = { 0 };
	struct load_res out;
	uint64_t sz;
	int pfd[2];
	pid_t pid;

	if (!o->size || !o->max || ctl_size(o->size, &sz))
		return ctl_fail("memcg", "--size SIZE and --max SIZE are required");
	outside = ctl_map(o->outside_sz);
	if (!outside)
		return ctl_fail("memcg", "mmap: %s", strerror(errno));
	/* the parent's own pages, outside the group: they must outlive its OOM */
	ctl_fill(outside, o->outside_sz / MEMCHECK_PAGE, o->seed + 1);
	if (cg_make(o, dir, sizeof(dir), msg, sizeof(msg)))
		return ctl_fail("memcg", "%s", msg);
	pid = load_start(o, dir, sz, pfd, false);
	if (pid < 0)
		return ctl_fail("memcg", "fork: %s", strerror(errno));
	memcg_watch(o, dir, pid, pfd[0], &m);
	close(pfd[0]);
	out = ctl_verify(outside, o->outside_sz / MEMCHECK_PAGE, o->seed + 1);
	memcg_report(o, dir, sz, &m, out);
	rmdir(dir);
	return out.bad || m.timed_out || (m.got_res && m.res.bad) ? 1 : 0;
}

/* ---- psi-wait ---- */

struct trig {
	const char *name;
	int fd;
	bool fired;
	unsigned early;
	int64_t woken_ms;
};

static int trig_open(struct trig *t, const char *path, const char *spec)
{
	t->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0)
		return -errno;
	/* the kernel wants the terminating NUL with the trigger */
	if (write(t->fd, spec, strlen(spec) + 1) < 0) {
		int err = -errno;

		close(t->fd);
		t->fd = -1;
		return err;
	}
	return 0;
}

/* poll() the triggers until dl; during the quiet spell a wake-up counts as
 * early, after it the first one is when the trigger fired. */
static void trig_poll(struct trig *t, int n, int64_t t0, int64_t dl, bool quiet)
{
	struct pollfd pf[2];
	int left = 0;

	for (int i = 0; i < n; i++) {
		pf[i] =
		    (struct pollfd){ .fd = quiet || !t[i].fired ? t[i].fd : -1, .events = POLLPRI };
		left += pf[i].fd >= 0;
	}
	while (left && ms_now() < dl) {
		if (poll(pf, (nfds_t)n, (int)(dl - ms_now())) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (!(pf[i].revents & (POLLPRI | POLLERR)))
				continue;
			if (quiet) {
				t[i].early++;
				continue;
			}
			t[i].fired = true;
			t[i].woken_ms = ms_now() - t0;
			pf[i].fd = -1;
			left--;
		}
	}
}

static void trig_report(struct json_out *j, const struct trig *t, int64_t load_ms)
{
	json_key(j, t->name);
	json_obj_begin(j);
	json_kv_bool(j, "fired", t->fired);
	json_kv_u64(j, "early_wakeups", t->early);
	json_kv_u64_or_null(j, "woken_ms", t->fired, (uint64_t)t->woken_ms);
	json_kv_u64_or_null(j, "latency_ms", t->fired && t->woken_ms >= load_ms,
			    (uint64_t)(t->woken_ms - load_ms));
	json_obj_end(j);
}

static void psi_report(const struct ctl_opts *o, const struct trig *t, int n, int64_t load_ms)
{
	struct json_out j;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "psi-wait");
	json_kv_str(&j, "trigger", o->trigger);
	json_kv_u64(&j, "quiet_ms", o->quiet_ms);
	json_kv_i64(&j, "load_start_ms", load_ms);
	trig_report(&j, &t[0], load_ms);
	if (n > 1)
		trig_report(&j, &t[1], load_ms);
	else
		json_kv_u64_or_null(&j, "cgroup", false, 0);
	json_obj_end(&j);
	json_finish(&j);
}

static int op_psi_wait(const struct ctl_opts *o)
{
	struct trig t[2] = { { "system", -1, false, 0, 0 }, { "cgroup", -1, false, 0, 0 } };
	char dir[512] = "", msg[256];
	int n = 1, pfd[2], err;
	int64_t t0, load_ms;
	uint64_t sz;
	pid_t pid;

	if (ctl_size(o->size ? o->size : "1.5x", &sz))
		return ctl_fail("psi-wait", "bad --size %s", o->size ? o->size : "");
	if (o->group && cg_make(o, dir, sizeof(dir), msg, sizeof(msg)))
		return ctl_fail("psi-wait", "%s", msg);
	if ((err = trig_open(&t[0], "/proc/pressure/memory", o->trigger)))
		return ctl_fail("psi-wait", "trigger \"%s\" on /proc/pressure/memory: %s",
				o->trigger, strerror(-err));
	if (o->group && (err = trig_open(&t[1], cg_path(dir, "memory.pressure"), o->trigger)))
		return ctl_fail("psi-wait", "trigger on %s/memory.pressure: %s", dir,
				strerror(-err));
	n = o->group ? 2 : 1;
	t0 = ms_now();
	trig_poll(t, n, t0, t0 + (int64_t)o->quiet_ms, true);
	load_ms = ms_now() - t0;
	pid = load_start(o, o->group ? dir : NULL, sz, pfd, true);
	if (pid < 0)
		return ctl_fail("psi-wait", "fork: %s", strerror(errno));
	trig_poll(t, n, t0, ms_now() + (int64_t)o->timeout_ms, false);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(pfd[0]);
	psi_report(o, t, n, load_ms);
	if (o->group)
		rmdir(dir);
	return 0;
}

/* ---- options ---- */

static const struct option ctl_longopts[] = {
	{ "size", required_argument, NULL, 's' },    { "max", required_argument, NULL, 'm' },
	{ "high", required_argument, NULL, 'H' },    { "swap-max", required_argument, NULL, 'w' },
	{ "group", required_argument, NULL, 'g' },   { "seed", required_argument, NULL, 'S' },
	{ "outside", required_argument, NULL, 'o' }, { "timeout", required_argument, NULL, 't' },
	{ "trigger", required_argument, NULL, 'T' }, { "quiet", required_argument, NULL, 'q' },
	{ "corrupt", no_argument, NULL, 'c' },	     { NULL, 0, NULL, 0 },
};

static int ctl_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}

static int ctl_opt(struct ctl_opts *o, int c, const char *arg)
{
	switch (c) {
	case 's':
		o->size = arg;
		return 0;
	case 'm':
		o->max = arg;
		return 0;
	case 'H':
		o->high = arg;
		return 0;
	case 'w':
		o->swap_max = arg;
		return 0;
	case 'g':
		o->group = arg;
		return strchr(arg, '/') || !*arg ? -EINVAL : 0;
	case 'T':
		o->trigger = arg;
		return 0;
	case 'c':
		o->corrupt = true;
		return 0;
	case 'S':
		return ctl_u64(arg, &o->seed);
	case 't':
		return ctl_u64(arg, &o->timeout_ms);
	case 'q':
		return ctl_u64(arg, &o->quiet_ms);
	case 'o':
		return size_parse(arg, &o->outside_sz);
	default:
		return -EINVAL;
	}
}

bool memctl_is_op(const char *op)
{
	return !strcmp(op, "memcg") || !strcmp(op, "psi-wait");
}

int memctl_main(int argc, char **argv)
{
	struct ctl_opts o = { .op = argv[1],
			      .group = NULL,
			      .trigger = "some 150000 1000000",
			      .seed = 1,
			      .outside_sz = 8u << 20,
			      .timeout_ms = 60000,
			      .quiet_ms = 2000 };
	int c;

	optind = 2;
	while ((c = getopt_long(argc, argv, "", ctl_longopts, NULL)) != -1)
		if (ctl_opt(&o, c, optarg)) {
			fprintf(stderr, "ktb-mem %s: bad option or value%s%s\n", o.op,
				optarg ? ": " : "", optarg ? optarg : "");
			return 2;
		}
	if (optind != argc)
		return 2;
	o.outside_sz &= ~(uint64_t)(MEMCHECK_PAGE - 1);
	if (!strcmp(o.op, "memcg")) {
		if (!o.group)
			o.group = "ktb-memcg";
		return op_memcg(&o);
	}
	return op_psi_wait(&o);
}
