/* suspend: s3, s2idle or s4, woken by qmp, rtc, key or button, after a
 * time asleep; pm_test levels, cycles, a refusal the kernel must make, and
 * the screen while asleep and on the wake. The machine declares the sleep
 * (firmware S3, a swap disk for s4), and shares nothing that cannot sleep.
 * The kernel options of the state and the wake. Runs in
 * harness/steps/step_pm.c. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kreq.h"
#include "load.h"
#include "schema.h"
#include "sleep.h"
#include "step_kind.h"

static const cyaml_schema_field_t awake_screen_fields[] = {
	STR("same_as", 0, struct awake_screen, same_as),
	STR("within", OPT, struct awake_screen, within), CYAML_FIELD_END
};

static const cyaml_schema_field_t suspend_fields[] = {
	STR("suspend", OPT, struct step, suspend),
	STR("wake", OPT, struct step, wake),
	STR("after", OPT, struct step, after),
	STR("pm_test", OPT, struct step, pm_test),
	CYAML_FIELD_UINT("cycles", OPT, struct step, cycles),
	STR("refused", OPT, struct step, refused),
	STR("asleep_screen", OPT, struct step, asleep_screen),
	CYAML_FIELD_MAPPING_PTR("awake_screen", PTR | OPT, struct step, awake_screen,
				awake_screen_fields),
	CYAML_FIELD_END,
};

/* Which wake sources can end which sleep here (docs/pm.md, "Which wake
 * ends which sleep"): QEMU's system_wakeup and the RTC alarm wake S3 but not
 * s2idle; a key or the ACPI power button wake s2idle. S4 ends by restarting
 * the machine. */
static int step_check_wake(struct load_ctx *c, struct step *st, const char *path)
{
	static const char *const wakes[] = { "", "qmp", "rtc", "key", "button" };
	static const unsigned ok[] = { [SLEEP_STATE_S3] = 1 << WAKE_QMP | 1 << WAKE_RTC,
				       [SLEEP_STATE_S2IDLE] = 1 << WAKE_KEY | 1 << WAKE_BUTTON,
				       [SLEEP_STATE_S4] = 0 };
	char f[64];
	int w;

	snprintf(f, sizeof(f), "%s.wake", path);
	if (!st->wake) {
		st->wake_by = st->sleep_state == SLEEP_STATE_S2IDLE ? WAKE_KEY : WAKE_QMP;
		return 0;
	}
	w = word_index(st->wake, wakes, COUNT(wakes));
	if (w <= 0)
		return fail(c, f, "\"%s\" is not one of qmp, rtc, key, button", st->wake);
	if (!(ok[st->sleep_state] & 1u << w))
		return fail(c, f, "%s cannot end %s: %s", st->wake, st->suspend,
			    st->sleep_state == SLEEP_STATE_S2IDLE
				? "QEMU's system_wakeup and the RTC alarm do not wake s2idle; "
				  "use key or button"
			    : st->sleep_state == SLEEP_STATE_S4
				? "an S4 step restores by restarting the machine; drop wake"
				: "S3 wakes by qmp or rtc");
	st->wake_by = (enum wake_source)w;
	return 0;
}

/* refused: freezing, a suspend the kernel must refuse because its freezer
 * gives up: one cycle of s3 or s2idle (a hibernation that fails to freeze
 * is not driven to its end here), really asked for (no pm_test). */
static int step_check_refused(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.refused", path);
	if (!st->refused)
		return 0;
	if (strcmp(st->refused, "freezing"))
		return fail(c, f, "\"%s\" is not freezing (the only refusal a step can expect)",
			    st->refused);
	if (st->sleep_state == SLEEP_STATE_S4 || st->pm_test || st->cycles > 1)
		return fail(c, f, "refused: freezing takes one cycle of s3 or s2idle, no pm_test");
	return 0;
}

/* asleep_screen: NAME on a suspend step: S3 or s2idle (under S4 the
 * machine is off), one cycle, no pm_test (nothing sleeps). */
static int step_check_asleep_screen(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	if (!st->asleep_screen)
		return 0;
	snprintf(f, sizeof(f), "%s.asleep_screen", path);
	if (st->sleep_state == SLEEP_STATE_S4)
		return fail(c, f, "s4 powers the machine off: there is no screen while asleep");
	if (st->pm_test)
		return fail(c, f, "with pm_test the guest never sleeps; drop one of them");
	if (st->cycles > 1)
		return fail(c, f, "one capture per step: give cycles: 1");
	return step_check_capture_name(c, st, st->asleep_screen, f);
}

