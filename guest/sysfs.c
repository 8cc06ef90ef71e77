#include "sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, ret;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return (int)n;
}

int sysfs_slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return 0;
}

int sysfs_read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	int ret;

	ret = sysfs_read(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int sysfs_write(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

char *sysfs_trim(char *s)
{
	size_t n;

	while (*s && isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* One "N" or "N-M" element; advances *p past it. */
static int sysfs_parse_range(const char **p, unsigned long *lo, unsigned long *hi)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	*lo = strtoul(*p, &end, 10);
	*hi = *lo;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -EINVAL;
		*hi = strtoul(end + 1, &end, 10);
	}
	*p = end;
	return *hi < *lo ? -EINVAL : 0;
}

int sysfs_parse_cpulist(const char *s, unsigned *cpus, int max)
{
	unsigned long lo, hi, c;
	int n = 0;

	while (isspace((unsigned char)*s))
		s++;
	while (*s && !isspace((unsigned char)*s)) {
		if (sysfs_parse_range(&s, &lo, &hi))
			return -EINVAL;
		for (c = lo; c <= hi && n < max; c++)
			cpus[n++] = (unsigned)c;
		if (*s == ',')
			s++;
		else if (*s && !isspace((unsigned char)*s))
			return -EINVAL;
	}
	return n;
}
