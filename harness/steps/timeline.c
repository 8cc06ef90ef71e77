#include "timeline.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Sized to read at ~1000 px without zooming. */
#define TL_W 1000
#define TL_X0 20
#define TL_X1 980
#define TL_GAP 30 /* the sleep point: time there is not to scale */
#define TL_BAND_Y 86
#define TL_BAND_H 38
#define TL_AXIS_Y (TL_BAND_Y + TL_BAND_H + 4)
#define TL_LEGEND_Y 170
#define TL_LEGEND_COLS 5
#define TL_ROW 19
#define TL_TOP_DEVICES 10
#define TL_FONT "font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\""

/* Suspend warm, resume cool, so a band's side reads from its colour alone;
 * neighbours alternate light and dark so adjacent bands stay apart. */
static const char *const warm[] = { "#fdae61", "#d73027", "#fee090", "#f46d43",
				    "#fdd0a2", "#a50026", "#fc8d59", "#e6550d" };
static const char *const cool[] = { "#abd9e9", "#4575b4", "#a6d96a", "#1a9850",
				    "#74add1", "#313695", "#d9ef8b", "#66bd63" };

/* Geometry of one drawing: where each half starts on the page. */
struct tl {
	FILE *f;
	const struct pm_cycle *c;
	double gl, gr; /* left and right edge of the sleep point */
	double kl, kr; /* px per ms left and right of the sleep point */
	bool same_scale;
	double ls, rs; /* ms drawn left and right of the sleep point */
};

/* Text from the guest's log can hold anything: XML metacharacters become
 * entities, control and non-ASCII bytes '?', and long names end in "...". */
static void xml_put(FILE *f, const char *s, size_t max)
{
	size_t n = strlen(s);
	bool cut = max && n > max;

	for (size_t i = 0; i < (cut ? max - 3 : n); i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '<')
			fputs("&lt;", f);
		else if (ch == '>')
			fputs("&gt;", f);
		else if (ch == '&')
			fputs("&amp;", f);
		else if (ch == '"')
			fputs("&quot;", f);
		else if (ch == '\'')
			fputs("&apos;", f);
		else
			fputc(ch < 0x20 || ch >= 0x7f ? '?' : ch, f);
	}
	if (cut)
		fputs("...", f);
}

static const char *phase_color(const struct pm_cycle *c, size_t idx)
{
	const struct pm_phase *ph = &c->phases[idx];
	size_t n = 0;

	for (size_t i = 0; i < idx; i++)
		n += c->phases[i].half == ph->half;
	return ph->half == PM_HALF_SUSPEND ? warm[n % ARRAY_SIZE(warm)]
					   : cool[n % ARRAY_SIZE(cool)];
}

/* Dark text on light fills, white on dark ones. */
static const char *text_on(const char *fill)
{
	unsigned r, g, b;

	if (sscanf(fill, "#%2x%2x%2x", &r, &g, &b) != 3)
		return "#000";
	return 299 * r + 587 * g + 114 * b > 140000 ? "#222" : "#fff";
}

static double x_of(const struct tl *t, double s, enum pm_half half)
{
	const struct pm_cycle *c = t->c;

	if (half == PM_HALF_RESUME)
		return t->gr + (s - c->wake_s) * 1000 * t->kr;
	return TL_X0 + (s - c->entry_s) * 1000 * t->kl;
}

/*
 * One scale for both halves, as long as neither gets squeezed below a
 * quarter of the width: S4's suspend half (image preallocation) can be 20
 * times its resume half, and a 40 px resume half cannot be read.
 */
static void tl_layout(struct tl *t)
{
	const struct pm_cycle *c = t->c;
	double avail = TL_X1 - TL_X0 - (c->slept ? TL_GAP : 0), share = 1;

	t->ls = pm_cycle_suspend_ms(c);
	t->rs = pm_cycle_resume_ms(c);
	if (c->slept) {
		share = t->ls + t->rs > 0 ? t->ls / (t->ls + t->rs) : 0.5;
		share = share < 0.25 ? 0.25 : share > 0.75 ? 0.75 : share;
	}
	t->kl = avail * share / (t->ls > 0 ? t->ls : 1);
	t->kr = avail * (1 - share) / (t->rs > 0 ? t->rs : 1);
	t->gl = TL_X0 + avail * share;
	t->gr = t->gl + (c->slept ? TL_GAP : 0);
	t->same_scale = !c->slept || (t->kl / t->kr > 0.999 && t->kl / t->kr < 1.001);
}

static const char *sleep_label(const struct pm_cycle *c)
{
	if (c->pm_test)
		return "pm_test wait";
	switch (c->mode) {
	case PM_MODE_DEEP:
		return "S3 sleep";
	case PM_MODE_S2IDLE:
		return "s2idle";
	case PM_MODE_SHALLOW:
		return "S1 sleep";
	case PM_MODE_HIBERNATE:
		return "image saved";
	default:
		return "sleep";
	}
}

