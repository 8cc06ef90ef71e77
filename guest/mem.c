/* ktb-mem: squeezes, binds and inspects guest memory and reports one JSON
 * object per run.
 *   pressure  fill more anonymous memory than the guest has with a pattern
 *             (memcheck.h), read it all back, report paging counters and PSI
 *   zswap     the same pressure with zswap off, then on, side by side
 *   bind      bind an allocation to a NUMA node (mbind) and ask the kernel
 *             (move_pages) where each page landed
 *   thp       touch a MADV_HUGEPAGE region and read its AnonHugePages
 *   hold      fill memory in a background holder that waits for check
 *   check     make the holder verify its pages, report, and exit
 *   psi       memory pressure now and over a quiet window
 *   memcg, psi-wait, pagecache, compact  the memory controller, PSI
 *             triggers, huge pages in the page cache, compaction (memctl.h)
 * Exit 0 clean, 1 mismatches or failures, 2 usage. */
#include "json_out.h"
#include "memcheck.h"
#include "sysfs.h"
#include "memctl.h"
#include "size.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MEM_MAX_NODES 64
#define MEM_HUGE (2u << 20)
#define MPOL_BIND_MODE 2 /* linux/mempolicy.h MPOL_BIND */
#define MPOL_MF_MOVE_FLAG (1 << 1)

struct mem_opts {
	const char *op, *size, *state;
	uint64_t seed, settle_ms, timeout_ms;
	int node;
	bool corrupt;
};

struct counters {
	uint64_t pswpin, pswpout, pgmajfault;
	struct psi_line some, full;
	bool vmstat_ok, psi_ok;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ktb-mem pressure --size SIZE|RATIOx [--seed N] [--corrupt]\n"
		"       ktb-mem zswap --size SIZE|RATIOx [--seed N] [--corrupt]\n"
		"       ktb-mem bind --node N [--size SIZE]\n"
		"       ktb-mem thp [--size SIZE]\n"
		"       ktb-mem hold --size SIZE [--seed N] [--corrupt] [--state DIR]\n"
		"       ktb-mem check [--state DIR] [--timeout MS]\n"
		"       ktb-mem psi [--settle MS]\n"
		"       ktb-mem memcg --size SIZE --max SIZE [--high SIZE] [--swap-max SIZE]\n"
		"                     [--group NAME] [--outside SIZE] [--timeout MS] [--seed N]\n"
		"       ktb-mem psi-wait [--size SIZE|RATIOx] [--group NAME] [--max SIZE]\n"
		"                     [--high SIZE] [--trigger SPEC] [--quiet MS] [--timeout MS]\n"
		"                     [--external] [--background DIR]\n"
		"       ktb-mem psi-wait --collect DIR [--timeout MS]\n"
		"       ktb-mem pagecache --file PATH --size SIZE [--seed N] [--corrupt]\n"
		"       ktb-mem compact --size SIZE|RATIOx [--try SIZE] [--no-compact]\n"
		"SIZE: bytes with k/M/G, or RATIOx, a multiple of MemTotal (1.5x).\n"
		"--corrupt: self-test; spoil one page after filling, so verify must fail.\n");
}

static uint64_t meminfo_kb(const char *name)
{
	static char buf[8192];

	return sysfs_slurp("/proc/meminfo", buf, sizeof(buf)) ? 0 : memcheck_meminfo_kb(buf, name);
}

/* Each counter file read and parsed, or NULL: the counters of a file that
 * is missing or unreadable (PSI off: psi=0), or of a vmstat without the
 * event counters (CONFIG_VM_EVENT_COUNTERS off), are reported as null,
 * never as 0, so a check like {psi_some_us: {le: N}} or {pswpout: {le: N}}
 * cannot pass on nothing. Returns what is missing, or NULL. */
static const char *counters_read(struct counters *c)
{
	static char buf[16384];
	const char *missing = NULL;

	memset(c, 0, sizeof(*c));
	c->vmstat_ok = !sysfs_slurp("/proc/vmstat", buf, sizeof(buf));
	if (!c->vmstat_ok)
		missing = "/proc/vmstat";
	else if (!memcheck_vmstat(buf, "pswpin", &c->pswpin) ||
		 !memcheck_vmstat(buf, "pswpout", &c->pswpout) ||
		 !memcheck_vmstat(buf, "pgmajfault", &c->pgmajfault)) {
		c->vmstat_ok = false;
		missing =
		    "pswpin, pswpout, pgmajfault in /proc/vmstat (CONFIG_VM_EVENT_COUNTERS off?)";
	}
	c->psi_ok = !sysfs_slurp("/proc/pressure/memory", buf, sizeof(buf)) &&
		    !memcheck_psi(buf, "some", &c->some) && !memcheck_psi(buf, "full", &c->full);
	if (!c->psi_ok && !missing)
		missing = "/proc/pressure/memory";
	return missing;
}

