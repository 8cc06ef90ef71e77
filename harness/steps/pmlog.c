#include "pmlog.h"

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PM_LINE_MAX 1024
#define PM_PENDING_MAX 32
#define PM_ERRORS_MAX 32 /* a failing device can repeat itself; keep the first ones */
/* A kernel timestamp, s: the clock runs from boot; larger ones are garbage. */
#define PM_MAX_TS_S 1e9

/* A "calling" line still waiting for its "returned". */
struct pm_pending {
	char dev[96], cb[64];
	double ts;
};

struct pm_parser {
	struct pm_report *r;
	struct pm_cycle *c; /* the open cycle, or NULL between cycles */
	double last_s;	    /* where the next phase starts */
	double prev_s;	    /* timestamp of the previous line */
	bool woken;	    /* the resume half has begun */
	bool wake_next;	    /* pm_test: the line after the wait ends the "sleep" */
	double test_wake_s; /* pm_test: when the wait's delay was up */
	bool boot_kernel;   /* S4 console: lines of the kernel that loads the image */
	bool freeze_tasks;  /* after the freezer gave up: "task:" lines name who refused */
	struct pm_pending pending[PM_PENDING_MAX];
	size_t npending;
};

/* One PM callback line, split. */
struct pm_cb {
	char dev[96], cb[64], drv[48];
	const char *tail; /* after the callback (and driver) */
};

const char *pm_mode_name(enum pm_mode m)
{
	static const char *const names[] = {
		[PM_MODE_UNKNOWN] = "unknown",	   [PM_MODE_DEEP] = "deep",
		[PM_MODE_S2IDLE] = "s2idle",	   [PM_MODE_SHALLOW] = "shallow",
		[PM_MODE_HIBERNATE] = "hibernate",
	};

	return (unsigned)m < ARRAY_SIZE(names) ? names[m] : "unknown";
}

