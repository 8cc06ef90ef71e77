/* SHA-256 for cache keys, image keys, report signatures and shard
 * selections: nettle's (struct sha256_ctx, sha256_init, sha256_digest),
 * with the two calls every user here wants on top. */
#ifndef KTB_SHA256_H
#define KTB_SHA256_H

#include <stddef.h>

#include <nettle/sha2.h>

#define SHA256_HEX_LEN 64

/* Feed len bytes of any type (nettle's sha256_update takes uint8_t). */
void sha256_feed(struct sha256_ctx *ctx, const void *data, size_t len);
/* The digest of what ctx was fed as 64 lowercase hex digits plus NUL;
 * ctx starts afresh (nettle's sha256_digest). */
void sha256_hex(struct sha256_ctx *ctx, char out[SHA256_HEX_LEN + 1]);

#endif
