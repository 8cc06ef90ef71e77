/* The suspend step: S3 and s2idle driven from the host. The guest is asked
 * to sleep through the agent; QEMU's SUSPEND event proves S3 was reached
 * (trust effects, not acknowledgements); the host wakes it by QMP, an RTC
 * alarm the guest armed, a key or the power button; the guest agent
 * answering again proves it is back. Times are taken on the host. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "loop.h"
#include "pmlog.h"
#include "step_pm.h"
#include "step_screen.h"
#include "timeline.h"
#include "util.h"

#define PM_CMD_MS 10000	       /* a guest command around the sleep */
#define PM_REACH_MS 30000      /* request → SUSPEND event */
#define PM_WAKE_EVENT_MS 10000 /* system_wakeup → WAKEUP event */
#define PM_BACK_MS 60000       /* wake → agent answers */
#define PM_HIBERNATE_MS 120000 /* request → QEMU powered off */
#define PM_RETRY_MS 3000       /* a guest-agent answer that is this late is lost */
/* what the kernel's freezer prints when it gives up (6.1 and later) */
#define PM_FREEZE_REFUSED "tasks refusing to freeze"

/* SeaBIOS 1.16 on q35 does not restore the ICH9 LPC's ACPI registers
 * (PMBASE at 0x40, ACPI_CNTL at 0x44) on S3 resume: QEMU's wake resets them,
 * and until they are back the guest's ACPI I/O goes nowhere (the next S3
 * silently never happens, the power-off that ends a hibernation neither, the
 * power button is not seen). So save them once per boot, at its first suspend
 * step, while they still hold what the firmware set at power-on (a save after
 * an S3 would keep the reset values), and put them back after every resume,
 * saying so in the step's result. An S4 restore starts the firmware afresh:
 * the next suspend step saves again. */
#define LPC_CONFIG "/sys/bus/pci/devices/0000:00:1f.0/config"
#define LPC_SAVE "dd if=" LPC_CONFIG " of=/run/ktb-lpc-pm bs=1 skip=64 count=8 2>/dev/null"
#define LPC_RESTORE                                                                                \
	"( [ -f /run/ktb-lpc-pm ] || exit 0; "                                                     \
	"dd if=" LPC_CONFIG " of=/run/ktb-lpc-now bs=1 skip=64 count=8 2>/dev/null; "              \
	"cmp -s /run/ktb-lpc-pm /run/ktb-lpc-now && exit 0; "                                      \
	"dd if=/run/ktb-lpc-pm of=" LPC_CONFIG " bs=1 seek=64 count=8 conv=notrunc "               \
	"2>/dev/null && echo restored ); "

/* The kernel's account of a wake: the event count of each of its wakeup
 * sources ("W COUNT NAME") and the IRQ that ended the sleep ("I IRQ", empty
 * when none did, as after an S3 wake). Shell builtins only: one exec. */
#define PM_WAKEUP_LIST                                                                             \
	"for d in /sys/class/wakeup/*; do read -r n < $d/event_count && "                          \
	"read -r m < $d/name && echo \"W $n $m\"; done 2>/dev/null; i=; "                          \
	"read -r i < /sys/power/pm_wakeup_irq 2>/dev/null; echo \"I $i\""

static const char *const state_word[] = { "s3", "s2idle", "s4" };
static const char *const wake_word[] = { "default", "qmp", "rtc", "key", "button" };

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static void pm_fail(struct step_result *sr, enum status st, char *msg)
{
	sr->status = st;
	free(sr->message);
	sr->message = msg;
}

/* Run a short guest command; 0 with its result, or a failed step. */
static int pm_guest(struct run_ctx *c, struct step_result *sr, const char *cmd,
		    struct vm_exec_result *res, int64_t deadline)
{
	int ret = vm_exec(&c->vm, cmd, (const char *const *)c->env, res,
			  min64(deadline, loop_now(c->vm.loop) + PM_CMD_MS));

	if (ret) {
		step_wait_failed(c, sr, ret, NULL);
		return ret;
	}
	return 0;
}

char *pm_refusal(char *err)
{
	return xasprintf("the kernel refused to suspend: %s",
			 err && *err ? str_trim(err, "\n ") : "(no message)");
}

/* Does the guest offer what the step asks for? The loader refuses s3 on a
 * machine that does not declare it, so a guest without "deep" in mem_sleep
 * lost it on its side: ACPI off (acpi=off), or a kernel without ACPI sleep
 * (the machine step names such causes unless sleep is unverified). */
static int pm_check_offered(struct run_ctx *c, const struct step *st, struct step_result *sr,
			    int64_t deadline)
{
	struct vm_exec_result res;
	const char *want = st->sleep_state == SLEEP_STATE_S3 ? "deep" : "s2idle";
	int ret = pm_guest(c, sr, "cat /sys/power/mem_sleep", &res, deadline);

	if (ret)
		return ret;
	if (!res.out || !strstr(res.out, want)) {
		pm_fail(sr, ST_FAIL,
			st->sleep_state == SLEEP_STATE_S3
			    ? xasprintf("the guest does not offer S3 though the machine "
					"declares it: its /sys/power/mem_sleep is \"%s\" (no "
					"deep); acpi=off on the command line, or a kernel "
					"without ACPI sleep?",
					res.out ? str_trim(res.out, "\n ") : "")
			    : xasprintf("the guest does not offer s2idle (mem_sleep \"%s\")",
					res.out ? str_trim(res.out, "\n ") : ""));
		ret = -EOPNOTSUPP;
	}
	vm_exec_result_free(&res);
	return ret;
}

/* The guest side of the preparation, as one shell script: timings on, the
 * sleep variant chosen, the wake source enabled, the pm_test level set.
 * A write the kernel refuses fails the script with the kernel's reason. */
/* The registers were saved in this boot: a restart (S4, power loss) starts
 * the firmware afresh, and its values are the ones to keep. */
static bool lpc_saved(const struct run_ctx *c)
{
	return c->lpc_saved_boot == c->boots;
}

static char *pm_setup_script(const struct run_ctx *c, const struct step *st)
{
	const char *variant = st->sleep_state == SLEEP_STATE_S3 ? "deep" : "s2idle";
	const char *wake = st->wake_by == WAKE_KEY
			       ? "echo enabled > /sys/bus/serio/devices/serio0/power/wakeup && "
			       : "";

	return xasprintf("set -e; %s echo 1 > /sys/power/pm_print_times; "
			 "echo 1 > /sys/power/pm_debug_messages; echo %s > /sys/power/mem_sleep; "
			 "%s echo 1 > /sys/module/suspend/parameters/pm_test_delay; "
			 "echo %s > /sys/power/pm_test",
			 lpc_saved(c) ? "" : "[ -e " LPC_CONFIG " ] && " LPC_SAVE ";", variant,
			 wake, st->pm_test ? st->pm_test : "none");
}

