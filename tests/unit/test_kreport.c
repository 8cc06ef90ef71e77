/* Kernel reports: every fixture (tests/unit/data/kreport/, 6.1's formats,
 * two of them from this testbed's own runs) gives the kind, title, lines
 * and stack expected; the signature ignores what changes between runs and
 * follows what does not; the guest's lines stay out of a report; panics
 * join the report they end; hostile input stays within the limits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kreport.h"
#include "util.h"

static char *load(const char *dir, const char *name, size_t *len)
{
	char *path = xasprintf("%s/%s/%s", KTB_TEST_DATA, dir, name);
	char *text = read_file(path, len);

	assert_non_null(text);
	free(path);
	return text;
}

static void scan_file(const char *dir, const char *name, struct kreport_list *l)
{
	size_t len;
	char *text = load(dir, name, &len);

	assert_int_equal(kreport_scan(text, len, l), 0);
	free(text);
}

static void scan_str(const char *text, struct kreport_list *l)
{
	assert_int_equal(kreport_scan(text, strlen(text), l), 0);
}

static void scan_str_n(const char *text, size_t len, struct kreport_list *l)
{
	assert_int_equal(kreport_scan(text, len, l), 0);
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

struct report_case {
	const char *file;
	size_t count; /* reports in the file */
	size_t index; /* the one checked */
	const char *kind;
	const char *title;
	size_t first_line, last_line;
	size_t nframes;
	size_t frame; /* one frame checked: its index, function, module */
	const char *func;
	const char *module;
	bool reliable;
	bool panicked;
};

static const struct report_case report_cases[] = {
	{ "panic_sysrq.txt", 1, 0, "panic", "panic: sysrq triggered crash", 6, 33, 12, 2,
	  "sysrq_handle_crash", NULL, true, false },
	/* the "? " frame, a module, panic_on_oops's panic joined */
	{ "oops_null_deref.txt", 1, 0, "oops", "BUG: kernel NULL pointer dereference in crash_init",
	  5, 48, 7, 1, "crash_init", "crashmod", false, true },
	{ "oops_gpf.txt", 1, 0, "oops", "general protection fault in __list_del_entry_valid", 1, 27,
	  8, 1, "free_work", NULL, true, false },
	{ "kernel_bug.txt", 1, 0, "oops", "kernel BUG in __list_del_entry_valid", 3, 27, 6, 0,
	  "__list_del_entry_valid.cold", NULL, true, false },
	/* printk.time=0: every line is the kernel's */
	{ "kernel_bug_notime.txt", 1, 0, "oops", "kernel BUG in __list_del_entry_valid", 5, 29, 6,
	  1, "listmod_write", "listmod", true, false },
	{ "page_fault.txt", 1, 0, "oops", "BUG: unable to handle page fault in pfmod_read", 1, 41,
	  10, 0, "pfmod_read", "pfmod", true, false },
	{ "bug_sched_atomic.txt", 1, 0, "bug", "BUG: scheduling while atomic in atomicmod_write", 2,
	  27, 11, 6, "atomicmod_write", "atomicmod", true, false },
	{ "warning_nvme.txt", 1, 0, "warning", "WARNING in nvme_setup_io_queues", 3, 36, 15, 8,
	  "nvme_reset_work", "nvme", true, false },
	{ "kasan_uaf.txt", 1, 0, "kasan", "KASAN: use-after-free Read in dm_mpath_end_io", 3, 78,
	  18, 5, "dm_mpath_end_io", "dm_multipath", true, false },
	{ "kfence_uaf.txt", 1, 0, "kfence", "KFENCE: use-after-free read in ktb_kfence_read", 2, 31,
	  5, 0, "ktb_kfence_read", "kfencemod", true, false },
	{ "ubsan_shift.txt", 1, 0, "ubsan", "UBSAN: shift-out-of-bounds in ktb_ubsan_shift", 2, 26,
	  9, 3, "ktb_ubsan_shift", "ubsanmod", true, false },
	{ "lockdep_circular.txt", 1, 0, "lockdep",
	  "lockdep: possible circular locking dependency in ktb_ab_write", 3, 77, 13, 4,
	  "ktb_ab_write", "lockmod", false, false },
	{ "lockdep_rcu.txt", 1, 0, "lockdep", "lockdep: suspicious RCU usage in ktb_rcu_peek", 3,
	  27, 8, 2, "ktb_rcu_peek", "rcumod", true, false },
	{ "hung_task.txt", 1, 0, "hung task", "INFO: task hung in blk_mq_get_tag", 3, 32, 15, 3,
	  "blk_mq_get_tag", NULL, true, false },
	{ "rcu_stall.txt", 1, 0, "rcu stall", "INFO: rcu detected stall in spin_write", 1, 50, 21,
	  16, "spin_write", "spinmod", true, false },
	{ "soft_lockup.txt", 1, 0, "soft lockup", "BUG: soft lockup in spin_write", 2, 18, 6, 1,
	  "watchdog_timer_fn", NULL, false, false },
	/* hardlockup_panic: the panic's lines belong to the lockup */
	{ "hard_lockup.txt", 1, 0, "hard lockup", "hard lockup in hlmod_write", 1, 61, 7, 2,
	  "hlmod_write", "hlmod", true, true },
	{ "oom_global.txt", 1, 0, "oom kill", "OOM kill: ktb-mem", 1, 38, 13, 4,
	  "__alloc_pages_slowpath.constprop.0", NULL, true, false },
	/* from a run of memcg-limit: two kills */
	{ "oom_memcg.txt", 2, 0, "oom kill", "memcg OOM kill: ktb-mem", 3, 67, 13, 5,
	  "try_charge_memcg", NULL, true, false },
	{ "oom_memcg.txt", 2, 1, "oom kill", "memcg OOM kill: ktb-mem", 69, 133, 13, 12,
	  "asm_exc_page_fault", NULL, true, false },
	{ "two_reports.txt", 2, 0, "warning", "WARNING in nvme_setup_io_queues", 3, 36, 15, 0,
	  "nvme_setup_io_queues", "nvme", true, false },
	{ "two_reports.txt", 2, 1, "oops", "general protection fault in __list_del_entry_valid", 38,
	  64, 8, 0, "__list_del_entry_valid", NULL, true, false },
	{ "interleaved.txt", 1, 0, "warning", "WARNING in sysfs_warn_dup", 5, 33, 8, 3,
	  "kobject_add", NULL, true, false },
};

