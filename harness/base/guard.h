/* The run's guardian: a small process `ktb run` forks before anything else,
 * which outlives ktb. ktb (and every -j worker) tells it the process groups
 * it starts and reaps through a pipe; when the pipe's last writer is gone --
 * ktb ended, or was killed, SIGKILL included -- the guardian SIGKILLs the
 * groups still listed, waits until none of their processes runs, removes the
 * run's private temporary folder and exits. ktb's own normal end waits for it
 * (guard_finish), so when ktb has exited nothing of the run is left. */
#ifndef KTB_GUARD_H
#define KTB_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Fork the guardian for DIR (an absolute path; removed when the run ends).
 * 0, or -errno. Without a guardian the calls below do nothing. */
int guard_start(const char *dir);
/* The process group PGID was started / its leader reaped. */
void guard_track(pid_t pgid);
void guard_untrack(pid_t pgid);
/* ktb's own end: close ktb's end of the pipe and wait until the guardian has
 * cleaned up and exited. Workers never call it. */
void guard_finish(void);

/* --- pure logic, unit-tested ---------------------------------------------- */

/* One message on the pipe: 8 bytes, written in one write(), so messages from
 * several workers never interleave (PIPE_BUF). */
struct guard_msg {
	int32_t op; /* GUARD_TRACK or GUARD_UNTRACK */
	int32_t pgid;
};
#define GUARD_TRACK 1
#define GUARD_UNTRACK 2

struct guard_set {
	pid_t *v;
	size_t n, cap;
};

/* Apply one message. 0, or -EINVAL for a message that would name no group of
 * ours (pgid <= 1: kill(-1) and kill(0) reach far more) or an unknown op. */
int guard_set_apply(struct guard_set *s, const struct guard_msg *m);
void guard_set_free(struct guard_set *s);
/* From a /proc/PID/stat line: the state letter and the process group.
 * 0, or -EINVAL when the line is not one (the name may hold ") " itself). */
int guard_parse_stat(const char *line, char *state, pid_t *pgrp);
/* Whether a process of one of the groups still runs (a zombie holds no files
 * and counts as gone), scanning PROC (normally "/proc"). */
bool guard_groups_alive(const struct guard_set *s, const char *proc);

#endif
