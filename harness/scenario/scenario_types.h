/* What a scenario file is loaded into: the structs libcyaml fills, the step
 * kinds and the values the loader derives, without the loader. The
 * loader's own parts (load.h, step_kind.h) include this; everything else
 * includes scenario.h, the loader's face, which includes it too. The step
 * kinds are one list (KTB_STEP_KINDS) the loader builds its table of rows
 * from (step_kind.h, a kind_FILE.c per kind); the runner's half of each
 * kind (how it runs) is harness/steps' step_ops. */
#ifndef KTB_SCENARIO_TYPES_H
#define KTB_SCENARIO_TYPES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "scenario_error.h"

/* What expect may check on a step of a kind. */
enum { EXPECT_EXIT = 1 << 0, EXPECT_STDOUT = 1 << 1, EXPECT_JSON = 1 << 2 };

/* The machine parts a step kind drives (step_kind_needs). The loader refuses
 * a step whose machine lacks them: the balloon for any balloon step; for the
 * parts a step names by its argument (which disk, which sleep state), the
 * named one (a disk with paths: 2 or more, a disk on bus hybrid, S3 in the
 * firmware for s3, a swap disk for s4); whether the guest then offers the
 * state is seen in the guest when the step runs. */
enum step_need {
	NEEDS_NOTHING = 0,
	NEEDS_BALLOON = 1 << 0,
	NEEDS_MULTIPATH_DISK = 1 << 1,
	NEEDS_HYBRID_DISK = 1 << 2,
	NEEDS_SLEEP = 1 << 3,
};

/* Every step kind, written once: X(ID, KEYWORD). KEYWORD is the YAML key
 * that names the step's action and the struct step field that holds its
 * argument. The enum, the loader's table of rows (step_kind.c: each
 * kind's row is kind_KEYWORD, in harness/scenario/kind_FILE.c, with its
 * keys' schema, its checks, what expect may check, the machine parts it
 * drives and its kernel options) and the runner's step_ops[]
 * (harness/steps/step_table.c: step_KEYWORD_ops, in step_FILE.c) are
 * built from this list, so a kind missing either does not link. A new
 * kind: docs/architecture.md, "Adding a step kind". */
#define KTB_STEP_KINDS(X)                                                                          \
	X(RUN, run)                                                                                \
	X(WAIT, wait)                                                                              \
	X(QMP, qmp)                                                                                \
	X(SUSPEND, suspend)                                                                        \
	X(FAIL_PATH, fail_path)                                                                    \
	X(RESTORE_PATH, restore_path)                                                              \
	X(BALLOON, balloon)                                                                        \
	X(MEASURE, measure)                                                                        \
	X(POWER_LOSS, power_loss)                                                                  \
	X(HYBRID_STATS, hybrid_stats)                                                              \
	X(KTAP, ktap)                                                                              \
	X(SCREEN, screen)                                                                          \
	X(JUNIT, junit)                                                                            \
	X(BLKTESTS, blktests)

/* clang-format takes the expansion below for an expression */
/* clang-format off */
enum step_kind {
#define KTB_STEP_ENUM(id, keyword) STEP_##id,
	KTB_STEP_KINDS(KTB_STEP_ENUM)
#undef KTB_STEP_ENUM
	STEP_KIND_COUNT
};
/* clang-format on */

/* The smallest size a balloon step may ask the guest to shrink to. */
#define MACHINE_MIN_BALLOON (64ull << 20)
/* measure's settle: below this the steadiness window cannot fit */
#define MEASURE_SETTLE_MIN_MS 2000

/* What a suspend step asks for (step.sleep_state, step.wake_by); enum
 * sleep_state and its names are hw/names.h's. */
enum wake_source { WAKE_DEFAULT, WAKE_QMP, WAKE_RTC, WAKE_KEY, WAKE_BUTTON };

struct expect {
	int *exit;	 /* NULL: run steps expect 0 */
	char *stdout_re; /* POSIX extended regex that stdout must match */
	json_t *json;	 /* object: dotted path -> value, or {ge: N} / {le: N} / {re: "..."} */
	char *finding;	 /* POSIX extended regex: a kernel report with a title it
			    matches must be printed during the step (any step kind) */
};

/* tolerate: a kernel report the scenario lets pass, by title, and why */
struct tolerate {
	char *finding; /* POSIX extended regex over the report's title */
	char *reason;  /* why it is no failure here (not empty) */
};

/* fail_path / restore_path: {disk: ID, path: N} */
struct path_ref {
	char *disk;
	unsigned path;
	unsigned disk_index; /* filled by scenario_load */
};

/* suspend: awake_screen: {same_as: NAME, within: DURATION}: from the wake,
 * capture back to back until the display equals the earlier capture NAME */
struct awake_screen {
	char *same_as;
	char *within;	   /* default 5s */
	int64_t within_ms; /* filled by scenario_load */
};

