/* --kernel DIR: a kernel build tree's bzImage, and its modules laid out as
 * an installed modules tree for the image builder. */
#include "image_tree.h"
#include "kconfig.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the files beside the .ko files that depmod and modprobe read */
static const char *const tree_lists[] = { "modules.order", "modules.builtin",
					  "modules.builtin.modinfo", NULL };

bool image_tree_is(const char *path)
{
	struct stat st;

	return path && !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool tree_has(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool ok = !access(p, F_OK);

	free(p);
	return ok;
}

int image_tree_kernel(const char *dir, char **kernel, char *err, size_t errlen)
{
	char *k = xasprintf("%s/%s", dir, IMAGE_TREE_KERNEL);

	*kernel = NULL;
	if (!access(k, R_OK)) {
		*kernel = k;
		return 0;
	}
	free(k);
	if (!tree_has(dir, "Makefile") && !tree_has(dir, ".config"))
		return say_err(err, errlen, -EINVAL,
			       "--kernel %s: a folder, but not a kernel build tree (no Makefile, "
			       ".config or %s in it); give a kernel tree, a bzImage or vmlinux "
			       "file, or a Debian ABI such as 6.1.0-57",
			       dir, IMAGE_TREE_KERNEL);
	return say_err(err, errlen, -EINVAL,
		       "--kernel %s: no %s in %s; build it with `make bzImage` (and `make "
		       "modules` for =m options); a tree is taken as an x86 one",
		       dir, IMAGE_TREE_KERNEL, dir);
}

bool image_tree_is_list(const char *file)
{
	for (size_t i = 0; tree_lists[i]; i++)
		if (!strcmp(file, tree_lists[i]))
			return true;
	return false;
}

static void push(struct image_tree_modules *m, char *file)
{
	m->files = xrealloc(m->files, (m->count + 1) * sizeof(char *));
	m->files[m->count++] = file;
}

/* One modules.order line: "x.ko" as it is, "x.o" (6.2 on) as "x.ko". A path
 * out of the tree would be staged out of the stage: refused. */
static int order_entry(const char *dir, const char *line, struct image_tree_modules *m, char *err,
		       size_t errlen)
{
	size_t n = strlen(line);
	char *rel, *path;
	int ret = 0;

	if (line[0] == '/' || strstr(line, ".."))
		return say_err(err, errlen, -EINVAL,
			       "%s/modules.order: entry %s is not in the tree", dir, line);
	rel = n > 2 && !strcmp(line + n - 2, ".o") ? xasprintf("%.*sko", (int)n - 1, line)
						   : xstrdup(line);
	path = xasprintf("%s/%s", dir, rel);
	if (access(path, R_OK)) {
		ret = say_err(err, errlen, -EINVAL,
			      "--kernel %s: modules.order names %s, which is not built; run `make "
			      "modules` in the tree (or give --modules)",
			      dir, rel);
		free(rel);
	} else {
		push(m, rel);
	}
	free(path);
	return ret;
}

static int read_order(const char *dir, struct image_tree_modules *m, char *err, size_t errlen)
{
	char *path = xasprintf("%s/modules.order", dir), *text = read_file(path, NULL);
	char *line, *save = NULL;
	int ret = 0;

	if (!text && errno != ENOENT)
		ret = say_err(err, errlen, -EIO, "%s: %s", path, strerror(errno));
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		line = str_trim(line, " \t\r");
		if (*line)
			ret = order_entry(dir, line, m, err, errlen);
	}
	free(text);
	free(path);
	return ret;
}

/* The release the tree's bzImage names (what the guest's uname -r says),
 * else the one its build wrote; depmod wants one that starts "N.N". */
static char *tree_release(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, IMAGE_TREE_KERNEL), *text = NULL, *rel;
	char *out = kconfig_kernel_release(path);

	if (!out) {
		free(path);
		path = xasprintf("%s/include/config/kernel.release", dir);
		text = read_file(path, NULL);
		rel = text ? str_trim(text, " \t\r\n") : NULL;
		out = rel && *rel ? xstrdup(rel) : NULL;
	}
	if (!out || strchr(out, '/') || !strcmp(out, ".") || !strcmp(out, "..")) {
		free(out);
		out = xstrdup(IMAGE_TREE_RELEASE);
	}
	free(text);
	free(path);
	return out;
}

