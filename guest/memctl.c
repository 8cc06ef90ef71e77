/* memctl: the memory-controller, page cache and compaction commands of
 * ktb-mem (memctl.h). For memcg and psi-wait the load
 * runs in a child moved into the group; the parent stays outside it, so it
 * can watch the group, and its own pattern-filled buffer shows whether an
 * OOM kill stayed inside. */
#include "memctl.h"

#include "json_out.h"
#include "memcheck.h"
#include "sysfs.h"
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
	const char *op, *size, *max, *high, *swap_max, *group, *trigger, *file, *try_size, *state;
	uint64_t seed, outside_sz, timeout_ms, quiet_ms;
	bool corrupt, no_compact, external, background, collect;
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
	return sysfs_slurp(cg_path(dir, file), buf, len);
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

/* --corrupt: one word of the middle page wrong, so verify must fail */
static void ctl_spoil(char *p, uint64_t pages)
{
	((uint64_t *)(p + (pages / 2) * MEMCHECK_PAGE))[7] ^= 0x5a;
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
			ctl_spoil(p, pages);
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
		return memcheck_fail_json("memcg", "--size SIZE and --max SIZE are required");
	outside = ctl_map(o->outside_sz);
	if (!outside)
		return memcheck_fail_json("memcg", "mmap: %s", strerror(errno));
	/* the parent's own pages, outside the group: they must outlive its OOM */
	ctl_fill(outside, o->outside_sz / MEMCHECK_PAGE, o->seed + 1);
	if (o->corrupt) /* the self-test spoils the outside pages too */
		ctl_spoil(outside, o->outside_sz / MEMCHECK_PAGE);
	if (cg_make(o, dir, sizeof(dir), msg, sizeof(msg)))
		return memcheck_fail_json("memcg", "%s", msg);
	pid = load_start(o, dir, sz, pfd, false);
	if (pid < 0)
		return memcheck_fail_json("memcg", "fork: %s", strerror(errno));
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
	bool fired, stalled;
	unsigned early;
	int64_t woken_ms, stall_ms; /* since the triggers were registered */
	uint64_t total0;	    /* "some" stall time when the load started */
	char path[512];
};

/* The "some" total of a PSI file, in microseconds; false when unreadable. */
static bool psi_total(const char *path, uint64_t *us)
{
	char buf[512];
	struct psi_line l;

	if (sysfs_slurp(path, buf, sizeof(buf)) || memcheck_psi(buf, "some", &l))
		return false;
	*us = l.total_us;
	return true;
}

/* When the stall time first grew after the load started: when pressure
 * really began (the load first fills what is free, stalling nothing). */
static void trig_stall(struct trig *t, int64_t t0)
{
	uint64_t us;

	if (!t->stalled && psi_total(t->path, &us) && us > t->total0) {
		t->stalled = true;
		t->stall_ms = ms_now() - t0;
	}
}

static int trig_open(struct trig *t, const char *path, const char *spec)
{
	snprintf(t->path, sizeof(t->path), "%s", path);
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
		int64_t wait = dl - ms_now();

		/* after the quiet spell, wake every 10 ms to see the stall begin */
		if (poll(pf, (nfds_t)n, (int)(!quiet && wait > 10 ? 10 : wait)) < 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (!quiet)
				trig_stall(&t[i], t0);
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
	json_kv_u64_or_null(j, "stall_ms", t->stalled, (uint64_t)t->stall_ms);
	json_kv_u64_or_null(j, "after_stall_ms",
			    t->fired && t->stalled && t->woken_ms >= t->stall_ms,
			    (uint64_t)(t->woken_ms - t->stall_ms));
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

/* --background: the command returns once the quiet spell is over (the
 * byte on ready_fd), a child polls on and writes its report to DIR. */
static int psi_bg_fork(const struct ctl_opts *o, int *ready_fd)
{
	char tmp[600];
	int pfd[2], fd;
	pid_t pid;

	if ((mkdir(o->state, 0755) && errno != EEXIST) || pipe(pfd))
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s/report.json", o->state);
	unlink(tmp);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid) {
		close(pfd[1]);
		*ready_fd = pfd[0];
		return 1;
	}
	close(pfd[0]);
	setsid();
	snprintf(tmp, sizeof(tmp), "%s/report.tmp", o->state);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		_exit(3);
	dup2(fd, 1);
	close(fd);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 2);
		close(fd);
	}
	*ready_fd = pfd[1];
	return 0;
}

