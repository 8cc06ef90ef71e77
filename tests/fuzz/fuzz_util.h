/* What the fuzz targets share: cutting one input into parts, a scratch
 * folder for parsers that read files, and the check that ends a run on a
 * broken promise (abort, which libFuzzer reports as a crash with the
 * input). */
#ifndef KTB_FUZZ_UTIL_H
#define KTB_FUZZ_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An input made of several parts (files of one merge, the turns of a
 * peer): its bytes cut at each 0x1e, ASCII's record separator, which RFC
 * 7464 puts between JSON texts too. */
#define FUZZ_SEP 0x1e

struct fuzz_parts {
	const uint8_t *data;
	size_t len, pos;
	bool done;
};

static inline void fuzz_parts_init(struct fuzz_parts *p, const uint8_t *data, size_t len)
{
	*p = (struct fuzz_parts){ .data = data, .len = len };
}

/* The next part (possibly empty); false once all were given. */
static inline bool fuzz_parts_next(struct fuzz_parts *p, const uint8_t **part, size_t *len)
{
	const uint8_t *sep;

	if (p->done)
		return false;
	*part = p->data + p->pos;
	sep = memchr(*part, FUZZ_SEP, p->len - p->pos);
	*len = sep ? (size_t)(sep - *part) : p->len - p->pos;
	p->pos += *len + 1;
	p->done = !sep;
	return true;
}

/* A copy of len bytes with a NUL after them (parsers of C strings). */
static inline char *fuzz_strndup(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

/* A promise of the code under test was broken: say which, then crash so
 * that libFuzzer keeps the input. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #cond, __FILE__,        \
				__LINE__);                                                         \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* With KTB_FUZZ_TRACE set, what a target did with an input (the results of
 * its calls), for whoever writes seeds: run the target on one file. */
static inline bool fuzz_tracing(void)
{
	static int on = -1;

	if (on < 0)
		on = getenv("KTB_FUZZ_TRACE") != NULL;
	return on;
}

#define FUZZ_TRACE(...)                                                                            \
	do {                                                                                       \
		if (fuzz_tracing())                                                                \
			fprintf(stderr, __VA_ARGS__);                                              \
	} while (0)

/* A folder of its own for the process (removed at exit), for parsers that
 * take a path: in $TMPDIR (the fuzz tests give each target one in the build
 * tree, where what a crash leaves stays), or /tmp when it is unset or too
 * long to leave room for a file's name in the targets' 256-byte paths. */
static char fuzz_dir_path[200];

static inline void fuzz_dir_remove(void)
{
	char path[384];
	struct dirent *e;
	DIR *d = fuzz_dir_path[0] ? opendir(fuzz_dir_path) : NULL;

	/* the targets make files in it, no folders */
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", fuzz_dir_path, e->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	if (fuzz_dir_path[0])
		rmdir(fuzz_dir_path);
}

static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		const char *t = getenv("TMPDIR");

		if (!t || !*t || strlen(t) > 160)
			t = "/tmp";
		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/ktb-fuzz-XXXXXX", t);
		if (!mkdtemp(fuzz_dir_path))
			abort();
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* NAME in the folder, holding the len bytes at data; its path goes to
 * path (size bytes). */
static inline void fuzz_file(char *path, size_t size, const char *name, const uint8_t *data,
			     size_t len)
{
	FILE *f;

	snprintf(path, size, "%s/%s", fuzz_dir(), name);
	f = fopen(path, "wb");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f))
		abort();
}

#endif