static void check_case(const struct report_case *c)
{
	struct kreport_list l;
	const struct kreport *r;
	const struct kreport_frame *f;

	scan_file("kreport", c->file, &l);
	if (l.count != c->count)
		fail_msg("%s: %zu reports, expected %zu", c->file, l.count, c->count);
	r = &l.items[c->index];
	assert_string_equal(r->kind, c->kind);
	assert_string_equal(r->title, c->title);
	if (r->first_line != c->first_line || r->last_line != c->last_line)
		fail_msg("%s: lines %zu-%zu, expected %zu-%zu", c->file, r->first_line,
			 r->last_line, c->first_line, c->last_line);
	if (r->nframes != c->nframes)
		fail_msg("%s: %zu frames, expected %zu", c->file, r->nframes, c->nframes);
	f = &r->frames[c->frame];
	assert_string_equal(f->func, c->func);
	if (c->module)
		assert_string_equal(f->module, c->module);
	else
		assert_null(f->module);
	assert_true(f->reliable == c->reliable);
	assert_true(r->panicked == c->panicked);
	assert_int_equal(strlen(r->signature), 64);
	/* the kernel's lines only: each has its timestamp (but where the
	 * kernel printed none) */
	assert_true(ends_with(r->text, "\n"));
	for (const char *p = r->text; *p; p = strchr(p, '\n') + 1)
		if (strcmp(c->file, "kernel_bug_notime.txt") && *p != '[')
			fail_msg("%s: a line of the text without a timestamp: %.40s", c->file, p);
	kreport_list_free(&l);
}

static void test_kreport_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(report_cases) / sizeof(report_cases[0]); i++)
		check_case(&report_cases[i]);
}

/* The first report's signature in tests/unit/data/DIR/NAME (caller frees). */
static char *signature_of(const char *dir, const char *name, size_t index)
{
	struct kreport_list l;
	char *sig;

	scan_file(dir, name, &l);
	assert_true(index < l.count);
	sig = xstrdup(l.items[index].signature);
	kreport_list_free(&l);
	return sig;
}

