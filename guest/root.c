/* The guest's userspace on a root file system the host gives it: the host's
 * own root shared over 9p (ktb.root=TAG), or a Debian root built for the run
 * on a read-only ext4 disk (ktb.root=disk:SERIAL, the disk with that
 * serial): mounted read-only, under an overlay whose writable layer is guest
 * memory, then made the root. The image stays under /run/ktb/image: its modules
 * replace the root's /lib/modules, its guest programs are bound into
 * /usr/bin, the kernel's modprobe and the power commands are its busybox,
 * and the agent runs from it with its own libraries (root_agent_argv). */
#include "root.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROOT_DIR "/ktb-root"
#define ROOT_LOWER ROOT_DIR "/lower"
#define ROOT_RW ROOT_DIR "/rw"
#define ROOT_NEW ROOT_DIR "/new"
#define ROOT_DISK_PREFIX "disk:"
#define ROOT_WAIT_MS 5000
#define ROOT_POLL_MS 100
/* cache=loose: the share is read-only and the guest's own writes go to the
 * overlay, so the client may keep what it read; programs start many times
 * faster than with every read a round trip to QEMU. */
#define ROOT_9P_OPTS "trans=virtio,version=9p2000.L,msize=262144,cache=loose"

static int64_t root_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int root_fail(char *why, size_t len, const char *what, const char *path)
{
	int err = errno;

	snprintf(why, len, "%s %s: %s", what, path, strerror(err));
	return -(err ? err : EIO);
}

void root_mkdir_p(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

/* The virtio channel is there once 9pnet_virtio has probed the device,
 * which may trail the module's load a little: ENOENT is retried. */
static int root_mount_share(const char *tag, char *why, size_t len)
{
	int64_t deadline = root_now_ms() + ROOT_WAIT_MS;
	struct timespec poll = { 0, ROOT_POLL_MS * 1000000L };

	for (;;) {
		if (!mount(tag, ROOT_LOWER, "9p", MS_RDONLY | MS_NODEV, ROOT_9P_OPTS))
			return 0;
		if (errno != ENOENT || root_now_ms() >= deadline)
			return root_fail(why, len, "mount 9p share", tag);
		nanosleep(&poll, NULL);
	}
}

/* The block device whose serial is serial ("vdb"), once virtio_blk has
 * probed it: /sys/block/NAME/serial. */
static bool root_find_disk(const char *serial, char *name, size_t len)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de;
	bool found = false;
	DIR *dir = opendir("/sys/block");
	ssize_t n;
	int fd;

	while (dir && !found && (de = readdir(dir))) {
		if (strncmp(de->d_name, "vd", 2))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/serial", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		buf[strcspn(buf, "\n ")] = '\0';
		if (!strcmp(buf, serial)) {
			snprintf(name, len, "%s", de->d_name);
			found = true;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

/* The root's disk: ext4, read-only (no journal to replay; the image has
 * none). The disk may trail virtio_blk's load a little, as the 9p channel. */
static int root_mount_disk(const char *serial, char *why, size_t len)
{
	int64_t deadline = root_now_ms() + ROOT_WAIT_MS;
	struct timespec poll = { 0, ROOT_POLL_MS * 1000000L };
	char name[NAME_MAX + 1], dev[NAME_MAX + 8];

	while (!root_find_disk(serial, name, sizeof(name))) {
		if (root_now_ms() >= deadline) {
			snprintf(why, len, "no disk with serial %s in /sys/block (virtio_blk)",
				 serial);
			return -ENODEV;
		}
		nanosleep(&poll, NULL);
	}
	snprintf(dev, sizeof(dev), "/dev/%s", name);
	if (mount(dev, ROOT_LOWER, "ext4", MS_RDONLY | MS_NODEV, NULL))
		return root_fail(why, len, "mount ext4", dev);
	return 0;
}

/* The kernel's own file systems and the guest's /run and /tmp move into the
 * new root, with what is mounted below them (devpts, debugfs, ...). */
static int root_move_mounts(char *why, size_t len)
{
	static const char *const moved[] = { "/proc", "/sys", "/dev", "/run", "/tmp" };
	char dst[PATH_MAX];

	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		snprintf(dst, sizeof(dst), ROOT_NEW "%s", moved[i]);
		root_mkdir_p(dst);
		if (mount(moved[i], dst, NULL, MS_MOVE, NULL))
			return root_fail(why, len, "move", moved[i]);
	}
	return 0;
}

/* Binds the image's file src onto dst in the new root: dst becomes a plain
 * file first (unlinked if it was a link, which the bind would follow). */
static int root_bind_file(const char *src, const char *dst, char *why, size_t len)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), ROOT_NEW "%s", dst);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	root_mkdir_p(dir);
	if (!lstat(path, &st) && !S_ISREG(st.st_mode))
		unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	if (fd < 0)
		return root_fail(why, len, "create", path);
	close(fd);
	if (mount(src, path, NULL, MS_BIND, NULL))
		return root_fail(why, len, "bind", src);
	return 0;
}