/* awake_screen: {same_as: NAME, within: DURATION} on a suspend step: one
 * cycle of S3 or s2idle woken by the host (the wake is when the captures
 * start), NAME an earlier capture. */
static int step_check_awake_screen(struct load_ctx *c, struct step *st, const char *path)
{
	struct awake_screen *a = st->awake_screen;
	char f[64];

	if (!a)
		return 0;
	snprintf(f, sizeof(f), "%s.awake_screen", path);
	if (c->s->machine->display == DISPLAY_NONE)
		return fail(c, f, "the machine has no display; give it display: bochs-display");
	if (st->sleep_state == SLEEP_STATE_S4)
		return fail(c, f,
			    "s4 restores in a new QEMU, not on a wake; compare with a screen "
			    "step after it (same_as, poll)");
	if (st->pm_test)
		return fail(c, f, "with pm_test the guest never sleeps; drop one of them");
	if (st->cycles > 1)
		return fail(c, f, "one return timed per step: give cycles: 1");
	if (st->wake_by == WAKE_RTC)
		return fail(c, f,
			    "wake: rtc is the guest's own alarm: the host has no wake to time "
			    "from; wake by qmp");
	snprintf(f, sizeof(f), "%s.awake_screen.same_as", path);
	if (!step_capture_before(c->s, st, a->same_as))
		return fail(c, f, "no earlier step saved the capture \"%s\"; give one screen: %s",
			    a->same_as, a->same_as);
	snprintf(f, sizeof(f), "%s.awake_screen.within", path);
	a->within_ms = 5000;
	if (a->within && duration_field(c, f, a->within, &a->within_ms, "2s, 5s") < 0)
		return -EINVAL;
	if (!a->within_ms)
		return fail(c, f, "0 leaves no time for a capture; give e.g. 5s");
	/* the guest agent is asked after the captures, and must answer within
	 * a minute of the wake */
	if (a->within_ms > 30000)
		return fail(c, f,
			    "%s is more than 30s: the guest is asked whether it is back "
			    "only after the captures",
			    a->within);
	return 0;
}

/* A sleep that reaches the devices (every one but pm_test: freezer) with a
 * host folder mounted: 6.1's 9pnet_virtio has no freeze or restore, so the
 * sleep resets the virtio device under it and every file access after the
 * wake waits for a reply that never comes; its virtio_fs refuses to freeze
 * (-EOPNOTSUPP), so the kernel gives the sleep up. The host's root is such
 * a folder; a Debian root is a disk (virtio_blk restores its queues), so it
 * sleeps. f: the step's field. */
static int step_check_shared_sleep(struct load_ctx *c, const struct step *st, const char *f)
{
	const struct machine *m = c->s->machine;

	if (st->pm_test && !strcmp(st->pm_test, "freezer"))
		return 0;
	if (c->s->guest && c->s->guest->root && !strcmp(c->s->guest->root, GUEST_ROOT_HOST))
		return fail(c, f,
			    "the guest's root is shared over 9p (guest.root host), which does "
			    "not come back from a sleep in this kernel (9pnet_virtio has no "
			    "suspend or resume): the guest would hang after the wake; suspend "
			    "on the image's root or a Debian root (a disk), or with pm_test: "
			    "freezer, which stops before the devices");
	/* the first share, by the transport machine_validate chose (auto:
	 * virtiofs where virtiofsd serves and the share is writable) */
	if (m && m->shares_count)
		return fail(c, f,
			    "machine.shares[0] (%s) reaches the guest over %s; suspend on a "
			    "machine without shares (or with pm_test: freezer, which stops "
			    "before the devices)",
			    m->shares[0].host,
			    m->shares[0].virtiofs
				? "virtiofs, which this kernel cannot put to sleep (virtio_fs "
				  "refuses to freeze, -EOPNOTSUPP): the kernel would give the "
				  "sleep up"
				: "9p, which does not come back from a sleep in this kernel "
				  "(9pnet_virtio has no suspend or resume): the guest would hang "
				  "after the wake");
	return 0;
}

