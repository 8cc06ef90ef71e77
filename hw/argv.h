/* The small tools every hw/ file uses: a growable argument vector, sizes
 * parsed and printed, QEMU option escaping, and filling a struct hw_error.
 * Depends on the model's types only. */
#ifndef KTB_HW_ARGV_H
#define KTB_HW_ARGV_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* A growable, NULL-terminated argument vector. It keeps its first error:
 * once an add fails, err holds that -errno and every later add is a no-op
 * returning it, so a run of adds needs one check, of the last return or of
 * err, and the vector never holds an argument whose predecessor is missing. */
struct argv {
	char **v;
	size_t n, cap;
	int err;
};
void argv_init(struct argv *a);
/* Each returns a->err: 0, or the first -errno this vector met. */
int argv_add(struct argv *a, const char *s);
int argv_addf(struct argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Add each string of a NULL-terminated list, in order. */
int argv_add_list(struct argv *a, const char *const *list);
/* Add s, taking ownership of it: freed when not added. A NULL s (a failed
 * allocation passed straight in) counts as -ENOMEM. */
int argv_take(struct argv *a, char *s);
void argv_free(struct argv *a);

/* Parse a size such as "512", "4K", "256M", "1G" (binary units) into bytes. */
int hw_parse_size(const char *s, uint64_t *out);

/* Fill err (field, then a printf-style message) and return -EINVAL. */
int hw_fail(struct hw_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parse a size into *out, reporting problems against field. */
int hw_size_field(const char *s, uint64_t *out, const char *field, struct hw_error *err);

/* "512M", "1G", "1536K": the largest binary unit that divides n exactly. */
const char *hw_size_str(uint64_t n, char *buf, size_t len);

/* s with every ',' doubled, as QEMU's option parser wants. Caller frees;
 * NULL on ENOMEM. */
char *hw_escape(const char *s);

#endif
