/* KTAP version 1 (and the TAP version 13/14 kselftest prints) parsed into
 * the results a step reports below itself. Pure: text in, struct subtest
 * out, nothing else touched.
 *
 * What is read: a version line, then plan lines "1..N", result lines
 * "ok N name" / "not ok N name" with "# SKIP reason" / "# TODO" directives,
 * diagnostic lines "# ..." (they belong to the next result line at the same
 * depth), nested tests indented by four spaces a level (opened by their own
 * version line, KUnit's "# Subtest: NAME", a plan or a result line, closed
 * by the parent's result line), and "# time=N[ms|s]" before a result as its
 * duration. Lines before the version line and lines that are none of these
 * (other kernel messages on a console) are left out. A kernel log prefix
 * ("[    1.234567] ", with an optional "[    T1]" caller) is dropped from
 * every line first. The document ends once the top-level plan is satisfied;
 * anything after it is not read.
 *
 * Malformed input is an error with the line number and what was wrong: the
 * output ends before the plan is satisfied or inside a nested test, a
 * result line out of sequence, a plan that disagrees with the results, a
 * line nested deeper than the test it is in, indentation that is not a
 * multiple of four. Hostile input is refused by the limits below. */
#ifndef KTB_KTAP_H
#define KTB_KTAP_H

#include <stdbool.h>
#include <stddef.h>

#include "result.h"

#define KTAP_MAX_DEPTH 8     /* nested levels below the top */
#define KTAP_MAX_TESTS 10000 /* results in one document, all levels */
#define KTAP_MAX_DIAG 16384  /* bytes of diagnostic text kept per test */
#define KTAP_MAX_NAME 256    /* bytes of a test's name kept */

/* One parsed document. tests: every result, nested ones included, parent
 * before its children, named by their path ("suite.case"), in struct
 * subtest's meaning. top_*: how the top-level tests ended. points_*: the
 * test points, the results with nothing nested below them (a suite is its
 * cases; one whose nested test reported none is no point, unless its own
 * result is a skip or a failure), that ran (passed or failed) and that
 * were skipped. Nothing ran when points_run is 0. */
struct ktap_doc {
	struct subtest *tests;
	size_t count;
	size_t top_count, top_failed, top_skipped;
	size_t points_run, points_skipped;
	char *skip_all; /* the reason of a top-level plan "1..0 # SKIP reason", else NULL */
};

struct ktap_error {
	int line; /* 1-based line of the input; 0 when it is about the whole input */
	char msg[256];
};

/* Parse len bytes at text (need not be NUL-terminated), every document
 * in it one after another into one (kselftest's runner prints one per
 * collection). 0 with *doc filled, or -EINVAL with *err saying where and
 * why (doc left empty); -ENOENT (and *err) when no version line opens a
 * document at all. */
int ktap_parse(const char *text, size_t len, struct ktap_doc *doc, struct ktap_error *err);
void ktap_doc_free(struct ktap_doc *doc);
/* Free one subtest's members (not st). */
void ktap_subtest_free(struct subtest *st);

#endif