static int step_check_suspend(struct load_ctx *c, struct step *st, const char *path)
{
	static const char *const states[] = { SLEEP_STATE_TABLE(HW_NAMES_STR) };
	static const char *const levels[] = { "freezer", "devices", "platform", "processors",
					      "core" };
	char f[64];
	int k = word_index(st->suspend, states, COUNT(states));

	snprintf(f, sizeof(f), "%s.suspend", path);
	if (k < 0)
		return fail(c, f, "\"%s\" is not one of %s", st->suspend,
			    HW_NAMES_LIST(SLEEP_STATE_TABLE));
	if (step_check_shared_sleep(c, st, f))
		return -EINVAL;
	if (k == SLEEP_STATE_S4 && !c->s->machine->hibernate)
		return fail(c, f,
			    "s4 needs a swap disk for the image: give the machine "
			    "hibernate: {disk: ID}");
	/* the firmware offers S3 only when the machine declares it (QEMU's
	 * ICH9-LPC.disable_s3); s2idle needs no firmware, and s4 hibernates
	 * in the kernel's shutdown mode, which needs none either */
	if (k == SLEEP_STATE_S3 && !(c->s->machine->sleep & SLEEP_S3))
		return fail(c, f,
			    "s3 needs firmware that offers it, and this machine declares no "
			    "S3: give the machine sleep: [s3] (or suspend to s2idle, which "
			    "needs no firmware)");
	st->sleep_state = (enum sleep_state)k;
	snprintf(f, sizeof(f), "%s.after", path);
	if (st->after && k == SLEEP_STATE_S4)
		return fail(c, f,
			    "s4 powers the machine off and starts it again at once: nothing "
			    "waits after; drop it");
	if (st->after && st->pm_test)
		return fail(c, f,
			    "with pm_test the guest never sleeps (the kernel's test holds "
			    "1 s), so nothing waits after; drop one of them");
	snprintf(f, sizeof(f), "%s.wake", path);
	if (st->wake && st->pm_test)
		return fail(c, f,
			    "with pm_test the guest never sleeps, so nothing wakes it; drop "
			    "one of them");
	snprintf(f, sizeof(f), "%s.pm_test", path);
	if (st->pm_test && word_index(st->pm_test, levels, COUNT(levels)) < 0)
		return fail(c, f,
			    "\"%s\" is not one of freezer, devices, platform, processors, "
			    "core",
			    st->pm_test);
	snprintf(f, sizeof(f), "%s.after", path);
	st->after_ms = 1000;
	if (st->after && duration_field(c, f, st->after, &st->after_ms, "500ms, 2s") < 0)
		return -EINVAL;
	snprintf(f, sizeof(f), "%s.cycles", path);
	if (st->cycles > 1000)
		return fail(c, f, "%u cycles is more than 1000", st->cycles);
	if (!st->cycles)
		st->cycles = 1;
	if (k == SLEEP_STATE_S4 && st->cycles > 1)
		return fail(c, f, "one hibernation per step; repeat the step instead");
	if (step_check_refused(c, st, path) || step_check_asleep_screen(c, st, path) ||
	    step_check_wake(c, st, path))
		return -EINVAL;
	return step_check_awake_screen(c, st, path);
}

/* How long a pm_test cycle holds the guest at the test point: the harness
 * sets the kernel's suspend.pm_test_delay to 1 (harness/steps/step_pm.c). */
#define PM_TEST_HOLD_MS 1000

/* The time a suspend step's guest sleeps for sure: after each cycle (an RTC
 * alarm is armed in whole seconds, at least 1: step_pm.c), or the pm_test
 * hold; a refused one may end at once. */
static int64_t suspend_asleep_ms(const struct step *st)
{
	int64_t one = st->after_ms;

	if (st->refused)
		return 0;
	if (st->pm_test)
		return (int64_t)st->cycles * PM_TEST_HOLD_MS;
	if (st->sleep_state == SLEEP_STATE_S4)
		return 0;
	if (st->wake_by == WAKE_RTC)
		one = one < 1000 ? 1000 : (one + 999) / 1000 * 1000;
	return (int64_t)st->cycles * one;
}

/* The time asleep, and the captures after the wake, end before the
 * step's deadline. */
static int suspend_fits(struct load_ctx *c, const struct step *st, const char *path)
{
	int64_t limit = step_limit(c, st), asleep = suspend_asleep_ms(st);
	char f[80], what[160], a[32], b[32];

	snprintf(f, sizeof(f), "%s.%s", path, st->pm_test ? "pm_test" : "after");
	if (st->cycles > 1)
		snprintf(what, sizeof(what), "%u cycles of %s asleep", st->cycles,
			 ms_str(asleep / st->cycles, a, sizeof(a)));
	else
		snprintf(what, sizeof(what), "%s asleep", ms_str(asleep, a, sizeof(a)));
	if (asleep >= limit)
		return step_fail_fit(c, st, f, asleep, what, st->cycles > 1);
	if (!st->awake_screen || asleep + st->awake_screen->within_ms < limit)
		return 0;
	snprintf(f, sizeof(f), "%s.awake_screen.within", path);
	snprintf(what, sizeof(what), "%s asleep and %s of captures", a,
		 ms_str(st->awake_screen->within_ms, b, sizeof(b)));
	return step_fail_fit(c, st, f, asleep + st->awake_screen->within_ms, what, true);
}

