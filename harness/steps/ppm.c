/* PPM P6 parsing (ppm.h). The header is "P6", width, height and maxval
 * separated by whitespace, "#" comments to the end of a line allowed
 * between them, then one whitespace byte and the pixels. */
#include "ppm.h"

#include <errno.h>
#include <string.h>

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace and comments, then reads a decimal number no larger
 * than max (digits past it are refused before they can overflow). */
static int header_number(const unsigned char *d, size_t len, size_t *pos, unsigned max,
			 unsigned *out)
{
	size_t p = *pos;
	unsigned long v = 0;

	while (p < len && (is_space(d[p]) || d[p] == '#')) {
		if (d[p] == '#')
			while (p < len && d[p] != '\n')
				p++;
		else
			p++;
	}
	if (p >= len || d[p] < '0' || d[p] > '9')
		return -EINVAL;
	for (; p < len && d[p] >= '0' && d[p] <= '9'; p++) {
		v = v * 10 + (unsigned long)(d[p] - '0');
		if (v > max)
			return -E2BIG;
	}
	*out = (unsigned)v;
	*pos = p;
	return 0;
}

int ppm_parse(const unsigned char *data, size_t len, struct ppm *out)
{
	unsigned w, h, maxval;
	size_t pos = 2;
	int ret;

	if (len < 2 || data[0] != 'P' || data[1] != '6')
		return -EINVAL;
	ret = header_number(data, len, &pos, PPM_MAX_SIDE, &w);
	if (!ret)
		ret = header_number(data, len, &pos, PPM_MAX_SIDE, &h);
	if (ret)
		return ret;
	if (header_number(data, len, &pos, 65535, &maxval))
		return -EINVAL;
	if (!w || !h || maxval != 255 || pos >= len || !is_space(data[pos]))
		return -EINVAL;
	pos++;
	/* w and h are at most 2^14 each: the product fits in size_t */
	if (len - pos < (size_t)w * h * 3)
		return -ENODATA;
	*out = (struct ppm){ w, h, data + pos };
	return 0;
}

int ppm_diff(const struct ppm *a, const struct ppm *b, uint64_t *differ)
{
	uint64_t n = 0;

	if (a->width != b->width || a->height != b->height)
		return -EINVAL;
	for (size_t i = 0; i < (size_t)a->width * a->height; i++)
		n += memcmp(a->rgb + i * 3, b->rgb + i * 3, 3) != 0;
	*differ = n;
	return 0;
}