static void *map_anon(uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void fill_all(char *p, uint64_t pages, uint64_t seed)
{
	for (uint64_t i = 0; i < pages; i++)
		memcheck_fill(p + i * MEMCHECK_PAGE, i, seed);
}

/* Verify every page; the count of bad ones, the first in *first. */
static uint64_t verify_all(const char *p, uint64_t pages, uint64_t seed, int64_t *first)
{
	uint64_t bad = 0;

	*first = -1;
	for (uint64_t i = 0; i < pages; i++) {
		if (memcheck_ok(p + i * MEMCHECK_PAGE, i, seed))
			continue;
		if (!bad++)
			*first = (int64_t)i;
	}
	return bad;
}

/* --corrupt: one page in the middle gets one word wrong. */
static void corrupt_one(char *p, uint64_t pages)
{
	uint64_t *w = (uint64_t *)(p + (pages / 2) * MEMCHECK_PAGE);

	w[7] ^= 0x5a;
}

static void oom_first(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	/* if anything must die for this, let it be the squeezer, not the agent */
	if (fd >= 0) {
		if (write(fd, "1000", 4) < 0)
			fprintf(stderr, "ktb-mem: cannot raise oom_score_adj\n");
		close(fd);
	}
}

static uint64_t opt_size(const struct mem_opts *o, const char *def, int *err)
{
	uint64_t sz = 0;

	*err = memcheck_size(o->size ? o->size : def, meminfo_kb("MemTotal") * 1024, &sz);
	return sz & ~(uint64_t)(MEMCHECK_PAGE - 1);
}

static void report_counters(struct json_out *j, const struct counters *a, const struct counters *b)
{
	bool vm = a->vmstat_ok && b->vmstat_ok, psi = a->psi_ok && b->psi_ok;

	json_kv_u64_or_null(j, "pswpin", vm, b->pswpin - a->pswpin);
	json_kv_u64_or_null(j, "pswpout", vm, b->pswpout - a->pswpout);
	json_kv_u64_or_null(j, "pgmajfault", vm, b->pgmajfault - a->pgmajfault);
	json_kv_double_or_null(j, "psi_some_avg10", psi, b->some.avg10);
	json_kv_double_or_null(j, "psi_full_avg10", psi, b->full.avg10);
	json_kv_u64_or_null(j, "psi_some_us", psi, b->some.total_us - a->some.total_us);
	json_kv_u64_or_null(j, "psi_full_us", psi, b->full.total_us - a->full.total_us);
}

struct pressure_res {
	uint64_t sz, pages, bad;
	int64_t first, fill_ms, verify_ms;
	struct counters a, b;
};

/* One pressure pass: fill sz bytes, verify them, free them. 0 or -errno. */
static int pressure_run(const struct mem_opts *o, uint64_t sz, struct pressure_res *r)
{
	int64_t t0, t1;
	char *p = map_anon(sz);

	if (!p)
		return -errno;
	memset(r, 0, sizeof(*r));
	r->sz = sz;
	r->pages = sz / MEMCHECK_PAGE;
	madvise(p, sz, MADV_NOHUGEPAGE); /* page by page, as swap sees it */
	counters_read(&r->a);
	t0 = now_ms();
	fill_all(p, r->pages, o->seed);
	if (o->corrupt)
		corrupt_one(p, r->pages);
	t1 = now_ms();
	r->bad = verify_all(p, r->pages, o->seed, &r->first);
	r->fill_ms = t1 - t0;
	r->verify_ms = now_ms() - t1;
	counters_read(&r->b);
	munmap(p, sz);
	return 0;
}

static void pressure_report(struct json_out *j, const struct pressure_res *r)
{
	int64_t ms = r->fill_ms + r->verify_ms;

	json_kv_u64(j, "size_mb", r->sz >> 20);
	json_kv_u64(j, "memtotal_mb", meminfo_kb("MemTotal") >> 10);
	json_kv_u64(j, "pages", r->pages);
	json_kv_u64(j, "pages_verified", r->pages - r->bad);
	json_kv_u64(j, "mismatches", r->bad);
	json_kv_i64(j, "first_mismatch", r->first);
	report_counters(j, &r->a, &r->b);
	json_kv_i64(j, "fill_ms", r->fill_ms);
	json_kv_i64(j, "verify_ms", r->verify_ms);
	json_kv_i64(j, "elapsed_ms", ms);
	json_kv_u64(j, "pages_per_s", ms > 0 ? r->pages * 1000 / (uint64_t)ms : r->pages);
}

static uint64_t pressure_size(const struct mem_opts *o, int *err)
{
	uint64_t sz = opt_size(o, "1.5x", err);

	if (!*err && !sz)
		*err = -EINVAL;
	return sz;
}

static int op_pressure(const struct mem_opts *o)
{
	struct pressure_res r;
	struct json_out j;
	int err;
	uint64_t sz = pressure_size(o, &err);

	if (err)
		return memcheck_fail_json("pressure", "bad --size %s", o->size ? o->size : "");
	oom_first();
	err = pressure_run(o, sz, &r);
	if (err)
		return memcheck_fail_json("pressure", "mmap of %llu bytes: %s",
					  (unsigned long long)sz, strerror(-err));
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "pressure");
	pressure_report(&j, &r);
	json_obj_end(&j);
	json_finish(&j);
	return r.bad ? 1 : 0;
}

