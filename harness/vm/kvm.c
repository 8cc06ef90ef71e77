#include "kvm.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/kvm.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"
#include "image.h"
#include "spawn.h"
#include "util.h"

#define KVM_QEMU "qemu-system-x86_64"
/* A working KVM reaches userspace in well under a second; a nested host that
 * hangs guests would otherwise cost every run the full boot timeout. */
#define KVM_PROBE_TIMEOUT_MS 8000
#define KVM_TERM_GRACE_MS 1000
#define KVM_CACHE_FILE "kvm.json"
/* What the probe keeps of its console: enough to hold the last lines. */
#define KVM_PROBE_BUF 65536

static const char *const kvm_verdict_names[] = {
	[KVM_ABSENT] = "absent",
	[KVM_BROKEN] = "broken",
	[KVM_WORKS] = "works",
};

const char *kvm_verdict_name(enum kvm_verdict v)
{
	if ((unsigned)v >= sizeof(kvm_verdict_names) / sizeof(kvm_verdict_names[0]))
		return "unknown";
	return kvm_verdict_names[v];
}

static int kvm_verdict_parse(const char *s, enum kvm_verdict *v)
{
	for (size_t i = 0; i < sizeof(kvm_verdict_names) / sizeof(kvm_verdict_names[0]); i++) {
		if (!strcmp(s, kvm_verdict_names[i])) {
			*v = (enum kvm_verdict)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Copy the line of out that p points into, without its line ending. */
static void kvm_quote_line(const char *out, const char *p, char *buf, size_t len)
{
	const char *start = p, *end = p;

	while (start > out && start[-1] != '\n')
		start--;
	while (*end && *end != '\n' && *end != '\r')
		end++;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
	/* the line ends up in JSON and on terminals: plain ASCII only */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
}

/* The last non-empty line of out, or NULL. */
static const char *kvm_last_line(const char *out)
{
	const char *end = out + str_trim_len(out, strlen(out), "\r\n");

	if (end == out)
		return NULL;
	while (end > out && end[-1] != '\n')
		end--;
	return end;
}

int kvm_probe_classify(const char *out, bool exited, enum kvm_verdict *v, char *why, size_t whylen)
{
	static const char *const fatal[] = { "KVM internal error", "emulation failure" };
	char line[200];
	const char *p;

	if (strstr(out, KTB_PROBE_MARKER)) {
		*v = KVM_WORKS;
		snprintf(why, whylen, "probe guest reached userspace");
		return 1;
	}
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		p = strstr(out, fatal[i]);
		if (!p)
			continue;
		kvm_quote_line(out, p, line, sizeof(line));
		*v = KVM_BROKEN;
		snprintf(why, whylen, "probe guest failed under KVM: \"%s\"", line);
		return 1;
	}
	if (!exited)
		return 0;
	p = kvm_last_line(out);
	if (p)
		kvm_quote_line(out, p, line, sizeof(line));
	*v = KVM_BROKEN;
	snprintf(why, whylen, "QEMU exited before the probe reached userspace: \"%s\"",
		 p ? line : "(no output)");
	return 1;
}

static int kvm_qemu_version(char *buf, size_t len)
{
	char *const argv[] = { KVM_QEMU, "--version", NULL };
	struct child_process cp = { .argv = argv, .in.how = SPAWN_NULL, .err.how = SPAWN_NULL };
	struct spawn_buf out = { 0 };
	int ret = pipe_command(&cp, NULL, 0, &out, NULL, -1) == 0 && out.len ? 0 : -ENOENT;

	/* the first line only */
	snprintf(buf, len, "%.*s", (int)strcspn(out.buf ? out.buf : "", "\r\n"),
		 out.buf ? out.buf : "");
	free(out.buf);
	/* it goes into a JSON key that must always compare: ASCII only */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	return ret;
}

static int kvm_file_stamp(const char *path, long long *size, long long *mtime)
{
	struct stat st;

	if (!path || stat(path, &st) < 0)
		return path ? -errno : -EINVAL;
	*size = (long long)st.st_size;
	*mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	return 0;
}

int kvm_cache_key_fill(struct kvm_cache_key *k, const char *kernel, const char *initrd, char *why,
		       size_t whylen)
{
	struct utsname u;
	int ret;

	memset(k, 0, sizeof(*k));
	if (uname(&u) < 0)
		return -errno;
	snprintf(k->host_release, sizeof(k->host_release), "%s", u.release);
	ret = kvm_file_stamp(kernel, &k->kernel_size, &k->kernel_mtime);
	if (ret) {
		snprintf(why, whylen, "probe kernel %s: %s", kernel ? kernel : "(none)",
			 strerror(-ret));
		return ret;
	}
	ret = kvm_file_stamp(initrd, &k->initrd_size, &k->initrd_mtime);
	if (ret) {
		snprintf(why, whylen, "probe initrd %s: %s", initrd ? initrd : "(none)",
			 strerror(-ret));
		return ret;
	}
	ret = kvm_qemu_version(k->qemu_version, sizeof(k->qemu_version));
	if (ret)
		snprintf(why, whylen,
			 "cannot run \"" KVM_QEMU " --version\": is qemu-system-x86 installed?");
	return ret;
}

static char *kvm_cache_path(const char *dir)
{
	return xasprintf("%s/" KVM_CACHE_FILE, dir);
}

/* The key's fields in the cache file, so that load and store agree. */
static json_t *kvm_cache_key_to_json(const struct kvm_cache_key *k)
{
	json_t *j = json_object();

	json_object_set_new(j, "host_release", json_string(k->host_release));
	json_object_set_new(j, "qemu_version", json_string(k->qemu_version));
	json_object_set_new(j, "kernel_size", json_integer(k->kernel_size));
	json_object_set_new(j, "kernel_mtime", json_integer(k->kernel_mtime));
	json_object_set_new(j, "initrd_size", json_integer(k->initrd_size));
	json_object_set_new(j, "initrd_mtime", json_integer(k->initrd_mtime));
	return j;
}

/* Does the cached document j hold a verdict for exactly k? */
static bool kvm_cache_matches(json_t *j, const struct kvm_cache_key *k)
{
	json_t *want = kvm_cache_key_to_json(k);
	const char *field;
	json_t *v;
	bool same = true;

	json_object_foreach (want, field, v)
		same = same && json_equal(v, json_object_get(j, field));
	json_decref(want);
	return same;
}

int kvm_cache_load(const char *dir, const struct kvm_cache_key *k, enum kvm_verdict *v, char *why,
		   size_t whylen)
{
	char *path = kvm_cache_path(dir);
	json_t *j = json_load_file(path, 0, NULL);
	const char *verdict, *reason;
	int ret = -ENOENT;

	free(path);
	if (!j || !kvm_cache_matches(j, k))
		goto out;
	if (json_unpack(j, "{s:s, s:s}", "verdict", &verdict, "why", &reason) < 0 ||
	    kvm_verdict_parse(verdict, v) < 0)
		goto out;
	snprintf(why, whylen, "%s (cached)", reason);
	ret = 0;
out:
	json_decref(j);
	return ret;
}

int kvm_cache_store(const char *dir, const struct kvm_cache_key *k, enum kvm_verdict v,
		    const char *why, int64_t probe_ms)
{
	char *path = kvm_cache_path(dir);
	json_t *j = kvm_cache_key_to_json(k);
	int ret;

	json_object_set_new(j, "verdict", json_string(kvm_verdict_name(v)));
	ret = probe_verdict_save(dir, path, j, why, probe_ms);
	json_decref(j);
	free(path);
	return ret;
}

/* The probe guest: dying with ktb, in its own process group (so the probe
 * and anything it forks can be killed as one), console into a pipe. */
static int kvm_probe_spawn(const char *kernel, const char *initrd, struct child_process *cp)
{
	/* clang-format off */
	char *const argv[] = {
		KVM_QEMU, "-accel", "kvm", "-cpu", "host", "-machine", "q35", "-m", "256M",
		"-smp", "1", "-nodefaults", "-display", "none", "-no-reboot",
		"-no-user-config", "-serial", "stdio", "-kernel", (char *)kernel,
		"-initrd", (char *)initrd, "-append", "console=ttyS0 panic=-1 no_timer_check ktb.probe", NULL,
	};
	/* clang-format on */

	*cp = (struct child_process){
		.argv = argv,
		.in.how = SPAWN_NULL,
		.out.how = SPAWN_PIPE,
		.err.how = SPAWN_STDOUT,
		.own_group = true,
	};
	return start_command(cp);
}

struct kvm_probe_buf {
	char data[KVM_PROBE_BUF];
	size_t len;
};

/* Keep the newest output; the marker and error lines are short. */
static void kvm_probe_append(struct kvm_probe_buf *b, const char *p, size_t n)
{
	size_t keep = KVM_PROBE_BUF / 4;

	if (n > keep) {
		p += n - keep;
		n = keep;
	}
	if (b->len + n >= KVM_PROBE_BUF) {
		memmove(b->data, b->data + b->len - keep, keep);
		b->len = keep;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Read the probe's console until it decides or the deadline passes. */
static void kvm_probe_watch(int fd, enum kvm_verdict *v, char *why, size_t whylen)
{
	int64_t deadline = now_ms() + KVM_PROBE_TIMEOUT_MS;
	struct kvm_probe_buf *b = xcalloc(1, sizeof(*b));
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char chunk[4096];

	for (;;) {
		int64_t left = deadline - now_ms();
		ssize_t n;

		if (left <= 0) {
			*v = KVM_BROKEN;
			snprintf(why, whylen,
				 "no userspace within %d s: KVM accepts VMs but hangs them",
				 KVM_PROBE_TIMEOUT_MS / 1000);
			break;
		}
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n > 0)
			kvm_probe_append(b, chunk, (size_t)n);
		if (kvm_probe_classify(b->data, n <= 0, v, why, whylen))
			break;
	}
	free(b);
}

static int kvm_probe(const char *kernel, const char *initrd, enum kvm_verdict *v, char *why,
		     size_t whylen)
{
	struct child_process cp;
	int ret;

	ret = kvm_probe_spawn(kernel, initrd, &cp);
	if (ret) {
		snprintf(why, whylen, "cannot start the KVM probe: %s", strerror(-ret));
		return ret;
	}
	kvm_probe_watch(cp.out_fd, v, why, whylen);
	/* SIGTERM to the probe's group, a grace second, then SIGKILL; reaped */
	stop_command(&cp, KVM_TERM_GRACE_MS);
	return 0;
}

/* KTB_ACCEL decides without a probe: 1 when it does not (unset or "auto"). */
static int kvm_override(enum kvm_verdict *v, char *why, size_t whylen)
{
	const char *a = getenv("KTB_ACCEL");

	if (!a || !*a || !strcmp(a, "auto"))
		return 1;
	if (!strcmp(a, "tcg")) {
		*v = KVM_ABSENT;
		snprintf(why, whylen, "KTB_ACCEL=tcg");
		return 0;
	}
	if (!strcmp(a, "kvm")) {
		*v = KVM_WORKS;
		snprintf(why, whylen, "KTB_ACCEL=kvm (not probed)");
		return 0;
	}
	snprintf(why, whylen, "KTB_ACCEL=%s: expected tcg, kvm or auto", a);
	return -EINVAL;
}

/* Can this process create VMs at all? 0, or -errno with why filled. */
static int kvm_dev_check(char *why, size_t whylen)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int api;

	if (fd < 0) {
		int e = errno;

		snprintf(why, whylen, "/dev/kvm: %s", strerror(e));
		return -e;
	}
	api = ioctl(fd, KVM_GET_API_VERSION, 0);
	close(fd);
	if (api != KVM_API_VERSION) {
		snprintf(why, whylen, "/dev/kvm: API version %d, expected %d", api,
			 KVM_API_VERSION);
		return -ENOTSUP;
	}
	return 0;
}

int kvm_detect_in(const char *cache_dir, const char *kernel, const char *initrd, bool force,
		  enum kvm_verdict *v, char *why, size_t whylen)
{
	struct kvm_cache_key key;
	int64_t start;
	int ret;

	ret = kvm_override(v, why, whylen);
	if (ret <= 0)
		return ret;
	if (kvm_dev_check(why, whylen) < 0) {
		*v = KVM_ABSENT;
		return 0;
	}
	ret = kvm_cache_key_fill(&key, kernel, initrd, why, whylen);
	if (ret)
		return ret;
	if (!force && kvm_cache_load(cache_dir, &key, v, why, whylen) == 0)
		return 0;
	start = now_ms();
	ret = kvm_probe(kernel, initrd, v, why, whylen);
	if (ret)
		return ret;
	/* a verdict that cannot be cached is still a verdict */
	kvm_cache_store(cache_dir, &key, *v, why, now_ms() - start);
	return 0;
}

int kvm_detect(const char *kernel, const char *initrd, bool force, enum kvm_verdict *v, char *why,
	       size_t whylen)
{
	return kvm_detect_in(ktb_cache_dir(), kernel, initrd, force, v, why, whylen);
}
