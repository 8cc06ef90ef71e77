/* Where the testbed's sources and built guest binaries are (compiled-in,
 * overridable with KTB_SOURCE_DIR / KTB_GUEST_DIR), and its cache. The
 * bottom of the image layer: the recipe loader and the builder both ask. */
#ifndef KTB_IMAGE_DIRS_H
#define KTB_IMAGE_DIRS_H

const char *ktb_source_dir(void);
const char *ktb_guest_dir(void);
/* $XDG_CACHE_HOME/ktb (or ~/.cache/ktb), created on demand. Static buffer. */
const char *ktb_cache_dir(void);

#endif