#define ZSWAP_ENABLED "/sys/module/zswap/parameters/enabled"

static int zswap_set(bool on)
{
	int fd = open(ZSWAP_ENABLED, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, on ? "Y" : "N", 1);
	close(fd);
	return n == 1 ? 0 : -EIO;
}

/* The same pressure twice, zswap off then on: one report side by side. */
static int op_zswap(const struct mem_opts *o)
{
	struct pressure_res off, on;
	struct json_out j;
	int err;
	uint64_t sz = pressure_size(o, &err);

	if (err)
		return memcheck_fail_json("zswap", "bad --size %s", o->size ? o->size : "");
	oom_first();
	if ((err = zswap_set(false)) || (err = pressure_run(o, sz, &off)) ||
	    (err = zswap_set(true)) || (err = pressure_run(o, sz, &on)))
		return memcheck_fail_json("zswap", "%s", strerror(-err));
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "zswap");
	json_key(&j, "swap");
	json_obj_begin(&j);
	pressure_report(&j, &off);
	json_obj_end(&j);
	json_key(&j, "zswap");
	json_obj_begin(&j);
	pressure_report(&j, &on);
	json_obj_end(&j);
	/* the share of swap writes zswap saved, in percent (negative: more) */
	if (off.a.vmstat_ok && off.b.vmstat_ok && on.a.vmstat_ok && on.b.vmstat_ok)
		json_kv_i64(
		    &j, "pswpout_saved_pct",
		    memcheck_saved_pct(off.b.pswpout - off.a.pswpout, on.b.pswpout - on.a.pswpout));
	else
		json_kv_u64_or_null(&j, "pswpout_saved_pct", false, 0);
	json_kv_u64(&j, "mismatches", off.bad + on.bad);
	json_obj_end(&j);
	json_finish(&j);
	return off.bad || on.bad ? 1 : 0;
}

static long sys_mbind(void *addr, unsigned long len, int mode, const unsigned long *mask,
		      unsigned long maxnode, unsigned flags)
{
	return syscall(SYS_mbind, addr, len, mode, mask, maxnode, flags);
}

static long sys_move_pages(unsigned long count, void **pages, const int *nodes, int *status)
{
	return syscall(SYS_move_pages, 0, count, pages, nodes, status, 0);
}

/* --corrupt: move one page off the node it was bound to (to the first other
 * node that takes it), so the report must show it elsewhere. */
static void bind_corrupt(char *p, uint64_t pages, int node)
{
	void *page = p + (pages / 2) * MEMCHECK_PAGE;
	int status;

	for (int other = 0; other < MEM_MAX_NODES; other++) {
		if (other == node)
			continue;
		if (!sys_move_pages(1, &page, &other, &status) && status == other)
			return;
	}
	fprintf(stderr, "ktb-mem bind: --corrupt found no other node to move a page to\n");
}

