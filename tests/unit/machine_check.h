/* Checks the machine-model unit tests share: a refusal names the field and
 * says why; an argument vector holds a word. Include after <cmocka.h>. */
#ifndef KTB_TEST_MACHINE_CHECK_H
#define KTB_TEST_MACHINE_CHECK_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "machine.h"

/* machine_validate refuses m, naming field, with a message containing msg. */
static inline void expect_refusal(struct machine *m, const char *field, const char *msg)
{
	struct hw_error err;

	assert_int_equal(machine_validate(m, &err), -EINVAL);
	assert_string_equal(err.field, field);
	if (!strstr(err.msg, msg))
		fail_msg("%s: message \"%s\" lacks \"%s\"", field, err.msg, msg);
}

/* Some word of a is s (exact), or contains s (!exact). */
static inline bool argv_has(const struct argv *a, const char *s, bool exact)
{
	for (size_t i = 0; i < a->n; i++)
		if (exact ? !strcmp(a->v[i], s) : !!strstr(a->v[i], s))
			return true;
	return false;
}

#endif