struct step {
	char *name;	     /* optional label; default "<kind>: <argument>" */
	char *run;	     /* shell command in the guest */
	char *wait;	     /* duration; with wait_for: deadline for a console regex */
	char *wait_for;	     /* YAML key "for" */
	char *qmp;	     /* command name, or a JSON object text {"execute": ...} */
	json_t *arguments;   /* qmp arguments (YAML mapping), may be NULL */
	char *suspend;	     /* s3 | s2idle | s4 */
	char *wake;	     /* qmp | rtc (s3), key | button (s2idle) */
	char *after;	     /* time asleep before the wake, default 1s */
	char *pm_test;	     /* freezer | devices | platform | processors | core */
	unsigned cycles;     /* suspend/resume cycles in this step, default 1 */
	char *refused;	     /* "freezing": the kernel must refuse, its freezer failing */
	char *asleep_screen; /* suspend: capture the display while asleep (screen-NAME.ppm) */
	struct awake_screen *awake_screen; /* suspend: time the display's return */
	struct path_ref *fail_path;	   /* take path N of a multipath disk away */
	struct path_ref *restore_path;	   /* bring it back */
	char *timeout;	  /* per-step deadline, default 60s (suspend: 60s a cycle) */
	char *balloon;	  /* target guest memory size ("256M") */
	char *measure;	  /* host metric: qemu_rss */
	char *as;	  /* measure: save the value in metrics under this name */
	char *since;	  /* measure: report the change since the value saved as this */
	char *within;	  /* measure: sample until expect holds, for at most this long */
	char *settle;	  /* measure: first wait until the value stops moving, at most this long */
	char *power_loss; /* "all" or a hybrid disk id: whose volatile cache is lost */
	char *hybrid_stats; /* a hybrid disk id: its back end's stats as the output */
	/* ktap: the guest command whose stdout is KTAP, or "console" with
	 * ktap_console (KTAP the kernel printed since boot, read from its log); filled by the
	 * loader from "ktap: CMD", "ktap: {run: CMD}" or "ktap: {console: true}" */
	char *ktap;
	bool ktap_console;
	/* junit: the guest command whose stdout is JUnit XML, or with file
	 * the file it leaves (read once it ends); blktests: the command that
	 * runs blktests' check, then its results folder results (default
	 * "results"; relative paths from where the command ends up) */
	char *junit, *file;
	char *blktests, *results;
	char *screen;	/* capture the display, saved as screen-NAME.ppm */
	char *same_as;	/* screen: the earlier capture it must equal */
	char *poll;	/* screen: capture until it equals same_as, at most this long */
	char **metrics; /* run: fields of the JSON output (a.b.0) copied into the metrics */
	unsigned metrics_count;
	struct expect *expect;
	/* filled by scenario_load: */
	enum step_kind kind;
	int64_t wait_ms, timeout_ms;
	int64_t after_ms;
	uint64_t balloon_bytes;
	int64_t within_ms;
	int64_t settle_ms;
	int64_t poll_ms;
	enum sleep_state sleep_state;
	enum wake_source wake_by;
	int line; /* line of the step in the file */
};

struct kernel_opts {
	char *cmdline;	 /* appended to the testbed's own arguments */
	char **requires; /* CONFIG_ names a run step needs that kreq.c cannot derive */
	unsigned requires_count;
	/* outside the schema: requires[i] was given as CONFIG_X=y (built in: =m
	 * does not do), the "=y" cut off requires[i] by the loader */
	bool *requires_builtin;
};

/* guest: the userspace the guest runs (docs/guest.md). */
struct guest_opts {
	char *root;	 /* "image" (the default), "host" or "debian" */
	char **packages; /* root debian: packages beyond minbase */
	unsigned packages_count;
	/* outside the schema: the root's folder ("/", or the Debian root's
	 * once built) and the Debian root's disk image, set when the run
	 * prepares it; or why it could not be (the scenario is then skipped) */
	char *root_dir;
	char *root_disk;
	char *root_why;
};

/* The guest.root names (guest_root_name_valid, scenario.h). */
#define GUEST_ROOT_IMAGE "image"
#define GUEST_ROOT_HOST "host"
#define GUEST_ROOT_DEBIAN "debian"

struct scenario {
	char *name; /* defaults to the file name without .yaml */
	char *summary;
	char **tags;
	unsigned tags_count;
	char *timeout; /* default 120s */
	struct kernel_opts *kernel;
	struct guest_opts *guest; /* NULL: the image is the root */
	struct machine *machine;  /* never NULL after load (defaults filled) */
	struct step *steps;
	unsigned steps_count;
	struct tolerate *tolerate;
	unsigned tolerate_count;
	/* filled by scenario_load: */
	char *file;
	int64_t timeout_ms;
	int machine_line; /* line of the machine key; 0 when the file has none */
};

#endif