static int pm_prepare(struct run_ctx *c, const struct step *st, struct step_result *sr,
		      int64_t deadline)
{
	struct vm_exec_result res;
	char *script;
	int ret = pm_check_offered(c, st, sr, deadline);

	if (ret)
		return ret;
	script = pm_setup_script(c, st);
	ret = pm_guest(c, sr, script, &res, deadline);
	free(script);
	if (ret)
		return ret;
	if (res.exit_code) {
		pm_fail(sr, ST_FAIL,
			xasprintf("the guest refused the set-up: %s",
				  res.err ? str_trim(res.err, "\n ") : "(no message)"));
		ret = -EINVAL;
	}
	if (!ret)
		c->lpc_saved_boot = c->boots;
	vm_exec_result_free(&res);
	return ret;
}

/* Drop SUSPEND and WAKEUP events left from earlier steps. */
static void pm_drain_events(struct run_ctx *c)
{
	vm_qmp_drop_events(&c->vm);
}

int pm_unreached(bool collected, bool exited_ok, char **msg)
{
	*msg = NULL;
	if (collected) {
		/* a refusal (exit not 0) already said why */
		if (exited_ok)
			*msg = xstrdup("the guest says it suspended (its write to /sys/power/state "
				       "returned 0) but QEMU never saw S3");
		return -EIO;
	}
	*msg = xasprintf("guest did not reach S3 within %d s", PM_REACH_MS / 1000);
	return -ETIMEDOUT;
}

/* Collect the sleep command's exit: it returns only after resume, and a
 * refusal carries the kernel's reason as its error. */
static int pm_collect(struct run_ctx *c, struct sleep_cycle *cy, struct step_result *sr,
		      int64_t deadline, bool *exited_ok)
{
	struct vm_exec_result res;
	int ret;

	/* A request in flight while the guest suspends its devices (pm_test
	 * "devices" and deeper) can be lost with the virtio-serial queue: ask
	 * again, after a resync, rather than wait out the whole deadline. */
	if (cy->pid_pending) {
		/* the agent answers the start once the guest is back */
		cy->pid_pending = false;
		ret = vm_exec_start_finish(&c->vm, &cy->pid, NULL, deadline);
		if (ret == -ECANCELED)
			return ret;
		if (ret) {
			/* that answer was lost with the sleep; QEMU's SUSPEND
			 * event already proved the write took effect */
			*exited_ok = true;
			return 0;
		}
	}
	do {
		ret = vm_exec_wait(&c->vm, cy->pid, &res,
				   min64(deadline, loop_now(c->vm.loop) + PM_RETRY_MS));
	} while (ret == -ETIMEDOUT && loop_now(c->vm.loop) < deadline);
	if (ret)
		return ret;
	*exited_ok = res.exit_code == 0;
	if (!*exited_ok) {
		/* a refusal before any sleep: the cycle lasted until the command
		 * said so (a freezer that gave up: its timeout and the thaw) */
		if (!cy->cycle_ms)
			cy->cycle_ms = loop_now(c->vm.loop) - cy->t_req;
		cy->refused = true;
		pm_fail(sr, ST_FAIL, pm_refusal(res.err));
	}
	vm_exec_result_free(&res);
	return 0;
}

static int pm_arm_rtc(struct run_ctx *c, const struct step *st, struct step_result *sr,
		      int64_t deadline)
{
	struct vm_exec_result res;
	int64_t secs = st->after_ms < 1000 ? 1 : (st->after_ms + 999) / 1000;
	char *cmd = xasprintf("echo 0 > /sys/class/rtc/rtc0/wakealarm && "
			      "echo +%lld > /sys/class/rtc/rtc0/wakealarm",
			      (long long)secs);
	int ret = pm_guest(c, sr, cmd, &res, deadline);

	free(cmd);
	if (!ret && res.exit_code) {
		pm_fail(sr, ST_FAIL,
			xasprintf("cannot arm the RTC alarm: %s",
				  res.err ? str_trim(res.err, "\n ") : ""));
		ret = -EIO;
	}
	if (!ret)
		vm_exec_result_free(&res);
	return ret;
}

static bool pm_in_s3(void *ctx)
{
	struct run_ctx *c = ctx;

	return vm_qmp_has_event(&c->vm, "SUSPEND");
}

/* The freezer gave up: the kernel says so on the console at once (pr_err),
 * while the sleep command returns only after the tasks are thawed. */
static bool pm_freeze_refused(void *ctx)
{
	struct run_ctx *c = ctx;

	return console_seen(c->vm.console, PM_FREEZE_REFUSED);
}

static bool pm_in_s3_or_refused(void *ctx)
{
	return pm_in_s3(ctx) || pm_freeze_refused(ctx);
}

/* a deadline that is not a failure: the moment to stop waiting and go on */
struct pm_late {
	struct loop *loop;
	int64_t at;
};

static bool pm_answer_late(void *ctx)
{
	const struct pm_late *late = ctx;

	return loop_now(late->loop) >= late->at;
}

static int pm_request(struct run_ctx *c, const struct step *st, struct sleep_cycle *cy,
		      struct step_result *sr, int64_t deadline)
{
	static const char *const word[] = { "mem", "freeze", "disk" };
	char *cmd = xasprintf("echo %s > /sys/power/state", word[st->sleep_state]);
	char *err = NULL;
	int ret;

	struct pm_late late;

