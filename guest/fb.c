/* ktb-fb: puts a known pattern on the screen through the DRM driver (a
 * dumb buffer set on the CRTC) and reports one JSON object: the mode the
 * CRTC scans out, the DRM connectors' status, enabled and dpms, and an
 * FNV-1a checksum of the visible pixels read back.
 *   draw [--mode WxH]  the pattern in a dumb buffer on the first connected
 *          connector's CRTC, in its preferred mode (or WxH from its list);
 *          a holder process keeps the card open, so the buffer stays on
 *          the screen (DRM master) until release; a draw first releases
 *   check  read back what the CRTC scans out now (its mode, its
 *          framebuffer's pixels); same: whether it is the pattern
 *   info   the same, without judging the pixels (exit 0 when a CRTC
 *          scans out a framebuffer)
 *   paint  the pattern written into the framebuffer the CRTC scans out,
 *          no mode set, then as check
 *   off    the holder disables the CRTC, as a resume that does not bring
 *          the display back would leave it (for mutation tests); says
 *          whether a CRTC still scans out (scanout)
 *   release  stop the holder: the fbdev emulation takes the screen back
 * The pattern depends only on the mode, so check after a resume compares
 * with what draw wrote without keeping any state. Writes to fbdev would
 * not do: Linux 6.1's bochs-drm never shows them on the scanout QEMU
 * captures (docs/pm.md, the display across S3 and S4).
 * Exit 0 done (check, paint: same), 1 not the pattern or no display, 2 usage. */
#include "json_out.h"
#include "sysfs.h"

#include <dirent.h>
#include <drm.h>
#include <drm_mode.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DRM_CARD "/dev/dri/card0"
#define DRM_CLASS "/sys/class/drm"
#define VTCON_CLASS "/sys/class/vtconsole"
#define HOLDER_PID "/run/ktb-fb.pid"
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
#define MAX_OBJS 16 /* connectors, CRTCs, encoders a card may have here */
#define MAX_MODES 128

struct fb_mode {
	unsigned xres, yres, bpp, stride;
};

/* Eight vertical colour bars whose brightness falls from top to bottom,
 * with a white one-pixel frame: any shift, scaling, blanking or
 * half-drawn frame changes the checksum and most of the pixels. XRGB. */