int image_tree_modules(const char *dir, struct image_tree_modules *m, char *err, size_t errlen)
{
	int ret;

	memset(m, 0, sizeof(*m));
	ret = read_order(dir, m, err, errlen);
	if (ret) {
		image_tree_modules_free(m);
		return ret;
	}
	m->ko_count = m->count;
	for (size_t i = 0; tree_lists[i]; i++)
		if (tree_has(dir, tree_lists[i]))
			push(m, xstrdup(tree_lists[i]));
	/* neither list: a tree that says nothing of its modules, as before */
	if (!tree_has(dir, "modules.order") && !tree_has(dir, "modules.builtin")) {
		image_tree_modules_free(m);
		return 0;
	}
	m->release = tree_release(dir);
	return 0;
}

void image_tree_modules_free(struct image_tree_modules *m)
{
	for (size_t i = 0; i < m->count; i++)
		free(m->files[i]);
	free(m->files);
	free(m->release);
	memset(m, 0, sizeof(*m));
}

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	ssize_t n = 0;
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, ret = 0;

	if (in >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (in < 0 || out < 0)
		ret = -errno;
	while (!ret && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = -errno;
		else if (write(out, buf, (size_t)n) != n)
			ret = -EIO;
	}
	if (out >= 0 && close(out) && !ret)
		ret = -errno;
	if (in >= 0)
		close(in);
	return ret;
}

/* A hard link costs nothing, and neither depmod nor the builder writes into
 * a module; across file systems a copy. A link in the tree is followed: the
 * builder takes what the stage holds for the module itself. */
static int place(const char *dir, const char *rel, const char *dst, char *err, size_t errlen)
{
	char *src = xasprintf("%s/%s", dir, rel), *parent = xstrdup(dst);
	int ret;

	*strrchr(parent, '/') = '\0';
	ret = mkdir_p(parent, 0755);
	if (!ret && linkat(AT_FDCWD, src, AT_FDCWD, dst, AT_SYMLINK_FOLLOW))
		ret = copy_file(src, dst);
	if (ret)
		say_err(err, errlen, -EIO, "staging %s as %s: %s", src, dst, strerror(-ret));
	free(parent);
	free(src);
	return ret ? -EIO : 0;
}

/* modules.order as modules_install writes it: "kernel/" before each .ko */
static int write_order(const struct image_tree_modules *m, const char *reldir, char *err,
		       size_t errlen)
{
	char *text, *path = xasprintf("%s/modules.order", reldir);
	size_t i, len = 0;
	int ret;

	for (i = 0; i < m->ko_count; i++)
		len += strlen("kernel/\n") + strlen(m->files[i]);
	text = xcalloc(len + 1, 1);
	for (i = 0, len = 0; i < m->ko_count; i++)
		len += (size_t)sprintf(text + len, "kernel/%s\n", m->files[i]);
	ret = write_file(path, text, len);
	if (ret)
		ret = say_err(err, errlen, -EIO, "%s: %s", path, strerror(-ret));
	free(path);
	free(text);
	return ret;
}

int image_tree_stage(const char *dir, const struct image_tree_modules *m, const char *stage,
		     char **reldir, char *err, size_t errlen)
{
	char *rd = xasprintf("%s/lib/modules/%s", stage, m->release), *dst;
	int ret = mkdir_p(rd, 0755);
	size_t i;

	if (ret)
		ret = say_err(err, errlen, -EIO, "%s: %s", rd, strerror(-ret));
	for (i = 0; i < m->count && !ret; i++) {
		if (!strcmp(m->files[i], "modules.order"))
			continue;
		dst = i < m->ko_count ? xasprintf("%s/kernel/%s", rd, m->files[i])
				      : xasprintf("%s/%s", rd, m->files[i]);
		ret = place(dir, m->files[i], dst, err, errlen);
		free(dst);
	}
	if (!ret)
		ret = write_order(m, rd, err, errlen);
	if (ret) {
		free(rd);
		rd = NULL;
	}
	*reldir = rd;
	return ret;
}
