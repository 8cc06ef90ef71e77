/* screen: NAME [same_as: EARLIER] [poll: DURATION] (step_screen.h). A
 * capture is QEMU's own rendering of the adapter's memory and mode, so it
 * shows what a monitor would: a blanked, unbound or re-moded display
 * differs from the capture taken before, even when the guest's framebuffer
 * still holds the pattern. Earlier captures are read back from the
 * artifacts, so the step keeps no state between steps. */
#include "step_screen.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "ppm.h"
#include "sha256.h"
#include "util.h"

#define SCREEN_POLL_GAP_MS 250 /* between captures while polling */

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

struct capture {
	char *path;
	unsigned char *bytes;
	size_t len;
	struct ppm img;
};

static void capture_free(struct capture *cap)
{
	free(cap->path);
	free(cap->bytes);
	memset(cap, 0, sizeof(*cap));
}

static int capture_read(struct capture *cap)
{
	cap->bytes = (unsigned char *)read_file(cap->path, &cap->len);
	if (!cap->bytes)
		return -errno;
	return ppm_parse(cap->bytes, cap->len, &cap->img);
}

/* QMP screendump into artifacts/screen-NAME.ppm, then parsed. */
static int capture_take(struct run_ctx *c, const char *name, struct capture *cap, char **err,
			int64_t deadline)
{
	json_t *args;
	int ret;

	capture_free(cap);
	cap->path = xasprintf("%s/screen-%s.ppm", c->r->artifacts, name);
	args = json_pack("{ss}", "filename", cap->path);
	ret = vm_qmp(&c->vm, "screendump", args, NULL, err, deadline);
	json_decref(args);
	return ret ? ret : capture_read(cap);
}

static json_t *capture_describe(const struct capture *cap)
{
	const struct ppm *p = &cap->img;
	size_t n = (size_t)p->width * p->height;
	char hex[SHA256_HEX_LEN + 1];
	struct sha256_ctx h;
	size_t black = 0;

	sha256_init(&h);
	sha256_feed(&h, p->rgb, n * 3);
	sha256_hex(&h, hex);
	for (size_t i = 0; i < n; i++)
		black += !(p->rgb[i * 3] | p->rgb[i * 3 + 1] | p->rgb[i * 3 + 2]);
	return json_pack("{ss si si ss sf}", "file", strrchr(cap->path, '/') + 1, "width",
			 (json_int_t)p->width, "height", (json_int_t)p->height, "sha256", hex,
			 "black", (double)black / (double)n);
}

int screen_capture(struct run_ctx *c, const char *name, json_t **desc, char **err, int64_t deadline)
{
	struct capture cap = { 0 };
	int ret = capture_take(c, name, &cap, err, deadline);

	if (!ret)
		*desc = capture_describe(&cap);
	capture_free(&cap);
	return ret;
}

/* Pixels of cap that differ from ref; UINT64_MAX when the sizes differ. */
static uint64_t capture_differ(const struct capture *cap, const struct capture *ref)
{
	uint64_t n;

	return ppm_diff(&cap->img, &ref->img, &n) ? UINT64_MAX : n;
}

static char *differ_message(const struct step *st, const struct capture *cap,
			    const struct capture *ref, uint64_t differ, unsigned captures)
{
	if (differ == UINT64_MAX)
		return xasprintf("the screen is %ux%u, \"%s\" was %ux%u (%u captures%s%s)",
				 cap->img.width, cap->img.height, st->same_as, ref->img.width,
				 ref->img.height, captures, st->poll ? " in " : "",
				 st->poll ? st->poll : "");
	return xasprintf(
	    "the screen differs from \"%s\": %.2f%% of its pixels (%llu) after "
	    "%u captures%s%s",
	    st->same_as, 100.0 * (double)differ / ((double)cap->img.width * cap->img.height),
	    (unsigned long long)differ, captures, st->poll ? " in " : "", st->poll ? st->poll : "");
}

/* Does every pixel of cap read black? Then it shows nothing: two such
 * captures are equal whatever the display did between them. */
static bool capture_blank(const struct capture *cap)
{
	size_t n = (size_t)cap->img.width * cap->img.height * 3;

	for (size_t i = 0; i < n; i++)
		if (cap->img.rgb[i])
			return false;
	return true;
}

/* Captures until the screen equals ref or poll_ms passes; the data says
 * how many captures, how many pixels differ and, when it matched after a
 * wake, how long after it. */
static int screen_compare(struct run_ctx *c, const struct step *st, struct step_result *sr,
			  struct capture *cap, char **err, int64_t deadline)
{
	struct capture ref = { .path =
				   xasprintf("%s/screen-%s.ppm", c->r->artifacts, st->same_as) };
	int64_t until = loop_now(c->vm.loop) + st->poll_ms, t;
	uint64_t differ;
	unsigned n = 1;
	int ret = capture_read(&ref);

