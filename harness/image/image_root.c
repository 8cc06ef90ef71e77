#include "image_root.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_dirs.h"
#include "spawn.h"
#include "util.h"

/* The last non-empty line of text (the script's stdout: the folder). */
static void last_line(const char *text, char *out, size_t len)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

/* Runs the script argv[0] with argv, adding "--log FILE" in the two slots
 * argv leaves free after its last argument: the last line of its stdout, a
 * path, into *path; else err says why (the last line it logged). 0, -EINVAL
 * (its exit 2: the recipe is wrong, not the host) or -EIO. */
static int image_root_script(char **argv, size_t argc, char **path, char *err, size_t errlen)
{
	char *log = tmp_template("ktb-root-log"), *text, msg[1024];
	struct spawn_buf out = { 0 };
	struct child_process cp = { 0 };
	int fd = mkstemp(log), r;

	*path = NULL;
	if (fd >= 0) {
		close(fd);
		argv[argc++] = "--log";
		argv[argc++] = log;
	}
	argv[argc] = NULL;
	cp.argv = argv;
	cp.in.how = SPAWN_NULL;
	r = pipe_command(&cp, NULL, 0, &out, NULL, -1);
	if (r == 0 && out.buf) {
		last_line(out.buf, msg, sizeof(msg));
		if (msg[0] == '/')
			*path = xstrdup(msg);
	}
	if (!*path) {
		text = fd >= 0 ? read_file(log, NULL) : NULL;
		last_line(text ? text : "", msg, sizeof(msg));
		free(text);
		if (r < 0)
			snprintf(err, errlen, "%s: %s", argv[0], strerror(-r));
		else if (msg[0])
			snprintf(err, errlen, "%s", msg);
		else
			snprintf(err, errlen, "%s exited with %d", argv[0], r);
		r = r == 2 ? -EINVAL : -EIO;
	} else {
		r = 0;
	}
	if (fd >= 0)
		unlink(log);
	free(log);
	free(out.buf);
	return r;
}

int image_debian_root(char *const *packages, unsigned n, char **dir, char *err, size_t errlen)
{
	const char *cache = ktb_cache_dir();
	char *script, *debs, **argv;
	struct stat st;
	size_t k = 0;
	int r;

	*dir = NULL;
	if (!cache) {
		snprintf(err, errlen, "cannot create the cache folder (XDG_CACHE_HOME, HOME)");
		return -EIO;
	}
	script = xasprintf("%s/images/debian-root.sh", ktb_source_dir());
	debs = xasprintf("%s/debs", cache);
	argv = xcalloc(2 * n + 10, sizeof(*argv));
	argv[k++] = script;
	argv[k++] = "--cache";
	argv[k++] = (char *)cache;
	if (!stat(debs, &st) && S_ISDIR(st.st_mode)) {
		argv[k++] = "--deb-cache";
		argv[k++] = debs;
	}
	for (unsigned i = 0; i < n; i++) {
		argv[k++] = "--package";
		argv[k++] = packages[i];
	}
	r = image_root_script(argv, k, dir, err, errlen);
	free(argv);
	free(debs);
	free(script);
	return r;
}

int image_root_disk(const char *dir, char **disk, char *err, size_t errlen)
{
	char *script = xasprintf("%s/images/root-disk.sh", ktb_source_dir());
	char *argv[5] = { script, (char *)dir };
	int r = image_root_script(argv, 2, disk, err, errlen);

	free(script);
	return r;
}
