#include "kreport.h"

#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many of a stack's function names go into the signature: enough to
 * tell two paths apart, few enough that a deeper caller that differs
 * between runs (a worker, a syscall) does not split one bug in two. */
#define KR_SIG_FRAMES 8
/* Lines after a report's end in which a panic is taken as its consequence
 * ("Fatal exception" after an oops, panic_on_warn, hung_task_panic); the
 * register dump an oops repeats after its end marker fits. */
#define KR_GRACE_LINES 32
/* A report whose stack has not begun after this many lines is over: no
 * kernel report has a longer head (lockdep's is the longest, about 60). */
#define KR_MAX_HEAD_LINES 128
/* A kernel prints a report at once: a later line 10 s after the last one
 * belongs to something else (the gap also ends a report with no end mark). */
#define KR_GAP_USEC (10ull * 1000 * 1000)
/* The longest symbol kallsyms prints (KSYM_NAME_LEN in 6.1). */
#define KR_MAX_SYMBOL 512

/* How a report of a kind ends, besides the ends every kind has (the end
 * marker, a new report, a gap in the timestamps, the size limits). */
enum kr_end {
	END_MARKER, /* "---[ end trace ... ]---" or "---[ end Kernel panic ..." */
	END_RULER,  /* a row of '=', as KASAN, KFENCE and UBSAN close theirs */
	END_STACK,  /* the end of its first stack */
	END_KILL,   /* the OOM killer's "Killed process" line */
};

/* The kinds: name, how a report ends, and whether frames inside <IRQ> or
 * <NMI> are left out of the title and the signature (for the stalls and
 * lockups the interrupt is the detector, not the culprit). */
#define KR_KINDS(X)                                                                                \
	X(PANIC, "panic", END_MARKER, false)                                                       \
	X(OOPS, "oops", END_MARKER, false)                                                         \
	X(BUG, "bug", END_STACK, false)                                                            \
	X(KASAN, "kasan", END_RULER, false)                                                        \
	X(UBSAN, "ubsan", END_RULER, false)                                                        \
	X(KFENCE, "kfence", END_RULER, false)                                                      \
	X(LOCKDEP, "lockdep", END_STACK, false)                                                    \
	X(WARNING, "warning", END_MARKER, false)                                                   \
	X(HUNG, "hung task", END_STACK, false)                                                     \
	X(RCU, "rcu stall", END_STACK, true)                                                       \
	X(SOFT, "soft lockup", END_STACK, true)                                                    \
	X(HARD, "hard lockup", END_STACK, true)                                                    \
	X(OOM, "oom kill", END_KILL, false)

enum kr_kind {
#define KR_ENUM(id, name, end, skip_irq) KR_##id,
	KR_KINDS(KR_ENUM)
#undef KR_ENUM
};

static const struct {
	const char *name;
	enum kr_end end;
	bool skip_irq;
} kr_kinds[] = {
#define KR_INFO(id, name, end, skip_irq) { name, end, skip_irq },
	KR_KINDS(KR_INFO)
#undef KR_INFO
};

/* Where a starter's text may stand in a message (after the printk prefix). */
enum kr_where {
	AT_START,     /* the message starts with it */
	AFTER_PREFIX, /* at the start or after a pr_fmt prefix: "watchdog: " */
	ANYWHERE,     /* "COMM invoked oom-killer: " */
};

enum kr_role {
	ROLE_START,	/* always starts a report, ending the open one */
	ROLE_SECONDARY, /* a line of the open report; a start only on its own */
	ROLE_PANIC,	/* joins the open or just ended report, else starts one */
	ROLE_KILL,	/* ends an OOM report that has no victim yet, else one */
};

struct kr_starter {
	const char *text;
	const char *also; /* must follow text in the message; NULL: nothing */
	enum kr_where where;
	enum kr_kind kind;
	enum kr_role role;
};

/* The first line of each kind of report (lockdep's are in kr_lockdep).
 * First match wins: the flavours of "BUG: " come before the plain one. */
static const struct kr_starter kr_starters[] = {
	{ "Kernel panic - not syncing", NULL, AT_START, KR_PANIC, ROLE_PANIC },
	{ "BUG: KASAN: ", NULL, AT_START, KR_KASAN, ROLE_START },
	{ "BUG: KFENCE: ", NULL, AT_START, KR_KFENCE, ROLE_START },
	{ "UBSAN: ", NULL, AT_START, KR_UBSAN, ROLE_START },
	{ "BUG: soft lockup", NULL, AFTER_PREFIX, KR_SOFT, ROLE_START },
	{ "Watchdog detected hard LOCKUP", NULL, AFTER_PREFIX, KR_HARD, ROLE_START },
	{ "INFO: task ", " blocked for more than ", AFTER_PREFIX, KR_HUNG, ROLE_START },
	{ "INFO: rcu_", "stall", AFTER_PREFIX, KR_RCU, ROLE_START },
	{ "BUG: kernel NULL pointer dereference", NULL, AT_START, KR_OOPS, ROLE_START },
	{ "BUG: unable to handle ", NULL, AT_START, KR_OOPS, ROLE_START },
	{ "general protection fault", NULL, AT_START, KR_OOPS, ROLE_START },
	{ "kernel BUG at ", NULL, AT_START, KR_OOPS, ROLE_START },
	{ "Unable to handle kernel ", NULL, AT_START, KR_OOPS, ROLE_START },
	/* these follow the lines above in one oops */
	{ "Oops: ", NULL, AT_START, KR_OOPS, ROLE_SECONDARY },
	{ "invalid opcode: ", NULL, AT_START, KR_OOPS, ROLE_SECONDARY },
	{ "Internal error: ", NULL, AT_START, KR_OOPS, ROLE_SECONDARY },
	{ "WARNING: CPU: ", NULL, AT_START, KR_WARNING, ROLE_START },
	{ "BUG: ", NULL, AFTER_PREFIX, KR_BUG, ROLE_START },
	{ " invoked oom-killer: ", NULL, ANYWHERE, KR_OOM, ROLE_START },
	{ "Out of memory", ": Killed process ", AT_START, KR_OOM, ROLE_KILL },
	{ "Memory cgroup out of memory", ": Killed process ", AT_START, KR_OOM, ROLE_KILL },
};