static uint32_t pattern_pixel(const struct fb_mode *m, unsigned x, unsigned y)
{
	static const uint32_t bars[8] = { 0xffffff, 0xffff00, 0x00ffff, 0x00ff00,
					  0xff00ff, 0xff0000, 0x0000ff, 0x404040 };
	uint32_t c = bars[x * 8 / m->xres], out = 0;
	unsigned level = 255 - y * 192 / m->yres;

	if (!x || !y || x == m->xres - 1 || y == m->yres - 1)
		return 0xffffff;
	for (int shift = 0; shift < 24; shift += 8)
		out |= (((c >> shift) & 0xff) * level / 255) << shift;
	return out;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, req, arg);
	while (ret && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

/* ---- the card: its CRTCs and connectors ---- */

struct card {
	int fd;
	uint32_t crtcs[MAX_OBJS], conns[MAX_OBJS];
	unsigned n_crtcs, n_conns;
};

static int card_open(struct card *k)
{
	struct drm_mode_card_res res = { 0 };
	int ret;

	k->fd = open(DRM_CARD, O_RDWR | O_CLOEXEC);
	if (k->fd < 0)
		return -errno;
	/* the first call counts, the second fills (the counts may not grow:
	 * there are no hotplugged CRTCs, and connectors are fixed here) */
	ret = xioctl(k->fd, DRM_IOCTL_MODE_GETRESOURCES, &res);
	if (ret)
		return ret;
	if (res.count_crtcs > MAX_OBJS || res.count_connectors > MAX_OBJS)
		return -E2BIG;
	res = (struct drm_mode_card_res){ .crtc_id_ptr = (uintptr_t)k->crtcs,
					  .connector_id_ptr = (uintptr_t)k->conns,
					  .count_crtcs = res.count_crtcs,
					  .count_connectors = res.count_connectors };
	ret = xioctl(k->fd, DRM_IOCTL_MODE_GETRESOURCES, &res);
	k->n_crtcs = res.count_crtcs;
	k->n_conns = res.count_connectors;
	return ret;
}

/* The first connected connector, its modes (probed: count 0 asks the
 * driver to probe) and the CRTC its encoder may drive. */
struct conn {
	uint32_t id, crtc;
	struct drm_mode_modeinfo modes[MAX_MODES];
	unsigned n_modes;
};

static int conn_crtc(struct card *k, uint32_t encoder, uint32_t *crtc)
{
	struct drm_mode_get_encoder e = { .encoder_id = encoder };
	int ret = xioctl(k->fd, DRM_IOCTL_MODE_GETENCODER, &e);

	if (ret)
		return ret;
	for (unsigned i = 0; i < k->n_crtcs && i < 32; i++)
		if (e.possible_crtcs & (1u << i)) {
			*crtc = k->crtcs[i];
			return 0;
		}
	return -ENODEV;
}

static int conn_find(struct card *k, struct conn *c)
{
	for (unsigned i = 0; i < k->n_conns; i++) {
		uint32_t enc[MAX_OBJS];
		struct drm_mode_get_connector g = { .connector_id = k->conns[i] };
		int ret = xioctl(k->fd, DRM_IOCTL_MODE_GETCONNECTOR, &g);

		if (ret)
			return ret;
		if (g.connection != 1 || !g.count_modes || !g.count_encoders)
			continue;
		if (g.count_modes > MAX_MODES || g.count_encoders > MAX_OBJS)
			return -E2BIG;
		g = (struct drm_mode_get_connector){ .connector_id = k->conns[i],
						     .modes_ptr = (uintptr_t)c->modes,
						     .count_modes = g.count_modes,
						     .encoders_ptr = (uintptr_t)enc,
						     .count_encoders = g.count_encoders };
		ret = xioctl(k->fd, DRM_IOCTL_MODE_GETCONNECTOR, &g);
		if (ret)
			return ret;
		c->id = k->conns[i];
		c->n_modes = g.count_modes;
		return conn_crtc(k, g.encoder_id ? g.encoder_id : enc[0], &c->crtc);
	}
	return -ENODEV;
}

/* WxH from the connector's list, or its preferred mode (the first when
 * none says so). */
static const struct drm_mode_modeinfo *conn_mode(const struct conn *c, const char *want)
{
	unsigned w = 0, h = 0;

	if (want && sscanf(want, "%ux%u", &w, &h) != 2)
		return NULL;
	for (unsigned i = 0; i < c->n_modes; i++) {
		const struct drm_mode_modeinfo *m = &c->modes[i];

		if (want ? m->hdisplay == w && m->vdisplay == h
			 : (m->type & DRM_MODE_TYPE_PREFERRED) != 0)
			return m;
	}
	return want || !c->n_modes ? NULL : &c->modes[0];
}

/* ---- a dumb buffer mapped for the CPU ---- */

struct buffer {
	uint32_t handle, fb;
	struct fb_mode m;
	uint32_t *px;
	size_t size;
};

static int buffer_map(struct card *k, struct buffer *b)
{
	struct drm_mode_map_dumb map = { .handle = b->handle };
	int ret = xioctl(k->fd, DRM_IOCTL_MODE_MAP_DUMB, &map);
	void *p;

	if (ret)
		return ret;
	p = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, (off_t)map.offset);
	if (p == MAP_FAILED)
		return -errno;
	b->px = p;
	return 0;
}

static int buffer_create(struct card *k, const struct drm_mode_modeinfo *mode, struct buffer *b)
{
	struct drm_mode_create_dumb cr = { .width = mode->hdisplay,
					   .height = mode->vdisplay,
					   .bpp = 32 };
	struct drm_mode_fb_cmd fb = { 0 };
	int ret = xioctl(k->fd, DRM_IOCTL_MODE_CREATE_DUMB, &cr);

	if (ret)
		return ret;
	b->handle = cr.handle;
	b->size = cr.size;
	b->m = (struct fb_mode){ cr.width, cr.height, 32, cr.pitch };
	fb = (struct drm_mode_fb_cmd){ .width = cr.width,
				       .height = cr.height,
				       .pitch = cr.pitch,
				       .bpp = 32,
				       .depth = 24,
				       .handle = cr.handle };
	ret = xioctl(k->fd, DRM_IOCTL_MODE_ADDFB, &fb);
	if (ret)
		return ret;
	b->fb = fb.fb_id;
	return buffer_map(k, b);
}

