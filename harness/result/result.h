/* One result model end to end: steps and scenarios have the statuses pass,
 * fail, error, timeout, skip; the terminal lines, JSON, JUnit and TAP are
 * views of these structs. */
#ifndef KTB_RESULT_H
#define KTB_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The statuses, spelled once: X(ID, name in JSON and on the command line,
 * the terminal's word, the summaries' past tense, rank: higher is worse, so
 * a run that both errored and failed reports the error). The enum, the
 * names, the summary keys and the reports' words come from here. */
#define STATUS_TABLE(X)                                                                            \
	X(PASS, "pass", "PASS", "passed", 0)                                                       \
	X(FAIL, "fail", "FAIL", "failed", 2)                                                       \
	X(ERROR, "error", "ERROR", "errored", 4)                                                   \
	X(TIMEOUT, "timeout", "TIMEOUT", "timed out", 3)                                           \
	X(SKIP, "skip", "SKIP", "skipped", 1)

#define ST_ENUM(id, ...) ST_##id,
#define ST_ONE(...) +1
enum status { STATUS_TABLE(ST_ENUM) };
/* A define, not an enumerator, so switches over enum status stay complete. */
#define ST_COUNT (0 STATUS_TABLE(ST_ONE))

/* The step the runner adds after every boot (steps/machine_step.c): the
 * guest's hardware against the scenario's machine. Reports number the
 * scenario's own steps without it. */
#define MACHINE_STEP_NAME "machine"

/* One test point a step reported below itself (a ktap: step's KTAP
 * subtests, nested ones flattened): each is a result of its own in every
 * report. */
struct subtest {
	char *name;	     /* path below the step, parent first: "timers.nanosleep" */
	enum status status;  /* pass, fail or skip */
	char *reason;	     /* the SKIP/TODO directive's text, may be NULL */
	int64_t duration_ms; /* -1 when the output did not give one */
	char *diag;	     /* its diagnostic lines ("# ..."), joined; may be NULL */
};

struct step_result {
	char *name; /* "run: ktb-probe disk data" */
	enum status status;
	char *message;	  /* why it failed, NULL on pass */
	int64_t start_ms; /* from scenario start */
	int64_t duration_ms;
	int exit_code;		  /* run steps; -1 when not applicable */
	char *out, *err;	  /* captured output, may be NULL */
	json_t *data;		  /* parsed JSON output or QMP reply, may be NULL */
	int line;		  /* line in the scenario file */
	struct subtest *subtests; /* in the order reported; NULL when none */
	size_t subtests_count;
	/* the runner's own, not in result.json: console.log's size when the
	 * step began (-1: unknown), and which of the scenario's steps it is
	 * (-1: the machine step) */
	long console_from;
	int src_step;
};

/* How a finding bears on the verdict. */
enum finding_verdict {
	FINDING_FAILS,	   /* unexpected: it fails the step it was printed in */
	FINDING_EXPECTED,  /* a step's expect: {finding: RE} asked for it */
	FINDING_TOLERATED, /* the scenario's tolerate: list let it pass, with a reason */
};

/* Where a frame's address is in the source: its function, file and line. */
struct finding_loc {
	char *func; /* may be NULL: not known */
	char *file; /* may be NULL: not known */
	unsigned line;
};

struct finding_frame {
	char *func;   /* as printed: "nvme_setup_io_queues.cold" */
	char *off;    /* "0x1a/0x2b"; may be NULL */
	char *module; /* "nvme"; NULL for the kernel itself */
	bool reliable;
	/* decoded with the kernel's debug information (kdecode.c): the
	 * innermost place first, then each function it was inlined into;
	 * none when not decoded */
	struct finding_loc *locs;
	size_t locs_count;
};

/* A kernel report the console carried (harness/vm/kreport.c): what kind,
 * the title a person would search for, its lines, its stack, a signature
 * that is the same wherever the same report recurs. */