/* lockdep's headlines, each "WARNING: " and the phrase, and the words of
 * the title ("!" and "detected" dropped, the IRQ class made generic). */
static const struct {
	const char *phrase;
	const char *title;
} kr_lockdep[] = {
	{ "possible circular locking dependency detected", "possible circular locking dependency" },
	{ "possible recursive locking detected", "possible recursive locking" },
	{ "inconsistent lock state", "inconsistent lock state" },
	{ "possible irq lock inversion dependency detected",
	  "possible irq lock inversion dependency" },
	{ "-unsafe lock order detected", "irq-safe -> irq-unsafe lock order" },
	{ "held lock freed!", "held lock freed" },
	{ "bad unlock balance detected!", "bad unlock balance" },
	{ "lock held when returning to user space!", "lock held when returning to user space" },
	{ "still has locks held!", "still has locks held" },
	{ "suspicious RCU usage", "suspicious RCU usage" },
	{ "Nested lock was not taken", "nested lock was not taken" },
	{ "bad contention detected!", "bad contention" },
};

/* Functions that report, wait, lock or take interrupts rather than go
 * wrong: the title names the first frame that is none of these. Names
 * separated by spaces; a '*' at the end makes a name a prefix. */
static const char *const kr_machinery[] = {
	/* printing the report */
	"panic nmi_panic __warn warn_slowpath_fmt report_bug handle_bug exc_invalid_op asm_exc_* "
	"dump_stack* show_stack show_regs sched_show_task print_report dump_header "
	"oom_kill_process out_of_memory __schedule_bug __might_resched __might_sleep "
	"__might_fault",
	/* the sanitizers' own code, and the string helpers they check */
	"kasan_* __kasan_* __asan_* check_memory_region kfence_* __kfence_* ubsan_* __ubsan_* "
	"memcpy memmove memset __memcpy __memmove __memset",
	/* waiting */
	"__schedule schedule schedule_timeout schedule_preempt_disabled schedule_hrtimeout_range* "
	"io_schedule io_schedule_timeout __wait_for_common do_wait_for_common wait_for_completion* "
	"msleep msleep_interruptible ssleep usleep_range_state",
	/* locking, and lockdep checking it */
	"_raw_spin_* _raw_read_* _raw_write_* do_raw_spin_* do_raw_read_* do_raw_write_* "
	"queued_spin_* native_queued_spin_* __pv_queued_spin_* queued_read_* queued_write_* "
	"mutex_lock* __mutex_lock* mutex_unlock* __mutex_unlock* down down_read* down_write* "
	"__down* up up_read* up_write* rwsem_* __rwsem_* lockdep_* __lockdep_* lock_acquire "
	"lock_release __lock_acquire __lock_release lock_acquired lock_contended mark_lock "
	"mark_usage valid_state validate_chain check_noncircular check_prev_add check_prevs_add "
	"check_irq_usage check_deadlock print_circular_bug print_usage_bug print_deadlock_bug "
	"print_unlock_imbalance_bug print_freed_lock_bug debug_check_no_locks_freed "
	"debug_check_no_locks_held",
	/* the timer interrupt and the NMI that detect stalls and lockups */
	"nmi_cpu_backtrace nmi_trigger_cpumask_backtrace arch_trigger_cpumask_backtrace "
	"rcu_dump_cpu_stacks print_cpu_stall check_cpu_stall rcu_pending rcu_sched_clock_irq "
	"update_process_times tick_sched_handle tick_sched_timer __hrtimer_run_queues "
	"hrtimer_interrupt watchdog_timer_fn watchdog_overflow_callback sysvec_* __sysvec_* "
	"asm_sysvec_*",
};

#define KR_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KR_SYMBOL_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$"
#define KR_MODULE_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
#define KR_HEX "0123456789abcdefABCDEF"

/* One line of input, made safe: ASCII only, at most KREPORT_MAX_LINE. */
struct kr_line {
	char buf[KREPORT_MAX_LINE + 1];
	const char *full; /* the kernel's line: from its prefix on */
	const char *msg;  /* after the prefix */
	bool stamped;	  /* it had a "[   12.345678] " timestamp */
	uint64_t usec;
	size_t no; /* 1-based */
};