/* The pattern into the buffer, then the whole of it marked damaged for
 * drivers that copy to the scanout only what was (ENOSYS elsewhere). */
static void buffer_draw(struct card *k, const struct buffer *b)
{
	struct drm_mode_fb_dirty_cmd dirty = { .fb_id = b->fb };

	for (unsigned y = 0; y < b->m.yres; y++)
		for (unsigned x = 0; x < b->m.xres; x++)
			b->px[(size_t)y * (b->m.stride / 4) + x] = pattern_pixel(&b->m, x, y);
	xioctl(k->fd, DRM_IOCTL_MODE_DIRTYFB, &dirty);
}

/* The checksum of the visible pixels, and of the pattern. */
static void buffer_sums(const struct buffer *b, uint64_t *got, uint64_t *want)
{
	*got = *want = FNV_OFFSET;
	for (unsigned y = 0; y < b->m.yres; y++)
		for (unsigned x = 0; x < b->m.xres; x++) {
			uint32_t have = b->px[(size_t)y * (b->m.stride / 4) + x] & 0xffffff;
			uint32_t should = pattern_pixel(&b->m, x, y);

			*got = fnv(*got, &have, 4);
			*want = fnv(*want, &should, 4);
		}
}

/* ---- the holder: a process that keeps the card, and with it the CRTC ---- */

static pid_t holder_pid(void)
{
	char buf[32];
	long pid;

	if (sysfs_read(HOLDER_PID, buf, sizeof(buf)) < 0)
		return 0;
	pid = strtol(buf, NULL, 10);
	return pid > 1 && !kill((pid_t)pid, 0) ? (pid_t)pid : 0;
}

/* Stops the holder and waits (up to 5 s) until it is gone, so that the
 * card's master is free for the next draw. */
static void holder_stop(void)
{
	pid_t pid = holder_pid();
	struct timespec gap = { 0, 10 * 1000 * 1000 };

	if (!pid)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 500 && !kill(pid, 0); i++)
		nanosleep(&gap, NULL);
	unlink(HOLDER_PID);
}

/* The holder's life: it waits for signals. SIGUSR1 turns the output off
 * (the CRTC disabled, as a resume that does not bring the display back
 * leaves it: the mutation tests' "ktb-fb off"); SIGTERM ends it, and with
 * it the card's master. */
static _Noreturn void holder_run(int fd, uint32_t crtc)
{
	struct drm_mode_crtc off = { .crtc_id = crtc };
	sigset_t set;
	int sig, null = open("/dev/null", O_RDWR);

	setsid();
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	for (;;) {
		if (sigwait(&set, &sig) || sig == SIGTERM)
			_exit(0);
		xioctl(fd, DRM_IOCTL_MODE_SETCRTC, &off);
	}
}

/* Forks the holder: a session of its own, no stdio (the command that ran
 * draw must see its output end), the card's file kept open. */
static int holder_start(int fd, uint32_t crtc)
{
	char buf[32];
	sigset_t set;
	pid_t pid;
	int len, out;
	bool ok;

	/* blocked before the fork, so a signal sent at once is not lost */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid = fork();
	if (!pid)
		holder_run(fd, crtc);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	if (pid < 0)
		return -errno;
	out = open(HOLDER_PID, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	len = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	ok = out >= 0 && write(out, buf, (size_t)len) == len;
	if (out >= 0)
		close(out);
	return ok ? (int)pid : -EIO;
}

/* off: the holder disables the CRTC; the report is what scans out then. */
static int holder_off(void)
{
	pid_t pid = holder_pid();
	struct timespec gap = { 0, 200 * 1000 * 1000 };

	if (!pid || kill(pid, SIGUSR1))
		return -ESRCH;
	nanosleep(&gap, NULL);
	return 0;
}

/* ---- reports ---- */

/* The framebuffer console lets go: its vtcon unbound, so it neither
 * blanks the screen on a timer nor redraws when the holder stops. */
static void fbcon_unbind(void)
{
	char path[300], name[128];
	struct dirent *e;
	DIR *d = opendir(VTCON_CLASS);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "vtcon", 5))
			continue;
		snprintf(path, sizeof(path), VTCON_CLASS "/%s/name", e->d_name);
		if (sysfs_read(path, name, sizeof(name)) < 0 || !strstr(name, "frame buffer"))
			continue;
		snprintf(path, sizeof(path), VTCON_CLASS "/%s/bind", e->d_name);
		sysfs_write(path, "0");
	}
	closedir(d);
}