/* 60s a cycle */
static int64_t suspend_timeout_ms(const struct step *st)
{
	return STEP_TIMEOUT_MS * st->cycles;
}

/* A hibernation (no pm_test) restores in a new QEMU. */
static enum step_vm suspend_vm_after(const struct step *st)
{
	return st->sleep_state == SLEEP_STATE_S4 && !st->pm_test ? VM_RESTORED : VM_SAME;
}

static const char *suspend_capture(const struct step *st)
{
	return st->asleep_screen;
}

/* What a suspend step needs whatever its argument: it writes
 * /sys/power/pm_test (none, or the level), pm_print_times and
 * pm_debug_messages (PM_SLEEP_DEBUG) and suspend.pm_test_delay (PM_DEBUG)
 * before every suspend (step_pm.c). */
static const struct kreq_opts suspend_kopts = { { { "CONFIG_PM_DEBUG", NULL },
						  { "CONFIG_PM_SLEEP_DEBUG", NULL } } };

/* The state it enters. S4 writes its image to swap and powers
 * off through the platform (ACPI) method. */
static const struct kreq_opts state_opts[] = {
	[SLEEP_STATE_S3] = { { { "CONFIG_SUSPEND", NULL }, { "CONFIG_ACPI_SLEEP", NULL } } },
	[SLEEP_STATE_S2IDLE] = { { { "CONFIG_SUSPEND", NULL } } },
	[SLEEP_STATE_S4] = { { { "CONFIG_SWAP", NULL },
			       { "CONFIG_HIBERNATION", NULL },
			       { "CONFIG_ACPI_SLEEP", NULL } } },
};
_Static_assert(sizeof(state_opts) / sizeof(state_opts[0]) == SLEEP_STATE_COUNT, "a row per state");

/* What wakes it (the loader fills the default). */
static const struct {
	const char *name;
	struct kreq_opts opts;
} wake_rows[] = {
	[WAKE_DEFAULT] = { "default", { { { NULL, NULL } } } },
	[WAKE_QMP] = { "qmp", { { { NULL, NULL } } } },
	[WAKE_RTC] = { "rtc",
		       { { { "CONFIG_RTC_CLASS", NULL },
			   { "CONFIG_RTC_DRV_CMOS", "rtc_cmos" } } } },
	[WAKE_KEY] = { "key",
		       { { { "CONFIG_SERIO_I8042", "i8042" },
			   { "CONFIG_KEYBOARD_ATKBD", "atkbd" } } } },
	[WAKE_BUTTON] = { "button", { { { "CONFIG_ACPI_BUTTON", "button" } } } },
};

static int suspend_kreq(struct kreq_list *l, unsigned i, const struct step *st)
{
	char why[256];
	int ret;

	snprintf(why, sizeof(why), "steps[%u] suspends to %s", i,
		 sleep_state_name(st->sleep_state));
	ret = kreq_add_opts(l, &state_opts[st->sleep_state], why);
	if (!ret && (size_t)st->wake_by < sizeof(wake_rows) / sizeof(wake_rows[0])) {
		snprintf(why, sizeof(why), "steps[%u] wakes by %s", i, wake_rows[st->wake_by].name);
		ret = kreq_add_opts(l, &wake_rows[st->wake_by].opts, why);
	}
	return ret;
}

const struct step_kind_row kind_suspend = {
	.keyword = "suspend",
	.kind = STEP_SUSPEND,
	.field = offsetof(struct step, suspend),
	.expects = EXPECT_JSON,
	.needs = NEEDS_SLEEP,
	.keys = "wake after pm_test cycles refused asleep_screen awake_screen",
	.fields = suspend_fields,
	.check = step_check_suspend,
	.timeout_ms = suspend_timeout_ms,
	.timeout_note = "the default 60s a cycle",
	.fits = suspend_fits,
	.guest_key = step_in_guest,
	.sure_ms = suspend_asleep_ms,
	.vm_after = suspend_vm_after,
	.capture = suspend_capture,
	.kopts = &suspend_kopts,
	.kreq = suspend_kreq,
};
