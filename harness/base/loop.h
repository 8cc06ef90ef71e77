/* The event loop handed to every client (QMP, guest agent, console): fds with
 * read callbacks, a clock, and "run until this is true or the deadline
 * passes". One loop per VM; clients never poll on their own. */
#ifndef KTB_LOOP_H
#define KTB_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct loop;

/* Called when fd is readable (or hung up). Return 0, or -errno to drop the fd
 * from the loop (the loop never closes fds: their owner does). */
typedef int (*loop_read_fn)(void *ctx, int fd);
typedef bool (*loop_cond_fn)(void *ctx);
typedef int64_t (*loop_clock_fn)(void);

struct loop *loop_new(void);
void loop_free(struct loop *l);
/* Tests: a fake clock (NULL: back to now_ms). Real and loop time are then
 * unrelated, so each poll waits at most 10 ms of real time before the clock
 * is read again; a fake clock must advance by itself (per call, say). */
void loop_set_clock(struct loop *l, loop_clock_fn clock);
int64_t loop_now(struct loop *l);
int loop_add(struct loop *l, int fd, loop_read_fn fn, void *ctx);
void loop_del(struct loop *l, int fd);

/* Something fatal happened (console saw a panic, QEMU exited): every
 * loop_run_until returns -ECANCELED until loop_clear_abort. reason is copied. */
void loop_abort(struct loop *l, const char *reason);
const char *loop_abort_reason(struct loop *l); /* NULL when not aborted */
void loop_clear_abort(struct loop *l);

/* Dispatch events until cond(ctx) is true (0), the absolute deadline
 * (loop_now() clock, ms) passes (-ETIMEDOUT), or the loop is aborted
 * (-ECANCELED). cond may be NULL: run until the deadline, then return 0. */
int loop_run_until(struct loop *l, loop_cond_fn cond, void *ctx, int64_t deadline);

#endif