static void test_kreport_same_signature(void **state)
{
	char *a = signature_of("kreport", "warning_nvme.txt", 0);
	/* another boot: other times, PID, task, addresses and offsets */
	char *b = signature_of("kreport", "warning_nvme_rerun.txt", 0);
	char *m0 = signature_of("kreport", "oom_memcg.txt", 0);
	char *m1 = signature_of("kreport", "oom_memcg.txt", 1);
	char *k0 = signature_of("kreport", "kernel_bug.txt", 0);
	char *k1 = signature_of("kreport", "kernel_bug_notime.txt", 0);
	char *g0 = signature_of("kreport", "oops_gpf.txt", 0);
	char *g1 = signature_of("console", "oops_gpf.txt", 0);

	(void)state;
	assert_string_equal(a, b);
	assert_string_equal(m0, m1); /* one run's two kills: other PIDs, times, registers */
	assert_string_equal(k0, k1); /* with and without timestamps */
	assert_string_equal(g0, g1); /* one more register line, other CR2 */
	free(a);
	free(b);
	free(m0);
	free(m1);
	free(k0);
	free(k1);
	free(g0);
	free(g1);
}

static void test_kreport_other_signature(void **state)
{
	char *a = signature_of("kreport", "warning_nvme.txt", 0);
	/* the same WARNING reached from nvme_probe instead */
	char *b = signature_of("kreport", "warning_nvme_other_path.txt", 0);
	char *c = signature_of("kreport", "oops_gpf.txt", 0);
	char *d = signature_of("kreport", "kernel_bug.txt", 0);

	(void)state;
	assert_string_not_equal(a, b);
	/* same function in both titles, another kind of crash */
	assert_string_not_equal(c, d);
	free(a);
	free(b);
	free(c);
	free(d);
}

static void test_kreport_none(void **state)
{
	static const char *const clean[][2] = {
		{ "console", "clean_boot.txt" },
		{ "console", "real_clean_boot_numa.txt" },
		/* a task that refused to freeze is the suspend step's business */
		{ "kreport", "freezer_refused.txt" },
	};
	struct kreport_list l;

	(void)state;
	for (size_t i = 0; i < sizeof(clean) / sizeof(clean[0]); i++) {
		scan_file(clean[i][0], clean[i][1], &l);
		if (l.count)
			fail_msg("%s: %zu reports: %s", clean[i][1], l.count, l.items[0].title);
		kreport_list_free(&l);
	}
	assert_int_equal(kreport_scan("", 0, &l), 0);
	assert_int_equal(l.count, 0);
	assert_int_equal(kreport_scan(NULL, 0, &l), 0);
	assert_int_equal(l.count, 0);
	assert_int_equal(kreport_scan(NULL, 1, &l), -EINVAL);
	assert_int_equal(kreport_scan("x", 1, NULL), -EINVAL);
	kreport_list_free(&l);
	kreport_list_free(NULL);
}

/* The guest's lines inside a report: neither frames nor text, and they do
 * not cut the stack short; a kernel line glued to one still counts. */
static void test_kreport_interleaved(void **state)
{
	struct kreport_list l;
	const struct kreport *r;

	(void)state;
	scan_file("kreport", "interleaved.txt", &l);
	assert_int_equal(l.count, 1);
	r = &l.items[0];
	for (size_t i = 0; i < r->nframes; i++)
		assert_string_not_equal(r->frames[i].func, "guest_helper");
	assert_string_equal(r->frames[r->nframes - 1].func, "do_init_module");
	assert_null(strstr(r->text, "ktb:"));
	assert_null(strstr(r->text, "guest_helper"));
	assert_null(strstr(r->text, "+ echo"));
	assert_non_null(strstr(r->text, "\n[   30.522600]  kobject_add+0x7e/0xb0\n"));
	assert_non_null(strstr(r->text, "---[ end trace 0000000000000000 ]---\n"));
	kreport_list_free(&l);
}

/* What follows a report's end is not its text, unless a panic comes. */
static void test_kreport_text(void **state)
{
	struct kreport_list l;
	const char *t;

	(void)state;
	scan_file("kreport", "two_reports.txt", &l);
	t = l.items[0].text;
	assert_true(starts_with(t, "[    3.412534] WARNING: CPU: 0 PID: 57 at "));
	assert_true(ends_with(t, "] ---[ end trace 0000000000000000 ]---\n"));
	assert_null(strstr(t, "default/read/poll queues"));
	assert_true(starts_with(l.items[1].text, "[   33.410000] general protection fault, "));
	kreport_list_free(&l);

	scan_file("kreport", "oops_null_deref.txt", &l);
	t = l.items[0].text;
	assert_true(starts_with(t, "[   25.098651] BUG: kernel NULL pointer dereference"));
	/* the registers repeated after the oops' end are kept with the panic */
	assert_non_null(strstr(t, "]---\n[   25.106897] RIP: 0010:crash_init"));
	assert_true(ends_with(t, "] ---[ end Kernel panic - not syncing: Fatal exception ]---\n"));
	kreport_list_free(&l);
}