	pm_drain_events(c);
	console_reset_match(c->vm.console);
	cy->t_req = loop_now(c->vm.loop);
	cy->pid_pending = false;
	if (st->sleep_state != SLEEP_STATE_S3 && !st->pm_test) {
		/* s2idle and S4 leave no trace on QMP before the wake or the
		 * power-off, and the freezer can stop the agent before its
		 * answer leaves the guest: an answer that has not come in
		 * PM_RETRY_MS is taken to be frozen with it (it is collected
		 * after the wake, or when no power-off came), and the wake
		 * (s2idle) or the wait for the power-off (S4) goes ahead */
		late = (struct pm_late){ c->vm.loop, cy->t_req + PM_RETRY_MS };
		ret = vm_exec_start_until(&c->vm, cmd, (const char *const *)c->env, &cy->pid, &err,
					  min64(deadline, late.at), pm_answer_late, &late);
	} else {
		/* The guest can reach S3 before the agent's answer leaves it:
		 * then stop waiting for the answer and wake the guest (QMP
		 * shows S3). */
		ret = vm_exec_start_until(
		    &c->vm, cmd, (const char *const *)c->env, &cy->pid, &err,
		    min64(deadline, cy->t_req + PM_CMD_MS),
		    st->sleep_state == SLEEP_STATE_S3 && !st->pm_test ? pm_in_s3 : NULL, c);
	}
	free(cmd);
	/* The guest can also freeze the agent and power off before the
	 * answer leaves it (S4 on a loaded host): its socket then closes with
	 * QEMU, and hib_wait_off judges the power-off. */
	if (ret == -EINPROGRESS ||
	    (ret == -EPIPE && st->sleep_state == SLEEP_STATE_S4 && !st->pm_test)) {
		cy->pid_pending = true;
		ret = 0;
	}
	if (ret) {
		step_wait_failed(c, sr, ret, NULL);
		if (err)
			pm_fail(sr, ST_ERROR, xasprintf("the agent refused the request: %s", err));
	}
	free(err);
	return ret;
}

/* S3 was reached only if QEMU says so. Without the event, tell apart a
 * kernel that refused, a guest that claims it slept, and one that hangs. */
static int pm_wait_suspended(struct run_ctx *c, struct sleep_cycle *cy, struct step_result *sr,
			     int64_t deadline)
{
	int64_t host_ms = 0;
	bool ok = false;
	char *why;
	/* a freezer that gave up ends the wait: the command's exit says why */
	int ret = loop_run_until(c->vm.loop, pm_in_s3_or_refused, c,
				 min64(deadline, cy->t_req + PM_REACH_MS));

	if (!ret && pm_in_s3(c))
		ret = vm_qmp_event(&c->vm, "SUSPEND", &host_ms, loop_now(c->vm.loop));
	else if (!ret)
		ret = -ETIMEDOUT;
	if (!ret) {
		cy->suspend_ms = host_ms - cy->t_req;
		return 0;
	}
	if (ret != -ETIMEDOUT) {
		step_wait_failed(c, sr, ret, NULL);
		return ret;
	}
	/* the sleep command's fate first: ok is read after it is known */
	ret = pm_collect(
	    c, cy, sr,
	    min64(deadline, loop_now(c->vm.loop) + (pm_freeze_refused(c) ? PM_CMD_MS : 2000)), &ok);
	ret = pm_unreached(ret == 0, ok, &why);
	if (why)
		pm_fail(sr, ST_FAIL, why);
	return ret;
}

/* The freezer gave up (the console said so): the sleep command exits with
 * the kernel's refusal once the tasks are thawed. */
static int pm_refused_collect(struct run_ctx *c, struct sleep_cycle *cy, struct step_result *sr,
			      int64_t deadline)
{
	bool ok = false;
	int ret = pm_collect(c, cy, sr, min64(deadline, loop_now(c->vm.loop) + PM_CMD_MS), &ok);

	if (ret)
		step_wait_failed(c, sr, ret, NULL);
	else if (ok)
		pm_fail(sr, ST_FAIL,
			xstrdup("the kernel's freezer gave up, yet the sleep command "
				"returned 0"));
	return ret ? ret : -EIO;
}

/* asleep_screen: the display as the host sees it while the guest sleeps,
 * just before the wake (what the screen showed while "off"). */
static int pm_asleep_screen(struct run_ctx *c, const struct step *st, struct sleep_cycle *cy,
			    struct step_result *sr, int64_t deadline)
{
	char *err = NULL;
	int ret = screen_capture(c, st->asleep_screen, &cy->asleep_screen, &err, deadline);

	if (ret == -EREMOTEIO)
		pm_fail(sr, ST_ERROR,
			xasprintf("QMP screendump refused while asleep: %s", err ? err : ""));
	else if (ret == -EINVAL || ret == -E2BIG || ret == -ENODATA)
		pm_fail(sr, ST_ERROR,
			xasprintf("the capture while asleep is not a P6 PPM QEMU would write (%s)",
				  strerror(-ret)));
	else if (ret)
		step_wait_failed(c, sr, ret, NULL);
	free(err);
	return ret;
}

/* awake_screen: from the wake, before any guest command runs, captures back
 * to back until the display is the earlier capture again. A display that
 * does not come back is the cycle's verdict (cy->awake_fail), given once the
 * guest is back; only a capture that could not be taken ends the cycle. */
static int pm_awake_screen(struct run_ctx *c, const struct step *st, struct sleep_cycle *cy,
			   struct step_result *sr, int64_t deadline)
{
	const struct awake_screen *a = st->awake_screen;
	char *name = xasprintf("awake-%u", (unsigned)(st - c->s->steps) + 1), *err = NULL;
	struct screen_back b;
	int ret = screen_back(c, name, a->same_as, cy->t_wake, a->within_ms, &b, &err, deadline);

	if (ret == -EREMOTEIO)
		pm_fail(sr, ST_ERROR,
			xasprintf("QMP screendump refused after the wake: %s", err ? err : ""));
	else if (ret == -EINVAL || ret == -E2BIG || ret == -ENODATA)
		pm_fail(sr, ST_ERROR,
			xasprintf("a capture after the wake (or \"%s\") is not a P6 PPM QEMU "
				  "would write (%s)",
				  a->same_as, strerror(-ret)));
	else if (ret)
		step_wait_failed(c, sr, ret, NULL);
	if (!ret) {
		cy->awake_screen = screen_back_json(&b, a->same_as);
		cy->awake_fail = screen_back_verdict(&b, a->same_as);
	}
	free(name);
	free(err);
	return ret;
}

static int pm_wake(struct run_ctx *c, const struct step *st, struct sleep_cycle *cy,
		   struct step_result *sr, int64_t deadline)
{
	static const char *const key = "{\"keys\": [{\"type\": \"qcode\", \"data\": \"shift\"}]}";
	json_t *args = NULL;
	char *err = NULL;
	const char *cmd;
	int ret;

