#include "virtiofs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "share.h"
#include "util.h"

static int start_one(struct proc *p, const struct machine *m, unsigned i, const struct hw_launch *l,
		     const char *log_dir, int64_t deadline, char *why, size_t len)
{
	char *log = xasprintf("%s/virtiofsd-ktb%u.log", log_dir, i);
	char *sock = share_socket_path(l, i);
	struct proc_opts po = { .stderr_path = log };
	struct argv a;
	int ret = sock ? share_virtiofsd_argv(m, l, i, &a) : -ENOMEM;

	if (ret < 0) {
		snprintf(why, len, "share %u: no virtiofsd to start", i);
		goto out;
	}
	unlink(sock);
	ret = proc_spawn(p, a.v, &po);
	if (ret < 0)
		snprintf(why, len, "cannot start %s: %s", a.v[0], strerror(-ret));
	else if ((ret = proc_wait_path(p, sock, deadline)) < 0)
		snprintf(why, len, "virtiofsd of share %s %s (see %s)", m->shares[i].host,
			 ret == -ECHILD ? proc_describe(p) : "did not listen in time", log);
	argv_free(&a);
out:
	free(sock);
	free(log);
	return ret;
}

int virtiofs_start(struct virtiofs_procs *vp, const struct machine *m, const struct hw_launch *l,
		   const char *log_dir, int64_t deadline, char *why, size_t len)
{
	int ret;

	vp->n = 0;
	for (unsigned i = 0; i < m->shares_count; i++) {
		if (!m->shares[i].virtiofs)
			continue;
		vp->p[vp->n] = (struct proc){ .pid = -1, .out_fd = -1 };
		ret = start_one(&vp->p[vp->n], m, i, l, log_dir, deadline, why, len);
		vp->n++;
		if (ret < 0)
			return ret;
	}
	return 0;
}

void virtiofs_stop(struct virtiofs_procs *vp)
{
	/* QEMU is gone: virtiofsd exits on its own once the socket closes,
	 * the signal covers one QEMU never connected to */
	for (unsigned i = 0; i < vp->n; i++)
		proc_stop(&vp->p[i], 2000);
	vp->n = 0;
}