	if (ret)
		goto out;
	json_object_set_new(sr->data, "same_as", json_string(st->same_as));
	if (capture_blank(&ref)) {
		/* a comparison that could not fail is not a check */
		sr->status = ST_FAIL;
		sr->message = xasprintf("\"%s\" is blank (every pixel black): nothing was on the "
					"screen to compare with",
					st->same_as);
		goto out;
	}
	for (;;) {
		t = loop_now(c->vm.loop);
		differ = capture_differ(cap, &ref);
		if (!differ || t >= until || t >= deadline)
			break;
		ret =
		    loop_run_until(c->vm.loop, NULL, NULL, min64(t + SCREEN_POLL_GAP_MS, deadline));
		if (!ret)
			ret = capture_take(c, st->screen, cap, err, deadline);
		if (ret)
			goto out;
		n++;
	}
	json_object_set_new(sr->data, "captures", json_integer(n));
	json_object_set_new(sr->data, "differ_pixels",
			    differ == UINT64_MAX ? json_null() : json_integer((json_int_t)differ));
	if (differ) {
		sr->status = ST_FAIL;
		sr->message = differ_message(st, cap, &ref, differ, n);
	} else if (c->wake_ms) {
		json_object_set_new(sr->data, "back_ms", json_integer(t - c->wake_ms));
		json_object_set_new(c->r->metrics, "display_back_ms", json_integer(t - c->wake_ms));
	}
out:
	capture_free(&ref);
	return ret;
}

int screen_back(struct run_ctx *c, const char *name, const char *same_as, int64_t since,
		int64_t within_ms, struct screen_back *b, char **err, int64_t deadline)
{
	struct capture ref = { .path = xasprintf("%s/screen-%s.ppm", c->r->artifacts, same_as) };
	struct capture cap = { 0 };
	int64_t until = min64(since + within_ms, deadline), sent, prev = since, t;
	int ret = capture_read(&ref);

	*b = (struct screen_back){ .back_ms = -1, .differ = UINT64_MAX };
	if (ret)
		goto out;
	b->ref_width = ref.img.width;
	b->ref_height = ref.img.height;
	b->blank_ref = capture_blank(&ref);
	/* back to back: the gap between two captures is the resolution */
	while (!b->blank_ref) {
		sent = loop_now(c->vm.loop);
		ret = capture_take(c, name, &cap, err, deadline);
		if (ret)
			goto out;
		t = loop_now(c->vm.loop);
		b->captures++;
		b->span_ms = t - since;
		b->width = cap.img.width;
		b->height = cap.img.height;
		b->differ = capture_differ(&cap, &ref);
		if (!b->differ) {
			b->back_ms = t - since;
			b->resolution_ms = t - prev;
			break;
		}
		if (t >= until)
			break;
		prev = sent;
	}
out:
	capture_free(&cap);
	capture_free(&ref);
	return ret;
}

json_t *screen_back_json(const struct screen_back *b, const char *same_as)
{
	return json_pack(
	    "{ss si sI so so so}", "same_as", same_as, "captures", (int)b->captures, "interval_ms",
	    (json_int_t)(b->captures ? b->span_ms / b->captures : 0), "back_ms",
	    b->back_ms < 0 ? json_null() : json_integer(b->back_ms), "resolution_ms",
	    b->back_ms < 0 ? json_null() : json_integer(b->resolution_ms), "differ_pixels",
	    b->differ == UINT64_MAX ? json_null() : json_integer((json_int_t)b->differ));
}

char *screen_back_verdict(const struct screen_back *b, const char *same_as)
{
	unsigned every = b->captures ? (unsigned)(b->span_ms / b->captures) : 0;

	if (b->blank_ref)
		return xasprintf("awake_screen: \"%s\" is blank (every pixel black): nothing "
				 "was on the screen to compare with",
				 same_as);
	if (b->back_ms >= 0)
		return NULL;
	if (b->differ == UINT64_MAX)
		return xasprintf("awake_screen: the screen is %ux%u, \"%s\" was %ux%u, %.1f s "
				 "after the wake (%u captures, one every %u ms)",
				 b->width, b->height, same_as, b->ref_width, b->ref_height,
				 (double)b->span_ms / 1000, b->captures, every);
	return xasprintf("awake_screen: the screen differs from \"%s\" %.1f s after the wake: "
			 "%.2f%% of its pixels (%llu) (%u captures, one every %u ms)",
			 same_as, (double)b->span_ms / 1000,
			 100.0 * (double)b->differ / ((double)b->width * b->height),
			 (unsigned long long)b->differ, b->captures, every);
}

static void step_screen(struct run_ctx *c, const struct step *st, struct step_result *sr,
			int64_t deadline)
{
	struct capture cap = { 0 };
	char *err = NULL;
	int ret = capture_take(c, st->screen, &cap, &err, deadline);

	sr->exit_code = 0;

	if (!ret) {
		sr->data = capture_describe(&cap);
		if (st->same_as)
			ret = screen_compare(c, st, sr, &cap, &err, deadline);
	}
	if (ret == -EREMOTEIO) {
		sr->status = ST_ERROR;
		sr->message = xasprintf("QMP screendump refused: %s", err ? err : "");
	} else if (ret == -EINVAL || ret == -E2BIG || ret == -ENODATA) {
		sr->status = ST_ERROR;
		sr->message =
		    xasprintf("%s is not a P6 PPM QEMU would write (%s)", cap.path, strerror(-ret));
	} else if (ret) {
		step_wait_failed(c, sr, ret, st);
	} else if (sr->status != ST_FAIL) {
		sr->out = json_dumps(sr->data, JSON_COMPACT);
		step_judge(sr, st->expect);
	}
	if (!sr->out && sr->data)
		sr->out = json_dumps(sr->data, JSON_COMPACT);
	free(err);
	capture_free(&cap);
}

const struct step_ops step_screen_ops = { STEP_SCREEN, step_screen };