static const char *mode_title(enum pm_mode m)
{
	static const char *const titles[] = {
		[PM_MODE_UNKNOWN] = "Suspend",
		[PM_MODE_DEEP] = "S3 (deep)",
		[PM_MODE_S2IDLE] = "s2idle (suspend-to-idle)",
		[PM_MODE_SHALLOW] = "S1 (shallow)",
		[PM_MODE_HIBERNATE] = "S4 (hibernate)",
	};

	return (unsigned)m < ARRAY_SIZE(titles) ? titles[m] : titles[0];
}

/* The title of a cycle whose freezer gave up: how long it tried and the
 * tasks that refused (the first three by name). */
static void draw_freeze_fail(const struct tl *t)
{
	const struct pm_freeze_fail *f = t->c->freeze_fail;

	fprintf(t->f, "did not sleep: freezing %s after %.3f s (%d task%s refusing",
		f->aborted ? "aborted" : "failed", f->after_s, f->refusing,
		f->refusing == 1 ? "" : "s");
	for (size_t i = 0; i < f->tasks_count && i < 3; i++) {
		fputs(i ? ", " : ": ", t->f);
		xml_put(t->f, f->tasks[i].name, 16);
	}
	fputs(f->tasks_count > 3 ? ", ...)</text>\n" : ")</text>\n", t->f);
}

static void draw_header(const struct tl *t, size_t cycle, size_t cycles)
{
	const struct pm_cycle *c = t->c;

	fprintf(t->f, "<text x=\"%d\" y=\"28\" font-size=\"19\" font-weight=\"bold\">%s%s: ", TL_X0,
		mode_title(c->mode), c->pm_test ? " pm_test" : "");
	if (c->slept)
		fprintf(t->f, "suspend %.1f ms, resume %.1f ms</text>\n", t->ls, t->rs);
	else if (c->freeze_fail)
		draw_freeze_fail(t);
	else
		fprintf(t->f, "did not sleep (%.1f ms in the kernel)</text>\n", t->ls);
	fprintf(t->f,
		"<text x=\"%d\" y=\"48\" font-size=\"12\" fill=\"#555\">cycle %zu of %zu; "
		"kernel clock, entry %.6f s, exit %.6f s; %zu device callbacks",
		TL_X0, cycle + 1, cycles, c->entry_s, c->exit_s, c->devices_count);
	/* the freeze time every suspend reports, as the kernel measured it */
	if (pm_cycle_freeze_ms(c) >= 0)
		fprintf(t->f, "; freeze %.0f ms", pm_cycle_freeze_ms(c));
	if (c->mode == PM_MODE_HIBERNATE && c->hib.image_pages)
		fprintf(t->f, "; image %.1f MiB", c->hib.image_pages * 4 / 1024.0);
	/* the write and read figures are only in the console's log, not in the
	 * restored kernel's dmesg: leave out what was not seen */
	if (c->mode == PM_MODE_HIBERNATE && c->hib.wrote_kbytes)
		fprintf(t->f, ", written in %.2f s", c->hib.write_s);
	if (c->mode == PM_MODE_HIBERNATE && c->hib.read_kbytes)
		fprintf(t->f, ", read in %.2f s", c->hib.read_s);
	fputs("</text>\n", t->f);
	fprintf(t->f,
		"<text x=\"%d\" y=\"66\" font-size=\"13\" font-weight=\"bold\" fill=\"#b2182b\">"
		"suspend %.1f ms</text>\n",
		TL_X0, t->ls);
	if (c->slept)
		fprintf(t->f,
			"<text x=\"%d\" y=\"66\" font-size=\"13\" font-weight=\"bold\" "
			"fill=\"#2166ac\" text-anchor=\"end\">resume %.1f ms</text>\n",
			TL_X1, t->rs);
}

static void draw_band(const struct tl *t, size_t i)
{
	const struct pm_phase *ph = &t->c->phases[i];
	const char *fill = phase_color(t->c, i);
	double x = x_of(t, ph->start_s, ph->half), w = x_of(t, ph->end_s, ph->half) - x;
	double ms = (ph->end_s - ph->start_s) * 1000;

	if (w < 1)
		w = 1;
	fprintf(t->f,
		"<g><title>%s: %.3f ms</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		"height=\"%d\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\"/>",
		ph->name, ms, x, TL_BAND_Y, w, TL_BAND_H, fill);
	/* ~6.5 px a character at 11 px: label only the bands it fits in */
	if (w > 6.5 * strlen(ph->name) + 6)
		fprintf(t->f,
			"<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\" "
			"fill=\"%s\">%s</text>",
			x + w / 2, TL_BAND_Y + TL_BAND_H / 2 - 1, text_on(fill), ph->name);
	if (w > 6.5 * 8 + 6)
		fprintf(t->f,
			"<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" "
			"fill=\"%s\">%.1f ms</text>",
			x + w / 2, TL_BAND_Y + TL_BAND_H / 2 + 12, text_on(fill), ms);
	fputs("</g>\n", t->f);
}