enum kr_phase {
	PHASE_HEAD,  /* before the first stack */
	PHASE_STACK, /* inside it */
	PHASE_AFTER, /* past it: no more frames */
};

/* The report being read. */
struct kr_build {
	enum kr_kind kind;
	enum kr_end end;
	char *head;   /* the first line's message, from the starter's text on */
	char *access; /* KASAN's "Read" or "Write" */
	char *victim; /* the OOM killer's victim */
	bool memcg;
	char *text;
	size_t text_len, text_cap;
	size_t first_line, last_line;
	struct kreport_frame *frames;
	size_t nframes;
	enum kr_phase phase;
	bool irq;
	size_t head_lines;
	bool panicked;
	/* Ended, but kept open KR_GRACE_LINES lines for a panic: the lines
	 * after end_len / end_line are dropped unless one comes. */
	bool ended;
	size_t end_len, end_line, grace;
	bool stamped;
	uint64_t last_usec;
};

struct kr_scan {
	struct kreport_list *out;
	struct kr_build *cur;
	/* Once a timestamped line was seen, every kernel line has one: a line
	 * without is the guest's (init, ktb's tools), never part of a report. */
	bool stamped;
};

/* ---- lines ---- */

/* "[   12.345678]" at s (printk's "%5lu.%06lu"): its end, or NULL. */
static const char *kr_stamp(const char *s, uint64_t *usec)
{
	const char *p = s + 1;
	size_t sec, frac;
	uint64_t v = 0;

	if (*s != '[')
		return NULL;
	p += strspn(p, " ");
	sec = strspn(p, "0123456789");
	if (sec == 0 || sec > 10 || p[sec] != '.')
		return NULL;
	frac = strspn(p + sec + 1, "0123456789");
	if (frac != 6 || p[sec + 1 + frac] != ']')
		return NULL;
	for (size_t i = 0; i < sec; i++)
		v = v * 10 + (uint64_t)(p[i] - '0');
	for (size_t i = 0; i < frac; i++)
		v = v * 10 + (uint64_t)(p[sec + 1 + i] - '0');
	*usec = v;
	return p + sec + 1 + frac + 1;
}

/* A caller id "[  T123]" or "[    C1]" at s (CONFIG_PRINTK_CALLER): its end. */
static const char *kr_caller(const char *s)
{
	const char *p = s + 1;
	size_t n;

	if (*s != '[')
		return NULL;
	p += strspn(p, " ");
	if (*p != 'T' && *p != 'C')
		return NULL;
	n = strspn(p + 1, "0123456789");
	return n && p[1 + n] == ']' ? p + 2 + n : NULL;
}

/* The printk prefix at s: an optional "<4>", the timestamp, a caller id,
 * each followed by at most one space. Sets l->msg and l->stamped. */
static void kr_prefix(struct kr_line *l, const char *s)
{
	const char *p = s, *q;

	l->full = s;
	if (*p == '<') {
		q = p + 1 + strspn(p + 1, "0123456789");
		if (*q == '>' && q > p + 1)
			p = q + 1;
	}
	q = kr_stamp(p, &l->usec);
	l->stamped = q != NULL;
	if (q)
		p = q + (*q == ' ');
	q = kr_caller(p);
	if (q)
		p = q + (*q == ' ');
	l->msg = p;
}

/* Copy raw[0..n) into l->buf, each byte that is not printable ASCII or a
 * tab replaced by '?' (the text then goes into JSON and terminals as it
 * is), and find the kernel's prefix. A line without one at its start may
 * carry it later, a kernel line glued to the guest's unfinished one. */
static void kr_line_read(struct kr_line *l, const char *raw, size_t n, size_t no)
{
	while (n && raw[n - 1] == '\r')
		n--;
	if (n > KREPORT_MAX_LINE)
		n = KREPORT_MAX_LINE;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)raw[i];

		l->buf[i] = (c >= 0x20 && c < 0x7f) || c == '\t' ? (char)c : '?';
	}
	l->buf[n] = '\0';
	l->no = no;
	kr_prefix(l, l->buf);
	for (const char *p = l->buf; !l->stamped && *p && (p = strchr(p + 1, '['));) {
		uint64_t usec;

		if (kr_stamp(p, &usec))
			kr_prefix(l, p);
	}
}

/* strndup that cannot fail, as xstrdup. */
static char *kr_strndup(const char *s, size_t n)
{
	char *d = xcalloc(1, n + 1);

	memcpy(d, s, strnlen(s, n));
	return d;
}

static bool kr_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Is msg[0..pos) empty or a pr_fmt prefix of at most three words ending in
 * ": ", such as "watchdog: ", "rcu: " or "NMI watchdog: "? */
static bool kr_pr_fmt_prefix(const char *msg, size_t pos)
{
	size_t n = pos - 2, words = 1;

	if (pos == 0)
		return true;
	if (pos < 3 || msg[n] != ':' || msg[n + 1] != ' ' || msg[0] == ' ' || msg[n - 1] == ' ')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (msg[i] == ' ') {
			if (msg[i + 1] == ' ')
				return false;
			words++;
		} else if (!strchr(KR_MODULE_CHARS "./", msg[i])) {
			return false;
		}
	}
	return words <= 3;
}

