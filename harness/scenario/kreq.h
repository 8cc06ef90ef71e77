/* The kernel options a scenario needs, derived from what it declares: the
 * guest's own base needs, each machine part (disk buses, multipath, zoned,
 * NUMA, HMAT, the balloon, the sleep states), each step kind and its
 * argument (suspend's state and wake source, the guest tools a run step
 * calls: the kind's row, step_kind.h), and kernel.requires. Tables (kreq.c,
 * the kinds' rows) say which option each needs and which module provides it; a kernel's config is
 * checked against the list through callbacks, so the config reader stays another layer's. */
#ifndef KTB_KREQ_H
#define KTB_KREQ_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario.h"

struct kreq {
	const char *option; /* "CONFIG_BLK_DEV_NVME" */
	const char *module; /* "nvme", or NULL: must be built in (=y) */
	char *why;	    /* "disk 'data' is on bus nvme" */
};

struct kreq_list {
	struct kreq *v;
	size_t n;
};

/* One option and the module that provides it when it is =m; NULL: it is a
 * bool (or must be built in), so =m is not enough. */
struct kreq_opt {
	const char *option, *module;
};

#define KREQ_ROW_MAX 8
/* The options one part needs, in the order a config fragment wants them
 * (what an option depends on first); ends at the first NULL option. A
 * step kind's row (step_kind.h) holds its own. */
struct kreq_opts {
	struct kreq_opt o[KREQ_ROW_MAX];
};

/* Every option scenario s needs, base needs first, each option once (the
 * first reason kept, later different reasons appended "; ..."). 0 or
 * -ENOMEM (out is then empty). */
int kreq_for_scenario(const struct scenario *s, struct kreq_list *out);
/* Adds one requirement to l, merged as kreq_for_scenario merges: an option
 * already there keeps its place and module (none, built in, when either
 * says so) and gains why unless it already says it. 0 or -ENOMEM. */
int kreq_list_add(struct kreq_list *l, const char *option, const char *module, const char *why);
/* Adds each option of o, with why, as kreq_list_add does. 0 or -ENOMEM. */
int kreq_add_opts(struct kreq_list *l, const struct kreq_opts *o, const char *why);
void kreq_list_free(struct kreq_list *l);

/* The base of the minimal kernel (ktb kconfig --minimal), to apply on top
 * of `make tinyconfig`: the guest's base needs, then what tinyconfig lacks
 * for the guest's programs and the harness, each =y (module NULL). A
 * menu or dependency of one scenario option (SCSI_LOWLEVEL for
 * SCSI_VIRTIO) is in it only when needs holds that option (NULL: all of
 * them). 0 or -ENOMEM (out is then empty). */
int kreq_minimal_base(const struct kreq_list *needs, struct kreq_list *out);

/* What a kernel's config holds, asked through callbacks: value(ctx,
 * "CONFIG_X") returns "y", "m", another string, or NULL when unset;
 * has_module(ctx, "nvme") says whether the image holds that module (NULL
 * callback: unknown, =m counts as present). */
struct kreq_source {
	const char *(*value)(void *ctx, const char *option);
	bool (*has_module)(void *ctx, const char *module);
	void *ctx;
};

/* The requirements of l that src does not meet. 0 with *message NULL when
 * all are met; else the number missing and *message (malloc'd) naming every
 * missing option and what needs it, one per line ("CONFIG_BLK_DEV_NVME is
 * not set: disk 'data' is on bus nvme"); -ENOMEM. */
int kreq_missing(const struct kreq_list *l, const struct kreq_source *src, char **message);

#endif
