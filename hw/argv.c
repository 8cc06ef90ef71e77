#include "argv.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest size a scenario may ask for, disk or memory. */
#define HW_SIZE_MAX (16ull << 40)

void argv_init(struct argv *a)
{
	a->v = NULL;
	a->n = 0;
	a->cap = 0;
	a->err = 0;
}

/* Takes ownership of s, which may be NULL after a failed allocation.
 * Only called while a->err is 0. */
static int argv_push(struct argv *a, char *s)
{
	if (!s)
		return a->err = -ENOMEM;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			free(s);
			return a->err = -ENOMEM;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

int argv_add(struct argv *a, const char *s)
{
	if (a->err)
		return a->err;
	return argv_push(a, strdup(s));
}

int argv_addf(struct argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	if (a->err)
		return a->err;
	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return a->err = -ENOMEM;
	return argv_push(a, s);
}

int argv_take(struct argv *a, char *s)
{
	if (a->err) {
		free(s);
		return a->err;
	}
	return argv_push(a, s);
}

int argv_add_list(struct argv *a, const char *const *list)
{
	for (; *list; list++)
		argv_add(a, *list);
	return a->err;
}

void argv_free(struct argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	argv_init(a);
}

static const struct size_unit {
	char suffix;
	unsigned shift;
} size_units[] = {
	{ 'K', 10 },
	{ 'M', 20 },
	{ 'G', 30 },
	{ 'T', 40 },
};

static int size_shift(const char *suffix, unsigned *shift)
{
	*shift = 0;
	if (!*suffix)
		return 0;
	if (suffix[1])
		return -EINVAL;
	for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (toupper((unsigned char)*suffix) == size_units[i].suffix) {
			*shift = size_units[i].shift;
			return 0;
		}
	}
	return -EINVAL;
}

/* -EINVAL for garbage or zero, -ERANGE above 16T. */
int hw_parse_size(const char *s, uint64_t *out)
{
	unsigned long long n;
	unsigned shift;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (size_shift(end, &shift) < 0)
		return -EINVAL;
	if (!n)
		return -EINVAL;
	if (n > (HW_SIZE_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)n << shift;
	return 0;
}

/* "1.5G": a size with a fraction. The same size in the largest unit it is
 * a whole number of (1536M) into buf; false when s is no such thing or the
 * size is no whole number of bytes. */
static bool size_fraction(const char *s, char *buf, size_t len)
{
	uint64_t mant = 0, scale = 1, bytes;
	unsigned shift, digits = 0;
	const char *p = s;
	bool dot = false;

	for (; *p && (isdigit((unsigned char)*p) || (*p == '.' && !dot)); p++) {
		if (*p == '.') {
			dot = true;
			continue;
		}
		if (++digits > 15)
			return false;
		mant = mant * 10 + (uint64_t)(*p - '0');
		scale *= dot ? 10 : 1;
	}
	if (!dot || !digits || size_shift(p, &shift) < 0 || !mant || mant > (HW_SIZE_MAX >> shift))
		return false;
	bytes = mant << shift;
	if (bytes % scale)
		return false;
	hw_size_str(bytes / scale, buf, len);
	return true;
}

int hw_size_field(const char *s, uint64_t *out, const char *field, struct hw_error *err)
{
	int ret = hw_parse_size(s, out);
	char whole[32];

	if (ret == -ERANGE)
		return hw_fail(err, field, "\"%s\" is larger than the 16T limit", s);
	if (ret < 0 && s && size_fraction(s, whole, sizeof(whole)))
		return hw_fail(err, field,
			       "\"%s\" is not a size: a size is a whole number of its unit; "
			       "write %s",
			       s, whole);
	if (ret < 0)
		return hw_fail(err, field,
			       "\"%s\" is not a size; write a positive whole number with an "
			       "optional binary unit K, M, G or T, e.g. 256M",
			       s ? s : "");
	return 0;
}

const char *hw_size_str(uint64_t n, char *buf, size_t len)
{
	size_t i = sizeof(size_units) / sizeof(size_units[0]);

	while (i-- > 0) {
		uint64_t unit = 1ull << size_units[i].shift;

		if (n && n % unit == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(n / unit),
				 size_units[i].suffix);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}

char *hw_escape(const char *s)
{
	size_t len = strlen(s), commas = 0;
	char *out, *p;

	for (const char *c = s; *c; c++)
		commas += *c == ',';
	out = malloc(len + commas + 1);
	if (!out)
		return NULL;
	for (p = out; *s; s++) {
		*p++ = *s;
		if (*s == ',')
			*p++ = ',';
	}
	*p = '\0';
	return out;
}

int hw_fail(struct hw_error *err, const char *field, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->field, sizeof(err->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}
