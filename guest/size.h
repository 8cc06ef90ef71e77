/* Byte sizes on the guest tools' command lines: "4096", "4k", "32M", "1G". */
#ifndef KTB_GUEST_SIZE_H
#define KTB_GUEST_SIZE_H

#include <stdint.h>

/* Parses a size into bytes. Suffixes k, M, G, T (any case, optionally
 * followed by "iB" or "B") are binary units. 0, -EINVAL or -ERANGE. */
int size_parse(const char *s, uint64_t *out);

#endif