static void error_add(struct pm_cycle *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void error_add(struct pm_cycle *c, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (c->errors_count >= PM_ERRORS_MAX)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	c->errors = xrealloc(c->errors, (c->errors_count + 1) * sizeof(*c->errors));
	c->errors[c->errors_count++] = s;
}

/* "[    4.676222] text", optionally behind a "<6>" level as `dmesg -r`
 * prints it; NULL for lines without a kernel timestamp (shell output on the
 * console, continuation lines). */
static const char *line_split(const char *line, double *ts)
{
	const char *p = line;
	char *end;

	if (*p == '<') {
		p = strchr(p, '>');
		if (!p)
			return NULL;
		p++;
	}
	if (*p != '[')
		return NULL;
	*ts = strtod(p + 1, &end);
	if (end == p + 1 || *end != ']' || !(*ts >= 0 && *ts <= PM_MAX_TS_S))
		return NULL;
	p = end + 1;
	return *p == ' ' ? p + 1 : p;
}

/* A figure the kernel printed about a cycle (its seconds or ms): none of
 * it lasts longer than the clock has run, so one that is not a number
 * from 0 to PM_MAX_TS_S seconds is garbage, and not taken (the report's
 * JSON turns the figures into integers). */
static bool figure_ok(double v, double scale)
{
	return v >= 0 && v <= PM_MAX_TS_S * scale; /* false for NaN */
}

/* Phases are contiguous: each runs from the previous boundary to its own
 * line, so the bands of the timeline add up to the cycle's kernel time. */
static void phase_add(struct pm_parser *p, const char *name, double ts, double kernel_ms)
{
	struct pm_cycle *c = p->c;
	struct pm_phase *ph;

	if (c->slept && !p->woken) {
		/* no wake line (S4 restore): the kernel's own figure says
		 * when this first resume phase began */
		double start = kernel_ms > 0 ? ts - kernel_ms / 1000 : ts;

		c->wake_s = start > c->sleep_s ? start : c->sleep_s;
		p->last_s = c->wake_s;
		p->woken = true;
	}
	c->phases = xrealloc(c->phases, (c->phases_count + 1) * sizeof(*ph));
	ph = &c->phases[c->phases_count++];
	snprintf(ph->name, sizeof(ph->name), "%s", name);
	ph->half = c->slept ? PM_HALF_RESUME : PM_HALF_SUSPEND;
	ph->start_s = p->last_s;
	ph->end_s = ts > p->last_s ? ts : p->last_s;
	ph->kernel_ms = kernel_ms;
	p->last_s = ph->end_s;
}

static void cycle_open(struct pm_parser *p, enum pm_mode mode, double ts)
{
	struct pm_report *r = p->r;

	r->cycles = xrealloc(r->cycles, (r->cycles_count + 1) * sizeof(*r->cycles));
	p->c = &r->cycles[r->cycles_count++];
	memset(p->c, 0, sizeof(*p->c));
	p->c->mode = mode;
	p->c->entry_s = p->c->sleep_s = p->c->wake_s = p->c->exit_s = ts;
	p->c->freeze_user_ms = p->c->freeze_kernel_ms = -1;
	p->last_s = ts;
	p->woken = p->wake_next = p->boot_kernel = p->freeze_tasks = false;
	p->npending = 0;
}

static void cycle_close(struct pm_parser *p, const char *why)
{
	struct pm_cycle *c = p->c;

	for (size_t i = 0; i < p->npending; i++)
		error_add(c, "%s: %s called at %.6f s never returned", p->pending[i].dev,
			  p->pending[i].cb, p->pending[i].ts);
	if (why)
		error_add(c, "%s", why);
	if (!c->complete)
		c->exit_s = p->last_s;
	if (c->complete && !c->slept)
		error_add(c, "the kernel left the cycle without reaching the sleep state");
	p->c = NULL;
}

static bool entry_line(struct pm_parser *p, const char *msg, double ts)
{
	static const struct {
		const char *prefix;
		enum pm_mode mode;
	} entries[] = {
		{ "PM: suspend entry (deep)", PM_MODE_DEEP },
		{ "PM: suspend entry (s2idle)", PM_MODE_S2IDLE },
		{ "PM: suspend entry (shallow)", PM_MODE_SHALLOW },
		{ "PM: suspend entry (", PM_MODE_UNKNOWN },
		{ "PM: hibernation: hibernation entry", PM_MODE_HIBERNATE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(entries); i++) {
		if (strncmp(msg, entries[i].prefix, strlen(entries[i].prefix)))
			continue;
		if (p->c)
			cycle_close(p, "a new cycle began before this one's exit line");
		cycle_open(p, entries[i].mode, ts);
		return true;
	}
	return false;
}

static bool exit_line(struct pm_parser *p, const char *msg, double ts)
{
	if (strcmp(msg, "PM: suspend exit") && strcmp(msg, "PM: hibernation: hibernation exit"))
		return false;
	phase_add(p, "finish", ts, -1);
	p->c->exit_s = p->last_s; /* ts, unless the clock went back */
	p->c->complete = true;
	cycle_close(p, NULL);
	return true;
}

static void sleep_at(struct pm_parser *p, const char *msg, double ts, bool pm_test)
{
	struct pm_cycle *c = p->c;
	const char *wait = strstr(msg, "Waiting for ");
	double secs = 0;

	if (c->slept)
		return;
	phase_add(p, "suspend_machine", ts, -1);
	c->slept = true;
	/* the phase's end: ts, unless the clock went back; no wake yet */
	c->sleep_s = c->wake_s = p->last_s;
	c->pm_test = pm_test;
	p->woken = false;
	p->wake_next = pm_test;
	if (!wait || sscanf(wait + 12, "%lf", &secs) != 1 || !figure_ok(secs, 1))
		secs = 0;
	p->test_wake_s = ts + secs;
}

/* A log's clock can go back (a hostile or broken kernel, two kernels on
 * one console): a cycle's times never do, so the wake is not before the
 * sleep point. */
static void wake_at(struct pm_parser *p, double ts)
{
	p->c->wake_s = ts > p->c->sleep_s ? ts : p->c->sleep_s;
	p->last_s = p->c->wake_s;
	p->woken = true;
}

/* S3 keeps running (syscore suspend, "Disabling non-boot CPUs") after the
 * "Preparing to enter" line; the last line before the low-level resume is
 * the last thing the kernel did awake, so the sleep point moves there. */
static void wake_line(struct pm_parser *p, const char *msg, double ts)
{
	struct pm_cycle *c = p->c;
	struct pm_phase *last;

	if (!c->slept) /* a wake line before any phase: there is no last one */
		return;
	last = &c->phases[c->phases_count - 1]; /* sleep_at added one */
	if (p->woken) {
		phase_add(p, "resume_machine", ts, -1);
		return;
	}
	if (strstr(msg, "Low-level resume") && p->prev_s > c->sleep_s && p->prev_s <= ts &&
	    last->half == PM_HALF_SUSPEND) {
		c->sleep_s = p->prev_s;
		last->end_s = p->prev_s;
	}
	wake_at(p, ts);
}

static const struct pm_marker {
	const char *prefix;
	const char *must; /* also somewhere in the line (any case), or NULL */
	enum { MK_PHASE, MK_SLEEP, MK_TEST, MK_WAKE } kind;
	const char *phase;
} pm_markers[] = {
	{ "Filesystems sync: ", NULL, MK_PHASE, "sync" },
	{ "PM: Syncing filesystems", "done", MK_PHASE, "sync" },
	/* 6.1.y stable prints "... completed (elapsed X seconds)", older
	 * kernels "... (elapsed X seconds) done." */
	{ "Freezing user space processes", "(elapsed", MK_PHASE, "freeze_user" },
	{ "Freezing remaining freezable tasks", "(elapsed", MK_PHASE, "freeze_kernel" },
	{ "PM: hibernation: Allocated ", " kbytes in ", MK_PHASE, "prealloc" },
	{ "Restarting tasks", "done", MK_PHASE, "thaw_tasks" },
	{ "ACPI: PM: Preparing to enter system sleep state S", NULL, MK_SLEEP, NULL },
	{ "PM: suspend-to-idle", NULL, MK_SLEEP, NULL },
	{ "PM: hibernation: Creating image:", NULL, MK_SLEEP, NULL },
	{ "PM: suspend debug: Waiting for ", NULL, MK_TEST, NULL },
	{ "PM: hibernation: debug: Waiting for ", NULL, MK_TEST, NULL },
	{ "ACPI: PM: Low-level resume complete", NULL, MK_WAKE, NULL },
	{ "ACPI: PM: Waking up from system sleep state S", NULL, MK_WAKE, NULL },
	{ "PM: resume from suspend-to-idle", NULL, MK_WAKE, NULL },
};

/* "... (elapsed 0.007 seconds)": the kernel's own time for a freeze phase,
 * kept in the cycle as well (the freeze time every suspend reports). */
static double freeze_elapsed(struct pm_cycle *c, const char *phase, const char *msg)
{
	const char *e = strstr(msg, "(elapsed ");
	double secs;

	if (strncmp(phase, "freeze_", 7) || !e || sscanf(e + 9, "%lf", &secs) != 1 ||
	    !figure_ok(secs, 1))
		return -1;
	if (!strcmp(phase, "freeze_user"))
		c->freeze_user_ms = secs * 1000;
	else
		c->freeze_kernel_ms = secs * 1000;
	return secs * 1000;
}

static bool marker_line(struct pm_parser *p, const char *msg, double ts)
{
	for (size_t i = 0; i < ARRAY_SIZE(pm_markers); i++) {
		const struct pm_marker *m = &pm_markers[i];

		if (strncmp(msg, m->prefix, strlen(m->prefix)) ||
		    (m->must && !strcasestr(msg, m->must)))
			continue;
		if (m->kind == MK_PHASE)
			phase_add(p, m->phase, ts, freeze_elapsed(p->c, m->phase, msg));
		else if (m->kind == MK_WAKE)
			wake_line(p, msg, ts);
		else
			sleep_at(p, msg, ts, m->kind == MK_TEST);
		return true;
	}
	return false;
}

/* "PM: [late |noirq |early ]<verb> of devices complete after 1.374 msecs";
 * the verb (suspend, freeze, quiesce, thaw, restore...) names the phase. */
static bool devices_phase_line(struct pm_parser *p, const char *msg, double ts)
{
	static const char *const infos[] = { "late", "noirq", "early", "start" };
	char verb[16], name[24];
	const char *s = msg + 4, *info = NULL;
	double ms;
	int n = 0;

	if (strncmp(msg, "PM: ", 4))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(infos) && !info; i++) {
		size_t len = strlen(infos[i]);

		if (!strncmp(s, infos[i], len) && s[len] == ' ') {
			info = infos[i];
			s += len + 1;
		}
	}
	if (sscanf(s, "%15[a-z] of devices %*[a-z] after %lf msecs%n", verb, &ms, &n) != 2 || !n)
		return false;
	/* "start suspend" is prepare + suspend, which the plain line covers */
	if (info && !strcmp(info, "start"))
		return true;
	snprintf(name, sizeof(name), "%s%s%s", verb, info ? "_" : "", info ? info : "");
	phase_add(p, name, ts, figure_ok(ms, 1000) ? ms : -1);
	return true;
}

/* A callback as %pS prints it: "name+0x0/0x70", or, in a kernel without
 * kallsyms (a minimal one), its address alone, "0xffffffff812fa9c6". */
static bool cb_word(const char *s, size_t n)
{
	if (memchr(s, '+', n))
		return true;
	if (n < 3 || s[0] != '0' || s[1] != 'x')
		return false;
	for (size_t i = 2; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* "<dev>: PM: calling <cb>+0x0/0x70 [mod] @ 118, parent: <p>" or
 * "<dev>: PM: <cb>+0x0/0x70 [mod] returned <ret> after <N> usecs" (the
 * callback possibly an address, cb_word). */
static bool cb_split(const char *msg, struct pm_cb *cb, bool *calling)
{
	const char *pm = strstr(msg, ": PM: "), *s, *dev = msg;
	size_t n;

	if (!pm)
		return false;
	while (*dev == ' ')
		dev++;
	if (pm <= dev)
		return false;
	snprintf(cb->dev, sizeof(cb->dev), "%.*s", (int)(pm - dev), dev);
	s = pm + 6;
	*calling = !strncmp(s, "calling ", 8);
	if (*calling)
		s += 8;
	n = strcspn(s, " ");
	if (!cb_word(s, n))
		return false; /* not a callback: "ACPI: PM: Preparing..." */
	snprintf(cb->cb, sizeof(cb->cb), "%.*s", (int)strcspn(s, "+ "), s);
	s += n;
	cb->drv[0] = 0;
	if (s[0] == ' ' && s[1] == '[' && strchr(s, ']')) {
		snprintf(cb->drv, sizeof(cb->drv), "%.*s", (int)(strchr(s, ']') - s - 2), s + 2);
		s = strchr(s, ']') + 1;
	}
	cb->tail = s;
	return true;
}

static void pending_add(struct pm_parser *p, const struct pm_cb *cb, double ts)
{
	struct pm_pending *pd;

	if (p->npending >= PM_PENDING_MAX)
		return;
	pd = &p->pending[p->npending++];
	snprintf(pd->dev, sizeof(pd->dev), "%s", cb->dev);
	snprintf(pd->cb, sizeof(pd->cb), "%s", cb->cb);
	pd->ts = ts;
}

static void pending_drop(struct pm_parser *p, const struct pm_cb *cb)
{
	for (size_t i = 0; i < p->npending; i++) {
		if (strcmp(p->pending[i].dev, cb->dev) || strcmp(p->pending[i].cb, cb->cb))
			continue;
		p->pending[i] = p->pending[--p->npending];
		return;
	}
}

static void device_add(struct pm_parser *p, const struct pm_cb *cb, double ts, int ret, long usecs)
{
	struct pm_cycle *c = p->c;
	struct pm_device *d;

	c->devices = xrealloc(c->devices, (c->devices_count + 1) * sizeof(*d));
	d = &c->devices[c->devices_count++];
	d->device = xstrdup(cb->dev);
	d->callback = xstrdup(cb->cb);
	d->driver = cb->drv[0] ? xstrdup(cb->drv) : NULL;
	d->half = c->slept ? PM_HALF_RESUME : PM_HALF_SUSPEND;
	d->end_s = ts;
	d->usecs = usecs;
	d->ret = ret;
	/* a device that refused is why a suspend failed: say so */
	if (ret)
		error_add(c, "%s: %s returned %d after %ld usecs", cb->dev, cb->cb, ret, usecs);
}

static bool device_line(struct pm_parser *p, const char *msg, double ts)
{
	struct pm_cb cb;
	bool calling;
	long usecs;
	int ret;

	if (!cb_split(msg, &cb, &calling))
		return false;
	if (calling) {
		pending_add(p, &cb, ts);
		return true;
	}
	if (sscanf(cb.tail, " returned %d after %ld usecs", &ret, &usecs) != 2)
		return false;
	pending_drop(p, &cb);
	device_add(p, &cb, ts, ret, usecs);
	return true;
}

/* The kernel's own words when something in the cycle went wrong. */
static void error_line(struct pm_parser *p, const char *msg)
{
	static const char *const why[] = {
		"fail",	     "abort",	       "refusing", "Unsupported", "error",     "Error",
		"returns -", "Wakeup pending", "Cannot ",  "Not enough",  "not found", "EBUSY",
	};

	if (strncmp(msg, "Freezing", 8) && !strstr(msg, "PM: "))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(why); i++) {
		if (strstr(msg, why[i])) {
			error_add(p->c, "%s", msg);
			return;
		}
	}
}

/* "Freezing of tasks failed after 2.009 seconds (1 tasks refusing to
 * freeze, wq_busy=0):" (6.1; newer kernels name what was being frozen
 * instead of "of tasks"), then sched_show_task's "task:NAME state:D ...
 * pid:N" for each task that refused, until the tasks are thawed. */
static bool freeze_fail_line(struct pm_parser *p, const char *msg)
{
	struct pm_freeze_fail *f = p->c->freeze_fail;
	const char *s = strncmp(msg, "Freezing ", 9) ? NULL : strstr(msg, " after ");
	bool aborted = s && !strncmp(s - 8, " aborted", 8);

	if (s && (aborted || !strncmp(s - 7, " failed", 7)) && !f) {
		f = p->c->freeze_fail = xcalloc(1, sizeof(*f));
		f->aborted = aborted;
		if (sscanf(s + 7, "%lf seconds (%d tasks", &f->after_s, &f->refusing) < 1 ||
		    !figure_ok(f->after_s, 1))
			f->after_s = 0;
		p->freeze_tasks = true;
		return true;
	}
	if (!p->freeze_tasks)
		return false;
	if (!strncmp(msg, "task:", 5) && strstr(msg, " state:")) {
		const char *st = strstr(msg, " state:"), *pid = strstr(msg, " pid:");
		struct pm_task *t;
		size_t n = (size_t)(st - msg - 5);

		f->tasks = xrealloc(f->tasks, (f->tasks_count + 1) * sizeof(*t));
		t = &f->tasks[f->tasks_count++];
		while (n && msg[5 + n - 1] == ' ')
			n--;
		snprintf(t->name, sizeof(t->name), "%.*s", (int)n, msg + 5);
		t->state = st[7];
		t->pid = pid ? atoi(pid + 5) : 0;
		return true;
	}
	/* the freezer thaws what it froze: no more tasks to name */
	if (!strncmp(msg, "Restarting ", 11) || !strncmp(msg, "OOM killer enabled", 18))
		p->freeze_tasks = false;
	return false;
}

static void hib_stats(struct pm_parser *p, const char *msg)
{
	struct pm_hibernate *h = &p->c->hib;
	double s;
	long kb;

	if (sscanf(msg, "PM: hibernation: Need to copy %ld pages", &kb) == 1) {
		h->image_pages = kb;
	} else if (sscanf(msg, "PM: hibernation: Wrote %ld kbytes in %lf seconds", &kb, &s) == 2 &&
		   figure_ok(s, 1)) {
		h->wrote_kbytes = kb;
		h->write_s = s;
	} else if (sscanf(msg, "PM: hibernation: Read %ld kbytes in %lf seconds", &kb, &s) == 2 &&
		   figure_ok(s, 1)) {
		h->read_kbytes = kb;
		h->read_s = s;
	}
}

/* What the image-writing run did after the snapshot is not part of the
 * restored kernel's timeline: that kernel continues from the snapshot. */
static void drop_resume_half(struct pm_parser *p)
{
	struct pm_cycle *c = p->c;

	while (c->phases_count && c->phases[c->phases_count - 1].half == PM_HALF_RESUME)
		c->phases_count--;
	while (c->devices_count && c->devices[c->devices_count - 1].half == PM_HALF_RESUME) {
		struct pm_device *d = &c->devices[--c->devices_count];

		free(d->device);
		free(d->callback);
		free(d->driver);
	}
	p->npending = 0;
	p->woken = false;
	p->last_s = c->wake_s = c->sleep_s; /* the restored kernel says when it woke */
}

/*
 * An S4 console log holds, after the snapshot, the run that wrote the image,
 * then a fresh boot whose kernel loads it (its clock starts again at 0), then
 * the restored kernel, whose clock continues from the snapshot and whose
 * device callbacks are the "restore" ones. The loading kernel only adds
 * statistics and errors. Returns true when the line was the loading kernel's.
 */
static bool boot_kernel_line(struct pm_parser *p, const char *msg, double ts)
{
	struct pm_cycle *c = p->c;

	if (c->mode != PM_MODE_HIBERNATE || !c->slept)
		return false;
	if (!p->boot_kernel && (ts < c->sleep_s || !strncmp(msg, "Linux version ", 14))) {
		drop_resume_half(p);
		p->boot_kernel = true;
	}
	if (!p->boot_kernel)
		return false;
	if (strstr(msg, "_restore") || strstr(msg, "restore of devices") ||
	    strstr(msg, "hibernation exit")) {
		p->boot_kernel = false;
		return false;
	}
	hib_stats(p, msg);
	error_line(p, msg);
	return true;
}

static void parse_line(struct pm_parser *p, const char *line)
{
	const char *msg;
	double ts;

	msg = line_split(line, &ts);
	if (!msg || entry_line(p, msg, ts) || !p->c)
		goto out;
	if (boot_kernel_line(p, msg, ts))
		goto out;
	if (p->wake_next) {
		/* the wait is an mdelay(): it ended N seconds after it began */
		p->wake_next = false;
		wake_at(p, ts < p->test_wake_s ? ts : p->test_wake_s);
	}
	if (device_line(p, msg, ts))
		goto out;
	error_line(p, msg);
	if (freeze_fail_line(p, msg))
		goto out;
	hib_stats(p, msg);
	if (!exit_line(p, msg, ts) && !devices_phase_line(p, msg, ts))
		marker_line(p, msg, ts);
out:
	if (msg)
		p->prev_s = ts;
}

int pmlog_parse(const char *dmesg, struct pm_report *out)
{
	struct pm_parser p = { .r = out };
	char line[PM_LINE_MAX];

	if (!dmesg || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	while (*dmesg) {
		size_t n = strcspn(dmesg, "\n");
		size_t k = n < sizeof(line) - 1 ? n : sizeof(line) - 1;

		memcpy(line, dmesg, k);
		while (k && (line[k - 1] == '\r' || line[k - 1] == ' '))
			k--;
		line[k] = 0;
		parse_line(&p, line);
		dmesg += n + (dmesg[n] == '\n');
	}
	if (p.c)
		cycle_close(
		    &p, "the log ends inside the cycle: no exit line (the guest did not resume?)");
	return 0;
}

void pm_report_free(struct pm_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->cycles_count; i++) {
		struct pm_cycle *c = &r->cycles[i];

		for (size_t j = 0; j < c->devices_count; j++) {
			free(c->devices[j].device);
			free(c->devices[j].callback);
			free(c->devices[j].driver);
		}
		for (size_t j = 0; j < c->errors_count; j++)
			free(c->errors[j]);
		if (c->freeze_fail)
			free(c->freeze_fail->tasks);
		free(c->freeze_fail);
		free(c->devices);
		free(c->errors);
		free(c->phases);
	}
	free(r->cycles);
	memset(r, 0, sizeof(*r));
}

double pm_cycle_suspend_ms(const struct pm_cycle *c)
{
	return ((c->slept ? c->sleep_s : c->exit_s) - c->entry_s) * 1000;
}

double pm_cycle_freeze_ms(const struct pm_cycle *c)
{
	if (c->freeze_user_ms < 0 && c->freeze_kernel_ms < 0)
		return -1;
	return (c->freeze_user_ms > 0 ? c->freeze_user_ms : 0) +
	       (c->freeze_kernel_ms > 0 ? c->freeze_kernel_ms : 0);
}

double pm_cycle_resume_ms(const struct pm_cycle *c)
{
	return c->slept ? (c->exit_s - c->wake_s) * 1000 : 0;
}

size_t pm_cycle_slowest(const struct pm_cycle *c, enum pm_half half, const struct pm_device **out,
			size_t max)
{
	size_t n = 0;

	/* insertion into a short sorted list: max is 10 or 20, devices a few hundred */
	for (size_t i = 0; i < c->devices_count; i++) {
		const struct pm_device *d = &c->devices[i];
		size_t j;

		if (d->half != half || (n == max && out[n - 1]->usecs >= d->usecs))
			continue;
		j = n < max ? n++ : n - 1;
		for (; j > 0 && out[j - 1]->usecs < d->usecs; j--)
			out[j] = out[j - 1];
		out[j] = d;
	}
	return n;
}

/* Kernel timestamps have microsecond resolution; so do the numbers we keep. */
static json_t *json_fixed(double v, double scale)
{
	return json_real((double)(long long)(v * scale + (v < 0 ? -0.5 : 0.5)) / scale);
}

static json_t *phase_to_json(const struct pm_phase *ph)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", json_string(ph->name));
	json_object_set_new(j, "half",
			    json_string(ph->half == PM_HALF_SUSPEND ? "suspend" : "resume"));
	json_object_set_new(j, "start_s", json_fixed(ph->start_s, 1e6));
	json_object_set_new(j, "end_s", json_fixed(ph->end_s, 1e6));
	json_object_set_new(j, "ms", json_fixed((ph->end_s - ph->start_s) * 1000, 1e3));
	if (ph->kernel_ms >= 0)
		json_object_set_new(j, "kernel_ms", json_fixed(ph->kernel_ms, 1e3));
	return j;
}

#define PM_JSON_DEVICES 20

static json_t *devices_to_json(const struct pm_cycle *c, enum pm_half half)
{
	const struct pm_device *top[PM_JSON_DEVICES];
	size_t n = pm_cycle_slowest(c, half, top, PM_JSON_DEVICES);
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *d = json_object();

		json_object_set_new(d, "device", json_string(top[i]->device));
		json_object_set_new(d, "callback", json_string(top[i]->callback));
		json_object_set_new(d, "driver",
				    top[i]->driver ? json_string(top[i]->driver) : json_null());
		json_object_set_new(d, "usecs", json_integer(top[i]->usecs));
		json_object_set_new(d, "ret", json_integer(top[i]->ret));
		json_array_append_new(a, d);
	}
	return a;
}