/* A report of DEPTH frames in tests: "BUG: soft lockup" and its stack. */
static char *soft_lockup_text(size_t depth, const char *after)
{
	size_t cap = 256 + depth * 48 + strlen(after);
	char *s = xcalloc(1, cap), *p = s;

	p += sprintf(p, "[    1.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! "
			"[sh:1]\n[    1.000001] Call Trace:\n[    1.000002]  <TASK>\n");
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "[    1.000003]  f%zu+0x1/0x2 [m]\n", i);
	sprintf(p, "[    1.000004]  </TASK>\n%s", after);
	return s;
}

/* A snapshot taken while the kernel printed a report: cut inside its head
 * or stack, the report says so (its title may want the rest); once its
 * stack closed, or a line followed it, it is whole. Every cut of a
 * fixture's text at a line's end, the first "</TASK>" the stack's last. */
static void test_kreport_cut(void **state)
{
	size_t len, lines = 0, end = 0;
	char *text = load("kreport", "soft_lockup.txt", &len);
	const char *close = strstr(text, "</TASK>\n") + strlen("</TASK>\n");
	struct kreport_list l;

	(void)state;
	for (size_t at = 0; at < len; at++) {
		bool before_head = at < (size_t)(strstr(text, "watchdog:") - text);

		if (text[at] != '\n')
			continue;
		lines++;
		scan_str_n(text, at + 1, &l);
		if (before_head) {
			assert_int_equal(l.count, 0);
		} else {
			assert_int_equal(l.count, 1);
			/* cut until the stack's end line is in */
			assert_int_equal(l.items[0].cut, text + at + 1 < close);
			assert_int_equal(kreport_cut(text, at + 1), text + at + 1 < close);
			if (text + at + 1 < close)
				end = lines;
		}
		kreport_list_free(&l);
	}
	assert_true(end > 2); /* some cuts were inside, some after */
	assert_true(lines > end);
	/* the head alone: the title the step saw in CI, without the function */
	scan_str_n(text, (size_t)(strstr(text, "Modules linked in") - text), &l);
	assert_true(l.items[0].cut);
	assert_string_equal(l.items[0].title, "BUG: soft lockup");
	kreport_list_free(&l);
	/* a cut inside a line (no newline yet) is cut too */
	assert_true(kreport_cut(text, (size_t)(strstr(text, "vfs_write") - text)));
	/* nothing, and text without reports */
	assert_false(kreport_cut("", 0));
	assert_false(kreport_cut("[    1.000000] Run /init\n", 25));
	free(text);
}

static void test_kreport_panic_joins(void **state)
{
	struct kreport_list l;
	char *filler = xcalloc(1, 40 * 96 + 160), *p = filler, *text;

	(void)state;
	/* right after its end: the lockup's */
	text = soft_lockup_text(3, "[    1.000005] Kernel panic - not syncing: softlockup: hung "
				   "tasks\n[    1.000006] ---[ end Kernel panic - not syncing: "
				   "softlockup: hung tasks ]---\n");
	scan_str(text, &l);
	assert_int_equal(l.count, 1);
	assert_true(l.items[0].panicked);
	assert_string_equal(l.items[0].title, "BUG: soft lockup in f0");
	assert_int_equal(l.items[0].last_line, 9);
	kreport_list_free(&l);
	free(text);

	/* 40 lines later: a finding of its own, and the lines between are
	 * neither's */
	for (int i = 0; i < 40; i++)
		p += sprintf(
		    p, "[    1.100%03d] virtio_blk virtio1: [vda] 2097152 512-byte blocks\n", i);
	sprintf(p, "[    1.200000] Kernel panic - not syncing: VFS: Unable to mount root fs on "
		   "unknown-block(0,0)\n");
	text = soft_lockup_text(3, filler);
	scan_str(text, &l);
	assert_int_equal(l.count, 2);
	assert_false(l.items[0].panicked);
	assert_int_equal(l.items[0].last_line, 7);
	assert_string_equal(l.items[1].kind, "panic");
	assert_string_equal(l.items[1].title,
			    "panic: VFS: Unable to mount root fs on unknown-block(,)");
	assert_int_equal(l.items[1].first_line, 48);
	kreport_list_free(&l);
	free(text);
	free(filler);
}

