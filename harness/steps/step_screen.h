/* The screen step: the display captured from the host (QMP screendump) to
 * artifacts/screen-NAME.ppm, described (size, SHA-256, share of black
 * pixels) and, with same_as, compared with an earlier capture, polling
 * until they are equal (poll) and timing how long after the last wake the
 * display came back (metrics.display_back_ms). */
#ifndef KTB_STEP_SCREEN_H
#define KTB_STEP_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "step.h"

extern const struct step_ops step_screen_ops;

/* Captures the display now into artifacts/screen-NAME.ppm and sets *desc
 * to its description (file, width, height, sha256, black), as the screen
 * step's output has them: the suspend step's asleep_screen. 0, or -errno
 * (-EREMOTEIO: QMP refused, *err says why; -EINVAL, -E2BIG, -ENODATA:
 * not a PPM QEMU would write). */
int screen_capture(struct run_ctx *c, const char *name, json_t **desc, char **err,
		   int64_t deadline);

/* How the display came back after a wake (awake_screen): captures taken
 * back to back from the wake until one equals the earlier capture. */
struct screen_back {
	unsigned captures;
	int64_t span_ms;       /* the wake → the reply to the last capture */
	int64_t back_ms;       /* the wake → the reply to the first equal capture; -1: none */
	int64_t resolution_ms; /* it came back within this before back_ms: from the request
				* of the capture before (or the wake) */
	uint64_t differ;       /* the last capture's differing pixels; UINT64_MAX: other size */
	unsigned width, height, ref_width, ref_height;
	bool blank_ref; /* the earlier capture is all black: nothing to compare */
};

/* Captures into artifacts/screen-NAME.ppm back to back, from since (loop
 * time of the wake) until the display equals the earlier capture same_as or
 * within_ms have passed; *b says how it went. 0, or -errno as
 * screen_capture (the earlier capture unreadable: its errno). */
int screen_back(struct run_ctx *c, const char *name, const char *same_as, int64_t since,
		int64_t within_ms, struct screen_back *b, char **err, int64_t deadline);
/* The step data's account of *b: same_as, captures, interval_ms (the
 * average time a capture took), back_ms and resolution_ms (null when it
 * never came back), differ_pixels (null: other size). */
json_t *screen_back_json(const struct screen_back *b, const char *same_as);
/* NULL when the display came back, else why not, "awake_screen: ...". */
char *screen_back_verdict(const struct screen_back *b, const char *same_as);

#endif
