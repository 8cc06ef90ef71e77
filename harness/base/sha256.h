/* SHA-256 (FIPS 180-4), used to content-address guest images: small enough to
 * keep rather than pull in a crypto library for one hash. */
#ifndef KTB_SHA256_H
#define KTB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64

struct sha256 {
	uint32_t h[8];
	uint64_t total; /* bytes fed so far */
	uint8_t buf[64];
	size_t used; /* bytes waiting in buf */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_DIGEST_LEN]);
/* Final digest as 64 lowercase hex digits plus NUL. */
void sha256_final_hex(struct sha256 *s, char out[SHA256_HEX_LEN + 1]);

#endif