struct finding {
	char *kind;	   /* "warning", "oops", "oom kill", ... */
	char *title;	   /* "WARNING in nvme_setup_io_queues" */
	char *signature;   /* sha256 hex of kind, title and stack functions */
	char *text;	   /* its lines */
	int step;	   /* index into the scenario's steps[]; -1 before the first */
	long console_line; /* its first line in console.log, 1-based */
	bool panicked;	   /* a panic followed from it */
	bool from_dmesg;   /* only dmesg had it (the console's loglevel hid it,
			      or the console lost it): no step, no console line */
	struct finding_frame *frames;
	size_t frames_count;
	enum finding_verdict verdict;
	char *reason;	 /* tolerated: the scenario's reason; expected: the pattern */
	char *undecoded; /* why its frames are not in file:line; NULL: decoded */
};

struct scenario_result {
	char *name;
	char *file;
	char *summary;
	char **tags;
	size_t tags_count;
	enum status status;
	char *message; /* first failure, NULL on pass */
	int64_t duration_ms;
	int64_t started_unix_ms; /* wall clock when it began; 0: not known */
	struct step_result *steps;
	size_t steps_count;
	json_t *metrics;    /* object: boot_ms, ... (never NULL) */
	char *artifacts;    /* directory */
	char *console_tail; /* last console lines, on failure */
	char *kernel;	    /* kernel release or path booted */
	char *accel;	    /* "tcg" or "kvm" */
	unsigned attempt;   /* --repeat: 1..N, 0 when not repeated */
	/* kernel options the scenario needs that the kernel lacks ("CONFIG_X");
	 * then the status is skip and nothing booted */
	char **missing_config;
	size_t missing_config_count;
	/* kernel reports the console carried, in console order */
	struct finding *findings;
	size_t findings_count;
	size_t findings_dropped; /* reports past the scan's limit, only counted */
	json_t *dump;		 /* the dump of guest memory, or why none: NULL when none was
				    wanted (result.c lists its keys) */
};

/* What a run was cut from (ktb run; ktb merge checks that shards fit):
 * the selection after -t/-n/-x, before --shard, and the kernel asked for.
 * All empty (hash NULL) in a document that does not say. */
struct run_selection {
	char *hash;	  /* sha256 hex of the selection (shard_selection_hash) */
	char **scenarios; /* every selected scenario's name, sorted */
	size_t scenarios_count;
	char **tags, **exclude_tags, **names; /* -t, -x, -n as given */
	size_t tags_count, exclude_tags_count, names_count;
	unsigned repeat;  /* --repeat; 1 without */
	char *kernel;	  /* --kernel as given; NULL: the recipe's */
	char *recipe;	  /* --recipe; NULL: default */
	unsigned shard_k; /* --shard K/N: this run's K; 0: the whole selection */
	unsigned shard_n; /* and N */
};

struct run_result {
	char *run_id; /* --run-id, else derived from the selection for a shard */
	struct run_selection sel;
	int64_t started_unix_ms;
	int64_t duration_ms;
	struct scenario_result *scenarios;
	size_t count;
	int interrupted; /* the signal that stopped the run, 0: none */
};

/* "pass"; "unknown" outside the table. */
const char *status_name(enum status s);
/* "PASS", as the terminal report prints it; "?" outside the table. */
const char *status_word(enum status s);
/* "passed", "timed out", as summaries count them; "?" outside the table. */
const char *status_past(enum status s);
/* The worse of two statuses (error > timeout > fail > skip > pass). */
enum status status_worse(enum status a, enum status b);

struct step_result *scenario_result_add_step(struct scenario_result *r);
/* A new zeroed finding at the end of r's list (step -1). */
struct finding *scenario_result_add_finding(struct scenario_result *r);
/* Free fr's decoded places (and leave it with none). */
void finding_frame_locs_free(struct finding_frame *fr);
/* "fail", "expected", "tolerated". */
const char *finding_verdict_name(enum finding_verdict v);
/* Findings in r whose verdict is FINDING_FAILS. */
size_t scenario_result_failing_findings(const struct scenario_result *r);
/* A new zeroed subtest at the end of s's list (duration_ms -1). */
struct subtest *step_result_add_subtest(struct step_result *s);
void scenario_result_free(struct scenario_result *r); /* frees members, not r */
void run_result_free(struct run_result *r);	      /* frees members, not r */
void run_selection_free(struct run_selection *s);     /* frees members, not s */
/* A copy of a sorted, NULL-terminated list of n strings (n may be 0). */
char **run_selection_words(const char *const *v, size_t n);

