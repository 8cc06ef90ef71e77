#include "sha256.h"

#include <stdint.h>

void sha256_feed(struct sha256_ctx *ctx, const void *data, size_t len)
{
	sha256_update(ctx, len, data);
}

void sha256_hex(struct sha256_ctx *ctx, char out[SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_digest(ctx, SHA256_DIGEST_SIZE, d);
	for (size_t i = 0; i < SHA256_DIGEST_SIZE; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[SHA256_HEX_LEN] = '\0';
}
