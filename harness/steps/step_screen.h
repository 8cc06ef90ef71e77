/* The screen step: the display captured from the host (QMP screendump) to
 * artifacts/screen-NAME.ppm, described (size, SHA-256, share of black
 * pixels) and, with same_as, compared with an earlier capture, polling
 * until they are equal (poll) and timing how long after the last wake the
 * display came back (metrics.display_back_ms). */
#ifndef KTB_STEP_SCREEN_H
#define KTB_STEP_SCREEN_H

#include "step.h"

extern const struct step_ops step_screen_ops;

/* Captures the display now into artifacts/screen-NAME.ppm and sets *desc
 * to its description (file, width, height, sha256, black), as the screen
 * step's output has them: the suspend step's asleep_screen. 0, or -errno
 * (-EREMOTEIO: QMP refused, *err says why; -EINVAL, -E2BIG, -ENODATA:
 * not a PPM QEMU would write). */
int screen_capture(struct run_ctx *c, const char *name, json_t **desc, char **err,
		   int64_t deadline);

#endif