static json_t *hib_to_json(const struct pm_hibernate *h)
{
	json_t *j = json_object();

	json_object_set_new(j, "image_pages", json_integer(h->image_pages));
	json_object_set_new(j, "image_kbytes", json_integer(h->image_pages * 4));
	json_object_set_new(j, "wrote_kbytes", json_integer(h->wrote_kbytes));
	json_object_set_new(j, "write_s", json_fixed(h->write_s, 1e3));
	json_object_set_new(j, "read_kbytes", json_integer(h->read_kbytes));
	json_object_set_new(j, "read_s", json_fixed(h->read_s, 1e3));
	return j;
}

static json_t *ms_or_null(double ms)
{
	return ms < 0 ? json_null() : json_fixed(ms, 1e3);
}

static json_t *freeze_fail_to_json(const struct pm_freeze_fail *f)
{
	json_t *j = json_object(), *a = json_array();

	if (!f) {
		json_decref(a);
		json_decref(j);
		return json_null();
	}
	json_object_set_new(j, "aborted", json_boolean(f->aborted));
	json_object_set_new(j, "after_s", json_fixed(f->after_s, 1e3));
	json_object_set_new(j, "refusing", json_integer(f->refusing));
	for (size_t i = 0; i < f->tasks_count; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:s#}", "name", f->tasks[i].name,
						   "pid", f->tasks[i].pid, "state",
						   &f->tasks[i].state, (size_t)1));
	json_object_set_new(j, "tasks", a);
	return j;
}

