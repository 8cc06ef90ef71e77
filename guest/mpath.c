#include "mpath.h"

#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mpath_copy(char *dst, const char *src, size_t len)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int mpath_cmp(const void *a, const void *b)
{
	const struct mpath_path *x = a, *y = b;

	return x->path != y->path ? x->path - y->path : strcmp(x->name, y->name);
}

int mpath_scsi_target(const char *root, const char *name)
{
	char path[PATH_MAX], real[PATH_MAX], *base;
	unsigned h, ch, t, l;

	snprintf(path, sizeof(path), "%s/sys/block/%s/device", root, name);
	if (!realpath(path, real))
		return -1;
	base = strrchr(real, '/');
	return base && sscanf(base + 1, "%u:%u:%u:%u", &h, &ch, &t, &l) == 4 ? (int)t : -1;
}

static void mpath_dm_path(const char *root, const char *name, const char *status,
			  struct mpath_path *p)
{
	char path[PATH_MAX];

	mpath_copy(p->name, name, sizeof(p->name));
	snprintf(path, sizeof(path), "%s/sys/block/%s/dev", root, name);
	if (sysfs_read(path, p->majmin, sizeof(p->majmin)) < 0)
		p->majmin[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/block/%s/device/state", root, name);
	if (sysfs_read(path, p->state, sizeof(p->state)) < 0)
		strcpy(p->state, "unknown");
	p->path = mpath_scsi_target(root, name);
	p->dm = status ? mpath_dm_state(status, p->majmin) : 0;
	/* dm's own word is needed: a running SCSI device dm still holds failed
	 * is not a path back, and without `dmsetup status` nobody knows */
	p->active = !strcmp(p->state, "running") && p->dm == 'A';
}

/* A request-based dm device is a blk-mq queue and has an "mq" directory;
 * a bio-based one has none. Any other answer than "no such file" leaves the
 * mode unknown (written null), never read as bio. */
static int mpath_read_dm(const char *root, const struct disk_info *d, const char *status,
			 struct mpath_info *mp)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/block/%s/dm/name", root, d->name);
	if (sysfs_read(path, mp->name, sizeof(mp->name)) < 0)
		return -ENOENT;
	strcpy(mp->kind, "dm");
	snprintf(path, sizeof(path), "%s/sys/block/%s/mq", root, d->name);
	if (!access(path, F_OK))
		strcpy(mp->mode, "rq");
	else if (errno == ENOENT)
		strcpy(mp->mode, "bio");
	snprintf(path, sizeof(path), "%s/sys/block/%s/slaves", root, d->name);
	dir = opendir(path);
	while (dir && (de = readdir(dir)) && mp->npaths < MPATH_MAX) {
		if (de->d_name[0] != '.')
			mpath_dm_path(root, de->d_name, status, &mp->paths[mp->npaths++]);
	}
	if (dir)
		closedir(dir);
	return 0;
}

static void mpath_nvme_path(const char *root, const char *name, struct mpath_path *p)
{
	char path[PATH_MAX];
	unsigned sub, ctrl;
	uint64_t cntlid;

	mpath_copy(p->name, name, sizeof(p->name));
	snprintf(path, sizeof(path), "%s/sys/block/%s/dev", root, name);
	if (sysfs_read(path, p->majmin, sizeof(p->majmin)) < 0)
		p->majmin[0] = '\0';
	p->path = -1;
	strcpy(p->state, "unknown");
	if (sscanf(name, "nvme%uc%un", &sub, &ctrl) == 2) {
		snprintf(path, sizeof(path), "%s/sys/class/nvme/nvme%u/state", root, ctrl);
		if (sysfs_read(path, p->state, sizeof(p->state)) < 0)
			strcpy(p->state, "unknown");
		snprintf(path, sizeof(path), "%s/sys/class/nvme/nvme%u/cntlid", root, ctrl);
		if (!sysfs_read_u64(path, &cntlid))
			p->path = (int)cntlid;
	}
	p->active = !strcmp(p->state, "live");
}

/* A native NVMe head "nvmeXnN" has its paths beside it in /sys/block as
 * hidden "nvmeXcYnN" disks, Y the controller instance. */
static bool mpath_nvme_is_path(const char *head, const char *name)
{
	unsigned x, n, px, py, pn;
	char tail;

	return sscanf(head, "nvme%un%u%c", &x, &n, &tail) == 2 &&
	       sscanf(name, "nvme%uc%un%u%c", &px, &py, &pn, &tail) == 3 && px == x && pn == n;
}

static int mpath_read_nvme(const char *root, const struct disk_info *d, struct mpath_info *mp)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/sys/block", root);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && mp->npaths < MPATH_MAX) {
		if (mpath_nvme_is_path(d->name, de->d_name))
			mpath_nvme_path(root, de->d_name, &mp->paths[mp->npaths++]);
	}
	closedir(dir);
	if (!mp->npaths)
		return -ENOENT;
	strcpy(mp->kind, "nvme");
	strcpy(mp->mode, "native");
	mpath_copy(mp->name, d->name, sizeof(mp->name));
	return 0;
}

int mpath_read(const char *root, const struct disk_info *d, const char *dm_status,
	       struct mpath_info *mp)
{
	memset(mp, 0, sizeof(*mp));
	if (!strncmp(d->name, "dm-", 3))
		mpath_read_dm(root, d, dm_status, mp);
	else if (!strncmp(d->name, "nvme", 4))
		mpath_read_nvme(root, d, mp);
	qsort(mp->paths, mp->npaths, sizeof(mp->paths[0]), mpath_cmp);
	for (int i = 0; i < mp->npaths; i++)
		mp->nactive += mp->paths[i].active;
	return 0;
}

/* "START LEN multipath NFEATURES FEATURE... " */
const char *mpath_dm_no_path(const char *table)
{
	const char *p = table ? strstr(table, " multipath ") : NULL;
	char *end;
	long n;

	if (!p)
		return NULL;
	p += strlen(" multipath ");
	n = strtol(p, &end, 10);
	if (end == p || n < 0)
		return NULL;
	for (p = end; n > 0; n--) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "queue_if_no_path", 16) && (p[16] == ' ' || !p[16]))
			return "queue";
		p += strcspn(p, " ");
	}
	return "fail";
}

/* Status lines read "... 8:0 A 0 0 1 8:16 F 1 0 1": a device, then its state. */
char mpath_dm_state(const char *status, const char *majmin)
{
	size_t n = strlen(majmin);
	const char *p = status;

	if (!n)
		return 0;
	while ((p = strstr(p, majmin))) {
		bool starts = p == status || p[-1] == ' ';

		if (starts && p[n] == ' ' && (p[n + 1] == 'A' || p[n + 1] == 'F') &&
		    (p[n + 2] == ' ' || !p[n + 2]))
			return p[n + 1];
		p += n;
	}
	return 0;
}

int mpath_dm_table(char *buf, size_t len, uint64_t sectors, bool bio, bool queue,
		   const char *const *majmin, int n)
{
	size_t off;
	int w;

	/* features: queue_if_no_path is one word, queue_mode bio two */
	w = snprintf(buf, len, "0 %llu multipath %d%s%s 0 1 1 round-robin 0 %d 1",
		     (unsigned long long)sectors, (queue ? 1 : 0) + (bio ? 2 : 0),
		     queue ? " queue_if_no_path" : "", bio ? " queue_mode bio" : "", n);
	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	off = (size_t)w;
	for (int i = 0; i < n; i++) {
		w = snprintf(buf + off, len - off, " %s 1", majmin[i]);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
	}
	return 0;
}