/* Where each page of p[0..pages) is: counts per node into per_node. */
static int where_pages(char *p, uint64_t pages, uint64_t *per_node, uint64_t *unknown)
{
	void **addrs = calloc(pages, sizeof(*addrs));
	int *status = calloc(pages, sizeof(*status));
	int ret = 0;

	if (!addrs || !status) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint64_t i = 0; i < pages; i++)
		addrs[i] = p + i * MEMCHECK_PAGE;
	if (sys_move_pages(pages, addrs, NULL, status) < 0) {
		ret = -errno;
		goto out;
	}
	for (uint64_t i = 0; i < pages; i++) {
		if (status[i] >= 0 && status[i] < MEM_MAX_NODES)
			per_node[status[i]]++;
		else
			(*unknown)++;
	}
out:
	free(addrs);
	free(status);
	return ret;
}

static void report_bind(const struct mem_opts *o, uint64_t pages, const uint64_t *per_node,
			uint64_t unknown)
{
	struct json_out j;
	int top = 0;

	for (int n = 0; n < MEM_MAX_NODES; n++)
		if (per_node[n])
			top = n;
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "bind");
	json_kv_i64(&j, "node", o->node);
	json_kv_u64(&j, "pages", pages);
	json_kv_u64(&j, "pages_on_node", per_node[o->node]);
	json_kv_u64(&j, "pages_elsewhere", pages - per_node[o->node]);
	json_kv_u64(&j, "pages_unknown", unknown);
	json_key(&j, "per_node");
	json_arr_begin(&j);
	for (int n = 0; n <= top; n++)
		json_u64(&j, per_node[n]);
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

static int op_bind(const struct mem_opts *o)
{
	unsigned long mask[MEM_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
	uint64_t per_node[MEM_MAX_NODES] = { 0 }, unknown = 0, sz, pages;
	int err;
	char *p;

	if (o->node < 0 || o->node >= MEM_MAX_NODES)
		return memcheck_fail_json("bind", "--node N (0..%d) is required",
					  MEM_MAX_NODES - 1);
	sz = opt_size(o, "16M", &err);
	if (err || !sz)
		return memcheck_fail_json("bind", "bad --size %s", o->size ? o->size : "");
	pages = sz / MEMCHECK_PAGE;
	p = map_anon(sz);
	if (!p)
		return memcheck_fail_json("bind", "mmap: %s", strerror(errno));
	mask[o->node / (8 * sizeof(unsigned long))] |= 1ul << (o->node % (8 * sizeof(long)));
	if (sys_mbind(p, sz, MPOL_BIND_MODE, mask, MEM_MAX_NODES + 1, MPOL_MF_MOVE_FLAG) < 0)
		return memcheck_fail_json("bind", "mbind to node %d: %s", o->node, strerror(errno));
	fill_all(p, pages, o->seed);
	if (o->corrupt)
		bind_corrupt(p, pages, o->node);
	err = where_pages(p, pages, per_node, &unknown);
	if (err)
		return memcheck_fail_json("bind", "move_pages: %s", strerror(-err));
	report_bind(o, pages, per_node, unknown);
	munmap(p, sz);
	return per_node[o->node] == pages ? 0 : 1;
}

/* AnonHugePages of the smaps entry that starts at addr, in kB; -errno
 * when smaps cannot be read or has no such entry (then null, not 0). */
static int smaps_huge_kb(const void *addr, uint64_t *kb)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	int ret;

	if (!f)
		return -errno;
	ret = memcheck_smaps_huge_kb(f, (uintptr_t)addr, kb);
	fclose(f);
	return ret;
}

static int op_thp(const struct mem_opts *o)
{
	struct json_out j;
	uint64_t sz, kb;
	int err;
	char *raw, *p;

	sz = opt_size(o, "8M", &err);
	if (err || !sz)
		return memcheck_fail_json("thp", "bad --size %s", o->size ? o->size : "");
	sz = (sz + MEM_HUGE - 1) & ~(uint64_t)(MEM_HUGE - 1);
	raw = map_anon(sz + MEM_HUGE);
	if (!raw)
		return memcheck_fail_json("thp", "mmap: %s", strerror(errno));
	p = (char *)(((uintptr_t)raw + MEM_HUGE - 1) & ~(uintptr_t)(MEM_HUGE - 1));
	/* a region of its own, huge-page aligned, so smaps shows it apart */
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	munmap(p + sz, MEM_HUGE - (size_t)(p - raw));
	if (madvise(p, sz, MADV_HUGEPAGE) < 0)
		return memcheck_fail_json("thp", "madvise(MADV_HUGEPAGE): %s", strerror(errno));
	fill_all(p, sz / MEMCHECK_PAGE, o->seed);
	err = smaps_huge_kb(p, &kb);
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "thp");
	json_kv_u64(&j, "size_kb", sz >> 10);
	json_key(&j, "anon_huge_kb");
	if (err)
		json_null(&j);
	else
		json_u64(&j, kb);
	json_kv_u64(&j, "meminfo_anon_huge_kb", meminfo_kb("AnonHugePages"));
	json_obj_end(&j);
	json_finish(&j);
	munmap(p, sz);
	return 0;
}

