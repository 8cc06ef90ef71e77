#include "size.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int size_shift(const char *suffix, unsigned *shift)
{
	static const char units[] = "bkmgt";
	const char *u;

	if (!*suffix) {
		*shift = 0;
		return 0;
	}
	u = strchr(units, tolower((unsigned char)*suffix));
	if (!u)
		return -EINVAL;
	*shift = 10 * (unsigned)(u - units);
	suffix++;
	/* "b" alone is bytes; after a unit letter accept "", "b" or "ib" */
	if (u == units)
		return *suffix ? -EINVAL : 0;
	if (!*suffix || !strcasecmp(suffix, "b") || !strcasecmp(suffix, "ib"))
		return 0;
	return -EINVAL;
}

int size_parse(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift;
	char *end;
	int ret;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end,
		     (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10) /* never octal */;
	if (errno)
		return -ERANGE;
	ret = size_shift(end, &shift);
	if (ret)
		return ret;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}
