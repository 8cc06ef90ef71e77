/* libFuzzer target: any bytes as QEMU screendumps (screen: steps). The
 * input is one capture, or two cut at the first 0x1e, compared as
 * step_screen compares them. ppm_parse must refuse what it cannot trust
 * before reading past the data: a returned image's pixels lie inside it. */
#include <errno.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "ppm.h"

static int parse(const uint8_t *data, size_t len, struct ppm *img)
{
	int ret = ppm_parse(data, len, img);

	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -E2BIG || ret == -ENODATA);
		return ret;
	}
	FUZZ_CHECK(img->width && img->height);
	FUZZ_CHECK(img->width <= PPM_MAX_SIDE && img->height <= PPM_MAX_SIDE);
	FUZZ_CHECK(img->rgb >= data && img->rgb <= data + len);
	FUZZ_CHECK((size_t)(data + len - img->rgb) >= (size_t)img->width * img->height * 3);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_parts parts;
	struct ppm img[2];
	const uint8_t *p;
	size_t n, count = 0;
	uint64_t differ;

	fuzz_parts_init(&parts, data, size);
	while (count < 2 && fuzz_parts_next(&parts, &p, &n))
		if (parse(p, n, &img[count]) == 0)
			count++;
	if (count == 0)
		return 0;
	FUZZ_CHECK(ppm_diff(&img[0], &img[0], &differ) == 0 && differ == 0);
	if (count == 2) {
		int ret = ppm_diff(&img[0], &img[1], &differ);

		if (img[0].width == img[1].width && img[0].height == img[1].height)
			FUZZ_CHECK(ret == 0 && differ <= (uint64_t)img[0].width * img[0].height);
		else
			FUZZ_CHECK(ret == -EINVAL);
	}
	return 0;
}