/* The starter msg matches, and where its text begins; NULL if none. */
static const struct kr_starter *kr_starter(const char *msg, const char **at)
{
	for (size_t i = 0; i < KR_LEN(kr_starters); i++) {
		const struct kr_starter *s = &kr_starters[i];
		const char *p = strstr(msg, s->text);

		if (!p || (s->where == AT_START && p != msg))
			continue;
		if (s->where == AFTER_PREFIX && !kr_pr_fmt_prefix(msg, (size_t)(p - msg)))
			continue;
		if (s->also && !strstr(p + strlen(s->text), s->also))
			continue;
		*at = s->where == ANYWHERE ? msg : p;
		return s;
	}
	return NULL;
}

/* lockdep's headline in msg: its index in kr_lockdep, or -1. */
static int kr_lockdep_headline(const char *msg)
{
	if (!kr_starts(msg, "WARNING: ") || kr_starts(msg, "WARNING: CPU: "))
		return -1;
	for (size_t i = 0; i < KR_LEN(kr_lockdep); i++)
		if (strstr(msg + strlen("WARNING: "), kr_lockdep[i].phrase))
			return (int)i;
	return -1;
}

/* A row of at least 20 '=' and nothing else. */
static bool kr_ruler(const char *msg)
{
	size_t n = strspn(msg, "=");

	return n >= 20 && msg[n] == '\0';
}

/* ---- frames ---- */

/* "sym+0xOFF/0xSIZE", then optionally " [module]" or " [module buildid]"
 * at s: true and f filled (caller frees), or false. */
static bool kr_symbol(const char *s, struct kreport_frame *f)
{
	size_t n = strspn(s, KR_SYMBOL_CHARS), a, b, m;
	const char *off = s + n + 1, *end;

	if (n == 0 || n > KR_MAX_SYMBOL || s[n] != '+' || !kr_starts(off, "0x"))
		return false;
	a = strspn(off + 2, KR_HEX);
	if (a == 0 || off[2 + a] != '/' || !kr_starts(off + 3 + a, "0x"))
		return false;
	b = strspn(off + 5 + a, KR_HEX);
	if (b == 0)
		return false;
	end = off + 5 + a + b;
	*f = (struct kreport_frame){ .reliable = true };
	f->func = kr_strndup(s, n);
	f->off = kr_strndup(off, (size_t)(end - off));
	if (end[0] == ' ' && end[1] == '[') {
		m = strspn(end + 2, KR_MODULE_CHARS);
		if (m && (end[2 + m] == ']' || end[2 + m] == ' '))
			f->module = kr_strndup(end + 2, m);
	}
	return true;
}

static void kr_frame_free(struct kreport_frame *f)
{
	free(f->func);
	free(f->off);
	free(f->module);
}

/* What a line means to a stack. */
enum kr_stackline {
	SL_OTHER,
	SL_CALL_TRACE, /* "Call Trace:" */
	SL_FRAME,      /* " func+0x1a/0x2b [mod]", " ? func+..." */
	SL_RIP,	       /* "RIP: 0010:func+0x1a/0x2b": where the CPU was */
	SL_REGS,       /* a register dump, "Code: ", a user-space RIP */
	SL_OPEN_TASK,  /* "<TASK>" */
	SL_OPEN_IRQ,   /* "<IRQ>", "<SOFTIRQ>", "<NMI>", ... */
	SL_CLOSE_TASK, /* "</TASK>" */
	SL_CLOSE_IRQ,
};

/* "<NAME>" or "</NAME>" alone on the line, NAME in capitals ("#DF" too). */
static enum kr_stackline kr_marker(const char *t)
{
	bool close = t[1] == '/';
	const char *name = t + 1 + close;
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ#");

	if (n == 0 || name[n] != '>' || name[n + 1 + strspn(name + n + 1, " ")] != '\0')
		return SL_OTHER;
	if (n == 4 && !strncmp(name, "TASK", 4))
		return close ? SL_CLOSE_TASK : SL_OPEN_TASK;
	return close ? SL_CLOSE_IRQ : SL_OPEN_IRQ;
}