static void draw_sleep(const struct tl *t)
{
	const struct pm_cycle *c = t->c;
	double mid = (t->gl + t->gr) / 2;

	if (!c->slept) {
		fprintf(
		    t->f,
		    "<text x=\"%d\" y=\"66\" font-size=\"13\" font-weight=\"bold\" "
		    "fill=\"#b2182b\" text-anchor=\"end\">did not reach the sleep state</text>\n",
		    TL_X1);
		return;
	}
	fprintf(t->f,
		"<g><title>%s: kernel clock %.6f s to %.6f s, not to scale</title>"
		"<rect x=\"%.1f\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#333\"/>"
		"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#fff\" "
		"stroke-dasharray=\"3,3\"/></g>\n",
		sleep_label(c), c->sleep_s, c->wake_s, t->gl, TL_BAND_Y - 6, TL_GAP, TL_BAND_H + 12,
		mid, TL_BAND_Y - 6, mid, TL_BAND_Y + TL_BAND_H + 6);
	fprintf(t->f,
		"<text x=\"%.1f\" y=\"%d\" font-size=\"12\" font-weight=\"bold\" "
		"text-anchor=\"middle\">%s</text>\n",
		mid, TL_BAND_Y - 7, sleep_label(c));
}

/* A 1-2-5 step that puts ticks at least 70 px apart. */
static double tick_step(double k)
{
	static const double m[] = { 1, 2, 5 };
	double base = 0.001;

	/* a half with no width (no sleep point) gets no ticks */
	for (; base < 1e9; base *= 10)
		for (size_t i = 0; i < ARRAY_SIZE(m); i++)
			if (base * m[i] * k >= 70)
				return base * m[i];
	return 1e12;
}

static void draw_tick(const struct tl *t, double x, double ms)
{
	fprintf(t->f,
		"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>"
		"<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" fill=\"#444\">"
		"%s%g</text>\n",
		x, TL_AXIS_Y, x, TL_AXIS_Y + 4, x, TL_AXIS_Y + 15,
		ms > 0	 ? "+"
		: ms < 0 ? "-"
			 : "",
		ms < 0 ? -ms : ms);
}

/* Ticks count from the sleep point, negative before it, so both halves
 * read as "how long before/after sleeping"; without one, from the entry. */
static void draw_axis(const struct tl *t)
{
	double sl = tick_step(t->kl), sr = tick_step(t->kr);
	bool slept = t->c->slept;

	fprintf(t->f, "<path d=\"M%d %dH%.1fM%.1f %dH%d\" stroke=\"#444\"/>\n", TL_X0, TL_AXIS_Y,
		t->gl, t->gr, TL_AXIS_Y, TL_X1);
	for (double ms = 0; ms <= t->ls + 1e-9; ms += sl)
		draw_tick(t, slept ? t->gl - ms * t->kl : TL_X0 + ms * t->kl, slept ? -ms : ms);
	for (double ms = sr; slept && ms <= t->rs + 1e-9; ms += sr)
		draw_tick(t, t->gr + ms * t->kr, ms);
	fprintf(t->f,
		"<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#444\" text-anchor=\"end\">"
		"ms %s%s</text>\n",
		TL_X1, TL_AXIS_Y + 28, slept ? "from the sleep point" : "from entry",
		t->same_scale ? "" : "; the halves are drawn to different scales");
}

/* Every phase with its colour and length, so the bands too narrow for a
 * label can still be read. Returns the y below the legend. */
static int draw_legend(const struct tl *t)
{
	const struct pm_cycle *c = t->c;
	int colw = (TL_X1 - TL_X0) / TL_LEGEND_COLS, y = TL_LEGEND_Y;

	for (size_t i = 0; i < c->phases_count; i++) {
		const struct pm_phase *ph = &c->phases[i];
		int x = TL_X0 + (int)(i % TL_LEGEND_COLS) * colw;

		y = TL_LEGEND_Y + (int)(i / TL_LEGEND_COLS) * 18;
		fprintf(t->f,
			"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\" font-size=\"11\">%s <tspan fill=\"#555\">%.2f ms"
			"</tspan></text>\n",
			x, y - 10, phase_color(c, i), x + 17, y, ph->name,
			(ph->end_s - ph->start_s) * 1000);
	}
	return y + 16;
}

