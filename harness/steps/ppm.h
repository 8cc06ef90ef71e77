/* Binary PPM (P6, maxval 255), the format of QEMU's screendump: parsed from
 * untrusted bytes into RGB pixels, and two images compared pixel by pixel.
 * The parser takes the header's numbers only after checking them: a size
 * beyond PPM_MAX_SIDE or more pixels than the data holds is refused before
 * any allocation. */
#ifndef KTB_PPM_H
#define KTB_PPM_H

#include <stddef.h>
#include <stdint.h>

#define PPM_MAX_SIDE 16384u /* QEMU's largest display is far below */

struct ppm {
	unsigned width, height;
	const unsigned char *rgb; /* width * height * 3 bytes, pointing into the data */
};

/* Parse len bytes at data; out->rgb points into data. 0, or -EINVAL (not
 * a P6 header, maxval other than 255, zero size), -E2BIG (a side beyond
 * PPM_MAX_SIDE), -ENODATA (fewer pixel bytes than the header promises). */
int ppm_parse(const unsigned char *data, size_t len, struct ppm *out);

/* How many pixels of a and b differ. -EINVAL when their sizes differ. */
int ppm_diff(const struct ppm *a, const struct ppm *b, uint64_t *differ);

#endif
