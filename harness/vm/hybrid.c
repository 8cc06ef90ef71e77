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

#include "util.h"

#define CTL_TIMEOUT_MS 5000
#define CTL_MAX_REPLY 65536

const char *hybrid_binary(void)
{
	const char *s = getenv("KTB_HYBRID");

	return s && *s ? s : KTB_HYBRID_BIN_DEFAULT;
}

static int start_one(struct proc *p, const struct disk *d, const struct hw_launch *l,
		     const char *log_dir, int64_t deadline, char *why, size_t len)
{
	char *log = xasprintf("%s/hybrid-%s.log", log_dir, d->id);
	char *sock = machine_hybrid_path(l, d, "vhost");
	struct proc_opts po = { .stderr_path = log };
	struct argv a;
	int ret = hybrid_backend_argv(d, l, hybrid_binary(), &a);

	if (ret < 0)
		goto out;
	unlink(sock);
	ret = proc_spawn(p, a.v, &po);
	if (ret < 0)
		snprintf(why, len, "cannot start %s: %s", a.v[0], strerror(-ret));
	/* the control socket comes first, then the vhost-user one: once the
	 * latter exists, both answer */
	else if ((ret = proc_wait_path(p, sock, deadline)) < 0)
		snprintf(why, len, "the back end of hybrid disk %s %s (see %s)", d->id,
			 ret == -ECHILD ? proc_describe(p) : "did not listen in time", log);
	argv_free(&a);
out:
	free(sock);
	free(log);
	return ret;
}

int hybrid_start(struct hybrid_procs *hp, const struct machine *m, const struct hw_launch *l,
		 const char *log_dir, int64_t deadline, char *why, size_t len)
{
	int ret;

	hp->n = 0;
	for (unsigned i = 0; i < m->disks_count; i++) {
		if (m->disks[i].bus != DISK_BUS_HYBRID)
			continue;
		hp->p[hp->n] = (struct proc){ .pid = -1, .out_fd = -1 };
		ret = start_one(&hp->p[hp->n], &m->disks[i], l, log_dir, deadline, why, len);
		hp->n++;
		if (ret < 0)
			return ret;
	}
	return 0;
}

void hybrid_stop(struct hybrid_procs *hp)
{
	/* writing out a large volatile cache takes a moment */
	for (unsigned i = 0; i < hp->n; i++)
		proc_stop(&hp->p[i], 10000);
	hp->n = 0;
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
