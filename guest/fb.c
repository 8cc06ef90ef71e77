/* ktb-fb: draws a known pattern on the framebuffer (/dev/fb0, the DRM
 * driver's fbdev emulation) and reports one JSON object: the mode (xres,
 * yres, bpp, stride), the DRM connectors' status, enabled and dpms, and an
 * FNV-1a checksum of the visible pixels read back.
 *   draw   unbind the framebuffer console (it would draw its cursor and
 *          text over the pattern), unblank, write the pattern, read it back
 *   check  read back only; same: whether it is the pattern for this mode
 *   info   the mode and connectors, no pixels
 * The pattern depends only on the mode, so check after a resume compares
 * with what draw wrote without keeping any state. Writes go through write()
 * rather than mmap, which the fbdev emulation treats as damage at once.
 * With Linux 6.1's bochs-drm they still do not reach the scanout QEMU
 * shows (docs/pm.md, the display across S3 and S4).
 * Exit 0 done (check: same), 1 check differs or no framebuffer, 2 usage. */
#include "json_out.h"
#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define FB_DEV "/dev/fb0"
#define DRM_CLASS "/sys/class/drm"
#define VTCON_CLASS "/sys/class/vtconsole"
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

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

static int fb_get_mode(int fd, struct fb_mode *m)
{
	struct fb_var_screeninfo v;
	struct fb_fix_screeninfo f;

	if (ioctl(fd, FBIOGET_VSCREENINFO, &v) || ioctl(fd, FBIOGET_FSCREENINFO, &f))
		return -errno;
	*m = (struct fb_mode){ v.xres, v.yres, v.bits_per_pixel, f.line_length };
	if (m->bpp != 32 || !m->xres || !m->yres || m->stride < m->xres * 4)
		return -ENOTSUP;
	return 0;
}

/* Sets the mode it has, so that the DRM fbdev emulation commits it to the
 * CRTC: nothing else does while the framebuffer console defers its
 * takeover (Debian's kernel) and no text has reached the screen. */
static void fb_set_mode(int fd)
{
	struct fb_var_screeninfo v;

	if (ioctl(fd, FBIOGET_VSCREENINFO, &v))
		return;
	v.activate = FB_ACTIVATE_NOW | FB_ACTIVATE_FORCE;
	ioctl(fd, FBIOPUT_VSCREENINFO, &v);
}

/* Writes the pattern line by line at each line's stride offset. */
static int fb_draw(int fd, const struct fb_mode *m, uint32_t *line)
{
	for (unsigned y = 0; y < m->yres; y++) {
		for (unsigned x = 0; x < m->xres; x++)
			line[x] = pattern_pixel(m, x, y);
		if (pwrite(fd, line, m->xres * 4, (off_t)y * m->stride) != (ssize_t)(m->xres * 4))
			return -EIO;
	}
	return 0;
}

/* The checksum of the visible pixels read back, and of the pattern. */
static int fb_sums(int fd, const struct fb_mode *m, uint32_t *line, uint64_t *got, uint64_t *want)
{
	*got = *want = FNV_OFFSET;
	for (unsigned y = 0; y < m->yres; y++) {
		if (pread(fd, line, m->xres * 4, (off_t)y * m->stride) != (ssize_t)(m->xres * 4))
			return -EIO;
		for (unsigned x = 0; x < m->xres; x++)
			line[x] &= 0xffffff; /* X of XRGB is not shown */
		*got = fnv(*got, line, m->xres * 4);
		for (unsigned x = 0; x < m->xres; x++)
			line[x] = pattern_pixel(m, x, y);
		*want = fnv(*want, line, m->xres * 4);
	}
	return 0;
}

/* The framebuffer console lets go of the framebuffer: its vtcon unbound. */
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

static void report_mode(struct json_out *j, const struct fb_mode *m)
{
	char drv[256] = "";
	ssize_t n = readlink("/sys/class/graphics/fb0/device/driver", drv, sizeof(drv) - 1);

	drv[n > 0 ? n : 0] = 0;
	json_kv_str(j, "driver", strrchr(drv, '/') ? strrchr(drv, '/') + 1 : NULL);
	json_kv_u64(j, "xres", m->xres);
	json_kv_u64(j, "yres", m->yres);
	json_kv_u64(j, "bpp", m->bpp);
	json_kv_u64(j, "stride", m->stride);
}

static int fb_run(const char *op, struct json_out *j)
{
	uint64_t got, want;
	char hex[17];
	struct fb_mode m = { 0 };
	uint32_t *line = NULL;
	int fd, ret;

	if (!strcmp(op, "draw"))
		fbcon_unbind();
	fd = open(FB_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = fb_get_mode(fd, &m);
	if (ret)
		goto out;
	report_mode(j, &m);
	report_connectors(j);
	if (!strcmp(op, "info"))
		goto out;
	ret = -ENOMEM;
	line = malloc((size_t)m.xres * 4);
	if (!line)
		goto out;
	if (!strcmp(op, "draw")) {
		fb_set_mode(fd);
		ioctl(fd, FBIOBLANK, FB_BLANK_UNBLANK);
		ret = fb_draw(fd, &m, line);
		if (ret)
			goto out;
	}
	ret = fb_sums(fd, &m, line, &got, &want);
	if (ret)
		goto out;
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)got);
	json_kv_str(j, "checksum", hex);
	json_kv_bool(j, "same", got == want);
	ret = got == want ? 0 : 1;
out:
	free(line);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	struct json_out j;
	int ret;

	if (argc != 2 ||
	    (strcmp(argv[1], "draw") && strcmp(argv[1], "check") && strcmp(argv[1], "info"))) {
		fprintf(stderr, "usage: ktb-fb draw|check|info\n");
		return 2;
	}
	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "op", argv[1]);
	ret = fb_run(argv[1], &j);
	if (ret < 0)
		json_kv_str(&j, "error", strerror(-ret));
	json_obj_end(&j);
	json_finish(&j);
	return ret ? 1 : 0;
}
