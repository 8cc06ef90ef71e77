#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *msg_current = "";

void msg_name_set(const char *name)
{
	msg_current = name ? name : "";
}

const char *msg_name(void)
{
	return msg_current;
}

void msg_verr(const char *fmt, va_list ap)
{
	fprintf(stderr, *msg_current ? "ktb %s: " : "ktb: ", msg_current);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_verr(fmt, ap);
	va_end(ap);
}

static void oom(void)
{
	msg_err("out of memory");
	abort();
}

char *xstrdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t first_cap)
{
	size_t c = *cap ? *cap : first_cap;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	*cap = c;
	return xrealloc(p, c);
}

int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t off = 0;
	int ret = 0;

	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		fclose(f);
		free(buf);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int mkdir_p(const char *path, unsigned mode)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			ret = -errno;
			goto out;
		}
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		ret = -errno;
out:
	free(p);
	return ret;
}

int rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 ? -errno : 0;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *sub = xasprintf("%s/%s", path, e->d_name);
		int r = rm_rf(sub);

		free(sub);
		if (r && !ret)
			ret = r;
	}
	closedir(d);
	if (rmdir(path) < 0 && !ret)
		ret = -errno;
	return ret;
}

int parse_duration_ms(const char *s, int64_t *out)
{
	char *end;
	double v;
	double mult = 1000;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	/* digits first: strtod also takes "nan", "inf" and hex */
	if (errno || end == s || !(v >= 0) || !strchr("0123456789.", *s) || strpbrk(s, "xX"))
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mult = 1;
	else if (!strcmp(end, "s") || !*end)
		mult = 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mult = 60000;
	else if (!strcmp(end, "h"))
		mult = 3600000;
	else
		return -EINVAL;
	if (v * mult > DURATION_MAX_MS)
		return -ERANGE;
	*out = (int64_t)(v * mult + 0.5);
	return 0;
}

char *tmp_template(const char *prefix)
{
	const char *t = getenv("TMPDIR");

	return xasprintf("%s/%s-XXXXXX", t && *t ? t : "/tmp", prefix);
}

int unix_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

size_t str_trim_len(const char *s, size_t n, const char *set)
{
	while (n && s[n - 1] && strchr(set, s[n - 1]))
		n--;
	return n;
}

char *str_trim(char *s, const char *set)
{
	s[str_trim_len(s, strlen(s), set)] = '\0';
	return s;
}

int say_err(char *buf, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

int json_save(const char *dir, const char *path, json_t *j)
{
	char *tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	int ret = mkdir_p(dir, 0755);

	if (ret)
		goto out;
	if (json_dump_file(j, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0) {
		ret = -EIO;
		goto out;
	}
	ret = rename(tmp, path) < 0 ? -errno : 0;
out:
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int probe_verdict_save(const char *dir, const char *path, json_t *j, const char *why,
		       int64_t probe_ms)
{
	json_object_set_new(j, "why", json_string(why));
	json_object_set_new(j, "probe_ms", json_integer(probe_ms));
	json_object_set_new(j, "probed_unix", json_integer((json_int_t)time(NULL)));
	return json_save(dir, path, j);
}