static int psi_bg_armed(int ready_fd)
{
	char c;

	if (read(ready_fd, &c, 1) != 1)
		return memcheck_fail_json("psi-wait",
					  "the background poller died before it was armed");
	printf("{\"op\":\"psi-wait\",\"armed\":true,\"early_wakeups\":%d}\n", c - '0');
	return 0;
}

static void psi_bg_done(const struct ctl_opts *o)
{
	char a[600], b[600];

	fflush(stdout);
	snprintf(a, sizeof(a), "%s/report.tmp", o->state);
	snprintf(b, sizeof(b), "%s/report.json", o->state);
	rename(a, b);
	_exit(0);
}

/* --collect: the background poller's report, once it is written */
static int op_psi_collect(const struct ctl_opts *o)
{
	char path[600], buf[2048];
	int64_t dl = ms_now() + (int64_t)o->timeout_ms;

	snprintf(path, sizeof(path), "%s/report.json", o->state);
	while (sysfs_slurp(path, buf, sizeof(buf))) {
		if (ms_now() > dl)
			return memcheck_fail_json("psi-wait", "no report in %s within %llu ms",
						  path, (unsigned long long)o->timeout_ms);
		usleep(100000);
	}
	fputs(buf, stdout);
	return 0;
}

static int psi_open(const struct ctl_opts *o, struct trig *t, char *dir, size_t dlen)
{
	char msg[256];
	int err;

	if (o->group && cg_make(o, dir, dlen, msg, sizeof(msg)))
		return memcheck_fail_json("psi-wait", "%s", msg);
	if ((err = trig_open(&t[0], "/proc/pressure/memory", o->trigger)))
		return memcheck_fail_json("psi-wait", "trigger \"%s\" on /proc/pressure/memory: %s",
					  o->trigger, strerror(-err));
	if (o->group && (err = trig_open(&t[1], cg_path(dir, "memory.pressure"), o->trigger)))
		return memcheck_fail_json("psi-wait", "trigger on %s/memory.pressure: %s", dir,
					  strerror(-err));
	return 0;
}

static int op_psi_wait(const struct ctl_opts *o)
{
	struct trig t[2] = { { .name = "system", .fd = -1 }, { .name = "cgroup", .fd = -1 } };
	char dir[512] = "";
	int n = o->group ? 2 : 1, pfd[2], ready = -1, bg = 0;
	int64_t t0, load_ms;
	uint64_t sz;
	pid_t pid = 0;

	if (o->collect)
		return op_psi_collect(o);
	if (ctl_size(o->size ? o->size : "1.5x", &sz))
		return memcheck_fail_json("psi-wait", "bad --size %s", o->size ? o->size : "");
	if (o->background && (bg = psi_bg_fork(o, &ready)) < 0)
		return memcheck_fail_json("psi-wait", "%s: %s", o->state, strerror(-bg));
	if (bg > 0)
		return psi_bg_armed(ready);
	if (psi_open(o, t, dir, sizeof(dir))) {
		if (o->background)
			_exit(1); /* the error is in the report; the parent sees no byte */
		return 1;
	}
	t0 = ms_now();
	trig_poll(t, n, t0, t0 + (int64_t)o->quiet_ms, true);
	load_ms = ms_now() - t0;
	for (int i = 0; i < n; i++)
		psi_total(t[i].path, &t[i].total0);
	if (ready >= 0) {
		char c = (char)('0' + (t[0].early > 9 ? 9 : t[0].early));

		if (write(ready, &c, 1) != 1)
			_exit(3);
		close(ready);
	}
	if (!o->external && (pid = load_start(o, o->group ? dir : NULL, sz, pfd, true)) < 0)
		return memcheck_fail_json("psi-wait", "fork: %s", strerror(errno));
	trig_poll(t, n, t0, ms_now() + (int64_t)o->timeout_ms, false);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(pfd[0]);
	}
	psi_report(o, t, n, load_ms);
	if (o->group)
		rmdir(dir);
	if (o->background)
		psi_bg_done(o);
	return 0;
}

