/* One scenario load's context and the tools every part of the loader
 * shares (load.c): the libyaml document found by field path, errors that
 * name file, line, column and field, YAML mappings as JSON, and the checks
 * of a duration, a pattern and a name that several parts make. */
#ifndef KTB_LOAD_H
#define KTB_LOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "scenario_types.h"

#define CY_LOG_LINES 32
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Everything one load needs: the file, its libyaml document (for exact
 * locations and free-form mappings), and what libcyaml logged. */
struct load_ctx {
	const char *path;
	const struct scenario *s; /* for checks that look across sections */
	struct scenario_error *err;
	bool machine_ok; /* machine_load passed: its derived values are filled */
	yaml_document_t doc;
	char log[CY_LOG_LINES][256];
	unsigned log_n;
};

/* Where a path leads: the deepest node reached, and the key node naming it
 * when it is a mapping value. complete: the whole path was found. */
struct doc_hit {
	yaml_node_t *key, *val;
	bool complete;
};

yaml_node_t *doc_node(struct load_ctx *c, int id);
bool scalar_is(const yaml_node_t *n, const char *s, size_t len);
/* The last pair of mapping m whose key is k (len bytes); NULL if none. */
yaml_node_pair_t *doc_pair(struct load_ctx *c, yaml_node_t *m, const char *k, size_t len);
/* Item i of list s; NULL if none. */
yaml_node_t *doc_item(struct load_ctx *c, yaml_node_t *s, unsigned long i);
/* Follow a field path such as "machine.disks[1].size" as far as it goes. */
void doc_find(struct load_ctx *c, const char *path, struct doc_hit *h);
/* The node at path; NULL unless the whole path is in the document. */
yaml_node_t *doc_get(struct load_ctx *c, const char *path);
/* "a list", "a mapping", "\"text\"" or "nothing", for messages. */
const char *node_desc(const yaml_node_t *n, char *buf, size_t len);

/* Every error is added to the load's list; each returns -EINVAL. */
/* Report at node at (NULL: no location). */
int fail_at(struct load_ctx *c, const yaml_node_t *at, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Report at the value the field path names, or its nearest ancestor present
 * in the file (a defaulted field has no line of its own). */
int fail(struct load_ctx *c, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Report at line:col (1-based; 0 for none) of the file, no node at hand. */
int fail_pos(struct load_ctx *c, int line, int col, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Report at the file's first line: what is wrong is the file as a whole. */
int fail_line1(struct load_ctx *c, const char *msg);

/* The mapping at path as a JSON object into *out (NULL when absent). */
int mapping_field_json(struct load_ctx *c, const char *path, json_t **out);

/* Where a pattern is matched, as the runner matches it, and what to write
 * instead of one that matches anything there. */
struct regex_use {
	int cflags;	 /* REG_NEWLINE for stdout: ^ and $ at every line */
	bool lines;	 /* matched against each console line, which holds no newline */
	const char *any; /* "any text, even none" */
	const char *instead;
};
extern const struct regex_use use_stdout, use_wait, use_finding, use_json;

/* 0, or -EINVAL with why filled: pattern does not compile, is too costly,
 * or matches every text where u says it is matched. */
int regex_refusal(const char *pattern, const struct regex_use *u, char *why, size_t len);
/* The same as an error on field. */
int check_regex(struct load_ctx *c, const char *field, const char *pattern,
		const struct regex_use *u);
/* A duration field into *out; eg: examples for the message. */
int duration_field(struct load_ctx *c, const char *f, const char *v, int64_t *out, const char *eg);
/* A metric's or a capture's name: [a-z0-9_]+. */
bool name_valid_metric(const char *s);
/* The index of w in words[0..n), or -1. */
int word_index(const char *w, const char *const *words, size_t n);
/* A duration for a message: 500ms, 90s, 1.5s. */
const char *ms_str(int64_t ms, char *buf, size_t len);

#endif
