/* The results the common test suites write, read into the same document as
 * KTAP (struct ktap_doc), for the junit and blktests steps. Pure: text in,
 * results out.
 *
 * JUnit XML (fstests' `-R xunit`, pytest, any JUnit writer): a <testsuites>
 * root of <testsuite> elements, or one <testsuite> root; each <testcase> is
 * a test: failed with a <failure> or <error> child (its message and text the
 * diagnostic), skipped with <skipped> (its message, else its text, the
 * reason), passed otherwise; time="S" its duration. Named by the case's
 * name, after "SUITE." when the document has more than one named suite.
 * Parsed by libxml2 without the network, without DTDs and without entity
 * substitution; a document with a DOCTYPE is refused (no JUnit writer
 * makes one, and its entities could multiply the text).
 *
 * blktests' results folder ($OUTPUT, results/ by default): a file per test
 * and device, DEVICE/GROUP/NNN ("nodev" for tests without one), of
 * "key<TAB>value" lines: status pass, fail or "not run", reason (for a
 * failure: output, exit, dmesg, kmemleak), runtime ("1.234s"),
 * description. Read from a dump: each file's path after a line
 * "== PATH", then its lines (BLKTESTS_DUMP_CMD writes one). Named
 * "GROUP/NNN", with " => DEVICE" for a device's run. blktests writes no
 * reason for a test it did not run to the file, only to check's output
 * ("    reason" lines under "GROUP/NNN ... [not run]"); it is taken from
 * there when check_out has it. */
#ifndef KTB_JUNIT_H
#define KTB_JUNIT_H

#include <stddef.h>

#include "ktap.h"

/* 0 with *doc filled; -EINVAL with *err saying where and why (doc empty). */
int junit_parse(const char *text, size_t len, struct ktap_doc *doc, struct ktap_error *err);

/* The shell command that prints blktests' results folder DIR (quoted by the
 * caller) as blktests_parse reads it: "%s" is replaced by DIR. */
#define BLKTESTS_DUMP_CMD                                                                          \
	"cd %s && find . -type f ! -name '*.*' | LC_ALL=C sort | while IFS= read -r f; do "        \
	"echo \"== $f\"; cat \"$f\"; echo; done"

/* dump: BLKTESTS_DUMP_CMD's output; check_out: check's own output (NULL:
 * none), for the reasons of tests not run. 0 with *doc filled; -EINVAL with
 * *err saying where and why. */
int blktests_parse(const char *dump, size_t len, const char *check_out, struct ktap_doc *doc,
		   struct ktap_error *err);

#endif