/* connectors: {NAME: {status, enabled, dpms}}; connected: how many say so. */
static void report_connectors(struct json_out *j)
{
	static const char *const attrs[] = { "status", "enabled", "dpms" };
	char path[300], val[64];
	unsigned connected = 0;
	struct dirent *e;
	DIR *d = opendir(DRM_CLASS);

	json_key(j, "connectors");
	json_obj_begin(j);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "card", 4) || !strchr(e->d_name, '-'))
			continue;
		json_key(j, e->d_name);
		json_obj_begin(j);
		for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
			snprintf(path, sizeof(path), DRM_CLASS "/%s/%s", e->d_name, attrs[i]);
			json_kv_str(j, attrs[i],
				    sysfs_read(path, val, sizeof(val)) < 0 ? NULL : val);
			if (!i && !strcmp(val, "connected"))
				connected++;
		}
		json_obj_end(j);
	}
	json_obj_end(j);
	json_kv_u64(j, "connected", connected);
	if (d)
		closedir(d);
}

static void report_driver(struct json_out *j)
{
	char drv[256] = "";
	ssize_t n = readlink(DRM_CLASS "/card0/device/driver", drv, sizeof(drv) - 1);

	drv[n > 0 ? n : 0] = 0;
	json_kv_str(j, "driver", strrchr(drv, '/') ? strrchr(drv, '/') + 1 : NULL);
}

static void report_mode(struct json_out *j, const struct drm_mode_modeinfo *mode,
			const struct buffer *b)
{
	json_kv_u64(j, "xres", mode->hdisplay);
	json_kv_u64(j, "yres", mode->vdisplay);
	json_kv_u64(j, "refresh", mode->vrefresh);
	json_kv_u64(j, "bpp", b->m.bpp);
	json_kv_u64(j, "stride", b->m.stride);
	json_kv_u64(j, "fb_width", b->m.xres);
	json_kv_u64(j, "fb_height", b->m.yres);
}

static int report_pixels(struct json_out *j, const struct buffer *b)
{
	uint64_t got, want;
	char hex[17];

	buffer_sums(b, &got, &want);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)got);
	json_kv_str(j, "checksum", hex);
	json_kv_bool(j, "same", got == want);
	return got == want ? 0 : 1;
}

/* ---- the operations ---- */

static int op_draw(struct card *k, const char *want, struct json_out *j)
{
	struct conn c = { 0 };
	struct buffer b = { 0 };
	const struct drm_mode_modeinfo *mode;
	struct drm_mode_crtc set;
	int ret = conn_find(k, &c);

	if (ret)
		return ret;
	mode = conn_mode(&c, want);
	if (!mode)
		return -EDOM;
	ret = xioctl(k->fd, DRM_IOCTL_SET_MASTER, NULL);
	if (!ret)
		ret = buffer_create(k, mode, &b);
	if (ret)
		return ret;
	set = (struct drm_mode_crtc){ .set_connectors_ptr = (uintptr_t)&c.id,
				      .count_connectors = 1,
				      .crtc_id = c.crtc,
				      .fb_id = b.fb,
				      .mode_valid = 1,
				      .mode = *mode };
	ret = xioctl(k->fd, DRM_IOCTL_MODE_SETCRTC, &set);
	if (ret)
		return ret;
	/* drawn once the buffer is scanned out: the mode set may clear the
	 * adapter's memory (QEMU's VGA does when it enables a mode) */
	buffer_draw(k, &b);
	report_mode(j, mode, &b);
	json_kv_u64(j, "crtc", c.crtc);
	json_kv_u64(j, "fb", b.fb);
	ret = holder_start(k->fd, c.crtc);
	if (ret < 0)
		return ret;
	json_kv_u64(j, "holder", (uint64_t)ret);
	report_connectors(j);
	return report_pixels(j, &b);
}

