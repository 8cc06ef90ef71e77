#include "ctl.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CTL_MAX_REQ 4096
#define CTL_TIMEOUT_MS 2000

static json_t *hist_json(const struct media_stats *st)
{
	json_t *a = json_array();

	/* bucket b holds latencies below 2^b microseconds */
	for (unsigned b = 0; b < MEDIA_HIST_BUCKETS; b++)
		if (st->hist[b])
			json_array_append_new(a, json_pack("{s:I,s:I}", "lt_us",
							   (json_int_t)(1ull << b), "count",
							   (json_int_t)st->hist[b]));
	return a;
}

#define I(v) ((json_int_t)(v))

json_t *ctl_stats_json(const struct blk *b)
{
	const struct media_stats *st = media_stats(b->media);
	const struct media_config *c = media_config(b->media);

	return json_pack("{s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
			 "s:{s:I,s:I,s:I,s:I,s:I,s:I},s:o}",
			 "model", c->model, "reads", I(st->reads), "writes", I(st->writes),
			 "flushes", I(st->flushes), "discards", I(st->discards), "hits",
			 I(st->hits), "misses", I(st->misses), "cache_hits", I(st->cache_hits),
			 "promotions", I(st->promotions), "evictions", I(st->evictions),
			 "writebacks", I(st->writebacks), "dirty_blocks",
			 I(media_dirty_blocks(b->media)), "lost_blocks", I(st->lost_blocks),
			 "power_losses", I(st->power_losses), "bad_requests", I(b->bad_requests),
			 "writeback", I(b->wce), "bytes", "platter_read", I(st->platter_read),
			 "platter_written", I(st->platter_written), "flash_read", I(st->flash_read),
			 "flash_written", I(st->flash_written), "cache_read", I(st->cache_read),
			 "cache_written", I(st->cache_written), "latency_hist", hist_json(st));
}

json_t *ctl_answer(struct blk *b, const char *request)
{
	json_t *req = json_loads(request, 0, NULL), *reply;
	const char *cmd = json_string_value(json_object_get(req, "cmd"));
	uint64_t lat = 0;

	if (!cmd)
		reply = json_pack("{s:s}", "error",
				  "expected {\"cmd\": \"stats\"|\"power_loss\"|\"flush\"}");
	else if (!strcmp(cmd, "stats"))
		reply = ctl_stats_json(b);
	else if (!strcmp(cmd, "power_loss"))
		reply = json_pack("{s:I}", "lost_blocks", I(media_power_loss(b->media)));
	else if (!strcmp(cmd, "flush"))
		reply = json_pack("{s:b}", "ok", media_flush(b->media, &lat) == 0);
	else
		reply = json_pack("{s:s}", "error", "unknown cmd");
	json_decref(req);
	return reply;
}

void ctl_serve(struct blk *b, int fd)
{
	char buf[CTL_MAX_REQ];
	size_t len = 0;
	struct pollfd p = { fd, POLLIN, 0 };

	while (len < sizeof(buf) - 1 && !memchr(buf, '\n', len)) {
		ssize_t n;

		if (poll(&p, 1, CTL_TIMEOUT_MS) <= 0)
			break;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len) {
		json_t *reply = ctl_answer(b, buf);
		char *s = json_dumps(reply, JSON_COMPACT);

		if (s) {
			if (write(fd, s, strlen(s)) < 0 || write(fd, "\n", 1) < 0) {
				/* the harness went away; nothing to tell it */
			}
			free(s);
		}
		json_decref(reply);
	}
	close(fd);
}
