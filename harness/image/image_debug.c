/* ktb image build --debug: a Debian kernel's debug files beside its image
 * (images/debug-files.sh does the fetching and unpacking). */
#include "image_debug.h"
#include "image.h"
#include "image_dirs.h"
#include "spawn.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define DEBUG_TMP ".debug-tmp-"

char *image_debug_package(const struct image *img)
{
	const char *ver = img->kernel_deb ? strchr(img->kernel_deb, '=') : NULL;

	return ver ? xasprintf("linux-image-%s-dbg=%s", img->release, ver + 1) : NULL;
}

/* Folders of fetches killed midway; whoever holds the lock is the only one
 * fetching, so every one is stale. */
static void remove_stale(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, NULL);

	for (int i = 0; i < n; i++) {
		if (!strncmp(ents[i]->d_name, DEBUG_TMP, strlen(DEBUG_TMP))) {
			char *p = xasprintf("%s/%s", dir, ents[i]->d_name);

			rm_rf(p);
			free(p);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* The script's own words for what went wrong: its last "error:" line. */
static void script_error(const char *log, char *msg, size_t len)
{
	char *text = read_file(log, NULL), *p, *last = NULL;

	for (p = text; p && (p = strstr(p, "debug-files: error: ")); p++)
		last = p + strlen("debug-files: error: ");
	if (last)
		snprintf(msg, len, "%.*s", (int)strcspn(last, "\n"), last);
	else
		snprintf(msg, len, "images/debug-files.sh failed");
	free(text);
}

/* images/debug-files.sh into tmp: its output in tmp/debug.log, or on the
 * terminal with verbose. */
static int fetch(const struct image *img, const char *tmp, bool verbose, char *err, size_t errlen)
{
	char *script = xasprintf("%s/images/debug-files.sh", ktb_source_dir());
	char *pkg = image_debug_package(img), *mods = xasprintf("%s/modules.txt", img->dir);
	char *log = xasprintf("%s/debug.log", tmp), *kept = NULL, msg[1024];
	const char *cache = ktb_cache_dir();
	char *argv[] = {
		"bash",	     script,
		"--out",     (char *)tmp,		   /* renamed into place when done */
		"--cache",   (char *)(cache ? cache : ""), /* a .deb in its debs/ serves */
		"--package", pkg,
		"--release", img->release,
		"--modules", mods, /* the modules the image holds */
		NULL,
	};
	struct child_process cp = { .argv = argv, .in.how = SPAWN_NULL };
	int fd = -1, ret;

	if (!verbose) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			ret = say_err(err, errlen, -EIO, "%s: %s", log, strerror(errno));
			goto out;
		}
		cp.out = (struct spawn_stream){ .how = SPAWN_FD, .fd = fd };
		cp.err.how = SPAWN_STDOUT;
	}
	ret = run_command(&cp, -1);
	if (ret == 0)
		goto out;
	if (ret < 0) {
		ret = say_err(err, errlen, -EIO, "cannot run %s: %s", script, strerror(-ret));
		goto out;
	}
	if (verbose) {
		ret = say_err(err, errlen, -EIO,
			      "fetching the debug files failed (exit %d), see "
			      "the output above",
			      ret);
		goto out;
	}
	script_error(log, msg, sizeof(msg));
	kept = xasprintf("%s/debug.failed.log", img->dir);
	rename(log, kept);
	ret = say_err(err, errlen, -EIO, "%s (log: %s)", msg, kept);
out:
	if (fd >= 0)
		close(fd);
	free(kept);
	free(log);
	free(mods);
	free(pkg);
	free(script);
	return ret;
}

int image_debug_ensure(struct image *img, bool verbose, char *err, size_t errlen)
{
	char *tmp = NULL, *dst = NULL, *failed = NULL;
	int fd, ret;

	image_debug_find(img);
	if (img->debug_vmlinux)
		return 0;
	if (!img->kernel_deb)
		return say_err(err, errlen, -EINVAL,
			       "the image's kernel is not a Debian package: there is no debug "
			       "package to fetch");
	/* the image's own folder as the lock (two fetches never download twice);
	 * no O_CLOEXEC: the script holds it too until its last process is gone */
	fd = open(img->dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		ret = say_err(err, errlen, -EIO, "%s: %s", img->dir, strerror(errno));
		goto out;
	}
	image_debug_find(img); /* fetched while we waited? */
	ret = 0;
	if (img->debug_vmlinux)
		goto out;
	remove_stale(img->dir);
	tmp = xasprintf("%s/" DEBUG_TMP "%d", img->dir, (int)getpid());
	dst = xasprintf("%s/" IMAGE_DEBUG_DIR, img->dir);
	if (mkdir_p(tmp, 0755)) {
		ret = say_err(err, errlen, -EIO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	ret = fetch(img, tmp, verbose, err, errlen);
	if (!ret && rename(tmp, dst))
		ret = say_err(err, errlen, -EIO, "rename %s: %s", dst, strerror(errno));
	if (!ret) {
		failed = xasprintf("%s/debug.failed.log", img->dir);
		unlink(failed);
		image_debug_find(img);
	}
out:
	if (tmp)
		rm_rf(tmp);
	if (fd >= 0)
		close(fd);
	free(failed);
	free(dst);
	free(tmp);
	return ret;
}
