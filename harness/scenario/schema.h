/* The libcyaml schema of a scenario file (schema.c): the machine, the
 * scenario's own keys, a step's shared keys and each step kind's (its
 * row's fields, step_kind.h); and the walk that checks a document against
 * it before libcyaml reads it, so every wrong key or value is reported. */
#ifndef KTB_SCHEMA_H
#define KTB_SCHEMA_H

#include <cyaml/cyaml.h>
#include <stddef.h>
#include <yaml.h>

struct load_ctx;

#define OPT CYAML_FLAG_OPTIONAL
#define PTR CYAML_FLAG_POINTER
/* enums and flags take their names only, never a number */
#define STR(key, flags, type, member)                                                              \
	CYAML_FIELD_STRING_PTR(key, PTR | (flags), type, member, 0, CYAML_UNLIMITED)

/* The whole file's schema: struct scenario. */
const cyaml_schema_value_t *schema_scenario(void);
/* The schema of key in mapping v; NULL if v has no such key. */
const cyaml_schema_value_t *schema_field(const cyaml_schema_value_t *v, const char *key);
/* "name, run, wait, ...": the keys of mapping v, for messages. */
void schema_join_keys(const cyaml_schema_value_t *v, char *buf, size_t len);
/* "s3, s2idle, s4": the names of enum or flags v. */
void schema_join_strings(const cyaml_schema_value_t *v, char *buf, size_t len);
/* What a value of v should be ("a whole number", "a list such as [s3,
 * s4]"), for "expected ..., got ..."; NULL for a type without words. */
const char *schema_type_want(const cyaml_schema_value_t *v, char *buf, size_t len);
/* Report every key and value of node n (at field path) that v does not
 * take, each where it is. */
void schema_walk(struct load_ctx *c, const cyaml_schema_value_t *v, yaml_node_t *n,
		 const char *path);

#endif
