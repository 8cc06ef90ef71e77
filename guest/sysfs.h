/* Reading the small text files of sysfs and procfs, and the formats found in
 * them (CPU lists like "0-3,8"). Paths are built by the caller. */
#ifndef KTB_GUEST_SYSFS_H
#define KTB_GUEST_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* Reads a file into buf (NUL-terminated, trailing whitespace removed).
 * Returns the length or -errno. */
int sysfs_read(const char *path, char *buf, size_t len);

/* Reads a whole file of procfs (several reads: /proc/meminfo, vmstat)
 * into buf, NUL-terminated, cut at len - 1 bytes. 0 or -errno. */
int sysfs_slurp(const char *path, char *buf, size_t len);

/* Reads a file holding one unsigned number. 0 or -errno. */
int sysfs_read_u64(const char *path, uint64_t *v);

/* Writes a string to a file. 0 or -errno. */
int sysfs_write(const char *path, const char *s);

/* Removes leading and trailing whitespace (and NULs padding) in place. */
char *sysfs_trim(char *s);

/* Parses a CPU list ("0-3,8,10-11") into cpus[0..max). Returns how many
 * were found or -EINVAL; an empty list gives 0. */
int sysfs_parse_cpulist(const char *s, unsigned *cpus, int max);

#endif