/* A report without an end mark ends where the timestamps leave a gap. */
static void test_kreport_gap(void **state)
{
	struct kreport_list l;

	(void)state;
	scan_str("[   52.004000] WARNING: CPU: 1 PID: 1 at a.c:1 f+0x1/0x2\n"
		 "[   52.004100] CPU: 1 PID: 1 Comm: sh Not tainted 6.1.0 #1\n"
		 "[   70.000000] virtio_net virtio0 enp0s2: renamed from eth0\n"
		 "[   70.100000] Kernel panic - not syncing: Attempted to kill init! "
		 "exitcode=0x00000009\n",
		 &l);
	assert_int_equal(l.count, 2);
	assert_int_equal(l.items[0].last_line, 2);
	assert_string_equal(l.items[0].title, "WARNING in f");
	assert_string_equal(l.items[1].title, "panic: Attempted to kill init! exitcode=");
	kreport_list_free(&l);
}

struct title_case {
	const char *text;
	const char *kind;
	const char *title;
};

/* Title rules the fixtures do not show. */
static const struct title_case title_cases[] = {
	{ "[    9.000000] BUG: Bad rss-counter state mm:00000000a1b2c3d4 type:MM_ANONPAGES "
	  "val:1\n",
	  "bug", "BUG: Bad rss-counter state" },
	{ "[    9.000000] BUG: sleeping function called from invalid context at "
	  "kernel/locking/mutex.c:580\n[    9.000001] Call Trace:\n[    9.000002]  <TASK>\n"
	  "[    9.000003]  dump_stack_lvl+0x44/0x5c\n[    9.000004]  "
	  "__might_resched.cold+0xd6/0xea\n"
	  "[    9.000005]  ktb_sleepy+0x1a/0x40 [sleepmod]\n[    9.000006]  </TASK>\n",
	  "bug", "BUG: sleeping function called from invalid context in ktb_sleepy" },
	/* no stack: the file, without line and column */
	{ "[    9.000000] UBSAN: array-index-out-of-bounds in fs/ext4/super.c:1234:15\n", "ubsan",
	  "UBSAN: array-index-out-of-bounds in fs/ext4/super.c" },
	/* a helper in the line: the stack names the caller */
	{ "[    9.000000] BUG: KASAN: slab-out-of-bounds in memcpy+0x1a/0x60\n"
	  "[    9.000001] Write of size 16 at addr ffff888005a3c173 by task sh/1\n"
	  "[    9.000002] Call Trace:\n[    9.000003]  <TASK>\n"
	  "[    9.000004]  kasan_report+0xad/0x130\n[    9.000005]  memcpy+0x1a/0x60\n"
	  "[    9.000006]  ktb_copy+0x2a/0x50 [copymod]\n[    9.000007]  </TASK>\n",
	  "kasan", "KASAN: slab-out-of-bounds Write in ktb_copy" },
	{ "[    9.000000] WARNING: bad unlock balance detected!\n[    9.000001] Call Trace:\n"
	  "[    9.000002]  <TASK>\n[    9.000003]  lock_release+0x1b/0x2b0\n"
	  "[    9.000004]  _raw_spin_unlock+0x17/0x40\n[    9.000005]  ktb_unlock+0x9/0x20 [m]\n"
	  "[    9.000006]  </TASK>\n",
	  "lockdep", "lockdep: bad unlock balance in ktb_unlock" },
	{ "[    9.000000] WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected\n", "lockdep",
	  "lockdep: irq-safe -> irq-unsafe lock order" },
	/* no function in the WARNING line: the stack's */
	{ "[    9.000000] WARNING: CPU: 0 PID: 1 at 0xffffffffc0a3d000\n"
	  "[    9.000001] RIP: 0010:ktb_warn+0x5/0x10 [m]\n",
	  "warning", "WARNING in ktb_warn" },
	{ "[    9.000000] general protection fault: 0000 [#1] SMP\n"
	  "[    9.000001] RIP: 0010:ktb_gpf.isra.0+0x5/0x10\n",
	  "oops", "general protection fault in ktb_gpf" },
	{ "[    9.000000] Out of memory: Killed process 77 (my prog) total-vm:1kB\n", "oom kill",
	  "OOM kill: my prog" },
	{ "[    9.000000] sh invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0\n"
	  "[    9.000001] Kernel panic - not syncing: Out of memory: compulsory panic_on_oom is "
	  "enabled\n",
	  "oom kill", "OOM: sh invoked oom-killer" },
	{ "[    9.000000] Kernel panic - not syncing: Attempted to kill the idle task!\n", "panic",
	  "panic: Attempted to kill the idle task!" },
	/* binary bytes become '?' */
	{ "[    9.000000] Kernel panic - not syncing: bad \x01\xff byte\n", "panic",
	  "panic: bad ?? byte" },
};