/* ---- hold / check: a holder process that outlives the command ---- */

static volatile sig_atomic_t hold_go;

static void hold_signal(int sig)
{
	(void)sig;
	hold_go = 1;
}

static char *state_path(const struct mem_opts *o, const char *leaf)
{
	static char buf[2][512];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", o->state, leaf);
	return buf[k];
}

/* The holder: fill, tell the parent, wait for SIGUSR1, verify, write the
 * report, exit. Its stdio is /dev/null so the agent's command can end. */
static void holder(const struct mem_opts *o, uint64_t sz, int ready_fd)
{
	uint64_t pages = sz / MEMCHECK_PAGE, bad;
	int64_t first, t0;
	FILE *f;
	char *p = map_anon(sz);

	if (!p)
		_exit(3);
	madvise(p, sz, MADV_NOHUGEPAGE);
	fill_all(p, pages, o->seed);
	if (o->corrupt)
		corrupt_one(p, pages);
	if (write(ready_fd, "r", 1) != 1)
		_exit(3);
	close(ready_fd);
	while (!hold_go)
		pause();
	t0 = now_ms();
	bad = verify_all(p, pages, o->seed, &first);
	f = fopen(state_path(o, "report.tmp"), "we");
	if (!f)
		_exit(3);
	fprintf(f,
		"{\"op\": \"check\", \"alive\": true, \"pages\": %llu, \"pages_verified\": "
		"%llu, \"mismatches\": %llu, \"first_mismatch\": %lld, \"verify_ms\": %lld}\n",
		(unsigned long long)pages, (unsigned long long)(pages - bad),
		(unsigned long long)bad, (long long)first, (long long)(now_ms() - t0));
	fclose(f);
	rename(state_path(o, "report.tmp"), state_path(o, "report.json"));
	_exit(0);
}

static void hold_child(const struct mem_opts *o, uint64_t sz, int pfd[2])
{
	sigset_t set;
	int null = open("/dev/null", O_RDWR);

	close(pfd[0]);
	setsid();
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	signal(SIGUSR1, hold_signal);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	holder(o, sz, pfd[1]);
}

static int op_hold(const struct mem_opts *o)
{
	struct json_out j;
	uint64_t sz;
	int pfd[2], err;
	pid_t pid;
	char c;
	FILE *f;

	sz = opt_size(o, "64M", &err);
	if (err || !sz)
		return memcheck_fail_json("hold", "bad --size %s", o->size ? o->size : "");
	if ((mkdir(o->state, 0755) && errno != EEXIST) || pipe2(pfd, O_CLOEXEC))
		return memcheck_fail_json("hold", "%s: %s", o->state, strerror(errno));
	unlink(state_path(o, "report.json"));
	pid = fork();
	if (pid < 0)
		return memcheck_fail_json("hold", "fork: %s", strerror(errno));
	if (!pid)
		hold_child(o, sz, pfd);
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		return memcheck_fail_json("hold", "the holder died while filling %llu MB",
					  (unsigned long long)(sz >> 20));
	f = fopen(state_path(o, "pid"), "we");
	if (!f)
		return memcheck_fail_json("hold", "%s: %s", state_path(o, "pid"), strerror(errno));
	fprintf(f, "%d\n", (int)pid);
	fclose(f);
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "hold");
	json_kv_i64(&j, "pid", pid);
	json_kv_u64(&j, "size_mb", sz >> 20);
	json_kv_u64(&j, "pages", sz / MEMCHECK_PAGE);
	json_obj_end(&j);
	json_finish(&j);
	return 0;
}

static int check_report(const struct mem_opts *o)
{
	static char buf[1024];

	if (sysfs_slurp(state_path(o, "report.json"), buf, sizeof(buf)))
		return -1;
	fputs(buf, stdout);
	return strstr(buf, "\"mismatches\": 0,") ? 0 : 1;
}