/* A register line: "RSP: 0018:...", "R10: ...", "FS:  ...", "CR2: ...". */
static bool kr_registers(const char *msg)
{
	size_t n = strspn(msg, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");

	return n >= 2 && n <= 6 && msg[0] >= 'A' && msg[0] <= 'Z' && msg[n] == ':' &&
	       msg[n + 1] == ' ';
}

/* Classify msg; a frame (SL_FRAME, SL_RIP) is parsed into *f. */
static enum kr_stackline kr_stackline(const char *msg, struct kreport_frame *f)
{
	const char *t = msg + strspn(msg, " ");

	if (kr_starts(msg, "Call Trace:"))
		return SL_CALL_TRACE;
	if (*t == '<')
		return kr_marker(t);
	/* printk's " %s%pBb": exactly one space; lockdep's chains of locks
	 * print their frames deeper, and those are not the stack */
	if (msg[0] == ' ' && msg[1] != ' ') {
		bool guess = kr_starts(msg + 1, "? ");

		if (kr_symbol(msg + 1 + (guess ? 2 : 0), f)) {
			f->reliable = !guess;
			return SL_FRAME;
		}
		return SL_OTHER;
	}
	if (kr_starts(msg, "RIP: ")) {
		const char *colon = strchr(msg + 5, ':');

		/* "RIP: 0010:func+0x.."; a user-space one is "0033:0x4c0a74" */
		if (colon && colon - msg <= 12 && kr_symbol(colon + 1, f))
			return SL_RIP;
		return SL_REGS;
	}
	if (kr_starts(msg, "Code: ") || kr_registers(msg))
		return SL_REGS;
	return SL_OTHER;
}

/* ---- the report being read ---- */

/* Add the line to the text; false when it would pass KREPORT_MAX_TEXT. */
static bool kr_append(struct kr_build *b, const struct kr_line *l)
{
	size_t n = strlen(l->full);

	if (b->text_len + n + 1 > KREPORT_MAX_TEXT)
		return false;
	b->text = xgrow(b->text, &b->text_cap, b->text_len + n + 2, 4096);
	memcpy(b->text + b->text_len, l->full, n);
	b->text_len += n;
	b->text[b->text_len++] = '\n';
	b->text[b->text_len] = '\0';
	b->last_line = l->no;
	if (l->stamped)
		b->last_usec = l->usec;
	return true;
}

static void kr_add_frame(struct kr_build *b, struct kreport_frame *f)
{
	if (b->nframes == KREPORT_MAX_FRAMES) {
		kr_frame_free(f);
		return;
	}
	if (!b->frames)
		b->frames = xcalloc(KREPORT_MAX_FRAMES, sizeof(*b->frames));
	f->irq = b->irq;
	b->frames[b->nframes++] = *f;
}

/* Mark the report over after its last line so far; it stays open
 * KR_GRACE_LINES lines for a panic. */
static void kr_end(struct kr_build *b)
{
	b->ended = true;
	b->end_len = b->text_len;
	b->end_line = b->last_line;
	b->grace = KR_GRACE_LINES;
	b->phase = PHASE_AFTER;
}

static struct kr_build *kr_build_new(enum kr_kind kind, const char *head, const struct kr_line *l)
{
	struct kr_build *b = xcalloc(1, sizeof(*b));

	b->kind = kind;
	b->end = kr_kinds[kind].end;
	b->head = xstrdup(head);
	b->first_line = l->no;
	b->stamped = l->stamped;
	kr_append(b, l); /* a line is at most KREPORT_MAX_LINE: it fits */
	return b;
}

static void kr_build_free(struct kr_build *b)
{
	for (size_t i = 0; i < b->nframes; i++)
		kr_frame_free(&b->frames[i]);
	free(b->frames);
	free(b->head);
	free(b->access);
	free(b->victim);
	free(b->text);
	free(b);
}

/* ---- titles ---- */

/* name's length without a compiler suffix (".cold", ".isra.0",
 * ".constprop.0"), which differs between builds of one function. */
static size_t kr_base_len(const char *name)
{
	return strcspn(name, ".");
}

static bool kr_machinery_name(const char *name)
{
	size_t n = kr_base_len(name);

	for (size_t i = 0; i < KR_LEN(kr_machinery); i++) {
		for (const char *w = kr_machinery[i]; *w; w += strspn(w, " ")) {
			size_t len = strcspn(w, " ");
			bool prefix = w[len - 1] == '*';

			if (prefix ? n >= len - 1 && !strncmp(name, w, len - 1)
				   : n == len && !strncmp(name, w, len))
				return true;
			w += len;
		}
	}
	return false;
}

/* The frames that identify a report: reliable, not machinery, and for the
 * stalls and lockups not the detector's interrupt. */
static bool kr_telling(const struct kr_build *b, const struct kreport_frame *f)
{
	return f->reliable && !(kr_kinds[b->kind].skip_irq && f->irq) &&
	       !kr_machinery_name(f->func);
}

/* The first telling frame's function, without its suffix; NULL if none. */
static char *kr_title_func(const struct kr_build *b)
{
	for (size_t i = 0; i < b->nframes; i++)
		if (kr_telling(b, &b->frames[i]))
			return kr_strndup(b->frames[i].func, kr_base_len(b->frames[i].func));
	return NULL;
}

/* The function of the first "sym+0x../0x.." token in s, without its
 * suffix; NULL if none. */
static char *kr_token_func(const char *s)
{
	for (const char *p = s; *p; p++) {
		struct kreport_frame f;
		char *name;

		if (p != s && p[-1] != ' ')
			continue;
		if (!kr_symbol(p, &f))
			continue;
		name = kr_strndup(f.func, kr_base_len(f.func));
		kr_frame_free(&f);
		return name;
	}
	return NULL;
}

static bool kr_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* s with its numbers taken out (decimals, "0x.." and runs of 8 or more hex
 * digits that stand alone: addresses, PIDs, counts), whitespace made
 * single spaces, and trailing spaces and punctuation dropped. In place. */
static char *kr_denumber(char *s)
{
	size_t w = 0;

	for (size_t r = 0; s[r];) {
		bool boundary = w == 0 || !kr_word_char(s[w - 1]);
		size_t n = 0;

		if (boundary && s[r] == '0' && s[r + 1] == 'x' && strspn(s + r + 2, KR_HEX))
			n = 2 + strspn(s + r + 2, KR_HEX);
		else if (boundary && strspn(s + r, KR_HEX) >= 8)
			n = strspn(s + r, KR_HEX);
		else if (boundary && strspn(s + r, "0123456789"))
			n = strspn(s + r, "0123456789.");
		if (n && !kr_word_char(s[r + n])) {
			r += n;
			continue;
		}
		if (s[r] == ' ' || s[r] == '\t') {
			if (w && s[w - 1] != ' ')
				s[w++] = ' ';
			r++;
			continue;
		}
		s[w++] = s[r++];
	}
	while (w && strchr(" ,:;.-", s[w - 1]))
		w--;
	s[w] = '\0';
	return s;
}

/* The words of a headline that say what went wrong: cut before the
 * details (": ", " at ", " in ", " for ", " - ", ", ", " (", " [", "!", a
 * word with a ':'), numbers out. "BUG: " stays in front. Caller frees. */
static char *kr_cut(const char *head)
{
	static const char *const cuts[] = { ": ", " at ", " in ", " for ", " - ",
					    ", ", " (",	  " [",	  "!" };
	bool bug = kr_starts(head, "BUG: ");
	const char *s = head + (bug ? 5 : 0);
	size_t n = strlen(s);
	char *out;

	for (size_t i = 0; i < KR_LEN(cuts); i++) {
		const char *p = strstr(s, cuts[i]);

		if (p && (size_t)(p - s) < n)
			n = (size_t)(p - s);
	}
	for (const char *p = s; p < s + n; p++) {
		if (*p == ':' && p > s) {
			const char *w = p;

			while (w > s && w[-1] != ' ')
				w--;
			if (w > s) {
				n = (size_t)(w - s);
				break;
			}
		}
	}
	out = xasprintf("%s%.*s", bug ? "BUG: " : "", (int)n, s);
	return kr_denumber(out);
}

/* "WHAT in FUNC", or WHAT when no function is known. Frees what and func. */
static char *kr_in(char *what, char *func)
{
	char *t = func ? xasprintf("%s in %s", what, func) : xstrdup(what);

	free(what);
	free(func);
	return t;
}

/* KASAN's and KFENCE's "TYPE in FUNC+0x.." after the tool's name: TYPE,
 * and the function (the stack's first telling one when the line names a
 * helper such as memcpy). */
static char *kr_sanitizer_title(const struct kr_build *b, const char *tool, const char *access)
{
	const char *rest = b->head + strlen("BUG: ") + strlen(tool) + 2;
	const char *in = strstr(rest, " in ");
	char *type = kr_strndup(rest, in ? (size_t)(in - rest) : strlen(rest));
	char *func = in ? kr_token_func(in + 4) : NULL;
	char *what;

	if (!func || kr_machinery_name(func)) {
		free(func);
		func = kr_title_func(b);
	}
	kr_denumber(type);
	what = xasprintf("%s: %s%s%s", tool, type, access ? " " : "", access ? access : "");
	free(type);
	return kr_in(what, func);
}

/* "UBSAN: TYPE in FUNC", the function from the stack; without a stack,
 * the file the line names ("UBSAN: TYPE in fs/foo.c"), line and column
 * dropped since they move with every edit. */
static char *kr_ubsan_title(const struct kr_build *b)
{
	const char *rest = b->head + strlen("UBSAN: ");
	const char *in = strstr(rest, " in ");
	char *type = kr_strndup(rest, in ? (size_t)(in - rest) : strlen(rest));
	char *func = kr_title_func(b);
	char *what = xasprintf("UBSAN: %s", kr_denumber(type));

	free(type);
	if (!func && in)
		func = kr_strndup(in + 4, strcspn(in + 4, ": "));
	return kr_in(what, func);
}

/* "OOM kill: VICTIM" ("memcg OOM kill: ..." for a cgroup's limit); a
 * report that saw no kill names who invoked the killer. */
static char *kr_oom_title(const struct kr_build *b)
{
	const char *end;

	if (b->victim)
		return xasprintf("%sOOM kill: %s", b->memcg ? "memcg " : "", b->victim);
	end = strstr(b->head, " invoked oom-killer");
	return xasprintf("OOM: %.*s invoked oom-killer",
			 (int)(end ? end - b->head : (ptrdiff_t)strlen(b->head)), b->head);
}

static char *kr_title(const struct kr_build *b)
{
	int ld;

	switch (b->kind) {
	case KR_PANIC: {
		const char *r = b->head + strlen("Kernel panic - not syncing");
		char *reason = kr_denumber(xstrdup(r + strspn(r, ": ")));
		char *t = xasprintf("panic: %s", reason);

		free(reason);
		return t;
	}
	case KR_OOM:
		return kr_oom_title(b);
	case KR_WARNING: {
		/* the function the WARNING line names: "at FILE:LINE FUNC+0x.." */
		const char *at = strstr(b->head, " at ");
		char *func = at ? kr_token_func(at + 4) : NULL;

		return kr_in(xstrdup("WARNING"), func ? func : kr_title_func(b));
	}
	case KR_LOCKDEP:
		ld = kr_lockdep_headline(b->head);
		return kr_in(xasprintf("lockdep: %s", ld >= 0 ? kr_lockdep[ld].title : "?"),
			     kr_title_func(b));
	case KR_KASAN:
		return kr_sanitizer_title(b, "KASAN", b->access);
	case KR_KFENCE:
		return kr_sanitizer_title(b, "KFENCE", NULL);
	case KR_UBSAN:
		return kr_ubsan_title(b);
	case KR_HUNG:
		return kr_in(xstrdup("INFO: task hung"), kr_title_func(b));
	case KR_RCU:
		return kr_in(xstrdup("INFO: rcu detected stall"), kr_title_func(b));
	case KR_SOFT:
		return kr_in(xstrdup("BUG: soft lockup"), kr_title_func(b));
	case KR_HARD:
		return kr_in(xstrdup("hard lockup"), kr_title_func(b));
	case KR_OOPS:
	case KR_BUG:
		break;
	}
	return kr_in(kr_cut(b->head), kr_title_func(b));
}

/* sha256 of "KIND\nTITLE\n" and the first KR_SIG_FRAMES telling frames'
 * functions, each without its suffix and followed by "\n": no address,
 * offset, PID or time, so a report seen again gives the same signature. */
static void kr_signature(const struct kr_build *b, const char *title, char *out)
{
	struct sha256_ctx s;
	size_t used = 0;

	sha256_init(&s);
	sha256_feed(&s, kr_kinds[b->kind].name, strlen(kr_kinds[b->kind].name));
	sha256_feed(&s, "\n", 1);
	sha256_feed(&s, title, strlen(title));
	sha256_feed(&s, "\n", 1);
	for (size_t i = 0; i < b->nframes && used < KR_SIG_FRAMES; i++) {
		if (!kr_telling(b, &b->frames[i]))
			continue;
		sha256_feed(&s, b->frames[i].func, kr_base_len(b->frames[i].func));
		sha256_feed(&s, "\n", 1);
		used++;
	}
	sha256_hex(&s, out);
}

/* The open report is over: its lines after its end (kept for a panic that
 * did not come) go, and it becomes a finding or, past the limit, a count. */
static void kr_finish(struct kr_scan *st)
{
	struct kr_build *b = st->cur;
	struct kreport_list *out = st->out;
	struct kreport *r;

	if (!b)
		return;
	st->cur = NULL;
	if (b->ended) {
		b->text_len = b->end_len;
		b->text[b->text_len] = '\0';
		b->last_line = b->end_line;
	}
	if (out->count == KREPORT_MAX_REPORTS) {
		out->dropped++;
		kr_build_free(b);
		return;
	}
	if (out->count % 16 == 0)
		out->items = xrealloc(out->items, (out->count + 16) * sizeof(*out->items));
	r = &out->items[out->count++];
	*r = (struct kreport){
		.kind = kr_kinds[b->kind].name,
		.title = kr_title(b),
		.text = b->text,
		.first_line = b->first_line,
		.last_line = b->last_line,
		.frames = b->frames,
		.nframes = b->nframes,
		.panicked = b->panicked,
	};
	kr_signature(b, r->title, r->signature);
	b->text = NULL;
	b->frames = NULL;
	b->nframes = 0;
	kr_build_free(b);
}

/* ---- reading ---- */

/* "Killed process 123 (COMM) total-vm:..." in msg: COMM, or "?". */
static char *kr_victim(const char *msg)
{
	const char *open = strstr(msg, ": Killed process ");
	const char *close;
	size_t n;

	open = open ? strchr(open, '(') : NULL;
	if (!open)
		return xstrdup("?");
	/* a task name may hold ") ": the one before " total-vm" ends it */
	close = strstr(open, ") total-vm");
	if (!close)
		close = strchr(open, ')');
	if (!close)
		return xstrdup("?");
	n = (size_t)(close - open - 1);
	return kr_strndup(open + 1, n < 64 ? n : 64);
}

/* A line after the report's end: kept until a panic joins it or
 * KR_GRACE_LINES went by. */
static void kr_grace_line(struct kr_scan *st, const struct kr_line *l)
{
	if (!kr_append(st->cur, l) || --st->cur->grace == 0)
		kr_finish(st);
}

/* A line of the open report that starts nothing: the stack, the ends. */
static void kr_body_line(struct kr_scan *st, const struct kr_line *l)
{
	struct kr_build *b = st->cur;
	struct kreport_frame f;
	enum kr_stackline sl;
	bool over = false, before = false;

	if (kr_starts(l->msg, "---[ end ") || (b->end == END_RULER && kr_ruler(l->msg))) {
		if (kr_append(b, l))
			kr_end(b);
		else
			kr_finish(st);
		return;
	}
	sl = b->phase == PHASE_AFTER ? SL_OTHER : kr_stackline(l->msg, &f);
	if (sl == SL_FRAME || sl == SL_RIP)
		kr_add_frame(b, &f);
	switch (b->phase) {
	case PHASE_HEAD:
		if (sl == SL_CALL_TRACE || sl == SL_OPEN_TASK || sl == SL_OPEN_IRQ ||
		    sl == SL_FRAME) {
			b->phase = PHASE_STACK;
			b->irq = sl == SL_OPEN_IRQ;
		} else if (++b->head_lines >= KR_MAX_HEAD_LINES) {
			over = before = true; /* a report with no stack */
		}
		if (kr_starts(l->msg, "Read of size ") && !b->access)
			b->access = xstrdup("Read");
		if (kr_starts(l->msg, "Write of size ") && !b->access)
			b->access = xstrdup("Write");
		break;
	case PHASE_STACK:
		if (sl == SL_OPEN_IRQ || sl == SL_OPEN_TASK || sl == SL_CLOSE_IRQ)
			b->irq = sl == SL_OPEN_IRQ;
		over = sl == SL_CLOSE_TASK || sl == SL_OTHER;
		/* "</TASK>" is the stack's last line, anything else is past it */
		before = sl == SL_OTHER;
		break;
	case PHASE_AFTER:
		break;
	}
	if (over) {
		b->phase = PHASE_AFTER;
		if (b->end == END_STACK || b->head_lines >= KR_MAX_HEAD_LINES) {
			if (before) {
				kr_end(b);
				kr_grace_line(st, l);
			} else if (kr_append(b, l)) {
				kr_end(b);
			} else {
				kr_finish(st);
			}
			return;
		}
	}
	if (!kr_append(b, l))
		kr_finish(st);
}

/* Start a report at l, the starter s matched at text. */
static void kr_start(struct kr_scan *st, enum kr_kind kind, enum kr_role role, const char *text,
		     const struct kr_line *l)
{
	kr_finish(st);
	st->cur = kr_build_new(kind, text, l);
	if (role == ROLE_KILL) {
		st->cur->victim = kr_victim(l->msg);
		st->cur->memcg = kr_starts(l->msg, "Memory cgroup");
		kr_end(st->cur);
	}
}

static void kr_scan_line(struct kr_scan *st, const struct kr_line *l)
{
	struct kr_build *b = st->cur;
	const struct kr_starter *s;
	const char *at = NULL;
	int ld;

	if (l->stamped)
		st->stamped = true;
	else if (st->stamped)
		return; /* the guest's */
	if (b && l->stamped && b->stamped && l->usec > b->last_usec + KR_GAP_USEC) {
		kr_finish(st);
		b = NULL;
	}
	s = kr_starter(l->msg, &at);
	ld = s ? -1 : kr_lockdep_headline(l->msg);
	if (ld >= 0) {
		kr_start(st, KR_LOCKDEP, ROLE_START, l->msg, l);
		return;
	}
	if (s && b && s->role == ROLE_PANIC) {
		/* the end of the report before it: it keeps its kind and title */
		b->ended = false;
		b->panicked = true;
		b->end = END_MARKER;
		if (!kr_append(b, l))
			kr_finish(st);
		return;
	}
	if (s && b && !b->ended && s->role == ROLE_KILL && b->kind == KR_OOM && !b->victim) {
		b->victim = kr_victim(l->msg);
		b->memcg = kr_starts(l->msg, "Memory cgroup");
		if (kr_append(b, l))
			kr_end(b);
		else
			kr_finish(st);
		return;
	}
	if (s && !(b && !b->ended && s->role == ROLE_SECONDARY)) {
		kr_start(st, s->kind, s->role, at, l);
		return;
	}
	if (!b)
		return;
	if (b->ended)
		kr_grace_line(st, l);
	else
		kr_body_line(st, l);
}

const char *kreport_line_kind(const char *line)
{
	struct kr_line *l = xcalloc(1, sizeof(*l));
	const struct kr_starter *s;
	const char *at, *kind = NULL;

	kr_line_read(l, line, strlen(line), 1);
	if (kr_lockdep_headline(l->msg) >= 0)
		kind = kr_kinds[KR_LOCKDEP].name;
	else if ((s = kr_starter(l->msg, &at)))
		kind = kr_kinds[s->kind].name;
	free(l);
	return kind;
}

int kreport_scan(const char *text, size_t len, struct kreport_list *out)
{
	struct kr_scan st = { .out = out };
	struct kr_line *l;
	size_t no = 0, before;
	bool cut;

	if (!out)
		return -EINVAL;
	*out = (struct kreport_list){ 0 };
	if (!text && len)
		return -EINVAL;
	l = xcalloc(1, sizeof(*l));
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		kr_line_read(l, text + pos, n, ++no);
		kr_scan_line(&st, l);
		pos += n + 1;
	}
	/* a report still in its head or stack when the text ends */
	cut = st.cur && !st.cur->ended && st.cur->phase != PHASE_AFTER;
	before = out->count;
	kr_finish(&st);
	if (cut && out->count > before)
		out->items[out->count - 1].cut = true;
	free(l);
	return 0;
}

bool kreport_cut(const char *text, size_t len)
{
	struct kreport_list l;
	bool cut;

	/* whole lines only: the kernel is still printing the last one */
	while (len && text[len - 1] != '\n')
		len--;
	kreport_scan(text, len, &l);
	cut = l.count && l.items[l.count - 1].cut;
	kreport_list_free(&l);
	return cut;
}

void kreport_list_free(struct kreport_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->count; i++) {
		struct kreport *r = &l->items[i];

		free(r->title);
		free(r->text);
		for (size_t j = 0; j < r->nframes; j++)
			kr_frame_free(&r->frames[j]);
		free(r->frames);
	}
	free(l->items);
	*l = (struct kreport_list){ 0 };
}
