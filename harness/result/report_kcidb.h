/* The run in the KCIDB I/O schema (KernelCI's common results database,
 * github.com/kernelci/kcidb-io), for --kcidb: one checkout and one build
 * standing for the kernel booted, a test per scenario, per step below it
 * and per KTAP subtest below its step, an issue per finding signature and
 * an incident per finding. docs/results.md has the mapping. */
#ifndef KTB_REPORT_KCIDB_H
#define KTB_REPORT_KCIDB_H

#include <jansson.h>
#include <stdio.h>

#include "result.h"

/* The schema version the document declares (its "version" object). */
#define KCIDB_MAJOR 5
#define KCIDB_MINOR 0
/* Every object's origin, and the prefix "ktestbed:" of every id. */
#define KCIDB_ORIGIN "ktestbed"
/* The version of every issue (a finding's signature) the document names:
 * an issue's fields come from the signature alone, so they never change. */
#define KCIDB_ISSUE_VERSION 1
/* The schema caps a log excerpt at this many characters; ours keep the tail. */
#define KCIDB_EXCERPT_MAX 16384

/* The document; NULL only when out of memory. */
json_t *kcidb_document(const struct run_result *r);
/* The document written to f, indented. 0, or -ENOMEM/-EIO. */
int report_kcidb(const struct run_result *r, FILE *f);
/* The schema's status for ours: a timeout is FAIL (a verdict on the kernel,
 * as ktb's exit code says, where KCIDB's ERROR would call the kernel's state
 * unknown); an error is ERROR. */
const char *kcidb_status(enum status s);
/* One component of a test path: the schema allows [A-Za-z0-9_-] only, so
 * each run of other bytes becomes one '_'; at most len-1 bytes, never empty. */
void kcidb_path_component(const char *name, char *out, size_t len);

#endif