	/* s2idle: a freezer that gave up before the wake leaves nothing to
	 * wake (a key then could even abort the next freeze) */
	ret = loop_run_until(c->vm.loop,
			     st->sleep_state == SLEEP_STATE_S2IDLE ? pm_freeze_refused : NULL, c,
			     min64(deadline, loop_now(c->vm.loop) + st->after_ms));
	if (ret == -ETIMEDOUT)
		ret = 0;
	else if (!ret && st->sleep_state == SLEEP_STATE_S2IDLE)
		return pm_refused_collect(c, cy, sr, deadline);
	if (ret) {
		step_wait_failed(c, sr, ret, NULL);
		return ret;
	}
	if (st->asleep_screen && pm_asleep_screen(c, st, cy, sr, deadline))
		return -EIO;
	cmd = st->wake_by == WAKE_QMP	? "system_wakeup"
	      : st->wake_by == WAKE_KEY ? "send-key"
					: "system_powerdown";
	if (st->wake_by == WAKE_KEY)
		args = json_loads(key, 0, NULL);
	cy->t_wake = loop_now(c->vm.loop);
	c->wake_ms = cy->t_wake;
	ret = st->wake_by == WAKE_QMP ? vm_pm_wakeup(&c->vm, &err) : -ENOTSUP;
	if (ret == -ENOTSUP)
		ret = vm_qmp(&c->vm, cmd, args, NULL, &err, deadline);
	json_decref(args);
	if (ret == -EREMOTEIO)
		pm_fail(sr, ST_FAIL, xasprintf("QMP %s refused: %s", cmd, err ? err : ""));
	else if (ret)
		step_wait_failed(c, sr, ret, NULL);
	free(err);
	return ret;
}

/* S3 ends with a WAKEUP event, whoever woke it. */
static int pm_wait_wakeup(struct run_ctx *c, const struct step *st, struct sleep_cycle *cy,
			  struct step_result *sr, int64_t deadline)
{
	int64_t host_ms = 0;
	int64_t limit = st->wake_by == WAKE_RTC
			    ? cy->t_req + cy->suspend_ms + st->after_ms + PM_REACH_MS
			    : cy->t_wake + PM_WAKE_EVENT_MS;
	int ret = vm_qmp_event(&c->vm, "WAKEUP", &host_ms, min64(deadline, limit));

	if (ret == -ETIMEDOUT) {
		pm_fail(sr, ST_FAIL,
			xasprintf("the guest never woke up (no WAKEUP event; wake "
				  "by %s)",
				  wake_word[st->wake_by]));
		return ret;
	}
	if (ret) {
		step_wait_failed(c, sr, ret, NULL);
		return ret;
	}
	if (st->wake_by == WAKE_RTC)
		cy->t_wake = host_ms;
	return 0;
}

/* Back means the agent answers again; then the sleep command must have
 * returned 0. */
static int pm_wait_back(struct run_ctx *c, const struct step *st, struct sleep_cycle *cy,
			struct step_result *sr, int64_t deadline)
{
	bool ok = false;
	int64_t limit = min64(deadline, cy->t_wake + PM_BACK_MS);
	int ret = vm_guest_sync(&c->vm, 200, limit);

	if (ret) {
		if (ret == -ECANCELED)
			step_wait_failed(c, sr, ret, NULL);
		else
			pm_fail(sr, ST_TIMEOUT,
				xasprintf("the guest did not come back after the wake by %s (the "
					  "agent did not answer within %.1f s)",
					  wake_word[st->wake_by],
					  (double)(limit - cy->t_wake) / 1000));
		return ret;
	}
	cy->resume_ms = loop_now(c->vm.loop) - cy->t_wake;
	cy->cycle_ms = loop_now(c->vm.loop) - cy->t_req;
	ret = pm_collect(c, cy, sr, min64(deadline, loop_now(c->vm.loop) + PM_CMD_MS), &ok);
	if (ret)
		step_wait_failed(c, sr, ret, NULL);
	return ret ? ret : ok ? 0 : -EIO;
}

/* pm_test: the kernel runs the suspend path up to the level, waits and
 * returns by itself, with no real sleep: the command's exit is the verdict. */
static int pm_test_cycle(struct run_ctx *c, struct sleep_cycle *cy, struct step_result *sr,
			 int64_t deadline)
{
	bool ok = false;
	int ret = pm_collect(c, cy, sr, deadline, &ok);

	if (ret)
		step_wait_failed(c, sr, ret, NULL);
	cy->suspend_ms = loop_now(c->vm.loop) - cy->t_req;
	return ret ? ret : ok ? 0 : -EIO;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* PM_WAKEUP_LIST's output: the counts by source name, and the IRQ. */
json_t *pm_wakeup_parse(char *out, int *irq, bool *restored)
{
	json_t *counts = json_object();
	char *save = NULL, *end;

	for (char *l = out ? strtok_r(out, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "W ", 2)) {
			long long n = strtoll(l + 2, &end, 10);

			if (*end == ' ' && end[1])
				json_object_set_new(counts, end + 1, json_integer(n));
		} else if (!strncmp(l, "I ", 2)) {
			*irq = atoi(l + 2);
		} else if (!strcmp(l, "restored")) {
			*restored = true;
		}
	}
	return counts;
}

