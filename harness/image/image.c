/* image_ensure: resolve a recipe's inputs (package versions, host programs,
 * guest binaries), hash them into a key, and run images/build-image.sh only
 * when $CACHE/images/<key>/ does not hold a finished build yet. */
#include "image.h"
#include "image_dirs.h"
#include "image_recipe.h"
#include "kconfig.h"
#include "sha256.h"
#include "spawn.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define APT_LISTS "/var/lib/apt/lists"

/* --- hashing -------------------------------------------------------------- */

/* Each field goes in as tag, length, bytes: no two different input sets can
 * run together into the same byte stream. */
static void hash_field(struct sha256_ctx *s, const char *tag, const void *data, size_t len)
{
	uint64_t n = len;

	sha256_feed(s, tag, strlen(tag) + 1);
	sha256_feed(s, &n, sizeof(n));
	sha256_feed(s, data, len);
}

static void hash_str(struct sha256_ctx *s, const char *tag, const char *str)
{
	hash_field(s, tag, str ? str : "", str ? strlen(str) : 0);
}

static int hash_file(struct sha256_ctx *s, const char *tag, const char *path)
{
	struct sha256_ctx f;
	uint8_t buf[65536], d[SHA256_DIGEST_SIZE];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	sha256_init(&f);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return (int)n;
		}
		sha256_feed(&f, buf, (size_t)n);
	}
	close(fd);
	sha256_digest(&f, SHA256_DIGEST_SIZE, d);
	hash_field(s, tag, d, sizeof(d));
	return 0;
}

/* Name, size and mtime of PATH: stands in for its bytes where reading them
 * each time would cost too much (a modules tree, apt's package lists). */
