/* What a scenario file may be at most, checked before anything is built
 * from it: a file from anywhere (a pull request, a bug report) must end in
 * one clear error in bounded memory and time, never in an allocation storm
 * in libyaml, libcyaml or glibc's regcomp. The limits are documented in
 * docs/scenarios.md ("Limits"). */
#ifndef KTB_SCENARIO_LIMITS_H
#define KTB_SCENARIO_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario_error.h"

#define SCENARIO_MAX_BYTES (1u << 20)	/* the whole file */
#define SCENARIO_MAX_SCALAR (64u << 10) /* one string, key or value */
#define SCENARIO_MAX_DEPTH 32		/* nested lists and mappings */
#define SCENARIO_MAX_ENTRIES 1000	/* entries of one list or mapping */
#define SCENARIO_MAX_NODES 50000	/* values in the whole file */
#define SCENARIO_MAX_NAME 64		/* the scenario's name */
#define REGEX_MAX_BYTES 1024		/* one regular expression */
#define REGEX_MAX_REPEAT 255		/* one {n,m} count */
#define REGEX_MAX_WEIGHT 1000		/* atoms once repetitions are expanded */
#define REGEX_MAX_GROUPS 32		/* nested ( ) */
#define REGEX_MAX_EMPTY 1024		/* ways to match the empty string */

/* Read at most SCENARIO_MAX_BYTES of path. 0 with *data (NUL-terminated,
 * caller frees) and *len; -EFBIG when the file is larger (err filled with
 * the line the limit falls on); -errno when it cannot be read. */
int limits_read_file(const char *path, char **data, size_t *len, struct scenario_error *err);

/* The bytes: no NUL or other control character but tab, newline and
 * carriage return, valid UTF-8, at most SCENARIO_MAX_BYTES. 0 or -EINVAL
 * with err's line, col and msg filled. */
int limits_check_bytes(const char *data, size_t len, struct scenario_error *err);

/* The YAML structure, event by event (nothing is built): depth, entries,
 * values, string lengths, no anchors or aliases, keys plain strings given
 * once. 0 or -EINVAL with err's line, col, field and msg filled. */
int limits_check_yaml(const char *data, size_t len, struct scenario_error *err);

/* A POSIX extended regular expression the harness will compile: length,
 * repetition counts and their expanded size bounded, no back-references,
 * and it compiles. 0 or -EINVAL with a reason in why. */
int limits_check_regex(const char *pattern, char *why, size_t len);

#endif