/* The CRTC that scans out a framebuffer, its mode and that framebuffer
 * mapped (GETFB gives root a handle to it). */
static int scanout_find(struct card *k, struct drm_mode_crtc *crtc, struct buffer *b)
{
	struct drm_mode_fb_cmd fb;
	int ret;

	for (unsigned i = 0; i < k->n_crtcs; i++) {
		*crtc = (struct drm_mode_crtc){ .crtc_id = k->crtcs[i] };
		ret = xioctl(k->fd, DRM_IOCTL_MODE_GETCRTC, crtc);
		if (ret)
			return ret;
		if (!crtc->fb_id || !crtc->mode_valid)
			continue;
		fb = (struct drm_mode_fb_cmd){ .fb_id = crtc->fb_id };
		ret = xioctl(k->fd, DRM_IOCTL_MODE_GETFB, &fb);
		if (ret)
			return ret;
		if (fb.bpp != 32 || !fb.handle)
			return -ENOTSUP;
		*b = (struct buffer){ .handle = fb.handle,
				      .fb = crtc->fb_id,
				      .m = { fb.width, fb.height, fb.bpp, fb.pitch },
				      .size = (size_t)fb.pitch * fb.height };
		return buffer_map(k, b);
	}
	return -ENODEV;
}

/* check, info and paint: what is on the screen now; paint first writes
 * the pattern into the framebuffer the CRTC scans out (no mode set), as a
 * compositor repaints after a restore. Only check judges the pixels. */
static int op_scanout(struct card *k, const char *op, struct json_out *j)
{
	struct drm_mode_crtc crtc;
	struct buffer b = { 0 };
	pid_t holder = holder_pid();
	int ret = scanout_find(k, &crtc, &b);

	if (ret)
		return ret;
	if (!strcmp(op, "paint"))
		buffer_draw(k, &b);
	report_mode(j, &crtc.mode, &b);
	json_kv_u64(j, "crtc", crtc.crtc_id);
	json_kv_u64(j, "fb", crtc.fb_id);
	json_kv_u64_or_null(j, "holder", holder != 0, (uint64_t)holder);
	report_connectors(j);
	ret = report_pixels(j, &b);
	return strcmp(op, "info") ? ret : 0;
}

/* off: the output disabled by the holder; says whether a CRTC still scans
 * out a framebuffer and how the connectors read now. */
static int op_off(struct card *k, struct json_out *j)
{
	struct drm_mode_crtc crtc;
	struct buffer b = { 0 };
	int ret = holder_off();

	if (ret)
		return ret;
	ret = scanout_find(k, &crtc, &b);
	if (ret && ret != -ENODEV)
		return ret;
	json_kv_bool(j, "scanout", !ret);
	report_connectors(j);
	return 0;
}

static const char *const ops[] = { "draw", "check", "info", "paint", "release", "off" };

static bool op_known(const char *op)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *mode = argc == 4 && !strcmp(argv[2], "--mode") ? argv[3] : NULL;
	struct card k = { .fd = -1 };
	struct json_out j;
	int ret;

	if (!(argc == 2 || (argc == 4 && mode && !strcmp(op, "draw"))) || !op_known(op)) {
		fprintf(stderr, "usage: ktb-fb draw [--mode WxH]|check|info|paint|off|release\n");
		return 2;
	}
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", op);
	if (!strcmp(op, "draw") || !strcmp(op, "release"))
		holder_stop();
	if (!strcmp(op, "draw"))
		fbcon_unbind();
	ret = strcmp(op, "release") ? card_open(&k) : 0;
	if (!ret)
		report_driver(&j);
	if (!ret && !strcmp(op, "draw"))
		ret = op_draw(&k, mode, &j);
	else if (!ret && !strcmp(op, "off"))
		ret = op_off(&k, &j);
	else if (!ret && strcmp(op, "release"))
		ret = op_scanout(&k, op, &j);
	if (ret == -EDOM)
		json_kv_str(&j, "error", "no such mode on the connected connector");
	else if (ret < 0)
		json_kv_str(&j, "error", strerror(-ret));
	json_obj_end(&j);
	json_finish(&j);
	if (k.fd >= 0)
		close(k.fd);
	return ret ? 1 : 0;
}