static int hash_stat(struct sha256_ctx *s, const char *tag, const char *path, const char *name,
		     mode_t *mode)
{
	struct stat st;
	char *rec;

	/* a tree's links are hashed as links; a program is what it points to */
	if (mode ? lstat(path, &st) : stat(path, &st))
		return -errno;
	rec = xasprintf("%s %o %lld %lld.%09ld", name, st.st_mode, (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	hash_str(s, tag, rec);
	free(rec);
	if (mode)
		*mode = st.st_mode;
	return 0;
}

/* Every entry under DIR (below it too with RECURSE) in sorted order, so the
 * listing hashes the same on any file system. */
static int hash_tree(struct sha256_ctx *s, const char *tag, const char *dir, const char *rel,
		     bool recurse)
{
	struct dirent **ents;
	int i, n, ret = 0;
	mode_t mode;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		char *path = xasprintf("%s/%s", dir, nm);
		char *sub = xasprintf("%s/%s", rel, nm);

		if (strcmp(nm, ".") && strcmp(nm, "..") && !ret) {
			ret = hash_stat(s, tag, path, sub, &mode);
			if (!ret && recurse && S_ISDIR(mode))
				ret = hash_tree(s, tag, path, sub, true);
		}
		free(path);
		free(sub);
		free(ents[i]);
	}
	free(ents);
	return ret;
}

static int hash_kernel(struct sha256_ctx *s, const struct image_inputs *in, char *err,
		       size_t errlen)
{
	int ret;

	hash_str(s, "abi", in->kernel_abi);
	if (in->kernel_path) {
		ret = hash_file(s, "kernel-file", in->kernel_path);
		if (ret)
			return say_err(err, errlen, -EIO, "kernel %s: %s", in->kernel_path,
				       strerror(-ret));
	}
	/* the builder copies it into the image: a changed config is a new image */
	if (in->kernel_config) {
		ret = hash_file(s, "kernel-config", in->kernel_config);
		if (ret)
			return say_err(err, errlen, -EIO, "kernel config %s: %s", in->kernel_config,
				       strerror(-ret));
	}
	/* a tree's modules as a modules dir's: name, mode, size and mtime; its
	 * lists at the top (modules.order, ...) by their bytes, since every
	 * make writes them anew */
	for (size_t i = 0; in->tree_dir && i < in->tree_files_count; i++) {
		const char *f = in->tree_files[i];
		char *path = xasprintf("%s/%s", in->tree_dir, f);

		ret = image_tree_is_list(f) ? hash_file(s, f, path)
					    : hash_stat(s, "tree-module", path, f, NULL);
		free(path);
		if (ret)
			return say_err(err, errlen, -EIO, "module %s/%s: %s", in->tree_dir,
				       in->tree_files[i], strerror(-ret));
	}
	if (in->modules_dir) {
		ret = hash_tree(s, "modules-dir", in->modules_dir, ".", true);
		if (ret)
			return say_err(err, errlen, -EIO, "modules %s: %s", in->modules_dir,
				       strerror(-ret));
	}
	return 0;
}

static int hash_programs(struct sha256_ctx *s, const struct image_inputs *in, char *err,
			 size_t errlen)
{
	size_t i;
	int ret;

	for (i = 0; image_guest_files[i]; i++) {
		char *path = xasprintf("%s/%s", in->guest_dir, image_guest_files[i]);

		ret = hash_file(s, image_guest_files[i], path);
		free(path);
		if (ret)
			return say_err(err, errlen, -EIO,
				       "guest binary %s/%s: %s; build the guest binaries first "
				       "(cmake --build build)",
				       in->guest_dir, image_guest_files[i], strerror(-ret));
	}
	/* host programs change with their packages: stat is enough */
	for (i = 0; i < in->binaries_count; i++) {
		ret = hash_stat(s, "binary", in->binaries[i], in->binaries[i], NULL);
		if (ret)
			return say_err(err, errlen, -EIO, "binary %s: %s", in->binaries[i],
				       strerror(-ret));
	}
	/* 138 MB: its package's update changes its size and mtime */
	if (in->kselftest_src) {
		ret = hash_stat(s, "kselftest-src", in->kselftest_src, in->kselftest_src, NULL);
		if (ret)
			return say_err(err, errlen, -EIO, "kselftest source %s: %s",
				       in->kselftest_src, strerror(-ret));
	}
	return 0;
}

int image_key(const struct image_inputs *in, char key[IMAGE_KEY_LEN + 1], char *err, size_t errlen)
{
	struct sha256_ctx s;
	size_t i;
	int ret;

	sha256_init(&s);
	hash_str(&s, "ktb-image", "1");
	ret = hash_file(&s, "recipe", in->recipe_path);
	if (ret)
		return say_err(err, errlen, -EIO, "%s: %s", in->recipe_path, strerror(-ret));
	ret = hash_file(&s, "builder", in->builder_path);
	if (ret)
		return say_err(err, errlen, -EIO, "%s: %s", in->builder_path, strerror(-ret));
	/* Debian's package versions name their contents: no need to read a .deb */
	for (i = 0; i < in->debs_count; i++)
		hash_str(&s, "deb", in->debs[i]);
	ret = hash_kernel(&s, in, err, errlen);
	if (!ret)
		ret = hash_programs(&s, in, err, errlen);
	if (ret)
		return ret;
	sha256_hex(&s, key);
	return 0;
}

/* --- running programs ------------------------------------------------------ */

/* Run ARGV; with OUT, collect its stdout (stderr is dropped), else send both
 * to LOGFD (or leave them on the terminal when LOGFD < 0). Exit status (127:
 * it could not start, as a shell says). */
static int run_argv(char *const argv[], char **out, int logfd)
{
	/* A killed ktb stops its build. It stays in ktb's process group, so a
	 * Ctrl-C before any scenario reaches the whole build. */
	struct child_process cp = {
		.argv = argv,
		.in.how = SPAWN_NULL,
		.out = { .how = logfd >= 0 ? SPAWN_FD : SPAWN_INHERIT, .fd = logfd },
		.err.how = out		? SPAWN_NULL
			   : logfd >= 0 ? SPAWN_STDOUT
					: SPAWN_INHERIT,
	};
	struct spawn_buf buf = { 0 };
	int r;

	if (!out)
		return (r = run_command(&cp, -1)) < 0 ? 127 : r;
	r = pipe_command(&cp, NULL, 0, &buf, NULL, -1);
	free(*out);
	*out = buf.buf;
	return r < 0 ? 127 : r;
}

/* --- package versions ------------------------------------------------------ */

/* apt-cache costs ~0.6 s per call where apt keeps no binary cache (Debian's
 * container images): its answers are kept in $CACHE/apt-versions until the
 * package lists change. */
static void apt_lists_fingerprint(char fp[SHA256_HEX_LEN + 1])
{
	struct sha256_ctx s;

	sha256_init(&s);
	if (hash_tree(&s, "lists", APT_LISTS, ".", false))
		hash_str(&s, "lists", "none");
	hash_tree(&s, "prefs", "/etc/apt/preferences.d", ".", false);
	sha256_hex(&s, fp);
}

/* Fill in VERS[i] for PKGS[i] from TEXT: lines "package version". */
static void versions_from_memo(const char *text, char **pkgs, char **vers, size_t n)
{
	const char *line;
	size_t i, pl;

	for (line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		for (i = 0; i < n; i++) {
			pl = strlen(pkgs[i]);
			if (!vers[i] && !strncmp(line, pkgs[i], pl) && line[pl] == ' ')
				vers[i] = strndup(line + pl + 1, strcspn(line + pl + 1, "\n"));
		}
	}
}

/* "pkg:\n  Installed: ...\n  Candidate: 6.1.192-3\n" for each package */
static void versions_from_policy(const char *text, char **pkgs, char **vers, size_t n)
{
	const char *line, *cur = NULL;
	size_t i, curlen = 0;

	for (line = text; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");

		if (line[0] != ' ' && len && line[len - 1] == ':') {
			cur = line;
			curlen = len - 1;
		} else if (cur && !strncmp(line, "  Candidate: ", 13) &&
			   strncmp(line + 13, "(none)", 6)) {
			for (i = 0; i < n; i++)
				if (!vers[i] && strlen(pkgs[i]) == curlen &&
				    !strncmp(cur, pkgs[i], curlen))
					vers[i] = strndup(line + 13, len - 13);
		}
	}
}

static void versions_from_apt(char **pkgs, char **vers, size_t n)
{
	char **argv = xcalloc(n + 3, sizeof(*argv));
	char *out = NULL;
	size_t i;

	argv[0] = "apt-cache";
	argv[1] = "policy";
	for (i = 0; i < n; i++)
		argv[i + 2] = pkgs[i];
	if (run_argv(argv, &out, -1) == 0)
		versions_from_policy(out, pkgs, vers, n);
	free(out);
	free(argv);
}

/* Offline, or a package apt no longer lists: what was downloaded before.
 * apt-get writes the epoch's ':' as "%3a" in file names. */
static char *version_from_debs(const char *debdir, const char *pkg)
{
	struct dirent **ents;
	char *ver = NULL, *p;
	size_t pl = strlen(pkg);
	int i, n = scandir(debdir, &ents, NULL, alphasort);

	for (i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name, *end = strrchr(nm, '_');

		if (!strncmp(nm, pkg, pl) && nm[pl] == '_' && end > nm + pl + 1 &&
		    strstr(end, ".deb")) {
			free(ver);
			ver = strndup(nm + pl + 1, (size_t)(end - nm - pl - 1));
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	while (ver && (p = strstr(ver, "%3a")))
		memmove(p + 1, p + 3, strlen(p + 3) + 1), *p = ':';
	return ver;
}

static bool line_names_one_of(const char *line, char **pkgs, size_t n)
{
	size_t i, pl;

	for (i = 0; i < n; i++) {
		pl = strlen(pkgs[i]);
		if (!strncmp(line, pkgs[i], pl) && line[pl] == ' ')
			return true;
	}
	return false;
}

/* Rewrite the memo: these packages first, then what OLD knew of others
 * (OLD is NULL when the lists changed since it was written). */
static void versions_save(const char *memo, const char *header, const char *old, char **pkgs,
			  char **vers, size_t n)
{
	char *text = xstrdup(header), *tmp = xasprintf("%s.%d", memo, getpid()), *t;
	const char *line = old ? strchr(old, '\n') : NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		t = xasprintf("%s%s %s\n", text, pkgs[i], vers[i]);
		free(text);
		text = t;
	}
	for (; line && line[1]; line = strchr(line + 1, '\n')) {
		if (line_names_one_of(line + 1, pkgs, n))
			continue;
		t = xasprintf("%s%.*s\n", text, (int)strcspn(line + 1, "\n"), line + 1);
		free(text);
		text = t;
	}
	if (!write_file(tmp, text, strlen(text)))
		rename(tmp, memo);
	unlink(tmp);
	free(text);
	free(tmp);
}

/* VERS[i] = the version of PKGS[i] to build with: apt's candidate, else the
 * newest .deb already in the cache. 0 or -EIO. */
static int deb_versions(const char *cache, char **pkgs, char **vers, size_t n, char *err,
			size_t errlen)
{
	char *memo = xasprintf("%s/apt-versions", cache), *debdir = xasprintf("%s/debs", cache);
	char fp[SHA256_HEX_LEN + 1], *text = read_file(memo, NULL), *want;
	size_t i, missing = 0;
	int ret = 0;

	apt_lists_fingerprint(fp);
	want = xasprintf("lists %s\n", fp);
	if (text && strncmp(text, want, strlen(want))) {
		free(text);
		text = NULL;
	}
	if (text)
		versions_from_memo(text, pkgs, vers, n);
	for (i = 0; i < n; i++)
		missing += !vers[i];
	if (missing)
		versions_from_apt(pkgs, vers, n);
	for (i = 0; i < n && !ret; i++) {
		if (!vers[i])
			vers[i] = version_from_debs(debdir, pkgs[i]);
		if (!vers[i])
			ret =
			    say_err(err, errlen, -EIO,
				    "package %s: apt knows no version of it and none is cached in "
				    "%s; run 'apt-get update' (or check the name)",
				    pkgs[i], debdir);
	}
	if (!ret && missing)
		versions_save(memo, want, text, pkgs, vers, n);
	free(want);
	free(text);
	free(debdir);
	free(memo);
	return ret;
}

/* --- one build ----------------------------------------------------------- */

struct build {
	const struct image_opts *o;
	struct image_recipe *recipe;
	char *recipe_path;
	char *builder;
	const char *cache;
	char *pkgs[64]; /* Debian packages, the kernel's first */
	char *vers[64];
	char *debs[64]; /* "pkg=version" */
	size_t npkgs;
	char **bins;			 /* host programs, absolute */
	char *kconfig;			 /* the config beside the user's kernel, or NULL */
	struct image_tree_modules tmods; /* --kernel DIR's modules, staged to build */
	const char *modules_dir;	 /* --modules, or the staged tree modules */
	char *kselftest_src;		 /* /usr/src/SOURCE.tar.xz, or NULL */
	bool kernel_deb;
	char key[IMAGE_KEY_LEN + 1];
};

/* "6.1.0-47" or "6.1.0-47-amd64" -> the package Debian builds it into */
static char *abi_package(const char *abi)
{
	size_t n = strlen(abi);

	if (n > 6 && !strcmp(abi + n - 6, "-amd64"))
		n -= 6;
	return xasprintf("linux-image-%.*s-amd64-unsigned", (int)n, abi);
}

static int build_packages(struct build *b, char *err, size_t errlen)
{
	const struct image_opts *o = b->o;
	struct image_recipe *r = b->recipe;
	unsigned i;

	if (o->kernel_path && o->kernel_abi)
		return say_err(err, errlen, -EINVAL,
			       "--kernel ABI and --kernel PATH exclude each other");
	if (o->modules_dir && !o->kernel_path)
		return say_err(err, errlen, -EINVAL, "--modules needs --kernel PATH");
	if (o->kernel_tree && !o->kernel_path)
		return say_err(err, errlen, -EINVAL, "a kernel tree needs its kernel_path");
	b->kernel_deb = !o->kernel_path;
	b->modules_dir = o->modules_dir;
	if (o->kernel_abi)
		b->pkgs[b->npkgs++] = abi_package(o->kernel_abi);
	else if (!o->kernel_path && r->kernel)
		b->pkgs[b->npkgs++] = xstrdup(r->kernel->package);
	else if (!o->kernel_path)
		return say_err(err, errlen, -EINVAL,
			       "%s: no kernel (add kernel: {package: ...} or pass --kernel)",
			       b->recipe_path);
	if (r->packages_count > 63 - b->npkgs)
		return say_err(err, errlen, -EINVAL, "%s: too many packages", b->recipe_path);
	for (i = 0; i < r->packages_count; i++)
		b->pkgs[b->npkgs++] = xstrdup(r->packages[i]);
	return 0;
}

/* NAME on $PATH, then in the sbin folders an ordinary user's PATH lacks. */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs = xasprintf("%s:/usr/local/sbin:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	char *save = NULL, *d, *found = NULL;

	if (strchr(name, '/')) {
		free(dirs);
		return access(name, X_OK) ? NULL : xstrdup(name);
	}
	for (d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *d ? d : ".", name);

		if (!access(p, X_OK) && d[0] == '/')
			found = p;
		else
			free(p);
	}
	free(dirs);
	return found;
}

/* The selftests come from the tarball a Debian linux-source-X package
 * installs; the host needs the package (./bootstrap installs it). */
static int build_kselftest_src(struct build *b, char *err, size_t errlen)
{
	const struct image_recipe_kselftest *ks = b->recipe->kselftest;

	if (!ks)
		return 0;
	b->kselftest_src = xasprintf("/usr/src/%s.tar.xz", ks->source);
	if (access(b->kselftest_src, R_OK))
		return say_err(err, errlen, -EIO,
			       "%s: kselftest source %s: %s; as root: apt-get install %s",
			       b->recipe_path, b->kselftest_src, strerror(errno), ks->source);
	return 0;
}

static int build_inputs(struct build *b, struct image_inputs *in, char *err, size_t errlen)
{
	struct image_recipe *r = b->recipe;
	size_t i;
	int ret;

	b->bins = xcalloc(r->binaries_count + 1, sizeof(char *));
	for (i = 0; i < r->binaries_count; i++) {
		b->bins[i] = find_program(r->binaries[i]);
		if (!b->bins[i])
			return say_err(err, errlen, -EIO,
				       "%s: binary %s is not installed on this host",
				       b->recipe_path, r->binaries[i]);
	}
	ret = build_kselftest_src(b, err, errlen);
	if (!ret)
		ret = deb_versions(b->cache, b->pkgs, b->vers, b->npkgs, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < b->npkgs; i++)
		b->debs[i] = xasprintf("%s=%s", b->pkgs[i], b->vers[i]);
	/* found now, kept in the image: the runner then reads only the cache */
	if (b->o->kernel_path)
		kconfig_find_beside(b->o->kernel_path, &b->kconfig, NULL, 0);
	/* --modules wins over the tree's own */
	if (b->o->kernel_tree && !b->o->modules_dir) {
		ret = image_tree_modules(b->o->kernel_tree, &b->tmods, err, errlen);
		if (ret)
			return ret;
	}
	*in = (struct image_inputs){
		.recipe_path = b->recipe_path,
		.builder_path = b->builder,
		.guest_dir = ktb_guest_dir(),
		.kernel_abi = b->o->kernel_abi,
		.kernel_path = b->o->kernel_path,
		.modules_dir = b->o->modules_dir,
		.kernel_config = b->kconfig,
		.tree_dir = b->tmods.count ? b->o->kernel_tree : NULL,
		.tree_files = b->tmods.files,
		.tree_files_count = b->tmods.count,
		.debs = b->debs,
		.debs_count = b->npkgs,
		.binaries = b->bins,
		.binaries_count = r->binaries_count,
		.kselftest_src = b->kselftest_src,
	};
	return 0;
}

static void build_free(struct build *b)
{
	size_t i;

	for (i = 0; i < b->npkgs; i++) {
		free(b->pkgs[i]);
		free(b->vers[i]);
		free(b->debs[i]);
	}
	for (i = 0; b->bins && b->bins[i]; i++)
		free(b->bins[i]);
	free(b->bins);
	free(b->kconfig);
	free(b->kselftest_src);
	image_tree_modules_free(&b->tmods);
	free(b->builder);
	free(b->recipe_path);
	image_recipe_free(b->recipe);
}

struct argv {
	char **v;
	size_t n;
};

static void argv_add(struct argv *a, const char *opt, const char *val)
{
	a->v = xrealloc(a->v, (a->n + 3) * sizeof(char *));
	a->v[a->n++] = xstrdup(opt);
	if (val)
		a->v[a->n++] = xstrdup(val);
	a->v[a->n] = NULL;
}

static void argv_free(struct argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

static void builder_argv(const struct build *b, const char *tmp, struct argv *a)
{
	const struct image_recipe *r = b->recipe;
	size_t i, first_pkg = b->kernel_deb ? 1 : 0;

	argv_add(a, "bash", b->builder);
	argv_add(a, "--out", tmp);
	argv_add(a, "--cache", b->cache);
	argv_add(a, "--guest-dir", ktb_guest_dir());
	argv_add(a, "--name", r->name);
	argv_add(a, "--key", b->key);
	if (b->kernel_deb)
		argv_add(a, "--kernel-deb", b->debs[0]);
	if (b->o->kernel_path)
		argv_add(a, "--kernel-file", b->o->kernel_path);
	if (b->modules_dir)
		argv_add(a, "--modules-dir", b->modules_dir);
	if (b->kconfig)
		argv_add(a, "--kernel-config", b->kconfig);
	/* a tree's config decides what it has; the runner skips by it */
	if (b->tmods.count)
		argv_add(a, "--missing-module", "skip");
	for (i = 0; i < r->modules_count; i++)
		argv_add(a, "--module", r->modules[i]);
	for (i = 0; i < r->binaries_count; i++)
		argv_add(a, "--binary", b->bins[i]);
	for (i = first_pkg; i < b->npkgs; i++)
		argv_add(a, "--package", b->debs[i]);
	if (r->kselftest) {
		argv_add(a, "--kselftest-source", r->kselftest->source);
		for (i = 0; i < r->kselftest->targets_count; i++)
			argv_add(a, "--kselftest", r->kselftest->targets[i]);
	}
}

/* The builder's own words for what went wrong: its last "error:" line. */
static void builder_error(const char *log, char *msg, size_t len)
{
	char *text = read_file(log, NULL), *p, *last = NULL;

	for (p = text; p && (p = strstr(p, "build-image: error: ")); p++)
		last = p + strlen("build-image: error: ");
	if (last)
		snprintf(msg, len, "%.*s", (int)strcspn(last, "\n"), last);
	else
		snprintf(msg, len, "the builder failed");
	free(text);
}

/* Run the builder into TMP; its output goes to TMP/build.log unless
 * verbose. On failure the log is kept as images/KEY.failed.log. */
static int build_run(const struct build *b, const char *tmp, char *err, size_t errlen)
{
	struct argv a = { 0 };
	char *log = xasprintf("%s/build.log", tmp), *kept = NULL, msg[512];
	int fd = -1, ret;

	builder_argv(b, tmp, &a);
	if (!b->o->verbose) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			ret = say_err(err, errlen, -EIO, "%s: %s", log, strerror(errno));
			goto out;
		}
	}
	ret = run_argv(a.v, NULL, fd);
	if (ret == 0)
		goto out;
	if (b->o->verbose) {
		ret = say_err(err, errlen, -EIO,
			      "image build failed (exit %d), see the output above", ret);
		goto out;
	}
	builder_error(log, msg, sizeof(msg));
	kept = xasprintf("%s/images/%s.failed.log", b->cache, b->key);
	rename(log, kept);
	ret = say_err(err, errlen, -EIO, "image build failed: %s (log: %s)", msg, kept);
out:
	if (fd >= 0)
		close(fd);
	argv_free(&a);
	free(kept);
	free(log);
	return ret;
}

