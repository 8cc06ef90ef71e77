#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "image.h"
#include "proc.h"
#include "spawn.h"
#include "sha256.h"
#include "util.h"

int remote_init(struct remote *r, const char *uri, char *err, size_t len)
{
	char port[16] = "";
	int ret;

	memset(r, 0, sizeof(*r));
	ret = hosts_uri_ssh(uri, &r->t, err, len);
	if (ret)
		return ret;
	if (r->t.port)
		snprintf(port, sizeof(port), ":%d", r->t.port);
	r->label = xasprintf("%s%s%s%s", r->t.user ? r->t.user : "", r->t.user ? "@" : "",
			     r->t.host, port);
	return 0;
}

void remote_free(struct remote *r)
{
	ssh_target_free(&r->t);
	free(r->label);
	r->label = NULL;
}

static void push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(char *));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

char **remote_argv(const struct remote *r, const char *const *opts, const char *cmd)
{
	static const char *const base[] = {
		"ssh",
		"-o",
		"BatchMode=yes",
		"-o",
		"ConnectTimeout=15",
		"-o",
		"ServerAliveInterval=5",
		"-o",
		"ServerAliveCountMax=3",
		"-T",
	};
	const char *extra = getenv("KTB_SSH_OPTS");
	char **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		push(&v, &n, xstrdup(base[i]));
	if (r->t.port) {
		push(&v, &n, xstrdup("-p"));
		push(&v, &n, xasprintf("%d", r->t.port));
	}
	if (r->t.user) {
		push(&v, &n, xstrdup("-l"));
		push(&v, &n, xstrdup(r->t.user));
	}
	if (r->t.keyfile) {
		push(&v, &n, xstrdup("-i"));
		push(&v, &n, xstrdup(r->t.keyfile));
	}
	if (r->t.no_verify) {
		push(&v, &n, xstrdup("-o"));
		push(&v, &n, xstrdup("StrictHostKeyChecking=no"));
	}
	/* $KTB_SSH_OPTS: more options, split at blanks (e.g. "-F FILE") */
	for (const char *p = extra ? extra : ""; *p;) {
		size_t w;

		p += strspn(p, " \t\n");
		w = strcspn(p, " \t\n");
		if (w)
			push(&v, &n, xasprintf("%.*s", (int)w, p));
		p += w;
	}
	for (size_t i = 0; opts && opts[i]; i++)
		push(&v, &n, xstrdup(opts[i]));
	push(&v, &n, xstrdup(r->t.host));
	if (cmd)
		push(&v, &n, xstrdup(cmd));
	return v;
}

void remote_argv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The last non-empty line of s, at most 300 bytes of it. */
static void last_line(const char *s, size_t n, char *out, size_t len)
{
	n = str_trim_len(s, n, "\r\n ");
	size_t start = n;

	while (start && s[start - 1] != '\n')
		start--;
	if (n - start > 300)
		start = n - 300;
	snprintf(out, len, "%.*s", (int)(n - start), s + start);
}

static int interrupted(void)
{
	return proc_interrupted();
}

/* Why ssh failed, from how it ended and the last line it wrote to stderr. */
static void ssh_failed(const struct remote *r, int status, const char *ebuf, size_t elen, char *err,
		       size_t len)
{
	char line[400];

	last_line(ebuf ? ebuf : "", elen, line, sizeof(line));
	if (WIFEXITED(status))
		snprintf(err, len, "ssh %s: %s (exit status %d)", r->label, *line ? line : "failed",
			 WEXITSTATUS(status));
	else
		snprintf(err, len, "ssh %s: killed by signal %d", r->label, WTERMSIG(status));
}

int remote_run(const struct remote *r, const char *cmd, const char *in_path, char **out,
	       int timeout_ms, char *err, size_t len)
{
	char **argv = remote_argv(r, NULL, cmd);
	struct child_process cp = {
		.argv = argv,
		.in = { .how = in_path ? SPAWN_FILE : SPAWN_NULL, .path = in_path },
		.own_group = true,
		.cancel = r->stop_on_signal ? interrupted : NULL,
	};
	struct spawn_buf o = { 0 }, e = { 0 };
	int ret;

	if (out)
		*out = NULL;
	if (in_path && access(in_path, R_OK) < 0) {
		ret = -errno;
		snprintf(err, len, "cannot open %s: %s", in_path, strerror(errno));
		goto out;
	}
	ret = pipe_command(&cp, NULL, 0, &o, &e, timeout_ms);
	if (ret == -ETIMEDOUT || ret == -EINTR) {
		snprintf(err, len, "ssh %s: %s", r->label,
			 ret == -ETIMEDOUT ? "no answer within the time limit"
					   : "interrupted by a signal");
		goto out;
	}
	if (ret < 0) {
		snprintf(err, len, "ssh %s: cannot run %s: %s (exit status 127)", r->label, argv[0],
			 strerror(-ret));
		ret = -EIO;
		goto out;
	}
	if (ret) {
		ssh_failed(r, cp.status, e.buf, e.len, err, len);
		ret = -EIO;
		goto out;
	}
	if (out) {
		*out = o.buf;
		o.buf = NULL;
	}
out:
	free(o.buf);
	free(e.buf);
	remote_argv_free(argv);
	return ret;
}

static int hash_file(const char *path, char out[65])
{
	struct sha256_ctx s;
	char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	sha256_init(&s);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_feed(&s, buf, (size_t)n);
	close(fd);
	if (n < 0)
		return -EIO;
	sha256_hex(&s, out);
	return 0;
}

/* The hash of a kernel or initrd is kept in the cache under the file's
 * identity (device, inode, size, modification time), so that every scenario
 * does not read it again: a changed file has another name there. */
int remote_file_sha256(const char *path, char out[65])
{
	const char *cache = ktb_cache_dir();
	char *dir = NULL, *memo = NULL, *tmp = NULL, *s;
	size_t len = 0;
	struct stat st;
	int ret;

	if (stat(path, &st) < 0)
		return -errno;
	if (cache) {
		dir = xasprintf("%s/sha256", cache);
		memo = xasprintf("%s/%llx-%llx-%llx-%lld.%09ld", dir, (unsigned long long)st.st_dev,
				 (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
				 (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
		s = read_file(memo, &len);
		if (s && len == 64 && strspn(s, "0123456789abcdef") == 64) {
			memcpy(out, s, 64);
			out[64] = '\0';
			free(s);
			ret = 0;
			goto out;
		}
		free(s);
	}
	ret = hash_file(path, out);
	if (!ret && memo && !mkdir_p(dir, 0755)) {
		tmp = xasprintf("%s.%d", memo, (int)getpid());
		if (!write_file(tmp, out, 64) && rename(tmp, memo) < 0)
			unlink(tmp);
	}
out:
	free(tmp);
	free(memo);
	free(dir);
	return ret;
}
