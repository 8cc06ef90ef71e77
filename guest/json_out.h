/* A tiny streaming JSON writer for the guest tools: no allocation, no
 * dependencies, one compact line per document. The caller nests objects and
 * arrays; the writer handles commas, escaping and number formatting. */
#ifndef KTB_GUEST_JSON_OUT_H
#define KTB_GUEST_JSON_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_out {
	FILE *f;
	int depth;
	bool after_key;		       /* a key was written, its value comes next */
	bool has_item[JSON_MAX_DEPTH]; /* the container at depth i is non-empty */
};

void json_init(struct json_out *j, FILE *f);
void json_obj_begin(struct json_out *j);
void json_obj_end(struct json_out *j);
void json_arr_begin(struct json_out *j);
void json_arr_end(struct json_out *j);
void json_key(struct json_out *j, const char *key);
void json_str(struct json_out *j, const char *s);
void json_u64(struct json_out *j, uint64_t v);
void json_i64(struct json_out *j, int64_t v);
void json_double(struct json_out *j, double v);
void json_bool(struct json_out *j, bool v);
void json_null(struct json_out *j);
/* Ends the document with a newline and flushes. */
void json_finish(struct json_out *j);

/* key + value in one call; json_kv_str writes null for a NULL string. */
void json_kv_str(struct json_out *j, const char *key, const char *s);
void json_kv_u64(struct json_out *j, const char *key, uint64_t v);
void json_kv_i64(struct json_out *j, const char *key, int64_t v);
void json_kv_double(struct json_out *j, const char *key, double v);
/* key: v when ok, else key: null (a value that could not be read is never
 * written as a default a check could take for it) */
void json_kv_u64_or_null(struct json_out *j, const char *key, bool ok, uint64_t v);
void json_kv_double_or_null(struct json_out *j, const char *key, bool ok, double v);
void json_kv_bool(struct json_out *j, const char *key, bool v);

#endif
