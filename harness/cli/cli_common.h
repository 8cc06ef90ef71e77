/* What several subcommands share: finding scenario files, loading them all
 * before anything starts, and preparing the image and accelerator. */
#ifndef KTB_CLI_COMMON_H
#define KTB_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "image.h"
#include "kconfig.h"
#include "result.h"
#include "scenario.h"
#include "spawn.h"

struct scenario_set {
	struct scenario **items;
	size_t count;
};

/* Expand files and directories (their *.yaml, sorted) and load every
 * scenario. Prints each error as FILE:LINE:COL: FIELD: MESSAGE. Returns 0,
 * or KTB_EXIT_USAGE when any file is bad (nothing is kept then). */
int scenarios_load_all(char **paths, int n, struct scenario_set *set);
void scenarios_free(struct scenario_set *set);
/* --shard K/N given to `ktb cmd`: keep only set's K-th share (shard.h; a
 * scenario weighs its timeout), freeing the rest, in the set's order. 0, or
 * KTB_EXIT_USAGE after the reason on stderr. A share may be empty. */
int scenarios_shard(struct scenario_set *set, const char *cmd, const char *arg);
/* What a run is cut from, before --shard: sel->scenarios (set's names,
 * sorted) and sel->hash (shard_selection_hash, over sel's filters and
 * repeat, which the caller filled). */
void scenarios_selection(const struct scenario_set *set, struct run_selection *sel);
/* From now on, machines that get validated (scenarios loaded, ktb boot's
 * machine) ask whether virtiofsd can serve on this host before a share
 * goes over virtiofs (virtiofs_check: probed once, cached per host). */
void shares_preflight_enable(void);
/* "ktb: note: NAME: machine.shares[I] (HOST): over 9p: ..." on f for each
 * share of the set that fell back from virtiofs. */
void shares_notes_print(const struct scenario_set *set, FILE *f);
/* The default scenario library: <source>/scenarios. */
const char *scenarios_default_dir(void);

/* Options that pick the kernel, shared by run, boot and image build. */
struct kernel_choice {
	const char *kernel;  /* --kernel: ABI ("6.1.0-57") or a path */
	const char *modules; /* --modules DIR */
	const char *recipe;  /* --recipe */
	bool verbose;
};

/* The options every command that boots takes for its kernel (getopt
 * letters 'k' --kernel, 'm' --modules, 'r' --recipe) into k: true when ch
 * was one of them. */
bool kernel_choice_option(struct kernel_choice *k, int ch, const char *arg);
/* Build or find the image; on failure print why and return KTB_EXIT_USAGE
 * (bad option) or KTB_EXIT_UNTESTED. */
int image_prepare(const struct kernel_choice *k, struct image *img);
/* The guest's root for root (GUEST_ROOT_*; NULL or image: *dir and *disk
 * NULL, the image is the root): the host's, *dir "/" (shared over 9p); a
 * Debian root with packages, built unless cached, *dir its folder and *disk
 * the ext4 image of it the guest mounts. On failure why says why (a line)
 * and the return is KTB_EXIT_USAGE (a package apt does not know: bad input)
 * or KTB_EXIT_UNTESTED (it cannot be built here). Caller frees both. */
int guest_root_prepare(const char *root, char *const *packages, unsigned n, char **dir, char **disk,
		       char *why, size_t len);
/* m's root from guest_root_prepare's two (borrowed): the disk when there is
 * one, else the folder. */
void guest_root_machine(struct machine *m, const char *dir, const char *disk);
/* Decide on KVM; prints a note when /dev/kvm exists but does not work. */
bool accel_prepare(const struct image *img, bool quiet);
/* The config of the kernel img boots (image_kernel_config), or NULL after a
 * note on stderr saying none was found and every scenario boots anyway.
 * Caller frees with kconfig_free. */
struct kconfig *kconfig_prepare(const struct image *img);

/* One report a command was asked for: the option, its file, the writer
 * that fills it (report_json, ...). */
