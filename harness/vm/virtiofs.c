#include "virtiofs.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "image_dirs.h"
#include "share.h"
#include "util.h"

#define VIRTIOFS_CACHE_FILE "virtiofsd.json"
/* A virtiofsd that works listens and answers in tens of milliseconds. */
#define VIRTIOFS_PROBE_LISTEN_MS 5000
#define VIRTIOFS_PROBE_ANSWER_MS 3000
/* vhost-user (QEMU's docs/interop/vhost-user.rst): a 12-byte header of
 * request, flags (version 1; the reply bit) and payload size */
#define VHOST_USER_GET_FEATURES 1
#define VHOST_USER_VERSION 0x1
#define VHOST_USER_REPLY 0x4

/* The virtiofsd of share i, listening once its vhost-user socket is there.
 * QEMU gone, it exits on its own once the socket closes; the signal (2 s
 * grace) covers one QEMU never connected to. */
static int start_one(struct sidecars *sc, const struct machine *m, unsigned i,
		     const struct hw_launch *l, const char *log_dir, int64_t deadline, char *why,
		     size_t len)
{
	char *log = xasprintf("%s/virtiofsd-ktb%u.log", log_dir, i);
	char *sock = share_socket_path(l, i);
	char *what = xasprintf("virtiofsd of share %s", m->shares[i].host);
	struct argv a;
	int ret = sock ? share_virtiofsd_argv(m, l, i, &a) : -ENOMEM;

	if (ret < 0) {
		snprintf(why, len, "share %u: no virtiofsd to start", i);
	} else {
		ret = sidecar_start(sc, a.v, log, sock, 2000, what, deadline, why, len);
		argv_free(&a);
	}
	free(what);
	free(sock);
	free(log);
	return ret;
}

int virtiofs_start(struct sidecars *sc, const struct machine *m, const struct hw_launch *l,
		   const char *log_dir, int64_t deadline, char *why, size_t len)
{
	int ret;

	for (unsigned i = 0; i < m->shares_count; i++) {
		if (!m->shares[i].virtiofs)
			continue;
		ret = start_one(sc, m, i, l, log_dir, deadline, why, len);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* -------- the preflight: can a virtiofsd serve here? -------- */

static void ascii_only(char *s)
{
	/* what virtiofsd says goes into JSON keys, results and terminals */
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

int virtiofs_host_key_fill(struct virtiofs_host_key *k, const char *bin, char *why, size_t len)
{
	struct utsname u;
	struct stat st;
	ssize_t n;

	memset(k, 0, sizeof(*k));
	if (uname(&u) < 0)
		return say_err(why, len, -errno, "uname: %s", strerror(errno));
	snprintf(k->host_release, sizeof(k->host_release), "%s", u.release);
	if (!bin || stat(bin, &st) < 0)
		return say_err(why, len, bin ? -errno : -EINVAL, "virtiofsd %s: %s",
			       bin ? bin : "(none)", bin ? strerror(errno) : "none given");
	snprintf(k->bin, sizeof(k->bin), "%s", bin);
	ascii_only(k->bin);
	k->bin_size = (long long)st.st_size;
	k->bin_mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	n = readlink("/proc/self/ns/mnt", k->mnt_ns, sizeof(k->mnt_ns) - 1);
	k->mnt_ns[n > 0 ? n : 0] = '\0';
	ascii_only(k->mnt_ns);
	if (stat("/", &st) < 0)
		return say_err(why, len, -errno, "stat /: %s", strerror(errno));
	k->root_dev = (long long)st.st_dev;
	k->root_ino = (long long)st.st_ino;
	k->euid = (long long)geteuid();
	return 0;
}

static json_t *virtiofs_key_to_json(const struct virtiofs_host_key *k)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:s, s:I, s:I, s:I}", "host_release",
			 k->host_release, "virtiofsd", k->bin, "virtiofsd_size",
			 (json_int_t)k->bin_size, "virtiofsd_mtime", (json_int_t)k->bin_mtime,
			 "mount_namespace", k->mnt_ns, "root_dev", (json_int_t)k->root_dev,
			 "root_ino", (json_int_t)k->root_ino, "euid", (json_int_t)k->euid);
}

int virtiofs_cache_load(const char *dir, const struct virtiofs_host_key *k, bool *serves, char *why,
			size_t len)
{
	char *path = xasprintf("%s/" VIRTIOFS_CACHE_FILE, dir);
	json_t *j = json_load_file(path, 0, NULL), *want = virtiofs_key_to_json(k), *v;
	const char *field, *reason;
	int ok = 0, ret = -ENOENT;
	bool same = j && want;

	free(path);
	json_object_foreach (want, field, v)
		same = same && json_equal(v, json_object_get(j, field));
	if (!same || json_unpack(j, "{s:b, s:s}", "serves", &ok, "why", &reason) < 0)
		goto out;
	*serves = ok;
	snprintf(why, len, "%s", reason);
	ret = 0;
out:
	json_decref(want);
	json_decref(j);
	return ret;
}

int virtiofs_cache_store(const char *dir, const struct virtiofs_host_key *k, bool serves,
			 const char *why, int64_t probe_ms)
{
	char *path = xasprintf("%s/" VIRTIOFS_CACHE_FILE, dir);
	json_t *j = virtiofs_key_to_json(k);
	int ret = -ENOMEM;

	if (j) {
		json_object_set_new(j, "serves", json_boolean(serves));
		ret = probe_verdict_save(dir, path, j, why, probe_ms);
	}
	json_decref(j);
	free(path);
	return ret;
}

