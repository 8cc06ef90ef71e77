/* ktb-hybrid: the hybrid drive as a vhost-user-blk back end. QEMU connects
 * to --socket; the harness talks to --ctl. Runs until SIGTERM, then writes
 * its volatile cache out (a clean stop). Exit 0, 1 runtime error, 2 usage. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "machine.h"
#include "blk.h"
#include "ctl.h"
#include "vhost_user.h"

struct hybrid_dev {
	struct blk blk;
	struct vu_dev vu;
	const char *sock_path, *ctl_path;
	int listen_fd, client_fd, ctl_fd;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void hy_log(void *dev, const char *fmt, ...)
{
	va_list ap;

	(void)dev;
	fputs("ktb-hybrid: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t hy_features(void *dev)
{
	(void)dev;
	return blk_features();
}

static void hy_get_config(void *dev, uint32_t off, uint8_t *buf, uint32_t len)
{
	struct hybrid_dev *h = dev;
	uint8_t space[VU_CONFIG_MAX] = { 0 };
	struct virtio_blk_config cfg;

	blk_config(&h->blk, &cfg);
	memcpy(space, &cfg, sizeof(cfg) < sizeof(space) ? sizeof(cfg) : sizeof(space));
	memcpy(buf, space + off, len); /* off + len <= VU_CONFIG_MAX, checked by the transport */
}

static void hy_set_config(void *dev, uint32_t off, const uint8_t *buf, uint32_t len)
{
	blk_config_write(&((struct hybrid_dev *)dev)->blk, off, buf, len);
}

static uint32_t hy_handle(void *dev, const struct vq_chain *c)
{
	return blk_handle(&((struct hybrid_dev *)dev)->blk, c);
}

static const struct vu_device_ops hy_ops = {
	.features = hy_features,
	.get_config = hy_get_config,
	.set_config = hy_set_config,
	.handle = hy_handle,
	.log = hy_log,
};

/* ---- options ---- */

static void usage(FILE *f)
{
	fprintf(f, "usage: ktb-hybrid --socket PATH --ctl PATH --image FILE --flash FILE\n"
		   "       [--serial ID] [--sector 512n|512e|4kn] [--model on|off] [--cache SIZE]\n"
		   "       [--wcache SIZE] [--rpm N] [--promote-after N] [--pin OFF+LEN]...\n"
		   "       [--ignore-flush] [--fail-writes OFF+LEN] [--fail-reads OFF+LEN]\n");
}

static int parse_range(const char *s, struct media_range *r)
{
	char a[64];
	const char *plus = strchr(s, '+');
	int ret;

	if (!plus || (size_t)(plus - s) >= sizeof(a))
		return -EINVAL;
	memcpy(a, s, (size_t)(plus - s));
	a[plus - s] = '\0';
	ret = hw_parse_size(a, &r->off);
	return ret ? ret : hw_parse_size(plus + 1, &r->len);
}

static int parse_sector(struct blk *b, const char *s)
{
	static const struct {
		const char *name;
		unsigned l, p;
	} g[] = {
		{ "512n", 512, 512 },
		{ "512e", 512, 4096 },
		{ "4kn", 4096, 4096 },
	};

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		if (!strcmp(s, g[i].name)) {
			b->logical = g[i].l;
			b->physical = g[i].p;
			return 0;
		}
	}
	return -EINVAL;
}

static const struct option longopts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "ctl", required_argument, NULL, 'c' },
	{ "image", required_argument, NULL, 'i' },
	{ "flash", required_argument, NULL, 'f' },
	{ "serial", required_argument, NULL, 'S' },
	{ "sector", required_argument, NULL, 'g' },
	{ "model", required_argument, NULL, 'm' },
	{ "cache", required_argument, NULL, 'C' },
	{ "wcache", required_argument, NULL, 'w' },
	{ "rpm", required_argument, NULL, 'r' },
	{ "promote-after", required_argument, NULL, 'p' },
	{ "pin", required_argument, NULL, 'P' },
	{ "ignore-flush", no_argument, NULL, 'I' },
	{ "fail-writes", required_argument, NULL, 'F' },
	{ "fail-reads", required_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *opt_name(int c)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

static int parse_uint(const char *s, unsigned *v)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || n > 1000000)
		return -EINVAL;
	*v = (unsigned)n;
	return 0;
}

static int parse_opt(struct hybrid_dev *h, struct media_config *mc, int c, const char *arg)
{
	switch (c) {
	case 's':
		h->sock_path = arg;
		return 0;
	case 'c':
		h->ctl_path = arg;
		return 0;
	case 'i':
		mc->platter_path = arg;
		return 0;
	case 'f':
		mc->flash_path = arg;
		return 0;
	case 'S':
		snprintf(h->blk.serial, sizeof(h->blk.serial), "%s", arg);
		return 0;
	case 'g':
		return parse_sector(&h->blk, arg);
	case 'm':
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return -EINVAL;
		mc->model = !strcmp(arg, "on");
		return 0;
	case 'C':
		return hw_parse_size(arg, &mc->flash_size);
	case 'w':
		mc->wcache_size = 0;
		return strcmp(arg, "0") ? hw_parse_size(arg, &mc->wcache_size) : 0;
	case 'r':
		return parse_uint(arg, &mc->rpm);
	case 'p':
		return parse_uint(arg, &mc->promote_after);
	case 'P':
		if (mc->npins == MEDIA_MAX_PINS)
			return -E2BIG;
		return parse_range(arg, &mc->pins[mc->npins++]);
	case 'I':
		h->blk.ignore_flush = true;
		return 0;
	case 'F':
		return parse_range(arg, &h->blk.fail_writes);
	case 'R':
		return parse_range(arg, &h->blk.fail_reads);
	default:
		return -EINVAL;
	}
}

