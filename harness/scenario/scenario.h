/* Scenario files: YAML mapped onto these structs by a libcyaml schema, then
 * checked. Every error names file, line, column and field. The step kinds
 * are one list (KTB_STEP_KINDS) the loader builds its table from; the
 * runner's half of each kind (how it runs) is harness/steps' step_ops. */
#ifndef KTB_SCENARIO_H
#define KTB_SCENARIO_H

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

/* Every step kind, written once: X(ID, KEYWORD, EXPECTS, NEEDS, KEYS).
 * KEYWORD is the YAML key that names the step's action and the struct step
 * field that holds its argument; EXPECTS the expect keys it may check;
 * NEEDS its machine parts; KEYS the step keys only this kind takes,
 * space-separated. The enum, the loader's table (scenario.c: it calls
 * step_check_KEYWORD for the kind's own checks) and the runner's step_ops[]
 * (harness/steps: step_KEYWORD_ops) are built from this list, so a kind
 * missing either does not compile. A new kind: a line here; its fields in
 * struct step and the schema's step_fields; step_check_KEYWORD in
 * scenario.c; harness/steps/step_FILE.c and .h with step_KEYWORD_ops. */
#define KTB_STEP_KINDS(X)                                                                          \
	X(RUN, run, EXPECT_EXIT | EXPECT_STDOUT | EXPECT_JSON, NEEDS_NOTHING, "metrics")           \
	X(WAIT, wait, 0, NEEDS_NOTHING, "for")                                                     \
	X(QMP, qmp, EXPECT_JSON, NEEDS_NOTHING, "arguments")                                       \
	X(SUSPEND, suspend, EXPECT_JSON, NEEDS_SLEEP,                                              \
	  "wake after pm_test cycles refused asleep_screen awake_screen")                          \
	X(FAIL_PATH, fail_path, EXPECT_JSON, NEEDS_MULTIPATH_DISK, "")                             \
	X(RESTORE_PATH, restore_path, EXPECT_JSON, NEEDS_MULTIPATH_DISK, "")                       \
	X(BALLOON, balloon, EXPECT_JSON, NEEDS_BALLOON, "")                                        \
	X(MEASURE, measure, EXPECT_JSON, NEEDS_NOTHING, "as since within settle")                  \
	X(POWER_LOSS, power_loss, EXPECT_JSON, NEEDS_HYBRID_DISK, "")                              \
	X(HYBRID_STATS, hybrid_stats, EXPECT_JSON, NEEDS_HYBRID_DISK, "")                          \
	X(KTAP, ktap, 0, NEEDS_NOTHING, "")                                                        \
	X(SCREEN, screen, EXPECT_JSON, NEEDS_NOTHING, "same_as poll")                              \
	X(JUNIT, junit, 0, NEEDS_NOTHING, "file")                                                  \
	X(BLKTESTS, blktests, 0, NEEDS_NOTHING, "results")

/* clang-format takes the expansion below for an expression */
/* clang-format off */
enum step_kind {
#define KTB_STEP_ENUM(id, keyword, expects, needs, keys) STEP_##id,
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

/* The guest.root names, and whether a name is one. */
#define GUEST_ROOT_IMAGE "image"
#define GUEST_ROOT_HOST "host"
#define GUEST_ROOT_DEBIAN "debian"
bool guest_root_name_valid(const char *name);

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

/* Load and check a scenario. 0, or -EINVAL (bad input, err filled) or -errno
 * (cannot read the file, err filled). */
int scenario_load(const char *path, struct scenario **out, struct scenario_error *err);
/* The same from len bytes at data (need not be NUL-terminated); path names
 * the file in messages and is the folder relative base images resolve in. */
int scenario_load_buffer(const char *path, const char *data, size_t len, struct scenario **out,
			 struct scenario_error *err);
void scenario_free(struct scenario *s);

/* Step kind name ("run", "wait", "qmp"); "?" for a value out of range. */
const char *step_kind_name(enum step_kind k);
/* The machine parts (enum step_need flags) a step of kind k drives. */
unsigned step_kind_needs(enum step_kind k);
/* The metric a run step's metrics entry sets: the field path with '.' as
 * '_' ("system.latency_ms" sets system_latency_ms). Malloc'd. */
char *step_metric_name(const char *path);

#endif
