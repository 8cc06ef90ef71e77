/* qemu-guest-agent client: guest-sync-delimited until our id comes back
 * (stale replies are matched and dropped), guest-exec with captured output
 * and exit status, polled with guest-exec-status. */
#ifndef KTB_QGA_H
#define KTB_QGA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "loop.h"

struct loop;
struct qga;

struct qga_exec_result {
	int exit_code;	 /* -1 when killed by a signal */
	int signal;	 /* 0 unless killed by a signal */
	char *out, *err; /* decoded, NUL-terminated (may contain NULs earlier) */
	size_t out_len, err_len;
	bool out_truncated, err_truncated;
};

/* Takes ownership of fd. log may be NULL. */
struct qga *qga_new(struct loop *l, int fd, FILE *log);
void qga_free(struct qga *g);

/* Resend guest-sync-delimited until the reply carries our latest id: first
 * after retry_ms, the interval doubling after each miss (at most 8 times
 * retry_ms) so that a slow agent catches up. 0, -ETIMEDOUT, -EPIPE,
 * -ECANCELED. */
int qga_sync(struct qga *g, int retry_ms, int64_t deadline);

/* Generic command. *ret gets "return" (new reference). Error reply:
 * -EREMOTEIO with *errmsg. args (may be NULL) is borrowed. */
int qga_execute(struct qga *g, const char *cmd, json_t *args, json_t **ret, char **errmsg,
		int64_t deadline);
/* The same, but stop waiting as soon as stop(stop_ctx) holds (the guest went
 * to sleep before the agent could answer): -EINPROGRESS, and the reply stays
 * expected until qga_finish collects it. No other request may be made
 * meanwhile (-EBUSY). */
int qga_execute_until(struct qga *g, const char *cmd, json_t *args, json_t **ret, char **errmsg,
		      int64_t deadline, loop_cond_fn stop, void *stop_ctx);
int qga_finish(struct qga *g, json_t **ret, char **errmsg, int64_t deadline);

/* Run /bin/sh -c cmd in the guest with env (NULL-terminated "K=V" list, may
 * be NULL); poll until it exits or the deadline passes (-ETIMEDOUT).
 * An agent error gives -EREMOTEIO with its message in res->err; call
 * qga_exec_result_free whatever the return. Not synced yet (or out of step
 * after a failed request): this and qga_execute resync first. */
int qga_exec(struct qga *g, const char *cmd, const char *const *env, struct qga_exec_result *res,
	     int64_t deadline);
void qga_exec_result_free(struct qga_exec_result *res);

/* The two halves of qga_exec, for commands that outlive the agent's
 * attention (echo mem > /sys/power/state returns only after resume):
 * start it, do other things, then collect its exit status and output. */
int qga_exec_start(struct qga *g, const char *cmd, const char *const *env, long long *pid,
		   char **errmsg, int64_t deadline);
int qga_exec_wait(struct qga *g, long long pid, struct qga_exec_result *res, int64_t deadline);
/* qga_exec_start through qga_execute_until, and the pid of a start that
 * returned -EINPROGRESS. */
int qga_exec_start_until(struct qga *g, const char *cmd, const char *const *env, long long *pid,
			 char **errmsg, int64_t deadline, loop_cond_fn stop, void *stop_ctx);
int qga_exec_start_finish(struct qga *g, long long *pid, char **errmsg, int64_t deadline);

#endif