static int parse_args(struct hybrid_dev *h, struct media_config *mc, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == '?' || parse_opt(h, mc, c, optarg) < 0) {
			if (c != '?')
				fprintf(stderr, "ktb-hybrid: --%s: bad value \"%s\"\n", opt_name(c),
					optarg ? optarg : "");
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc || !h->sock_path || !h->ctl_path || !mc->platter_path ||
	    (mc->model && !mc->flash_path)) {
		fprintf(stderr, "ktb-hybrid: --socket, --ctl, --image and (with the model) --flash "
				"are needed\n");
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* ---- sockets ---- */

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 4) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static void on_vhost_msg(struct hybrid_dev *h)
{
	static struct vu_msg m, reply;
	int fds[VU_MAX_FDS];
	unsigned nfds = 0;
	int r = vu_recv(h->client_fd, &m, fds, &nfds);

	if (r > 0) {
		r = vu_handle(&h->vu, &m, fds, nfds, &reply);
		if (r > 0)
			r = vu_send(h->client_fd, &reply);
		/* a kick that came while the ring was not yet enabled was read
		 * and dropped: look at the ring after every state change */
		if (r == 0)
			vu_process(&h->vu, 0);
		if (r == 0)
			return;
		if (r == -EPROTO)
			hy_log(h, "malformed message header; dropping the front end");
	}
	if (r <= 0) {
		hy_log(h, "front end disconnected");
		vu_reset(&h->vu);
		close(h->client_fd);
		h->client_fd = -1;
	}
}

static void on_kick(struct hybrid_dev *h, unsigned q)
{
	uint64_t v;

	if (read(h->vu.vq[q].kick_fd, &v, sizeof(v)) < 0 && errno != EAGAIN && errno != EINTR)
		return;
	vu_process(&h->vu, q);
}

static int loop_once(struct hybrid_dev *h, const sigset_t *mask)
{
	struct pollfd p[4];
	unsigned n = 0, ikick = 4, iclient = 4;

	p[n++] = (struct pollfd){ h->ctl_fd, POLLIN, 0 };
	if (h->client_fd < 0) {
		p[n++] = (struct pollfd){ h->listen_fd, POLLIN, 0 };
	} else {
		iclient = n;
		p[n++] = (struct pollfd){ h->client_fd, POLLIN, 0 };
		if (h->vu.vq[0].kick_fd >= 0) {
			ikick = n;
			p[n++] = (struct pollfd){ h->vu.vq[0].kick_fd, POLLIN, 0 };
		}
	}
	if (ppoll(p, n, NULL, mask) < 0)
		return errno == EINTR ? 0 : -errno;
	if (p[0].revents & POLLIN) {
		int fd = accept4(h->ctl_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd >= 0)
			ctl_serve(&h->blk, fd);
	}
	if (ikick < n && p[ikick].revents)
		on_kick(h, 0);
	if (iclient < n && p[iclient].revents)
		on_vhost_msg(h);
	else if (h->client_fd < 0 && (p[1].revents & POLLIN)) {
		h->client_fd = accept4(h->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		hy_log(h, "front end connected");
	}
	return 0;
}

static int run(struct hybrid_dev *h)
{
	sigset_t block, empty;
	struct sigaction sa = { .sa_handler = on_signal };
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &empty);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	while (!stop_signal && !ret)
		ret = loop_once(h, &empty);
	return ret;
}

int main(int argc, char **argv)
{
	struct hybrid_dev h = { .listen_fd = -1, .client_fd = -1, .ctl_fd = -1 };
	struct media_config mc;
	const char *why = "";
	struct stat sb;
	int ret;

	/* no death signal of its own: ktb sets SIGKILL before exec, its one
	 * policy for every child (docs/architecture.md) */
	media_config_defaults(&mc);
	h.blk.logical = h.blk.physical = 512;
	h.blk.wce = true;
	if (parse_args(&h, &mc, argc, argv) < 0)
		return 2;
	if (stat(mc.platter_path, &sb) < 0) {
		fprintf(stderr, "ktb-hybrid: %s: %s\n", mc.platter_path, strerror(errno));
		return 1;
	}
	mc.capacity = (uint64_t)sb.st_size;
	ret = media_open(&mc, &h.blk.media, &why);
	if (ret < 0) {
		fprintf(stderr, "ktb-hybrid: %s: %s (%s)\n", mc.platter_path, why, strerror(-ret));
		return 1;
	}
	vu_init(&h.vu, &hy_ops, &h);
	/* the control socket first: once the vhost socket exists, both do */
	h.ctl_fd = listen_unix(h.ctl_path);
	h.listen_fd = h.ctl_fd < 0 ? h.ctl_fd : listen_unix(h.sock_path);
	if (h.ctl_fd < 0 || h.listen_fd < 0) {
		fprintf(stderr, "ktb-hybrid: cannot listen on %s: %s\n",
			h.ctl_fd < 0 ? h.ctl_path : h.sock_path,
			strerror(-(h.ctl_fd < 0 ? h.ctl_fd : h.listen_fd)));
		media_close(h.blk.media);
		return 1;
	}
	ret = run(&h);
	vu_reset(&h.vu);
	if (h.client_fd >= 0)
		close(h.client_fd);
	close(h.listen_fd);
	close(h.ctl_fd);
	unlink(h.sock_path);
	unlink(h.ctl_path);
	if (media_close(h.blk.media) < 0 || ret < 0) {
		fprintf(stderr, "ktb-hybrid: stopping: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}
