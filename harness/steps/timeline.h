/* One suspend/resume cycle drawn as a self-contained SVG, the picture
 * pm-graph's sleepgraph gives: phases on the kernel's time axis either side
 * of the sleep point, and the slowest device callbacks of each half. */
#ifndef KTB_TIMELINE_H
#define KTB_TIMELINE_H

#include <stddef.h>
#include <stdio.h>

#include "pmlog.h"

/* Cycle @cycle of @r to @out. 0, -ENODATA when @r holds no cycle, -EINVAL
 * when @cycle is past the last, -EIO when writing failed. */
int timeline_svg(const struct pm_report *r, size_t cycle, FILE *out);

#endif
