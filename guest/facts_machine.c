#include "facts_machine.h"

#include "facts_display.h"
#include "facts.h"
#include "sysfs.h"
#include "unread.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VIRTIO_ID_BALLOON 5
#define VIRTIO_BALLOON_F_REPORTING 5

/* The virtio device of type 5, if any: its directory name in dev. No
 * virtio bus is no balloon; a list or a device type that cannot be read is
 * noted, since the balloon may be the one not seen. */
static bool balloon_find(const char *root, char *dev, size_t len)
{
	char path[PATH_MAX], id[32];
	struct dirent *de;
	bool found = false;
	DIR *dir;
	int err;

	snprintf(path, sizeof(path), "%s/sys/bus/virtio/devices", root);
	dir = opendir(path);
	err = dir ? 0 : -errno;
	if (!dir && !unread_absent(root, err))
		unread_note("balloon", root, path, err);
	while (dir && !found && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/sys/bus/virtio/devices/%s/device", root,
			 de->d_name);
		err = sysfs_read(path, id, sizeof(id));
		if (err <= 0)
			unread_note("balloon", root, path, err < 0 ? err : -ENODATA);
		else if (strtol(id, NULL, 0) == VIRTIO_ID_BALLOON) {
			snprintf(dev, len, "%s", de->d_name);
			found = true;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

int facts_balloon(const char *root, struct json_out *j)
{
	char dev[256], path[PATH_MAX], link[PATH_MAX], feat[512];
	const char *slash;
	bool device = balloon_find(root, dev, sizeof(dev)), driver = false, fpr = false;
	ssize_t n = -1;

	if (device) {
		snprintf(path, sizeof(path), "%s/sys/bus/virtio/devices/%s/driver", root, dev);
		n = readlink(path, link, sizeof(link) - 1);
	}
	if (n > 0) {
		link[n] = '\0';
		slash = strrchr(link, '/');
		driver = !strcmp(slash ? slash + 1 : link, "virtio_balloon");
	} else if (device && errno != ENOENT) { /* ENOENT: no driver bound */
		unread_note("balloon", root, path, -errno);
	}
	/* features: one '0' or '1' per bit, bit 0 first */
	if (driver) {
		snprintf(path, sizeof(path), "%s/sys/bus/virtio/devices/%s/features", root, dev);
		n = sysfs_read(path, feat, sizeof(feat));
		if (n <= VIRTIO_BALLOON_F_REPORTING)
			unread_note("balloon", root, path, n < 0 ? (int)n : -ENODATA);
		fpr = n > VIRTIO_BALLOON_F_REPORTING && feat[VIRTIO_BALLOON_F_REPORTING] == '1';
	}
	json_kv_bool(j, "device", device);
	json_kv_bool(j, "driver", driver);
	json_kv_bool(j, "free_page_reporting", fpr);
	return 0;
}

/* Is word (bare or [bracketed]) one of the words of /sys/power/file? A
 * kernel without the file offers nothing; an unreadable one is noted. */
static bool power_offers(const char *root, const char *file, const char *word)
{
	char path[PATH_MAX], buf[512], *w, *save = NULL;
	size_t wl = strlen(word);
	int err;

	snprintf(path, sizeof(path), "%s/sys/power/%s", root, file);
	err = sysfs_read(path, buf, sizeof(buf));
	if (err < 0 && !unread_absent(root, err))
		unread_note("sleep", root, path, err);
	if (err < 0)
		return false;
	for (w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (*w == '[')
			w++;
		if (!strncmp(w, word, wl) && (!w[wl] || w[wl] == ']'))
			return true;
	}
	return false;
}

int facts_sleep_offered(const char *root, struct json_out *j)
{
	int ret = facts_sleep(root, j);

	json_kv_bool(j, "s3", power_offers(root, "mem_sleep", "deep"));
	json_kv_bool(j, "s4", power_offers(root, "disk", "platform"));
	return ret;
}

/* The host folders mounted in the guest: each 9p (or virtiofs) mount of
 * /proc/mounts by its tag, which is the mount's source. Writes the "shares"
 * member itself. */
int facts_shares(const char *root, struct json_out *j)
{
	char path[PATH_MAX], line[1024], tag[128], dir[512], type[32], opts[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/mounts", root);
	f = fopen(path, "re");
	if (!f)
		unread_note("shares", root, path, -errno);
	json_key(j, "shares");
	json_arr_begin(j);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %511s %31s %511s", tag, dir, type, opts) != 4 ||
		    (strcmp(type, "9p") && strcmp(type, "virtiofs")))
			continue;
		json_obj_begin(j);
		json_kv_str(j, "tag", tag);
		json_kv_str(j, "path", dir);
		json_kv_str(j, "fstype", type);
		json_kv_bool(j, "readonly",
			     !strncmp(opts, "ro", 2) && (!opts[2] || opts[2] == ','));
		json_obj_end(j);
	}
	json_arr_end(j);
	if (f)
		fclose(f);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(const char *root, struct json_out *j);
} machine_sections[] = {
	{ "kernel", facts_kernel },	  { "cpus", facts_cpus },
	{ "memory", facts_memory },	  { "numa", facts_numa },
	{ "sleep", facts_sleep_offered }, { "balloon", facts_balloon },
	{ "display", facts_display },
};

int facts_machine(const char *root, struct json_out *j)
{
	int ret = 0, r;

	json_obj_begin(j);
	for (size_t i = 0; i < sizeof(machine_sections) / sizeof(machine_sections[0]); i++) {
		json_key(j, machine_sections[i].name);
		json_obj_begin(j);
		r = machine_sections[i].fn(root, j);
		json_obj_end(j);
		if (!ret)
			ret = r; /* the first section's failure */
	}
	/* facts_disks writes the "disks" member itself */
	r = facts_disks(root, j);
	facts_shares(root, j);
	if (!ret && unread_any())
		ret = -EIO;
	unread_write(j);
	json_obj_end(j);
	return ret ? ret : r;
}