static int root_bind_dir(const char *src, const char *dst, char *why, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), ROOT_NEW "%s", dst);
	root_mkdir_p(path);
	if (mount(src, path, NULL, MS_BIND | MS_REC, NULL))
		return root_fail(why, len, "bind", src);
	return 0;
}

/* What the image brings into the new root. */
static int root_bring_image(char *why, size_t len)
{
	static const char *const power[] = { "/sbin/poweroff", "/sbin/reboot", "/sbin/halt" };
	char src[PATH_MAX], dst[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int ret;

	root_mkdir_p(ROOT_NEW ROOT_IMAGE);
	if (mount("/", ROOT_NEW ROOT_IMAGE, NULL, MS_BIND, NULL))
		return root_fail(why, len, "bind the image at", ROOT_IMAGE);
	/* the guest kernel's modules, never the root's */
	if (!stat("/lib/modules", &st) &&
	    (ret = root_bind_dir("/lib/modules", "/lib/modules", why, len)))
		return ret;
	if (!stat(ROOT_KSELFTEST, &st) &&
	    (ret = root_bind_dir(ROOT_KSELFTEST, ROOT_KSELFTEST, why, len)))
		return ret;
	dir = opendir("/usr/bin");
	while (dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, "ktb-", 4))
			continue;
		snprintf(src, sizeof(src), "/usr/bin/%s", de->d_name);
		snprintf(dst, sizeof(dst), "/usr/bin/%s", de->d_name);
		if ((ret = root_bind_file(src, dst, why, len))) {
			closedir(dir);
			return ret;
		}
	}
	if (dir)
		closedir(dir);
	/* busybox's, which signal init; a root's own would ask systemd */
	for (size_t i = 0; i < sizeof(power) / sizeof(power[0]); i++)
		if ((ret = root_bind_file("/bin/busybox", power[i], why, len)))
			return ret;
	return 0;
}

int root_switch(const char *tag, char *why, size_t len)
{
	int fd, ret;

	why[0] = '\0';
	root_mkdir_p(ROOT_LOWER);
	root_mkdir_p(ROOT_RW);
	root_mkdir_p(ROOT_NEW);
	ret = strncmp(tag, ROOT_DISK_PREFIX, strlen(ROOT_DISK_PREFIX))
		  ? root_mount_share(tag, why, len)
		  : root_mount_disk(tag + strlen(ROOT_DISK_PREFIX), why, len);
	if (ret)
		return ret;
	if (mount("tmpfs", ROOT_RW, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"))
		return root_fail(why, len, "mount tmpfs on", ROOT_RW);
	root_mkdir_p(ROOT_RW "/upper");
	root_mkdir_p(ROOT_RW "/work");
	if (mount("overlay", ROOT_NEW, "overlay", 0,
		  "lowerdir=" ROOT_LOWER ",upperdir=" ROOT_RW "/upper,workdir=" ROOT_RW "/work"))
		return root_fail(why, len, "mount overlay on", ROOT_NEW);
	if ((ret = root_move_mounts(why, len)) || (ret = root_bring_image(why, len)))
		return ret;
	if (chdir(ROOT_NEW) || mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") || chdir("/"))
		return root_fail(why, len, "switch to", ROOT_NEW);
	/* the kernel's own requests (a file system, a dm target) load the
	 * image's modules with the image's modprobe */
	if (symlink(ROOT_IMAGE "/bin/busybox", ROOT_MODPROBE) && errno != EEXIST)
		snprintf(why, len, "link %s: %s", ROOT_MODPROBE, strerror(errno));
	fd = open("/proc/sys/kernel/modprobe", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, ROOT_MODPROBE "\n", strlen(ROOT_MODPROBE "\n")) < 0)
			snprintf(why, len, "/proc/sys/kernel/modprobe: %s", strerror(errno));
		close(fd);
	}
	return 0;
}

int root_agent_argv(const char *agent, char **argv, size_t max)
{
	static char loader[PATH_MAX], prog[PATH_MAX];
	static const char *const libs = ROOT_IMAGE "/lib/x86_64-linux-gnu:" ROOT_IMAGE
						   "/usr/lib/x86_64-linux-gnu:" ROOT_IMAGE "/lib64";
	size_t n = 0;

	snprintf(loader, sizeof(loader), ROOT_IMAGE "%s", ROOT_LOADER);
	snprintf(prog, sizeof(prog), ROOT_IMAGE "%s", agent);
	if (access(loader, X_OK) || access(prog, R_OK))
		return -ENOENT;
	while (argv[n])
		n++;
	if (n + 4 > max)
		return -E2BIG;
	/* argv[0] becomes the program's path, after the loader and its path;
	 * argv[1..n] (the NULL last) follow it */
	memmove(argv + 4, argv + 1, n * sizeof(*argv));
	argv[0] = loader;
	argv[1] = (char *)"--library-path";
	argv[2] = (char *)libs;
	argv[3] = prog;
	return 0;
}