static void test_kreport_titles(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(title_cases) / sizeof(title_cases[0]); i++) {
		struct kreport_list l;

		scan_str(title_cases[i].text, &l);
		if (l.count != 1)
			fail_msg("case %zu: %zu reports", i, l.count);
		assert_string_equal(l.items[0].kind, title_cases[i].kind);
		assert_string_equal(l.items[0].title, title_cases[i].title);
		kreport_list_free(&l);
	}
}

/* A small PRNG: the same bytes on every run. */
static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void check_bounded(const struct kreport_list *l)
{
	assert_true(l->count <= KREPORT_MAX_REPORTS);
	for (size_t i = 0; i < l->count; i++) {
		assert_true(l->items[i].nframes <= KREPORT_MAX_FRAMES);
		assert_true(strlen(l->items[i].text) <= KREPORT_MAX_TEXT);
		assert_true(strlen(l->items[i].title) <= 2 * KREPORT_MAX_LINE);
		assert_true(l->items[i].first_line <= l->items[i].last_line);
	}
}

static void test_kreport_hostile(void **state)
{
	static const char nul_text[] = "[    1.000000] kernel BUG at a.c:1!\n"
				       "[    1.000001] RIP: 0010:f\0g+0x1/0x2";
	size_t size = 1 << 20;
	char *buf = xcalloc(1, size + 256);
	uint32_t seed = 2463534242u;
	struct kreport_list l;
	char *text;

	(void)state;
	/* random bytes, NULs and all, some of them line ends */
	for (size_t i = 0; i < size; i++)
		buf[i] = (char)next_rand(&seed);
	assert_int_equal(kreport_scan(buf, size, &l), 0);
	check_bounded(&l);
	kreport_list_free(&l);

	/* a 1 MB line with no end, after a report's first line */
	strcpy(buf, "[    1.000000] WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2\n[    1.000001] ");
	memset(buf + strlen(buf), 'A', size);
	assert_int_equal(kreport_scan(buf, strlen(buf), &l), 0);
	assert_int_equal(l.count, 1);
	assert_true(strlen(l.items[0].text) < 2 * KREPORT_MAX_LINE);
	check_bounded(&l);
	kreport_list_free(&l);

	/* 100000 frames: the first KREPORT_MAX_FRAMES kept, the text capped */
	text = soft_lockup_text(100000, "");
	scan_str(text, &l);
	assert_int_equal(l.count, 1);
	assert_int_equal(l.items[0].nframes, KREPORT_MAX_FRAMES);
	assert_string_equal(l.items[0].frames[KREPORT_MAX_FRAMES - 1].func, "f63");
	check_bounded(&l);
	kreport_list_free(&l);
	free(text);

	/* more reports than kept: the rest counted */
	for (size_t i = 0; i < 150; i++)
		memcpy(buf + i * 7, "BUG: x\n", 7);
	assert_int_equal(kreport_scan(buf, 150 * 7, &l), 0);
	assert_int_equal(l.count, KREPORT_MAX_REPORTS);
	assert_int_equal(l.dropped, 150 - KREPORT_MAX_REPORTS);
	check_bounded(&l);
	kreport_list_free(&l);

	/* NULs inside a report, no final newline */
	assert_int_equal(kreport_scan(nul_text, sizeof(nul_text) - 1, &l), 0);
	assert_int_equal(l.count, 1);
	assert_string_equal(l.items[0].title, "kernel BUG");
	assert_int_equal(l.items[0].last_line, 2);
	assert_non_null(strstr(l.items[0].text, "0010:f?g+0x1/0x2\n"));
	kreport_list_free(&l);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kreport_fixtures),
		cmocka_unit_test(test_kreport_same_signature),
		cmocka_unit_test(test_kreport_other_signature),
		cmocka_unit_test(test_kreport_none),
		cmocka_unit_test(test_kreport_interleaved),
		cmocka_unit_test(test_kreport_text),
		cmocka_unit_test(test_kreport_cut),
		cmocka_unit_test(test_kreport_panic_joins),
		cmocka_unit_test(test_kreport_gap),
		cmocka_unit_test(test_kreport_titles),
		cmocka_unit_test(test_kreport_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