static json_t *cycle_to_json(const struct pm_cycle *c)
{
	json_t *j = json_object(), *a = json_array(), *d = json_object(), *e = json_array();

	json_object_set_new(j, "mode", json_string(pm_mode_name(c->mode)));
	json_object_set_new(j, "slept", json_boolean(c->slept));
	json_object_set_new(j, "complete", json_boolean(c->complete));
	json_object_set_new(j, "pm_test", json_boolean(c->pm_test));
	json_object_set_new(j, "entry_s", json_fixed(c->entry_s, 1e6));
	json_object_set_new(j, "sleep_s", c->slept ? json_fixed(c->sleep_s, 1e6) : json_null());
	json_object_set_new(j, "wake_s", c->slept ? json_fixed(c->wake_s, 1e6) : json_null());
	json_object_set_new(j, "exit_s", json_fixed(c->exit_s, 1e6));
	json_object_set_new(j, "suspend_kernel_ms", json_fixed(pm_cycle_suspend_ms(c), 1e3));
	json_object_set_new(j, "resume_kernel_ms", json_fixed(pm_cycle_resume_ms(c), 1e3));
	json_object_set_new(j, "freeze_ms", ms_or_null(pm_cycle_freeze_ms(c)));
	json_object_set_new(j, "freeze_user_ms", ms_or_null(c->freeze_user_ms));
	json_object_set_new(j, "freeze_kernel_ms", ms_or_null(c->freeze_kernel_ms));
	json_object_set_new(j, "freeze_failed", freeze_fail_to_json(c->freeze_fail));
	for (size_t i = 0; i < c->phases_count; i++)
		json_array_append_new(a, phase_to_json(&c->phases[i]));
	json_object_set_new(j, "phases", a);
	json_object_set_new(d, "suspend", devices_to_json(c, PM_HALF_SUSPEND));
	json_object_set_new(d, "resume", devices_to_json(c, PM_HALF_RESUME));
	json_object_set_new(j, "devices", d);
	json_object_set_new(j, "device_callbacks", json_integer((json_int_t)c->devices_count));
	if (c->mode == PM_MODE_HIBERNATE)
		json_object_set_new(j, "hibernate", hib_to_json(&c->hib));
	for (size_t i = 0; i < c->errors_count; i++)
		json_array_append_new(e, json_string(c->errors[i]));
	json_object_set_new(j, "errors", e);
	return j;
}

json_t *pm_report_to_json(const struct pm_report *r)
{
	json_t *j = json_object(), *a = json_array();

	if (!j || !a) {
		json_decref(j);
		json_decref(a);
		return NULL;
	}
	for (size_t i = 0; i < r->cycles_count; i++)
		json_array_append_new(a, cycle_to_json(&r->cycles[i]));
	json_object_set_new(j, "cycles", a);
	return j;
}
