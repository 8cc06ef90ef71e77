/* The screen step: the display captured from the host (QMP screendump) to
 * artifacts/screen-NAME.ppm, described (size, SHA-256, share of black
 * pixels) and, with same_as, compared with an earlier capture, polling
 * until they are equal (poll) and timing how long after the last wake the
 * display came back (metrics.display_back_ms). */
#ifndef KTB_STEP_SCREEN_H
#define KTB_STEP_SCREEN_H

#include "step.h"

extern const struct step_ops step_screen_ops;

#endif
