/* The control socket: one JSON request line in, one JSON reply line out,
 * per connection. The harness asks for stats and cuts the power here. */
#ifndef KTB_HYBRID_CTL_H
#define KTB_HYBRID_CTL_H

#include <jansson.h>

#include "blk.h"

/* The drive's statistics as JSON (caller decrefs). */
json_t *ctl_stats_json(const struct blk *b);
/* Answer one request text: {"cmd": "stats" | "power_loss" | "flush"}.
 * Returns the reply (caller decrefs); never NULL. */
json_t *ctl_answer(struct blk *b, const char *request);
/* Serve one connection on fd: read a line, answer, close. */
void ctl_serve(struct blk *b, int fd);

#endif
