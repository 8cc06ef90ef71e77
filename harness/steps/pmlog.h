/* Suspend/resume cycles read back from a guest kernel's log (dmesg or the
 * serial console): each cycle's phases on the kernel clock, per-device PM
 * callback times from pm_print_times, and the kernel's reasons for refusing. */
#ifndef KTB_PMLOG_H
#define KTB_PMLOG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum pm_mode { PM_MODE_UNKNOWN, PM_MODE_DEEP, PM_MODE_S2IDLE, PM_MODE_SHALLOW, PM_MODE_HIBERNATE };

/* Which side of the sleep point something happened on. */
enum pm_half { PM_HALF_SUSPEND, PM_HALF_RESUME };

struct pm_phase {
	char name[24]; /* "freeze_user", "suspend_noirq", "resume_early"... */
	enum pm_half half;
	double start_s, end_s; /* kernel timestamps; phases are contiguous */
	double kernel_ms;      /* the "... after X msecs" the kernel printed, or -1 */
};

struct pm_device {
	char *device;	/* "virtio-pci 0000:00:01.0" */
	char *callback; /* "pci_pm_suspend", offsets stripped */
	char *driver;	/* module in [brackets], NULL when built in */
	enum pm_half half;
	double end_s; /* timestamp of the "returned" line */
	long usecs;
	int ret;
};

/* S4 only; zero where the log does not say. */
struct pm_hibernate {
	long image_pages; /* "Need to copy N pages" */
	long wrote_kbytes, read_kbytes;
	double write_s, read_s;
};

/* A task the freezer could not freeze: sched_show_task's "task:NAME
 * state:D ... pid:N" line after the failure. */
struct pm_task {
	char name[17]; /* comm, at most 16 characters */
	char state;    /* 'D', 'R', ... */
	int pid;
};

/* The freezer gave up: "Freezing ... failed after X seconds (N tasks
 * refusing to freeze, wq_busy=W):", then one line per task. */
struct pm_freeze_fail {
	bool aborted;	/* "aborted" (a wakeup event) rather than "failed" */
	double after_s; /* how long the freezer tried */
	int refusing;	/* N, as the kernel counted */
	struct pm_task *tasks;
	size_t tasks_count;
};

struct pm_cycle {
	enum pm_mode mode;
	bool slept;    /* reached the sleep point (or the pm_test wait) */
	bool complete; /* "suspend exit" / "hibernation exit" seen */
	bool pm_test;  /* the sleep point was a pm_test wait */
	double entry_s, sleep_s, wake_s, exit_s;
	struct pm_phase *phases;
	size_t phases_count;
	struct pm_device *devices; /* in log order */
	size_t devices_count;
	char **errors; /* kernel refusals, failed callbacks, missing exit */
	size_t errors_count;
	struct pm_hibernate hib;
	/* the kernel's "(elapsed X seconds)" for freezing user space and the
	 * remaining freezable tasks, in ms; -1 where the log does not say */
	double freeze_user_ms, freeze_kernel_ms;
	struct pm_freeze_fail *freeze_fail; /* NULL unless the freezer gave up */
};

struct pm_report {
	struct pm_cycle *cycles;
	size_t cycles_count;
};

/* Every cycle in @dmesg, in order. 0 (possibly with no cycles) or -EINVAL. */
int pmlog_parse(const char *dmesg, struct pm_report *out);
void pm_report_free(struct pm_report *r);
/* {"cycles":[...]}; see docs. NULL on ENOMEM. */
json_t *pm_report_to_json(const struct pm_report *r);

const char *pm_mode_name(enum pm_mode m);
/* The kernel's freeze time of the cycle (user space + remaining tasks), ms;
 * -1 when the log has neither figure (the freezer failed, or no PM lines). */
double pm_cycle_freeze_ms(const struct pm_cycle *c);
/* Kernel time from entry to the sleep point, and from wake to exit. */
double pm_cycle_suspend_ms(const struct pm_cycle *c);
double pm_cycle_resume_ms(const struct pm_cycle *c);
/* The slowest callbacks of one half, slowest first, into @out[max]; returns
 * how many. Pointers into @c. */
size_t pm_cycle_slowest(const struct pm_cycle *c, enum pm_half half, const struct pm_device **out,
			size_t max);

#endif
