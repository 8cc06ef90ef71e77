#include "sidecar.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sidecar_start(struct sidecars *sc, char *const *argv, const char *log, const char *sock,
		  int stop_ms, const char *what, int64_t deadline, char *why, size_t len)
{
	struct proc_opts po = { .stderr_path = log };
	struct proc *p;
	int ret;

	if (sc->n >= SIDECAR_MAX) {
		snprintf(why, len, "%s: more than %d helper processes", what, SIDECAR_MAX);
		return -E2BIG;
	}
	p = &sc->v[sc->n].p;
	*p = (struct proc){ .pid = -1, .out_fd = -1 };
	sc->v[sc->n].stop_ms = stop_ms;
	sc->n++;
	unlink(sock);
	ret = proc_spawn(p, argv, &po);
	if (ret < 0)
		snprintf(why, len, "cannot start %s: %s", argv[0], strerror(-ret));
	else if ((ret = proc_wait_path(p, sock, deadline)) < 0)
		snprintf(why, len, "%s %s (see %s)", what,
			 ret == -ECHILD ? proc_describe(p) : "did not listen in time", log);
	return ret;
}

void sidecars_stop(struct sidecars *sc)
{
	for (unsigned i = 0; i < sc->n; i++)
		proc_stop(&sc->v[i].p, sc->v[i].stop_ms);
	sc->n = 0;
}