void image_debug_find(struct image *img)
{
	char *v = xasprintf("%s/" IMAGE_DEBUG_DIR "/vmlinux", img->dir);

	free(img->debug_vmlinux);
	free(img->debug_modules);
	img->debug_vmlinux = img->debug_modules = NULL;
	/* the folder is renamed into place whole: its vmlinux means done */
	if (access(v, R_OK)) {
		free(v);
		return;
	}
	img->debug_vmlinux = v;
	img->debug_modules = xasprintf("%s/" IMAGE_DEBUG_DIR "/modules", img->dir);
}

/* A folder without manifest.json is an unfinished build. */
static int image_load(const char *dir, const char *key, struct image *img, char *err, size_t errlen)
{
	char *path = xasprintf("%s/manifest.json", dir);
	const char *rel, *ird;
	json_t *vml = NULL, *bz = NULL;
	json_error_t jerr;
	json_t *m = json_load_file(path, 0, &jerr);
	int ret = 0;

	if (!m) {
		ret = access(path, F_OK)
			  ? -ENOENT
			  : say_err(err, errlen, -EIO, "%s:%d: %s", path, jerr.line, jerr.text);
		goto out;
	}
	if (json_unpack_ex(m, &jerr, 0, "{s:s, s?o, s?o, s:s}", "release", &rel, "vmlinux", &vml,
			   "bzimage", &bz, "initrd", &ird)) {
		ret = say_err(err, errlen, -EIO, "%s: %s", path, jerr.text);
		goto out;
	}
	img->dir = xstrdup(dir);
	/* null: this kernel has no PVH entry, or no bzImage (a bare vmlinux) */
	if (json_is_string(vml))
		img->vmlinux = xasprintf("%s/%s", dir, json_string_value(vml));
	if (json_is_string(bz))
		img->bzimage = xasprintf("%s/%s", dir, json_string_value(bz));
	img->initrd = xasprintf("%s/%s", dir, ird);
	img->release = xstrdup(rel);
	img->key = xstrdup(key);
	image_debug_find(img);
out:
	json_decref(m);
	free(path);
	return ret;
}