/* The sources whose event count grew from before to after, sorted by name. */
json_t *pm_wakeup_grew(json_t *before, json_t *after)
{
	const char **names = xcalloc(json_object_size(after) + 1, sizeof(*names));
	json_t *grew = json_array(), *v;
	const char *name;
	size_t n = 0;

	json_object_foreach (after, name, v) {
		json_t *b = json_object_get(before, name);

		if (json_integer_value(v) > (b ? json_integer_value(b) : 0))
			names[n++] = name;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(grew, json_string(names[i]));
	free(names);
	return grew;
}

/* One guest script: the LPC registers put back if the wake reset them
 * (counted as a fix-up), then the wakeup sources' counts. With restore
 * false, only the counts (the baseline before the first cycle). */
static int pm_wakeup_read(struct run_ctx *c, struct step_result *sr, bool restore, json_t **counts,
			  int *irq, int *fixups, int64_t deadline)
{
	struct vm_exec_result res;
	bool restored = false;
	char *cmd = xasprintf("%s" PM_WAKEUP_LIST, restore ? LPC_RESTORE : "");
	int ret = pm_guest(c, sr, cmd, &res, deadline);

	free(cmd);
	if (ret)
		return ret;
	*irq = 0;
	*counts = pm_wakeup_parse(res.out, irq, &restored);
	if (restored)
		(*fixups)++;
	vm_exec_result_free(&res);
	return 0;
}

/* After every resume: the firmware fix-up first (nothing of the guest's
 * ACPI works before it), then the kernel's account of what woke it. */
static int pm_after_resume(struct run_ctx *c, struct sleep_cycle *cy, struct step_result *sr,
			   int64_t deadline)
{
	/* KTB_NO_FIRMWARE_FIXUP=1 shows the firmware bug (the tests use it) */
	bool restore = lpc_saved(c) && !getenv("KTB_NO_FIRMWARE_FIXUP");
	json_t *after = NULL;
	int ret = pm_wakeup_read(c, sr, restore, &after, &cy->wakeup_irq, cy->fixups, deadline);
	if (ret)
		return ret;
	cy->wakeup_sources = pm_wakeup_grew(*cy->counts, after);
	json_decref(*cy->counts);
	*cy->counts = after;
	return 0;
}

static int pm_cycle_run(struct run_ctx *c, const struct step *st, struct sleep_cycle *cy,
			struct step_result *sr, int64_t deadline)
{
	int ret = 0;

	if (st->wake_by == WAKE_RTC && !st->pm_test)
		ret = pm_arm_rtc(c, st, sr, deadline);
	if (!ret)
		ret = pm_request(c, st, cy, sr, deadline);
	if (ret)
		return ret;
	if (st->pm_test)
		return pm_test_cycle(c, cy, sr, deadline);
	if (st->sleep_state == SLEEP_STATE_S3) {
		ret = pm_wait_suspended(c, cy, sr, deadline);
		if (!ret && st->wake_by != WAKE_RTC)
			ret = pm_wake(c, st, cy, sr, deadline);
		if (!ret)
			ret = pm_wait_wakeup(c, st, cy, sr, deadline);
	} else {
		/* s2idle leaves no trace on QMP: sleep, wake, and check the kernel's
		 * own log afterwards that a full cycle happened */
		ret = pm_wake(c, st, cy, sr, deadline);
	}
	if (!ret && st->awake_screen)
		ret = pm_awake_screen(c, st, cy, sr, deadline);
	if (!ret)
		ret = pm_wait_back(c, st, cy, sr, deadline);
	return ret ? ret : pm_after_resume(c, cy, sr, deadline);
}

json_t *pm_cycle_json(unsigned i, const struct sleep_cycle *cy, const struct step *st)
{
	json_t *j =
	    json_pack("{s:i, s:I}", "cycle", (int)i + 1, "suspend_ms", (json_int_t)cy->suspend_ms);

	if (!st->pm_test) {
		json_object_set_new(j, "resume_ms", json_integer(cy->resume_ms));
		json_object_set_new(j, "cycle_ms", json_integer(cy->cycle_ms));
	}
	if (cy->wakeup_sources) {
		json_object_set(j, "wakeup_sources", cy->wakeup_sources);
		json_object_set_new(j, "wakeup_irq",
				    cy->wakeup_irq ? json_integer(cy->wakeup_irq) : json_null());
	}
	return j;
}

int64_t median_of(json_t *cycles, const char *key)
{
	size_t n = json_array_size(cycles), k = 0;
	int64_t *v = xcalloc(n ? n : 1, sizeof(*v)), m = 0;

	for (size_t i = 0; i < n; i++) {
		json_t *x = json_object_get(json_array_get(cycles, i), key);

		if (json_is_integer(x))
			v[k++] = json_integer_value(x);
	}
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j && v[j - 1] > v[j]; j--) {
			int64_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	if (k)
		m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	free(v);
	return k ? m : -1;
}

static void pm_metrics(struct run_ctx *c, json_t *data)
{
	json_t *cycles = json_object_get(data, "cycles");
	int64_t s = median_of(cycles, "suspend_ms"), r = median_of(cycles, "resume_ms");
	int64_t t = median_of(cycles, "cycle_ms");

	if (s >= 0)
		json_object_set_new(c->r->metrics, "suspend_ms", json_integer(s));
	if (r >= 0)
		json_object_set_new(c->r->metrics, "resume_ms", json_integer(r));
	if (t >= 0)
		json_object_set_new(c->r->metrics, "cycle_ms", json_integer(t));
	json_object_set(c->r->metrics, "pm_cycles", cycles);
}

static const char *wake_note(const struct step *st)
{
	if (st->sleep_state == SLEEP_STATE_S4)
		return "restart (QEMU started again with the same disks and ktb.resume)";
	switch (st->wake_by) {
	case WAKE_RTC:
		return "rtc (an alarm the guest armed in /sys/class/rtc/rtc0/wakealarm)";
	case WAKE_KEY:
		return "key (QMP send-key; serio0 wakeup enabled in the guest)";
	case WAKE_BUTTON:
		return "button (QMP system_powerdown: the ACPI power button)";
	default:
		return "qmp (system_wakeup)";
	}
}

/* The entries in the kernel's log and its suspend_stats counts, in one
 * command; what could not be read is -1 (a kernel without suspend_stats
 * in sysfs gives the entries alone). */
static void pm_count(struct run_ctx *c, const struct step *st, struct step_result *sr,
		     int64_t deadline, struct pm_counts *n)
{
	struct vm_exec_result res;
	char *cmd = xasprintf("dmesg | grep -c 'PM: suspend entry (%s)'; "
			      "cat /sys/power/suspend_stats/success "
			      "/sys/power/suspend_stats/fail 2>/dev/null; true",
			      st->sleep_state == SLEEP_STATE_S3 ? "deep" : "s2idle");

	*n = (struct pm_counts){ -1, -1, -1 };
	if (!pm_guest(c, sr, cmd, &res, deadline)) {
		if (res.out && sscanf(res.out, "%d %d %d", &n->entries, &n->success, &n->fail) < 3)
			n->success = n->fail = -1;
		vm_exec_result_free(&res);
	}
	free(cmd);
}

char *pm_entries_verdict(const struct step *st, int before, int after)
{
	int want = (int)st->cycles;

	if (st->pm_test || before < 0 || after < 0 || after - before >= want)
		return NULL;
	return xasprintf("the kernel's log shows %d suspend entr%s (%s) for %d cycle%s",
			 after - before, after - before == 1 ? "y" : "ies",
			 state_word[st->sleep_state], want, want == 1 ? "" : "s");
}

/* pm_suspend() counts each return: success, or fail when enter_state()
 * failed (a device that would not suspend, a wakeup during it, the
 * freezer). The sleep command's exit status says the same, but an s2idle
 * answer frozen with the agent can be lost; these counts cannot. */
char *pm_stats_verdict(const struct step *st, const struct pm_counts *b, const struct pm_counts *a)
{
	int ok = a->success - b->success, failed = a->fail - b->fail;
	int want = st->refused ? 0 : (int)st->cycles, want_failed = st->refused ? 1 : 0;

	if (st->pm_test || b->success < 0 || a->success < 0 || b->fail < 0 || a->fail < 0)
		return NULL;
	if (st->refused ? failed != want_failed : failed > 0)
		return xasprintf("the kernel counts %d failed suspend%s in the step, %d expected "
				 "(/sys/power/suspend_stats/fail)",
				 failed, failed == 1 ? "" : "s", want_failed);
	if (st->refused && ok)
		return xasprintf(
		    "the kernel counts %d successful suspend%s in the step, 0 expected "
		    "(refused: %s; /sys/power/suspend_stats/success)",
		    ok, ok == 1 ? "" : "s", st->refused);
	if (ok < want)
		return xasprintf("the kernel counts %d successful suspend%s for %d cycle%s "
				 "(/sys/power/suspend_stats/success)",
				 ok, ok == 1 ? "" : "s", want, want == 1 ? "" : "s");
	return NULL;
}

/* The kernel's own account: every cycle must show in its log as a suspend
 * entry (an s2idle wake that came too early aborts without one), and in
 * its suspend_stats as a success (a failure as a failure). */
static void pm_kernel_check(struct run_ctx *c, const struct step *st, struct step_result *sr,
			    const struct pm_counts *before, int64_t deadline)
{
	struct pm_counts after;
	char *why;

	pm_count(c, st, sr, deadline, &after);
	why = pm_entries_verdict(st, before->entries, after.entries);
	if (!why)
		why = pm_stats_verdict(st, before, &after);
	if (why)
		pm_fail(sr, ST_FAIL, why);
}

/* ---- S4: hibernate to the swap disk, power off, start again, restore ---- */

static char *hib_setup_script(const struct run_ctx *c, const struct step *st)
{
	const char *id = c->s->machine->hibernate->disk;

	/* a restored system still has its swap on: mkswap only a fresh disk */
	return xasprintf(
	    "set -e; dev=$(readlink -f /dev/ktb/%s); "
	    "grep -q \"^$dev \" /proc/swaps || { mkswap $dev > /dev/null; swapon $dev; }; "
	    "echo shutdown > /sys/power/disk; echo 1 > /sys/power/pm_print_times; "
	    "echo 1 > /sys/module/suspend/parameters/pm_test_delay; "
	    "echo %s > /sys/power/pm_test",
	    id, st->pm_test ? st->pm_test : "none");
}

static bool hib_qemu_gone(void *ctx)
{
	return ((struct vm *)ctx)->qemu_gone;
}

/* The guest writes its image and powers off: QEMU exiting cleanly is the
 * proof. A kernel that refuses says why through the sleep command. */
static int hib_wait_off(struct run_ctx *c, struct sleep_cycle *cy, struct step_result *sr,
			int64_t deadline)
{
	const char *how = NULL;
	bool ok = false;
	int64_t until = min64(deadline, cy->t_req + PM_HIBERNATE_MS);
	int ret = loop_run_until(c->vm.loop, hib_qemu_gone, &c->vm, until);

	if (c->vm.qemu_gone && !console_fatal(c->vm.console)) {
		cy->suspend_ms = loop_now(c->vm.loop) - cy->t_req;
		if (vm_exited_ok(&c->vm, &how))
			return 0;
		pm_fail(sr, ST_FAIL, xasprintf("QEMU %s while the guest hibernated", how));
		return -EIO;
	}
	if (ret != -ETIMEDOUT) {
		step_wait_failed(c, sr, ret, NULL);
		return ret;
	}
	if (!pm_collect(c, cy, sr, min64(deadline, loop_now(c->vm.loop) + 2000), &ok) && ok)
		pm_fail(sr, ST_FAIL,
			xstrdup("the guest's hibernation returned without powering "
				"off: no image was written"));
	else if (sr->status == ST_PASS && until < cy->t_req + PM_HIBERNATE_MS)
		pm_fail(sr, ST_TIMEOUT,
			xasprintf("the guest did not hibernate within the %.1f s the step's "
				  "timeout left (ktb allows up to %d s; give the step a longer "
				  "timeout)",
				  (double)(until - cy->t_req) / 1000, PM_HIBERNATE_MS / 1000));
	else if (sr->status == ST_PASS)
		pm_fail(
		    sr, ST_FAIL,
		    xasprintf("the guest did not hibernate within %d s", PM_HIBERNATE_MS / 1000));
	return -ETIMEDOUT;
}

static int hib_restore(struct run_ctx *c, struct sleep_cycle *cy, struct step_result *sr,
		       int64_t deadline)
{
	/* KTB_S4_NO_RESUME=1 starts the machine again without naming the image's
	 * disk: the guest boots afresh, which the tests use to prove the check */
	char *extra = getenv("KTB_S4_NO_RESUME")
			  ? xstrdup("")
			  : xasprintf("ktb.resume=%s", c->s->machine->hibernate->disk);
	int ret;

	/* a new boot (run_restart counts it): the firmware sets the LPC
	 * registers afresh, to be saved again by the next suspend step */
	loop_clear_abort(c->vm.loop);
	ret = run_restart(c, extra, deadline);
	free(extra);
	if (ret) {
		pm_fail(sr, console_fatal(c->vm.console) ? ST_FAIL : ST_ERROR,
			xasprintf("the machine did not come back from hibernation: %s", c->vm.err));
		return ret;
	}
	cy->t_wake = c->vm.start_ms;
	c->wake_ms = cy->t_wake;
	cy->resume_ms = c->vm.ready_ms - c->vm.start_ms;
	cy->cycle_ms = c->vm.ready_ms - cy->t_req;
	return 0;
}

/* A machine that answers again may have booted afresh: only the restored
 * kernel's log holds the image it created ("Creating image", "Need to copy
 * N pages"), so count those lines and read the image size from them. */
#define HIB_IMAGE_LOG                                                                              \
	"dmesg | grep -c 'PM: hibernation: Creating image' || true; "                              \
	"dmesg | sed -n 's/.*Need to copy \\([0-9]*\\) pages.*/\\1/p' | tail -1"

static int hib_image_log(struct run_ctx *c, struct step_result *sr, int *images, long long *pages,
			 int64_t deadline)
{
	struct vm_exec_result res;
	char *nl;

	if (pm_guest(c, sr, HIB_IMAGE_LOG, &res, deadline))
		return -EIO;
	*images = res.out ? atoi(res.out) : 0;
	nl = res.out ? strchr(res.out, '\n') : NULL;
	*pages = nl ? atoll(nl + 1) : 0;
	vm_exec_result_free(&res);
	return 0;
}

bool hib_restored(int before, int after)
{
	return after > before;
}

static void hib_check_restored(struct run_ctx *c, struct step_result *sr, int before, json_t *data,
			       int64_t deadline)
{
	long long pages = 0;
	int after = 0;

	if (hib_image_log(c, sr, &after, &pages, deadline))
		return;
	if (!hib_restored(before, after)) {
		pm_fail(sr, ST_FAIL,
			xstrdup("the guest booted afresh instead of restoring its "
				"hibernation image (the kernel's log has no image "
				"created before the restart)"));
		return;
	}
	json_object_set_new(data, "image_bytes", json_integer(pages * 4096));
	json_object_set_new(c->r->metrics, "hibernate_image_bytes", json_integer(pages * 4096));
}

/* The last n entries of the report's cycles, as JSON (this step's own). */
static json_t *pm_last_cycles(const struct pm_report *rep, size_t n)
{
	json_t *all = pm_report_to_json(rep);
	json_t *cycles = json_object_get(all, "cycles");

	while (json_array_size(cycles) > n)
		json_array_remove(cycles, 0);
	return all;
}

/* The kernel's freeze time of each of the step's cycles (its log has the
 * last ones; "(elapsed X seconds)" is whole ms) into the cycles' data, and
 * their median into the metrics. */
static void pm_freeze_times(struct run_ctx *c, json_t *data, json_t *kernel)
{
	json_t *cycles = json_object_get(data, "cycles");
	json_t *kc = json_object_get(kernel, "cycles");
	size_t n = json_array_size(cycles), k = json_array_size(kc);
	int64_t m;

	for (size_t i = 0; i < n && i < k; i++) {
		json_t *f = json_object_get(json_array_get(kc, k - 1 - i), "freeze_ms");

		if (json_is_number(f))
			json_object_set_new(json_array_get(cycles, n - 1 - i), "freeze_ms",
					    json_integer((json_int_t)(json_number_value(f) + 0.5)));
	}
	m = median_of(cycles, "freeze_ms");
	if (m >= 0)
		json_object_set_new(c->r->metrics, "freeze_ms", json_integer(m));
}

static void pm_write_timeline(struct run_ctx *c, const struct pm_report *rep)
{
	char *path = xasprintf("%s/timeline.svg", c->r->artifacts);
	FILE *f = fopen(path, "w");

	if (f) {
		timeline_svg(rep, rep->cycles_count - 1, f);
		fclose(f);
	}
	free(path);
}

/* The kernel's own account of the step's cycles: phases and per-device
 * times into the step's data, and the last cycle as timeline.svg. A log
 * that cannot be read leaves the step's verdict alone. */
static void pm_kernel_report(struct run_ctx *c, const struct step *st, json_t *data,
			     int64_t deadline)
{
	struct vm_exec_result res;
	struct pm_report rep = { 0 };

	if (vm_exec(&c->vm, "dmesg", (const char *const *)c->env, &res,
		    min64(deadline, loop_now(c->vm.loop) + PM_CMD_MS)))
		return;
	if (res.out && !pmlog_parse(res.out, &rep) && rep.cycles_count) {
		json_t *kernel = pm_last_cycles(&rep, st->cycles);

		pm_freeze_times(c, data, kernel);
		json_object_set_new(data, "kernel", kernel);
		pm_write_timeline(c, &rep);
	}
	pm_report_free(&rep);
	vm_exec_result_free(&res);
}

static void step_hibernate(struct run_ctx *c, const struct step *st, struct step_result *sr,
			   int64_t deadline, json_t *data)
{
	struct vm_exec_result res;
	struct sleep_cycle cy = { 0 };
	char *script;
	long long pages;
	int before = 0, ret;

	if (hib_image_log(c, sr, &before, &pages, deadline))
		return;
	script = hib_setup_script(c, st);
	ret = pm_guest(c, sr, script, &res, deadline);
	free(script);
	if (ret)
		return;
	if (res.exit_code)
		pm_fail(sr, ST_FAIL,
			xasprintf("the guest refused the hibernation set-up: %s",
				  res.err ? str_trim(res.err, "\n ") : ""));
	vm_exec_result_free(&res);
	if (sr->status != ST_PASS || pm_request(c, st, &cy, sr, deadline))
		return;
	if (st->pm_test)
		ret = pm_test_cycle(c, &cy, sr, deadline);
	else if (!(ret = hib_wait_off(c, &cy, sr, deadline)))
		ret = hib_restore(c, &cy, sr, deadline);
	json_array_append_new(json_object_get(data, "cycles"), pm_cycle_json(0, &cy, st));
	if (!ret && !st->pm_test) {
		json_object_set_new(c->r->metrics, "hibernate_ms", json_integer(cy.suspend_ms));
		json_object_set_new(c->r->metrics, "restore_ms", json_integer(cy.resume_ms));
		hib_check_restored(c, sr, before, data, deadline);
		if (sr->status == ST_PASS)
			pm_kernel_report(c, st, data, deadline);
	}
}

char *pm_freeze_message(const json_t *ff)
{
	json_t *tasks = json_object_get(ff, "tasks"), *t;
	char *names = xstrdup(""), *m;
	size_t i;
	int n = (int)json_integer_value(json_object_get(ff, "refusing"));

	json_array_foreach (tasks, i, t) {
		char *next = xasprintf("%s%s%s (pid %d, state %s)", names, i ? ", " : "",
				       json_string_value(json_object_get(t, "name")),
				       (int)json_integer_value(json_object_get(t, "pid")),
				       json_string_value(json_object_get(t, "state")));
		free(names);
		names = next;
	}
	m = xasprintf("freezing %s: %d task%s refusing to freeze after %.3f s%s%s",
		      json_is_true(json_object_get(ff, "aborted")) ? "aborted (a wakeup event)"
								   : "failed",
		      n, n == 1 ? "" : "s", json_number_value(json_object_get(ff, "after_s")),
		      *names ? ": " : "", names);
	free(names);
	return m;
}

/* The kernel refused a cycle: if its freezer gave up, say so apart from
 * other refusals (the message, and freezing_failed in the data, from the
 * log's last cycle). true when it did. */
static bool pm_freeze_failed(struct run_ctx *c, const struct step *st, struct step_result *sr,
			     unsigned cycle, json_t *data, int64_t deadline)
{
	struct vm_exec_result res;
	struct pm_report rep = { 0 };
	json_t *kernel = NULL, *ff = NULL;

	if (vm_exec(&c->vm, "dmesg", (const char *const *)c->env, &res,
		    min64(deadline, loop_now(c->vm.loop) + PM_CMD_MS)))
		return false;
	if (res.out && !pmlog_parse(res.out, &rep) && rep.cycles_count)
		kernel = pm_last_cycles(&rep, 1);
	ff = json_object_get(json_array_get(json_object_get(kernel, "cycles"), 0), "freeze_failed");
	if (json_is_object(ff)) {
		char *why = pm_freeze_message(ff);

		json_object_set(data, "freezing_failed", ff);
		pm_fail(sr, ST_FAIL,
			st->cycles > 1 ? xasprintf("cycle %u of %u: %s", cycle, st->cycles, why)
				       : xstrdup(why));
		free(why);
		json_object_set_new(data, "kernel", json_incref(kernel));
		pm_write_timeline(c, &rep);
	}
	json_decref(kernel);
	pm_report_free(&rep);
	vm_exec_result_free(&res);
	return json_is_object(ff);
}

/* refused: freezing. The refusal is the step's success if the freezer gave
 * up and the guest carries on (its agent answers); a guest that slept, or
 * refused for another reason, fails it. */
static void pm_refused_verdict(struct run_ctx *c, const struct step *st, struct step_result *sr,
			       bool froze_failed, json_t *data, int64_t deadline)
{
	if (!st->refused)
		return;
	json_object_set_new(data, "refused", json_string(st->refused));
	if (sr->status == ST_PASS) {
		pm_fail(sr, ST_FAIL,
			xstrdup("the kernel did not refuse: the guest suspended and resumed, "
				"but refused: freezing expects its freezer to give up"));
		return;
	}
	if (!froze_failed)
		return;
	sr->status = ST_PASS;
	free(sr->message);
	sr->message = NULL;
	if (vm_guest_sync(&c->vm, 200, min64(deadline, loop_now(c->vm.loop) + PM_CMD_MS)))
		pm_fail(sr, ST_FAIL,
			xstrdup("the guest stopped answering after its freezer gave up"));
}

/* awake_screen's account goes in the data; the display's return is a
 * metric, with its resolution, and this wake is timed: a later screen step
 * does not time it again from further away. Its failure is the step's when
 * the cycle itself went through. */
static void pm_awake_verdict(struct run_ctx *c, struct step_result *sr, struct sleep_cycle *cy,
			     int ret, json_t *data)
{
	json_t *back = json_object_get(cy->awake_screen, "back_ms");

	json_object_set_new(data, "awake_screen", cy->awake_screen);
	c->wake_ms = 0;
	if (json_is_integer(back)) {
		json_object_set(c->r->metrics, "display_back_ms", back);
		json_object_set(c->r->metrics, "display_back_resolution_ms",
				json_object_get(cy->awake_screen, "resolution_ms"));
	}
	if (!ret && cy->awake_fail) {
		pm_fail(sr, ST_FAIL, cy->awake_fail);
		cy->awake_fail = NULL;
	}
	free(cy->awake_fail);
}

/* expect on a suspend step checks its data: there is no command whose exit
 * could be checked, so the step counts as exiting 0, as the other steps with
 * data do (otherwise expect's default exit 0 fails every such step) */
static void pm_judge(struct step_result *sr, const struct expect *e)
{
	sr->exit_code = 0;
	step_judge(sr, e);
}

static void step_suspend(struct run_ctx *c, const struct step *st, struct step_result *sr,
			 int64_t deadline)
{
	json_t *data = json_pack("{s:s, s:s, s:[]}", "state", state_word[st->sleep_state], "wake",
				 wake_note(st), "cycles");
	json_t *counts = NULL;
	struct pm_counts before = { -1, -1, -1 };
	int fixups = 0, irq;
	bool froze_failed = false;

	if (st->pm_test)
		json_object_set_new(data, "pm_test", json_string(st->pm_test));
	sr->status = ST_PASS;
	if (st->sleep_state == SLEEP_STATE_S4) {
		step_hibernate(c, st, sr, deadline, data);
		sr->data = data;
		if (sr->status == ST_PASS && st->expect)
			pm_judge(sr, st->expect);
		return;
	}
	if (pm_prepare(c, st, sr, deadline))
		goto out;
	pm_count(c, st, sr, deadline, &before);
	if (!st->pm_test && pm_wakeup_read(c, sr, false, &counts, &irq, &fixups, deadline))
		goto out;
	for (unsigned i = 0; i < st->cycles; i++) {
		struct sleep_cycle cy = { .fixups = &fixups, .counts = &counts };
		int ret = pm_cycle_run(c, st, &cy, sr, deadline);

		json_array_append_new(json_object_get(data, "cycles"), pm_cycle_json(i, &cy, st));
		json_decref(cy.wakeup_sources);
		if (cy.asleep_screen)
			json_object_set_new(data, "asleep_screen", cy.asleep_screen);
		if (cy.awake_screen)
			pm_awake_verdict(c, sr, &cy, ret, data);
		if (ret && cy.refused && pm_freeze_failed(c, st, sr, i + 1, data, deadline)) {
			froze_failed = true;
			break;
		}
		if (ret) {
			if (sr->status == ST_PASS)
				pm_fail(sr, ST_FAIL, xasprintf("cycle %u failed", i + 1));
			if (st->cycles > 1) {
				char *m =
				    xasprintf("cycle %u of %u: %s", i + 1, st->cycles, sr->message);

				pm_fail(sr, sr->status, m);
			}
			break;
		}
	}
out:
	json_decref(counts);
	if (fixups)
		json_object_set_new(
		    data, "firmware_fixups",
		    json_pack("{s:i, s:s}", "count", fixups, "what",
			      "restored the ICH9 LPC ACPI registers (PMBASE, "
			      "ACPI_CNTL) that SeaBIOS leaves reset after S3 resume"));
	pm_metrics(c, data);
	sr->data = data;
	pm_refused_verdict(c, st, sr, froze_failed, data, deadline);
	if (sr->status == ST_PASS)
		pm_kernel_check(c, st, sr, &before, deadline);
	if (sr->status == ST_PASS && !st->pm_test && !froze_failed)
		pm_kernel_report(c, st, data, deadline);

	if (sr->status == ST_PASS && st->expect)
		pm_judge(sr, st->expect);
}

const struct step_ops step_suspend_ops = { STEP_SUSPEND, step_suspend };