/* Exit code for a whole run: 130 interrupted, else 1 something failed or
 * timed out, 125 an error or a skip (a kernel lacking what a scenario needs,
 * a ktap step whose tests all skipped) kept something from being tested,
 * 0 all passed. */
int run_result_exit_code(const struct run_result *r);
/* How many scenarios have each status, indexed by enum status. */
void run_result_count(const struct run_result *r, size_t counts[ST_COUNT]);
/* A signal cut scenario r short: it is an error "interrupted by signal SIG",
 * and so is its last step, unless that one had passed. */
void scenario_result_interrupt(struct scenario_result *r, int sig);
/* The first step that failed, errored or timed out; NULL if none did. */
const struct step_result *scenario_result_failed_step(const struct scenario_result *r);

/* The run document's "schema_version": raised when a field changes meaning
 * or goes away, so `ktb merge` never mixes documents it would misread. A
 * document without one is version 1. Version 2: run_id is shared by the
 * shards of one run, and "selection" and "shard" say what the run was cut
 * from, so a document without them (version 1) cannot pass for a shard. */
#define RESULT_SCHEMA_VERSION 2

/* The per-scenario result.json document and the whole-run document. */
json_t *scenario_result_to_json(const struct scenario_result *r);
json_t *run_result_to_json(const struct run_result *r);
/* With --repeat: {"NAME": {"runs", "pass", "rate", "flaky"}} per scenario
 * (flaky: neither always passed nor always failed), or NULL. */
json_t *run_result_pass_rates(const struct run_result *r);
/* A repeated scenario's name without its attempt: "smoke#3" is "smoke"
 * (the caller frees it). */
char *result_base_name(const char *name);
/* The inverse of scenario_result_to_json, for results a worker process wrote.
 * 0, or -EINVAL when j is not a result document, or has a duration or a
 * step's start outside 0 to the end of year 9999 in ms (so no sum of a
 * start and durations overflows). */
int scenario_result_from_json(const json_t *j, struct scenario_result *r);
/* The inverse of run_result_to_json, for ktb merge: 0, or -EINVAL with why
 * filled when j is not a run document (or its times are out of range, as
 * for scenario_result_from_json), -EPROTO when its schema_version is not
 * RESULT_SCHEMA_VERSION. r is empty on failure. */
int run_result_from_json(const json_t *j, struct run_result *r, char *why, size_t whylen);
/* "2025-01-31T12:00:00Z" for a Unix time in milliseconds. */
void result_format_utc(int64_t unix_ms, char *buf, size_t len);
/* The inverse: 0 with *unix_ms, or -EINVAL when s is not of that form. */
int result_parse_utc(const char *s, int64_t *unix_ms);

/* Captured guest output may hold any bytes; every writer passes it through
 * these. utf8_decode: the code point of the sequence at s (n bytes left) and
 * its length in *len, or -1 with *len = 1 for a byte that is not UTF-8.
 * utf8_sanitize: a malloc'd copy with each bad byte replaced by U+FFFD. */
long utf8_decode(const unsigned char *s, size_t n, size_t *len);
char *utf8_sanitize(const char *s);
/* Length of the terminal escape sequence at s (s[0] is ESC, n bytes left):
 * CSI "ESC [ ... final", OSC "ESC ] ... BEL", else ESC and one character.
 * Views meant for people drop these. */
size_t ansi_escape_len(const char *s, size_t n);

/* n bytes of s as markup text, the one escaper of the HTML and JUnit
 * reports: & < > " ' become references (' as &#39; in HTML, &apos; in
 * XML), terminal escape sequences, NUL and other control characters (but
 * tab, LF, CR) go, and so does what the markup has no place for: bytes that
 * are not UTF-8 become U+FFFD, and in HTML C1 controls and noncharacters
 * too; in an XML attribute, tab, LF and CR become references (a parser
 * would fold them into spaces). Safe in element content and in double- or
 * single-quoted attributes. */
enum markup { MARKUP_HTML, MARKUP_XML, MARKUP_XML_ATTR };
void markup_escape(FILE *f, enum markup m, const char *s, size_t n);

#endif
