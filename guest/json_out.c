#include "json_out.h"

#include <math.h>
#include <inttypes.h>

void json_init(struct json_out *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->after_key = false;
	j->has_item[0] = false;
}

/* Every value and every key passes here: it writes the comma that separates
 * it from the previous item of the same container. */
static void json_sep(struct json_out *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->has_item[j->depth])
		fputc(',', j->f);
	j->has_item[j->depth] = true;
}

static void json_open(struct json_out *j, char c)
{
	json_sep(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->has_item[j->depth] = false;
}

static void json_close(struct json_out *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_obj_begin(struct json_out *j)
{
	json_open(j, '{');
}

void json_obj_end(struct json_out *j)
{
	json_close(j, '}');
}

void json_arr_begin(struct json_out *j)
{
	json_open(j, '[');
}

void json_arr_end(struct json_out *j)
{
	json_close(j, ']');
}

/* Bytes >= 0x80 are written as \u00XX: serials and command lines are not
 * guaranteed to be UTF-8, and the host's parser rejects invalid UTF-8. */
static void json_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void json_key(struct json_out *j, const char *key)
{
	json_sep(j);
	json_escape(j->f, key);
	fputc(':', j->f);
	j->after_key = true;
}

void json_str(struct json_out *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_sep(j);
	json_escape(j->f, s);
}

void json_u64(struct json_out *j, uint64_t v)
{
	json_sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json_out *j, int64_t v)
{
	json_sep(j);
	fprintf(j->f, "%" PRId64, v);
}

/* JSON has no NaN or infinity; those become null. */
void json_double(struct json_out *j, double v)
{
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	json_sep(j);
	fprintf(j->f, "%.3f", v);
}

void json_bool(struct json_out *j, bool v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j)
{
	json_sep(j);
	fputs("null", j->f);
}

void json_finish(struct json_out *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}

void json_kv_str(struct json_out *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_kv_u64(struct json_out *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_i64(struct json_out *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_i64(j, v);
}

void json_kv_double(struct json_out *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void json_kv_bool(struct json_out *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kv_u64_or_null(struct json_out *j, const char *key, bool ok, uint64_t v)
{
	json_key(j, key);
	if (ok)
		json_u64(j, v);
	else
		json_null(j);
}

void json_kv_double_or_null(struct json_out *j, const char *key, bool ok, double v)
{
	json_key(j, key);
	if (ok)
		json_double(j, v);
	else
		json_null(j);
}
