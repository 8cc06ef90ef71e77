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

static void child(char **argv, int in_fd, int out_fd, int err_fd, pid_t parent)
{
	proc_child_policy(parent, true);
	dup2(in_fd, STDIN_FILENO);
	dup2(out_fd, STDOUT_FILENO);
	dup2(err_fd, STDERR_FILENO);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int remote_run(const struct remote *r, const char *cmd, const char *in_path, char **out,
	       int timeout_ms, char *err, size_t len)
{
	char **argv = remote_argv(r, NULL, cmd);
	int in_fd = open(in_path ? in_path : "/dev/null", O_RDONLY | O_CLOEXEC);
	int op[2] = {-1, -1}, ep[2] = {-1, -1}, status = 0, ret = 0;
	char *obuf = NULL, *ebuf = NULL, line[400];
	size_t olen = 0, elen = 0;
	int64_t until = now_ms() + timeout_ms;
	pid_t pid = -1, parent;

	if (out)
		*out = NULL;
	if (in_fd < 0) {
		ret = -errno;
		snprintf(err, len, "cannot open %s: %s", in_path, strerror(errno));
		goto out;
	}
	if (pipe2(op, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		ret = -errno;
		snprintf(err, len, "pipe: %s", strerror(errno));
		goto out;
	}
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		snprintf(err, len, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(argv, in_fd, op[1], ep[1], parent);
	proc_child_adopt(pid, true);
	close(op[1]);
	close(ep[1]);
	op[1] = ep[1] = -1;
	while (op[0] >= 0 || ep[0] >= 0) {
		struct pollfd pf[2] = {{op[0], POLLIN, 0}, {ep[0], POLLIN, 0}};
		int64_t left = until - now_ms();
		char buf[8192];

		if (left <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		if (r->stop_on_signal && proc_interrupted()) {
			ret = -EINTR;
			break;
		}
		if (poll(pf, 2, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (int i = 0; i < 2; i++) {
			int *fd = i ? &ep[0] : &op[0];
			ssize_t n;

			if (*fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(*fd);
				*fd = -1;
				continue;
			}
			char **b = i ? &ebuf : &obuf;
			size_t *l = i ? &elen : &olen;

			*b = xrealloc(*b, *l + (size_t)n + 1);
			memcpy(*b + *l, buf, (size_t)n);
			*l += (size_t)n;
			(*b)[*l] = '\0';
		}
	}
	if (ret) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		proc_child_reaped(pid);
		snprintf(err, len, "ssh %s: %s", r->label,
			 ret == -ETIMEDOUT ? "no answer within the time limit"
			 : ret == -EINTR   ? "interrupted by a signal"
					   : strerror(-ret));
		goto out;
	}
	waitpid(pid, &status, 0);
	proc_child_reaped(pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		last_line(ebuf ? ebuf : "", elen, line, sizeof(line));
		if (WIFEXITED(status))
			snprintf(err, len, "ssh %s: %s (exit status %d)", r->label,
				 *line ? line : "failed", WEXITSTATUS(status));
		else
			snprintf(err, len, "ssh %s: killed by signal %d", r->label,
				 WTERMSIG(status));
		ret = -EIO;
		goto out;
	}
	if (out) {
		*out = obuf ? obuf : xstrdup("");
		obuf = NULL;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (op[i] >= 0)
			close(op[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	if (in_fd >= 0)
		close(in_fd);
	free(obuf);
	free(ebuf);
	remote_argv_free(argv);
	return ret;
}

static int hash_file(const char *path, char out[65])
{
	struct sha256 s;
	char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	sha256_init(&s);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(&s, buf, (size_t)n);
	close(fd);
	if (n < 0)
		return -EIO;
	sha256_final_hex(&s, out);
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
