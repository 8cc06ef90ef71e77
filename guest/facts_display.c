/* The machine's display adapters as the guest's PCI bus shows them: every
 * device of class 03 (display controller), so that the machine step can
 * tell a declared display from none, and one model from another. */
#include "facts_display.h"

#include "sysfs.h"
#include "unread.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISPLAY_MAX 8

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* "0x1234" etc. read from the device's directory; 0 and a note when
 * unreadable (every PCI device has all three). */
static unsigned long pci_attr(const char *root, const char *dev, const char *attr)
{
	char path[PATH_MAX], buf[32];
	int n;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/%s", root, dev, attr);
	n = sysfs_read(path, buf, sizeof(buf));
	if (n > 0)
		return strtoul(buf, NULL, 16);
	unread_note("display", root, path, n < 0 ? n : -ENODATA);
	return 0;
}

int facts_display(const char *root, struct json_out *j)
{
	char path[PATH_MAX], found[DISPLAY_MAX][32];
	struct dirent *de;
	size_t n = 0;
	DIR *dir;
	int err;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", root);
	dir = opendir(path);
	err = dir ? 0 : -errno;
	/* no PCI bus at all is "none"; an unreadable one is not */
	if (!dir && !unread_absent(root, err)) {
		unread_note("display", root, path, err);
		json_kv_str(j, "pci", NULL);
		return -EIO;
	}
	while (dir && n < DISPLAY_MAX && (de = readdir(dir))) {
		unsigned long class;

		if (de->d_name[0] == '.')
			continue;
		class = pci_attr(root, de->d_name, "class");
		if (class >> 16 != 0x03)
			continue;
		snprintf(found[n++], sizeof(found[0]), "%04lx:%04lx %06lx",
			 pci_attr(root, de->d_name, "vendor"), pci_attr(root, de->d_name, "device"),
			 class);
	}
	if (dir)
		closedir(dir);
	qsort(found, n, sizeof(found[0]), cmp_str);
	json_key(j, "pci");
	json_arr_begin(j);
	for (size_t i = 0; i < n; i++)
		json_str(j, found[i]);
	json_arr_end(j);
	return 0;
}
