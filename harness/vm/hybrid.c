#include "hybrid.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "disk_bus.h"
#include "util.h"

#define CTL_TIMEOUT_MS 5000
#define CTL_MAX_REPLY 65536

const char *hybrid_binary(void)
{
	const char *s = getenv("KTB_HYBRID");

	return s && *s ? s : KTB_HYBRID_BIN_DEFAULT;
}

/* ktb-hybrid for disk d, listening once its vhost-user socket is there:
 * the control socket comes first, so then both answer. Writing a large
 * volatile cache out at the stop takes a moment: 10 s. */
static int start_one(struct sidecars *sc, const struct disk *d, const struct hw_launch *l,
		     const char *log_dir, int64_t deadline, char *why, size_t len)
{
	char *log = xasprintf("%s/hybrid-%s.log", log_dir, d->id);
	char *sock = machine_hybrid_path(l, d, "vhost");
	char *what = xasprintf("the back end of hybrid disk %s", d->id);
	struct argv a;
	int ret = hybrid_backend_argv(d, l, hybrid_binary(), &a);

	if (ret >= 0) {
		ret = sidecar_start(sc, a.v, log, sock, 10000, what, deadline, why, len);
		argv_free(&a);
	}
	free(what);
	free(sock);
	free(log);
	return ret;
}

int hybrid_start(struct sidecars *sc, const struct machine *m, const struct hw_launch *l,
		 const char *log_dir, int64_t deadline, char *why, size_t len)
{
	int ret, n = 0;

	for (unsigned i = 0; i < m->disks_count; i++) {
		if (!disk_bus_info(m->disks[i].bus)->backend)
			continue;
		ret = start_one(sc, &m->disks[i], l, log_dir, deadline, why, len);
		if (ret < 0)
			return ret;
		n++;
	}
	return n;
}

static char *ctl_exchange(int fd, const char *cmd)
{
	char *buf = xcalloc(1, CTL_MAX_REPLY), *req = xasprintf("{\"cmd\":\"%s\"}\n", cmd);
	struct pollfd p = { fd, POLLIN, 0 };
	size_t got = 0;

	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		goto fail;
	while (got < CTL_MAX_REPLY - 1 && !memchr(buf, '\n', got)) {
		ssize_t n;

		if (poll(&p, 1, CTL_TIMEOUT_MS) <= 0)
			goto fail;
		n = read(fd, buf + got, CTL_MAX_REPLY - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	free(req);
	return buf;
fail:
	free(req);
	free(buf);
	return NULL;
}

json_t *hybrid_ctl(const struct hw_launch *l, const struct disk *d, const char *cmd)
{
	char *path = machine_hybrid_path(l, d, "ctl"), *reply;
	int fd = path ? unix_connect(path) : -ENOMEM;
	json_t *j = NULL;

	free(path);
	if (fd < 0)
		return NULL;
	reply = ctl_exchange(fd, cmd);
	close(fd);
	if (reply)
		j = json_loads(reply, JSON_DISABLE_EOF_CHECK, NULL);
	free(reply);
	return j;
}

json_t *hybrid_stats_all(const struct machine *m, const struct hw_launch *l)
{
	json_t *all = NULL;

	for (unsigned i = 0; i < m->disks_count; i++) {
		json_t *st;

		if (!disk_bus_info(m->disks[i].bus)->backend)
			continue;
		st = hybrid_ctl(l, &m->disks[i], "stats");
		if (!st)
			continue;
		if (!all)
			all = json_object();
		json_object_set_new(all, m->disks[i].id, st);
	}
	return all;
}