/* images/NAME.latest -> KEY, for people looking for "the" default image:
 * only a build with the recipe's own kernel (not --kernel, not another
 * ABI's as bisect builds) */
static void image_mark_latest(const char *images, const char *name, const char *key)
{
	char *link = xasprintf("%s/%s.latest", images, name);
	char *tmp = xasprintf("%s.%d", link, getpid());

	unlink(tmp);
	if (!symlink(key, tmp) && rename(tmp, link))
		unlink(tmp);
	free(tmp);
	free(link);
}

/* Builds killed midway leave .tmp-* folders; whoever holds the lock is the
 * only builder, so every one of them is stale. */
static void remove_stale(const char *images)
{
	struct dirent **ents;
	int i, n = scandir(images, &ents, NULL, NULL);

	for (i = 0; i < n; i++) {
		if (!strncmp(ents[i]->d_name, ".tmp-", 5)) {
			char *p = xasprintf("%s/%s", images, ents[i]->d_name);

			rm_rf(p);
			free(p);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* --kernel DIR's modules as an installed tree in STAGE, with depmod run on
 * it so that the builder takes it in place rather than copying it again.
 * Staged only here, when a build is due: a cached image costs no staging. */
static int stage_tree_modules(struct build *b, const char *stage, char **reldir, char *err,
			      size_t errlen)
{
	char *depmod = NULL, why[512] = "";
	int ret;

	if (!b->tmods.count)
		return 0;
	ret = image_tree_stage(b->o->kernel_tree, &b->tmods, stage, reldir, err, errlen);
	if (!ret && !(depmod = find_program("depmod")))
		ret = say_err(err, errlen, -EIO,
			      "depmod (kmod) is not installed; the modules of %s need it",
			      b->o->kernel_tree);
	if (!ret) {
		char *argv[] = { depmod, "-b", (char *)stage, b->tmods.release, NULL };

		if (spawn_tool(argv, why, sizeof(why), NULL))
			ret = say_err(err, errlen, -EIO, "depmod on the modules of %s: %s",
				      b->o->kernel_tree, why);
	}
	if (!ret)
		b->modules_dir = *reldir;
	free(depmod);
	return ret;
}

/* Build into a temporary folder beside the final one and rename it into
 * place: an interrupted build never looks finished. The lock keeps two
 * workers from building the same thing at once. */
static int image_build(struct build *b, const char *dir, struct image *img, char *err,
		       size_t errlen)
{
	char *images = xasprintf("%s/images", b->cache), *lock = xasprintf("%s/.lock", images);
	char *tmp = xasprintf("%s/.tmp-%s-%d", images, b->key, getpid());
	char *stage = xasprintf("%s/.tmp-modules-%s-%d", images, b->key, getpid()), *reldir = NULL;
	int fd = -1, ret;

	if (!mkdir_p(images, 0755))
		/* no O_CLOEXEC: the builder holds the lock too, until its very
		 * last process is gone, even if we are killed first */
		fd = open(lock, O_RDWR | O_CREAT, 0644);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		ret = say_err(err, errlen, -EIO, "%s: %s", lock, strerror(errno));
		goto out;
	}
	ret = image_load(dir, b->key, img, err, errlen); /* built while we waited? */
	if (ret != -ENOENT)
		goto out;
	remove_stale(images);
	if (mkdir_p(tmp, 0755)) {
		ret = say_err(err, errlen, -EIO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	ret = stage_tree_modules(b, stage, &reldir, err, errlen);
	if (!ret)
		ret = build_run(b, tmp, err, errlen);
	if (!ret && rename(tmp, dir))
		ret = say_err(err, errlen, -EIO, "rename %s: %s", dir, strerror(errno));
	if (!ret)
		ret = image_load(dir, b->key, img, err, errlen);
	if (!ret && !b->o->kernel_path && !b->o->kernel_abi)
		image_mark_latest(images, b->recipe->name, b->key);
	if (ret == -ENOENT)
		ret = say_err(err, errlen, -EIO, "%s: the builder wrote no manifest.json", dir);
out:
	rm_rf(tmp);
	rm_rf(stage);
	b->modules_dir = b->o->modules_dir;
	if (fd >= 0)
		close(fd);
	free(reldir);
	free(stage);
	free(tmp);
	free(lock);
	free(images);
	return ret;
}

int image_ensure(const struct image_opts *o, struct image *out, char *err, size_t errlen)
{
	struct build b = { .o = o };
	struct image_inputs in;
	char *dir = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	b.cache = ktb_cache_dir();
	if (!b.cache)
		return say_err(err, errlen, -EIO,
			       "cannot create the cache folder (XDG_CACHE_HOME, HOME)");
	b.recipe_path = image_recipe_path(o->recipe);
	b.builder = xasprintf("%s/images/build-image.sh", ktb_source_dir());
	ret = image_recipe_load(b.recipe_path, &b.recipe, err, errlen);
	if (ret) {
		ret = ret == -EINVAL ? ret : -EINVAL;
		goto out;
	}
	ret = build_packages(&b, err, errlen);
	if (!ret)
		ret = build_inputs(&b, &in, err, errlen);
	if (!ret)
		ret = image_key(&in, b.key, err, errlen);
	if (ret)
		goto out;
	dir = xasprintf("%s/images/%s", b.cache, b.key);
	ret = image_load(dir, b.key, out, err, errlen);
	if (ret == -ENOENT)
		ret = image_build(&b, dir, out, err, errlen);
	/* what --debug fetches the debug package by */
	if (!ret && b.kernel_deb)
		out->kernel_deb = xstrdup(b.debs[0]);
out:
	free(dir);
	build_free(&b);
	return ret;
}

void image_free(struct image *img)
{
	if (!img)
		return;
	free(img->dir);
	free(img->vmlinux);
	free(img->bzimage);
	free(img->direct);
	free(img->initrd);
	free(img->release);
	free(img->key);
	free(img->kernel_deb);
	free(img->debug_vmlinux);
	free(img->debug_modules);
	memset(img, 0, sizeof(*img));
}
