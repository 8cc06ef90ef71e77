/* What ktb-probe could not read, by the machine part it would have shown.
 * "Absent" is only what a mounted sysfs says the kernel does not have (no
 * such file while /sys/kernel is there); a fact whose file or folder could
 * not be read otherwise is named here, and `ktb-probe machine` lists it
 * under "unread", so that the machine step ends in error rather than
 * taking "no display" or "no S3" from a guest it could not read. */
#ifndef KTB_GUEST_UNREAD_H
#define KTB_GUEST_UNREAD_H

#include <stdbool.h>

#include "json_out.h"

/* True when err (-errno) from opening a path under root means the kernel
 * simply has no such thing: -ENOENT with sysfs mounted at root/sys. */
bool unread_absent(const char *root, int err);

/* Notes that part ("display", "balloon", ...) could not be read at path
 * (root/...; root is left out of the note): err is -errno. The first note
 * of a part is kept. */
void unread_note(const char *part, const char *root, const char *path, int err);

/* The note for part ("/sys/power/mem_sleep: Permission denied"), or NULL. */
const char *unread_get(const char *part);

/* True when something was noted. */
bool unread_any(void);

/* Writes "unread": {part: note, ...} (an empty object when all was read)
 * and forgets the notes. */
void unread_write(struct json_out *j);
void unread_clear(void);

#endif