struct report_file {
	const char *opt;  /* "--json" */
	const char *path; /* NULL: not asked for; "-": standard output */
	int (*fn)(const struct run_result *r, FILE *f);
};

/* Before anything runs: refuse a FILE that starts with '-' but is not "-"
 * (an option taken for the file), ends in .yaml or .yml (a scenario a
 * report would overwrite), or is a folder, and one FILE (or -) for two
 * reports. 0, or KTB_EXIT_USAGE after "ktb CMD: OPT FILE: why". */
int reports_check(const struct report_file *files, size_t n);
/* Whether a report goes to standard output: then the terminal's lines go to
 * standard error. */
bool reports_to_stdout(const struct report_file *files, size_t n);
/* Write each asked-for report of rr, all or none: each file goes to a
 * temporary file beside its path, the one for "-" to memory, and only when
 * every one was written is standard output's printed and the files renamed
 * into place. 0, or -EIO after the reason on stderr (no file left behind). */
int reports_write(const struct report_file *files, size_t n, const struct run_result *rr);

/* The run document at path (ktb run --json, ktb merge --json) into r: 0,
 * or KTB_EXIT_USAGE after one message naming the file: it cannot be read,
 * is not JSON, or is not a run document this ktb reads (run_result_from_json
 * says why). r is empty then. */
int run_document_load(const char *path, struct run_result *r);

/* This ktb's own path (/proc/self/exe), for the `ktb run` children of
 * bisect and shrink; "ktb" when it cannot be read. Caller frees. */
char *cli_self_exe(void);
/* SIGTERM to each of the children cps[0..n-1] that is running (NULL
 * entries skipped), then each waited for: up to grace_ms, then SIGKILL to
 * its group (grace_ms < 0: as long as it takes). */
void cli_stop_children(struct child_process *const *cps, size_t n, int grace_ms);
/* Wait for the children cps[0..n-1] that are running (started and not yet
 * reaped; NULL entries are skipped), calling done(arg, i, code) as child i
 * ends, code being its exit code or 128 + the signal that ended it. After
 * SIGINT or SIGTERM the ones still running are stopped (cli_stop_children)
 * and -EINTR is returned; otherwise 0. */
int cli_wait_children(struct child_process *const *cps, size_t n, int grace_ms,
		      void (*done)(void *arg, size_t i, int code), void *arg);

/* A whole number from 1 to max given to option opt of `ktb cmd`: 0 with
 * *out, or -EINVAL after "ktb CMD: OPT ARG: give a number from 1 to MAX" on
 * stderr. */
int cli_count(const char *cmd, const char *opt, const char *arg, long max, int *out);

/* --threshold P and --confidence C, as ktb compare and ktb bisect take
 * them ("10%", "10" or "0.1"): 0 with *out, or KTB_EXIT_USAGE after a
 * message saying what is allowed. */
int cli_threshold(const char *arg, double *out);
int cli_confidence(const char *arg, double *out);

/* --gdb[=PORT] and --gdb-wait, as ktb boot and ktb run take them. */
struct gdb_cli {
	bool on;
	unsigned port; /* 0 until cli_gdb_prepare picks a free one */
	bool wait;
};

/* --gdb's argument (NULL: a free port later) into g. 0, or KTB_EXIT_USAGE
 * after a message. */
int cli_gdb_option(struct gdb_cli *g, const char *arg);
/* --gdb-wait without --gdb: 0, or KTB_EXIT_USAGE after a message. */
int cli_gdb_check(const struct gdb_cli *g);
/* Before the VM starts: a free port picked when none was given, and the one gdb command line that
 * attaches printed (with the kernel's symbols when its vmlinux has a symbol table: a --kernel build
 * tree's, else the image's; and the tree's gdb scripts when it has them). 0, or KTB_EXIT_UNTESTED
 * after a message. */
int cli_gdb_prepare(struct gdb_cli *g, const struct kernel_choice *k, const struct image *img);
/* The kernel arguments with nokaslr after them (append may be NULL), so
 * that symbols' addresses hold from boot to boot; malloc'd. */
char *cli_gdb_append(const char *append);

#endif