static int op_check(const struct mem_opts *o)
{
	char buf[32];
	int64_t dl = now_ms() + (int64_t)o->timeout_ms;
	int ret;
	pid_t pid;

	if (sysfs_slurp(state_path(o, "pid"), buf, sizeof(buf)))
		return memcheck_fail_json("check", "no holder: run ktb-mem hold first");
	pid = (pid_t)atoi(buf);
	if (pid <= 0 || kill(pid, SIGUSR1)) {
		printf("{\"op\": \"check\", \"alive\": false, \"pid\": %d}\n", (int)pid);
		fprintf(stderr, "ktb-mem check: the holder (pid %d) is gone: killed (OOM?)\n",
			(int)pid);
		return 1;
	}
	while ((ret = check_report(o)) < 0 && now_ms() < dl)
		usleep(100000);
	if (ret < 0)
		return memcheck_fail_json("check", "the holder did not report within %llu ms",
					  (unsigned long long)o->timeout_ms);
	unlink(state_path(o, "pid"));
	return ret;
}

static int op_psi(const struct mem_opts *o)
{
	struct counters a, b;
	struct json_out j;

	/* ktb-mem psi is nothing but the PSI counters: without them, an error
	 * (vmstat's are reported, null when absent) */
	counters_read(&a);
	if (!a.psi_ok)
		return memcheck_fail_json("psi",
					  "cannot read /proc/pressure/memory (PSI off, psi=0?)");
	usleep((useconds_t)(o->settle_ms * 1000));
	counters_read(&b);
	if (!b.psi_ok)
		return memcheck_fail_json("psi", "cannot read /proc/pressure/memory");
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", "psi");
	json_kv_u64(&j, "window_ms", o->settle_ms);
	report_counters(&j, &a, &b);
	json_kv_double(&j, "psi_some_avg60", b.some.avg60);
	/* the 10 s average at the window's start less at its end: > 0 as it falls */
	json_kv_double(&j, "psi_some_avg10_drop", a.some.avg10 - b.some.avg10);
	json_obj_end(&j);
	json_finish(&j);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(const struct mem_opts *o);
} ops[] = {
	{ "pressure", op_pressure }, { "zswap", op_zswap }, { "bind", op_bind }, { "thp", op_thp },
	{ "hold", op_hold },	     { "check", op_check }, { "psi", op_psi },
};

static const struct option longopts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "seed", required_argument, NULL, 'S' },
	{ "node", required_argument, NULL, 'n' },
	{ "state", required_argument, NULL, 'd' },
	{ "settle", required_argument, NULL, 'w' },
	{ "timeout", required_argument, NULL, 't' },
	{ "corrupt", no_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(struct mem_opts *o, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 's':
		o->size = arg;
		return 0;
	case 'S':
		return memcheck_u64(arg, &o->seed);
	case 'd':
		o->state = arg;
		return 0;
	case 'w':
		return memcheck_u64(arg, &o->settle_ms);
	case 't':
		return memcheck_u64(arg, &o->timeout_ms);
	case 'c':
		o->corrupt = true;
		return 0;
	case 'n':
		if (memcheck_u64(arg, &v) || v >= MEM_MAX_NODES)
			return -EINVAL;
		o->node = (int)v;
		return 0;
	default:
		return -EINVAL;
	}
}

static int parse_args(struct mem_opts *o, int argc, char **argv)
{
	int c;

	*o = (struct mem_opts){ .seed = 1,
				.node = -1,
				.state = "/run/ktb-mem",
				.settle_ms = 5000,
				.timeout_ms = 60000 };
	if (argc < 2)
		return -EINVAL;
	o->op = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'h' || parse_opt(o, c, optarg)) {
			if (c != 'h')
				fprintf(stderr, "ktb-mem: bad option or value%s%s\n",
					optarg ? ": " : "", optarg ? optarg : "");
			return -EINVAL;
		}
	}
	return optind == argc ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct mem_opts o;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && memctl_is_op(argv[1]))
		return memctl_main(argc, argv);
	if (parse_args(&o, argc, argv)) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(o.op, ops[i].name))
			return ops[i].fn(&o);
	fprintf(stderr, "ktb-mem: unknown command \"%s\"\n", o.op);
	usage(stderr);
	return 2;
}