/* The colour of the phase a callback finished in ties a bar to its band. */
static const char *device_color(const struct pm_cycle *c, const struct pm_device *d)
{
	for (size_t i = 0; i < c->phases_count; i++) {
		const struct pm_phase *ph = &c->phases[i];

		if (ph->half == d->half && d->end_s >= ph->start_s && d->end_s <= ph->end_s)
			return phase_color(c, i);
	}
	return "#999";
}

static void draw_device(const struct tl *t, const struct pm_device *d, int x, int y, long max)
{
	double w = 115.0 * d->usecs / (max > 0 ? max : 1);

	fputs("<g><title>", t->f);
	xml_put(t->f, d->device, 0);
	fputs(": ", t->f);
	xml_put(t->f, d->callback, 0);
	if (d->driver) {
		fputs(" [", t->f);
		xml_put(t->f, d->driver, 0);
		fputc(']', t->f);
	}
	fprintf(t->f,
		" returned %d after %ld usecs</title><text x=\"%d\" y=\"%d\" font-size=\"11\" "
		"text-anchor=\"end\">",
		d->ret, d->usecs, x + 300, y);
	xml_put(t->f, d->device, 24);
	fputs(" <tspan fill=\"#666\">", t->f);
	xml_put(t->f, d->callback, 22);
	fprintf(t->f,
		"</tspan></text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"13\" "
		"fill=\"%s\"%s/><text x=\"%.1f\" y=\"%d\" font-size=\"11\">%.2f ms</text></g>\n",
		x + 306, y - 10, w < 1 ? 1 : w, device_color(t->c, d),
		d->ret ? " stroke=\"#b2182b\" stroke-width=\"2\"" : "", x + 310 + w, y,
		d->usecs / 1000.0);
}

/* Suspend's slowest on the left, resume's on the right, like the bands;
 * one scale for both so bars compare across halves. */
static int draw_devices(const struct tl *t, int y)
{
	const struct pm_device *top[2][TL_TOP_DEVICES];
	size_t n[2], rows;
	long max = 0;

	for (int h = 0; h < 2; h++) {
		n[h] = pm_cycle_slowest(t->c, (enum pm_half)h, top[h], TL_TOP_DEVICES);
		if (n[h] && top[h][0]->usecs > max)
			max = top[h][0]->usecs;
	}
	if (!n[0] && !n[1]) {
		fprintf(t->f,
			"<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#555\">No per-device "
			"times in the log (echo 1 &gt; /sys/power/pm_print_times)</text>\n",
			TL_X0, y + 14);
		return y + 24;
	}
	for (int h = 0; h < 2; h++)
		fprintf(t->f,
			"<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">Slowest "
			"%s callbacks</text>\n",
			TL_X0 + h * (TL_W / 2), y + 14, h ? "resume" : "suspend");
	rows = n[0] > n[1] ? n[0] : n[1];
	for (int h = 0; h < 2; h++)
		for (size_t i = 0; i < n[h]; i++)
			draw_device(t, top[h][i], TL_X0 + h * (TL_W / 2), y + 36 + (int)i * TL_ROW,
				    max);
	return y + 30 + (int)rows * TL_ROW;
}

static int draw_errors(const struct tl *t, int y)
{
	for (size_t i = 0; i < t->c->errors_count && i < 6; i++) {
		fprintf(t->f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#b2182b\">", TL_X0,
			y + 16 + (int)i * 16);
		xml_put(t->f, t->c->errors[i], 150);
		fputs("</text>\n", t->f);
	}
	return y + 8 + (int)(t->c->errors_count < 6 ? t->c->errors_count : 6) * 16;
}

/* The body is drawn to a memory stream first: the height it ends at goes
 * into the root element. */
static int draw_body(struct tl *t, size_t cycle, size_t cycles)
{
	int y;

	tl_layout(t);
	draw_header(t, cycle, cycles);
	for (size_t i = 0; i < t->c->phases_count; i++)
		draw_band(t, i);
	draw_sleep(t);
	draw_axis(t);
	y = draw_legend(t);
	y = draw_devices(t, y + 6);
	y = draw_errors(t, y);
	return y + 10;
}

int timeline_svg(const struct pm_report *r, size_t cycle, FILE *out)
{
	struct tl t = { .c = NULL };
	char *body = NULL;
	size_t len = 0;
	int h;

	if (!r || !r->cycles_count)
		return -ENODATA;
	if (cycle >= r->cycles_count || !out)
		return -EINVAL;
	t.c = &r->cycles[cycle];
	t.f = open_memstream(&body, &len);
	if (!t.f)
		return -errno;
	h = draw_body(&t, cycle, r->cycles_count);
	if (fclose(t.f)) {
		free(body);
		return -ENOMEM;
	}
	fprintf(
	    out,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" " TL_FONT ">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n%s</svg>\n",
	    TL_W, h, TL_W, h, body);
	free(body);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