bool virtiofs_probe_judge(bool answered, const char *log, const char *fallback, char *why,
			  size_t len)
{
	const char *end, *start;

	if (answered) {
		snprintf(why, len, "virtiofsd answered over vhost-user");
		return true;
	}
	log = log ? log : "";
	end = log + str_trim_len(log, strlen(log), " \r\n");
	start = end;
	while (start > log && start[-1] != '\n')
		start--;
	if (start == end)
		snprintf(why, len, "%s", fallback);
	else
		snprintf(why, len, "%.*s", (int)(end - start), start);
	ascii_only(why);
	return false;
}

/* Ask the listening virtiofsd at sock for its features: true when it
 * answers; false when it closes the connection (it died setting up its
 * sandbox) or says nothing in time (fallback says which). */
static bool virtiofs_ask(const char *sock, const char **fallback)
{
	const uint32_t hdr[3] = { VHOST_USER_GET_FEATURES, VHOST_USER_VERSION, 0 };
	uint32_t reply[5] = { 0 };
	int fd = unix_connect(sock);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	int64_t deadline = now_ms() + VIRTIOFS_PROBE_ANSWER_MS;

	*fallback = "cannot connect to its socket";
	if (fd < 0)
		return false;
	*fallback = "it closed the connection without a word";
	if (send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL) != (ssize_t)sizeof(hdr))
		goto out;
	while (got < sizeof(reply)) {
		int64_t left = deadline - now_ms();
		ssize_t n;

		if (left <= 0) {
			*fallback = "no answer to VHOST_USER_GET_FEATURES within 3 s";
			break;
		}
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = recv(fd, (char *)reply + got, sizeof(reply) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
out:
	close(fd);
	return got == sizeof(reply) && reply[0] == VHOST_USER_GET_FEATURES &&
	       (reply[1] & VHOST_USER_REPLY) && reply[2] == sizeof(uint64_t);
}

int virtiofs_probe(const char *bin, bool *serves, char *why, size_t len)
{
	char *dir = tmp_template("ktb-virtiofsd"), *sock = NULL, *src = NULL, *log = NULL;
	struct proc p = { .pid = -1, .out_fd = -1 };
	const char *fallback = "it exited before it listened";
	bool answered = false;
	struct argv a = { 0 };
	char *text = NULL;
	int ret;

	if (!mkdtemp(dir)) {
		ret = say_err(why, len, -errno, "cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return ret;
	}
	sock = xasprintf("%s/probe.sock", dir);
	src = xasprintf("%s/shared", dir);
	log = xasprintf("%s/virtiofsd.log", dir);
	ret = mkdir(src, 0700) < 0 ? -errno : share_virtiofsd_cmd(bin, sock, src, &a);
	if (!ret)
		ret = proc_spawn(&p, a.v, &(struct proc_opts){ .stderr_path = log });
	if (ret < 0) {
		say_err(why, len, ret, "cannot start %s: %s", bin, strerror(-ret));
		goto out;
	}
	ret = proc_wait_path(&p, sock, now_ms() + VIRTIOFS_PROBE_LISTEN_MS);
	if (ret == -ETIMEDOUT)
		fallback = "it did not listen within 5 s";
	else if (!ret)
		answered = virtiofs_ask(sock, &fallback);
	/* a virtiofsd that died has written its last words; one that lives
	 * leaves once the connection closes, or is stopped */
	if (!answered)
		proc_wait(&p, 1000);
	proc_stop(&p, 1000);
	text = read_file(log, NULL);
	*serves = virtiofs_probe_judge(answered, text, fallback, why, len);
	ret = 0;
out:
	argv_free(&a);
	if (p.pid > 0)
		proc_stop(&p, 1000);
	rm_rf(dir);
	free(text);
	free(log);
	free(src);
	free(sock);
	free(dir);
	return ret;
}

int virtiofs_check_in(const char *dir, const char *bin, bool force, bool *serves, bool *cached,
		      char *why, size_t len)
{
	struct virtiofs_host_key key;
	int64_t t0;
	int ret = virtiofs_host_key_fill(&key, bin, why, len);

	*cached = false;
	if (ret)
		return ret;
	if (!force && !virtiofs_cache_load(dir, &key, serves, why, len)) {
		*cached = true;
		return 0;
	}
	t0 = now_ms();
	ret = virtiofs_probe(bin, serves, why, len);
	/* a verdict that cannot be cached is still a verdict */
	if (!ret)
		virtiofs_cache_store(dir, &key, *serves, why, now_ms() - t0);
	return ret;
}

int virtiofs_check(const char *bin, char *why, size_t len)
{
	static char memo_bin[256], memo_why[200];
	static bool memo, memo_serves;
	bool serves = false, cached;

	if (!memo || strcmp(memo_bin, bin)) {
		if (virtiofs_check_in(ktb_cache_dir(), bin, false, &serves, &cached, memo_why,
				      sizeof(memo_why)) < 0)
			serves = false;
		snprintf(memo_bin, sizeof(memo_bin), "%s", bin);
		memo_serves = serves;
		memo = true;
	}
	snprintf(why, len, "%s", memo_why);
	return memo_serves ? 0 : -EOPNOTSUPP;
}
