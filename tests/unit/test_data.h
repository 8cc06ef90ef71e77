/* Test data files under tests/unit/data: read one whole, or fail the test. */
#ifndef KTB_TEST_DATA_H
#define KTB_TEST_DATA_H

#include <stdlib.h>

#include "util.h"

/* tests/unit/data/pm/NAME as a string (caller frees). */
static char *sample(const char *name)
{
	char *path = xasprintf("%s/pm/%s", KTB_TEST_DATA, name);
	size_t len;
	char *s = read_file(path, &len);

	assert_non_null(s);
	free(path);
	return s;
}

#endif