/* ---- pagecache: large pages in the page cache ---- */

/* The counters that show huge pages in the page cache; each *_ok false
 * when the kernel has no such line (then null, never 0). */
struct thp_counters {
	uint64_t shmem_huge_kb, file_huge_kb, file_alloc, file_fallback, file_mapped;
	bool shmem_huge_ok, file_huge_ok, file_alloc_ok, file_fallback_ok, file_mapped_ok;
};

static void thp_read(struct thp_counters *c)
{
	static char mi[8192], vm[16384];
	bool mok = !cg_read("/proc", "meminfo", mi, sizeof(mi));
	bool vok = !cg_read("/proc", "vmstat", vm, sizeof(vm));

	memset(c, 0, sizeof(*c));
	c->shmem_huge_ok = mok && memcheck_meminfo_line(mi, "ShmemHugePages", &c->shmem_huge_kb);
	c->file_huge_ok = mok && memcheck_meminfo_line(mi, "FileHugePages", &c->file_huge_kb);
	c->file_alloc_ok = vok && memcheck_vmstat(vm, "thp_file_alloc", &c->file_alloc);
	c->file_fallback_ok = vok && memcheck_vmstat(vm, "thp_file_fallback", &c->file_fallback);
	c->file_mapped_ok = vok && memcheck_vmstat(vm, "thp_file_mapped", &c->file_mapped);
}

/* A file page: word 0 its index, the rest a tag of seed and index (not of
 * an address: the file is read back through other buffers and mappings). */
static void fpage_fill(uint64_t *w, uint64_t idx, uint64_t seed)
{
	uint64_t tag = memcheck_tag(seed, idx * MEMCHECK_PAGE);

	w[0] = idx;
	for (size_t i = 1; i < MEMCHECK_PAGE / 8; i++)
		w[i] = tag;
}

static bool fpage_ok(const uint64_t *w, uint64_t idx, uint64_t seed)
{
	return memcheck_page_ok(w, idx, memcheck_tag(seed, idx * MEMCHECK_PAGE));
}

#define FCHUNK (2u << 20) /* whole huge pages per write() */

static int file_write(int fd, uint64_t pages, uint64_t seed, char *buf)
{
	uint64_t per = FCHUNK / MEMCHECK_PAGE;

	for (uint64_t i = 0; i < pages; i += per) {
		uint64_t n = pages - i < per ? pages - i : per;

		for (uint64_t k = 0; k < n; k++)
			fpage_fill((uint64_t *)(buf + k * MEMCHECK_PAGE), i + k, seed);
		if (pwrite(fd, buf, n * MEMCHECK_PAGE, (off_t)(i * MEMCHECK_PAGE)) !=
		    (ssize_t)(n * MEMCHECK_PAGE))
			return errno ? -errno : -EIO;
	}
	return 0;
}

static int file_verify(int fd, uint64_t pages, uint64_t seed, char *buf, struct load_res *r)
{
	uint64_t per = FCHUNK / MEMCHECK_PAGE;

	*r = (struct load_res){ 0, -1 };
	for (uint64_t i = 0; i < pages; i += per) {
		uint64_t n = pages - i < per ? pages - i : per;

		if (pread(fd, buf, n * MEMCHECK_PAGE, (off_t)(i * MEMCHECK_PAGE)) !=
		    (ssize_t)(n * MEMCHECK_PAGE))
			return errno ? -errno : -EIO;
		for (uint64_t k = 0; k < n; k++)
			if (!fpage_ok((uint64_t *)(buf + k * MEMCHECK_PAGE), i + k, seed) &&
			    !r->bad++)
				r->first = (int64_t)(i + k);
	}
	return 0;
}

/* The file read once more through a shared mapping at a 2M-aligned address,
 * where the kernel can map its huge pages whole (thp_file_mapped). */
static int file_verify_mmap(int fd, uint64_t sz, uint64_t seed, struct load_res *r)
{
	char *raw = mmap(NULL, sz + FCHUNK, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	*r = (struct load_res){ 0, -1 };
	if (raw == MAP_FAILED)
		return -errno;
	p = (char *)(((uintptr_t)raw + FCHUNK - 1) & ~(uintptr_t)(FCHUNK - 1));
	if (mmap(p, sz, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		int err = -errno;

		munmap(raw, sz + FCHUNK);
		return err;
	}
	for (uint64_t i = 0; i < sz / MEMCHECK_PAGE; i++)
		if (!fpage_ok((const uint64_t *)(p + i * MEMCHECK_PAGE), i, seed) && !r->bad++)
			r->first = (int64_t)i;
	munmap(raw, sz + FCHUNK);
	return 0;
}

static void kv_delta(struct json_out *j, const char *key, bool a_ok, uint64_t a, bool b_ok,
		     uint64_t b)
{
	json_key(j, key);
	if (a_ok && b_ok)
		json_i64(j, (int64_t)b - (int64_t)a);
	else
		json_null(j);
}

struct pc_run {
	struct thp_counters a, b, c;
	struct load_res rd, mm;
	int64_t write_ms, read_ms;
};

static void pagecache_report(const struct ctl_opts *o, uint64_t sz, const struct pc_run *r)
{
	struct json_out j;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "pagecache");
	json_kv_str(&j, "file", o->file);
	json_kv_u64(&j, "size_kb", sz >> 10);
	/* what writing the file added (a), and what mapping it added (b) */
	kv_delta(&j, "shmem_huge_kb", r->a.shmem_huge_ok, r->a.shmem_huge_kb, r->b.shmem_huge_ok,
		 r->b.shmem_huge_kb);
	kv_delta(&j, "file_huge_kb", r->a.file_huge_ok, r->a.file_huge_kb, r->b.file_huge_ok,
		 r->b.file_huge_kb);
	kv_delta(&j, "thp_file_alloc", r->a.file_alloc_ok, r->a.file_alloc, r->b.file_alloc_ok,
		 r->b.file_alloc);
	kv_delta(&j, "thp_file_fallback", r->a.file_fallback_ok, r->a.file_fallback,
		 r->b.file_fallback_ok, r->b.file_fallback);
	kv_delta(&j, "thp_file_mapped", r->b.file_mapped_ok, r->b.file_mapped, r->c.file_mapped_ok,
		 r->c.file_mapped);
	json_kv_u64(&j, "pages", sz / MEMCHECK_PAGE);
	json_kv_u64(&j, "pages_verified", sz / MEMCHECK_PAGE - r->rd.bad);
	json_kv_u64(&j, "mismatches", r->rd.bad);
	json_kv_i64(&j, "first_mismatch", r->rd.first);
	json_kv_u64(&j, "mmap_mismatches", r->mm.bad);
	json_kv_i64(&j, "write_ms", r->write_ms);
	json_kv_i64(&j, "read_ms", r->read_ms);
	json_obj_end(&j);
	json_finish(&j);
}

/* --corrupt: one word of the middle page rewritten behind the pattern */
static int file_spoil(int fd, uint64_t pages)
{
	uint64_t w = 0x5a;
	off_t at = (off_t)((pages / 2) * MEMCHECK_PAGE + 7 * 8);

	return pwrite(fd, &w, sizeof(w), at) == (ssize_t)sizeof(w) ? 0 : -EIO;
}

static int pagecache_run(const struct ctl_opts *o, int fd, uint64_t sz, char *buf, struct pc_run *r)
{
	uint64_t pages = sz / MEMCHECK_PAGE;
	int64_t t0 = ms_now();
	int err;

	thp_read(&r->a);
	if ((err = file_write(fd, pages, o->seed, buf)) ||
	    (o->corrupt && (err = file_spoil(fd, pages))))
		return err;
	thp_read(&r->b);
	r->write_ms = ms_now() - t0;
	t0 = ms_now();
	if ((err = file_verify(fd, pages, o->seed, buf, &r->rd)) ||
	    (err = file_verify_mmap(fd, sz, o->seed, &r->mm)))
		return err;
	thp_read(&r->c);
	r->read_ms = ms_now() - t0;
	return 0;
}

static int op_pagecache(const struct ctl_opts *o)
{
	struct pc_run r;
	char *buf = NULL;
	uint64_t sz;
	int fd, err;

	if (!o->file || !o->size || size_parse(o->size, &sz) || sz < MEMCHECK_PAGE)
		return memcheck_fail_json("pagecache", "--file PATH and --size SIZE are required");
	sz &= ~(uint64_t)(MEMCHECK_PAGE - 1);
	fd = open(o->file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return memcheck_fail_json("pagecache", "%s: %s", o->file, strerror(errno));
	buf = malloc(FCHUNK);
	err = buf ? pagecache_run(o, fd, sz, buf, &r) : -ENOMEM;
	free(buf);
	close(fd);
	if (err)
		return memcheck_fail_json("pagecache", "%s: %s", o->file, strerror(-err));
	pagecache_report(o, sz, &r);
	return r.rd.bad || r.mm.bad ? 1 : 0;
}

/* ---- compact: fragmentation, compaction and huge page allocations ---- */

#define HUGE_SZ (2u << 20)
#define COMPACT_MAX_ROUNDS 8

static const char *const compact_events[] = {
	"compact_stall",	"compact_success",  "compact_fail",    "compact_migrate_scanned",
	"compact_free_scanned", "compact_isolated", "thp_fault_alloc", "thp_fault_fallback",
};
#define N_COMPACT (sizeof(compact_events) / sizeof(compact_events[0]))

struct vm_snap {
	uint64_t v[N_COMPACT];
	bool ok[N_COMPACT];
	uint64_t free_2m; /* free blocks of 2M and more, in 2M units (/proc/buddyinfo) */
	bool buddy_ok;
};

static void vm_snap_read(struct vm_snap *s)
{
	static char vm[16384], bi[2048];
	bool vok = !cg_read("/proc", "vmstat", vm, sizeof(vm));

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < N_COMPACT; i++)
		s->ok[i] = vok && memcheck_vmstat(vm, compact_events[i], &s->v[i]);
	s->buddy_ok = !cg_read("/proc", "buddyinfo", bi, sizeof(bi)) &&
		      memcheck_buddy_free_2m(bi, &s->free_2m);
}

static void vm_snap_report(struct json_out *j, const char *key, const struct vm_snap *a,
			   const struct vm_snap *b)
{
	json_key(j, key);
	json_obj_begin(j);
	for (size_t i = 0; i < N_COMPACT; i++)
		kv_delta(j, compact_events[i], a->ok[i], a->v[i], b->ok[i], b->v[i]);
	json_obj_end(j);
}

static uint64_t memfree_kb(void)
{
	char mi[8192];
	uint64_t kb = 0;

	return !cg_read("/proc", "meminfo", mi, sizeof(mi)) &&
		       memcheck_meminfo_line(mi, "MemFree", &kb)
		   ? kb
		   : 0;
}

/* Free memory to leave: just above the kernel's reserve (min_free_kbytes,
 * raised with THP on), below the low watermark (1.25 times it) that a huge
 * page allocation must stay above: what is left free cannot serve one. */
static uint64_t frag_floor_kb(void)
{
	uint64_t min = 0;

	if (!cg_u64("/proc/sys/vm", "min_free_kbytes", &min))
		min = 16384;
	return min * 11 / 10 + 2048;
}

/* Fragments free memory: fills 4 KiB pages, up to sz or until MemFree is
 * down to frag_floor_kb(), then gives every other page back, so hardly a 2M
 * block is left free; the rest stays held until exit (movable: compaction
 * may migrate it). The bytes filled in *held. */
static char *fragment(uint64_t sz, uint64_t *held)
{
	char *p = ctl_map(sz);
	uint64_t per = HUGE_SZ / MEMCHECK_PAGE, pages = 0, floor = frag_floor_kb();

	if (!p)
		return NULL;
	while (pages + per <= sz / MEMCHECK_PAGE) {
		if (memfree_kb() < floor)
			break;
		for (uint64_t i = pages; i < pages + per; i++)
			memcheck_fill(p + i * MEMCHECK_PAGE, i, 1);
		pages += per;
	}
	for (uint64_t i = 1; i < pages; i += 2)
		madvise(p + i * MEMCHECK_PAGE, MEMCHECK_PAGE, MADV_DONTNEED);
	*held = pages * MEMCHECK_PAGE / 2;
	return p;
}

/* Percent of a MADV_HUGEPAGE region of sz that came as huge pages: one
 * write per 2M, then AnonHugePages of the region; -errno when smaps has
 * no entry for it. The region is given back. */
static int try_huge(uint64_t sz, uint64_t *pct)
{
	char *raw = mmap(NULL, sz + HUGE_SZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *p;
	uint64_t kb = 0;
	FILE *f;
	int err;

	if (raw == MAP_FAILED)
		return -errno;
	p = (char *)(((uintptr_t)raw + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw)); /* a region of its own in smaps */
	munmap(p + sz, HUGE_SZ - (size_t)(p - raw));
	madvise(p, sz, MADV_HUGEPAGE);
	for (uint64_t off = 0; off < sz; off += HUGE_SZ)
		p[off] = 1;
	f = fopen("/proc/self/smaps", "re");
	err = f ? memcheck_smaps_huge_kb(f, (uintptr_t)p, &kb) : -errno;
	if (f)
		fclose(f);
	munmap(p, sz);
	*pct = (kb << 10) * 100 / sz;
	return err;
}

struct compact_run {
	struct vm_snap s0, s1, s2, s3;
	uint64_t before_pct, after_pct;
	int before_err, after_err, compact_err, rounds;
	int64_t compact_ms;
};

/* What compaction built and what the try made of it: free_2m_built (free
 * 2M blocks after compacting less before), huge_pct_possible (the share of
 * the try those blocks can serve, at most 100) and huge_pct_of_possible
 * (huge_pct_after in percent of that; null when it is 0 or unread). With
 * defrag never the try's faults take free 2M blocks and nothing else. */
static void compact_report_served(struct json_out *j, uint64_t tsz, const struct compact_run *r)
{
	bool ok = r->s1.buddy_ok && r->s2.buddy_ok;
	uint64_t possible = memcheck_huge_pct_possible(r->s2.free_2m, tsz / HUGE_SZ);

	if (ok)
		json_kv_i64(j, "free_2m_built", (int64_t)r->s2.free_2m - (int64_t)r->s1.free_2m);
	else
		json_kv_u64_or_null(j, "free_2m_built", false, 0);
	json_kv_u64_or_null(j, "huge_pct_possible", r->s2.buddy_ok, possible);
	json_kv_u64_or_null(j, "huge_pct_of_possible", r->s2.buddy_ok && possible && !r->after_err,
			    possible ? r->after_pct * 100 / possible : 0);
}

static void compact_report(uint64_t held, uint64_t tsz, const struct compact_run *r)
{
	struct json_out j;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "compact");
	json_kv_u64(&j, "held_kb", held >> 10);
	json_kv_u64(&j, "try_kb", tsz >> 10);
	json_kv_i64(&j, "compact_rounds", r->rounds);
	json_kv_u64_or_null(&j, "free_2m_fragmented", r->s1.buddy_ok, r->s1.free_2m);
	json_kv_u64_or_null(&j, "free_2m_compacted", r->s2.buddy_ok, r->s2.free_2m);
	json_kv_u64_or_null(&j, "huge_pct_before", !r->before_err, r->before_pct);
	json_kv_u64_or_null(&j, "huge_pct_after", !r->after_err, r->after_pct);
	compact_report_served(&j, tsz, r);
	vm_snap_report(&j, "during_before", &r->s0, &r->s1);
	vm_snap_report(&j, "during_compact", &r->s1, &r->s2);
	vm_snap_report(&j, "during_after", &r->s2, &r->s3);
	json_kv_i64(&j, "compact_ms", r->compact_ms);
	json_obj_end(&j);
	json_finish(&j);
}

static int op_compact(const struct ctl_opts *o)
{
	struct compact_run r = { 0 };
	uint64_t sz, held, tsz, prev;
	int64_t t0;

	if (!o->size || ctl_size(o->size, &sz) || ctl_size(o->try_size, &tsz))
		return memcheck_fail_json("compact", "--size SIZE|RATIOx is required; --try SIZE");
	tsz = (tsz + HUGE_SZ - 1) & ~(uint64_t)(HUGE_SZ - 1);
	if (!fragment(sz, &held))
		return memcheck_fail_json("compact", "mmap: %s", strerror(errno));
	vm_snap_read(&r.s0);
	r.before_err = try_huge(tsz, &r.before_pct);
	vm_snap_read(&r.s1);
	t0 = ms_now();
	r.s2 = r.s1;
	/* a pass of compact_memory now and then stops early (scanning a tenth of
	 * what a full one does): pass again while a pass built free 2M blocks
	 * and the try would not fit yet, up to COMPACT_MAX_ROUNDS; a pass that
	 * built none is the kernel's compaction making no more progress */
	prev = r.s2.free_2m;
	while (!o->no_compact && !r.compact_err && r.s2.buddy_ok &&
	       memcheck_compact_again(r.rounds, COMPACT_MAX_ROUNDS, prev, r.s2.free_2m,
				      tsz / HUGE_SZ)) {
		prev = r.s2.free_2m;
		r.compact_err = cg_write("/proc/sys/vm", "compact_memory", "1");
		r.rounds++;
		vm_snap_read(&r.s2);
	}
	r.compact_ms = ms_now() - t0;
	r.after_err = try_huge(tsz, &r.after_pct);
	vm_snap_read(&r.s3);
	if (r.compact_err)
		return memcheck_fail_json("compact", "/proc/sys/vm/compact_memory: %s",
					  strerror(-r.compact_err));
	compact_report(held, tsz, &r);
	return 0;
}

/* ---- options ---- */

static const struct option ctl_longopts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "max", required_argument, NULL, 'm' },
	{ "high", required_argument, NULL, 'H' },
	{ "swap-max", required_argument, NULL, 'w' },
	{ "group", required_argument, NULL, 'g' },
	{ "seed", required_argument, NULL, 'S' },
	{ "outside", required_argument, NULL, 'o' },
	{ "timeout", required_argument, NULL, 't' },
	{ "trigger", required_argument, NULL, 'T' },
	{ "quiet", required_argument, NULL, 'q' },
	{ "file", required_argument, NULL, 'f' },
	{ "try", required_argument, NULL, 'y' },
	{ "no-compact", no_argument, NULL, 'N' },
	{ "external", no_argument, NULL, 'E' },
	{ "background", required_argument, NULL, 'B' },
	{ "collect", required_argument, NULL, 'C' },
	{ "corrupt", no_argument, NULL, 'c' },
	{ NULL, 0, NULL, 0 },
};

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
	case 'f':
		o->file = arg;
		return 0;
	case 'y':
		o->try_size = arg;
		return 0;
	case 'N':
		o->no_compact = true;
		return 0;
	case 'E':
		o->external = true;
		return 0;
	case 'B':
	case 'C':
		o->state = arg;
		o->background = c == 'B';
		o->collect = c == 'C';
		return 0;
	case 'T':
		o->trigger = arg;
		return 0;
	case 'c':
		o->corrupt = true;
		return 0;
	case 'S':
		return memcheck_u64(arg, &o->seed);
	case 't':
		return memcheck_u64(arg, &o->timeout_ms);
	case 'q':
		return memcheck_u64(arg, &o->quiet_ms);
	case 'o':
		return size_parse(arg, &o->outside_sz);
	default:
		return -EINVAL;
	}
}

bool memctl_is_op(const char *op)
{
	return !strcmp(op, "memcg") || !strcmp(op, "psi-wait") || !strcmp(op, "pagecache") ||
	       !strcmp(op, "compact");
}

int memctl_main(int argc, char **argv)
{
	struct ctl_opts o = { .op = argv[1],
			      .group = NULL,
			      .trigger = "some 150000 1000000",
			      .try_size = "32M",
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
	if (!strcmp(o.op, "pagecache"))
		return op_pagecache(&o);
	if (!strcmp(o.op, "compact"))
		return op_compact(&o);
	return op_psi_wait(&o);
}
