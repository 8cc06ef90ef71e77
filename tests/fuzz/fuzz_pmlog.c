/* libFuzzer target: any bytes as a guest kernel's log (dmesg, or the S4
 * console) read for suspend/resume cycles, then everything a step makes of
 * it: the report's JSON, the freeze/suspend/resume times, the slowest
 * devices and the timeline SVG of each cycle. pmlog_parse takes a C string,
 * as step_pm hands it the guest's output. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "pmlog.h"
#include "timeline.h"

#define SLOWEST 10

static FILE *devnull;

/* What the guest wrote reaches the SVG only escaped: ASCII text, every '<'
 * opens a tag, every '&' is an entity. */
static void check_svg(const char *svg, size_t len)
{
	static const char *const entities[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&apos;" };

	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)svg[i];
		bool entity = false;

		FUZZ_CHECK(ch == '\n' || (ch >= 0x20 && ch < 0x7f));
		if (ch == '<')
			FUZZ_CHECK(i + 1 < len && (svg[i + 1] == '/' || svg[i + 1] == '?' ||
						   (svg[i + 1] >= 'a' && svg[i + 1] <= 'z')));
		if (ch != '&')
			continue;
		for (size_t e = 0; e < sizeof(entities) / sizeof(entities[0]); e++)
			entity |= !strncmp(svg + i, entities[e], strlen(entities[e]));
		FUZZ_CHECK(entity);
	}
}

static void draw(const struct pm_report *r, size_t i)
{
	char *svg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&svg, &len);

	FUZZ_CHECK(f);
	FUZZ_CHECK(timeline_svg(r, i, f) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	check_svg(svg, len);
	free(svg);
}

static void check_cycle(const struct pm_report *r, size_t i)
{
	const struct pm_cycle *c = &r->cycles[i];
	const struct pm_device *top[SLOWEST];
	size_t n;

	FUZZ_CHECK(strcmp(pm_mode_name(c->mode), ""));
	/* a cycle's times only go forward, whatever the log's clock did: the
	 * phases contiguous from the entry to the exit, the suspend half's
	 * up to the sleep point, the resume half's from the wake */
	FUZZ_CHECK(c->entry_s <= c->exit_s);
	if (c->slept)
		FUZZ_CHECK(c->entry_s <= c->sleep_s && c->sleep_s <= c->wake_s &&
			   c->wake_s <= c->exit_s);
	for (size_t j = 0; j < c->phases_count; j++) {
		const struct pm_phase *ph = &c->phases[j];

		FUZZ_CHECK(c->entry_s <= ph->start_s && ph->start_s <= ph->end_s &&
			   ph->end_s <= c->exit_s);
		if (j && ph->half == c->phases[j - 1].half)
			FUZZ_CHECK(ph->start_s == c->phases[j - 1].end_s);
		if (c->slept && ph->half == PM_HALF_SUSPEND)
			FUZZ_CHECK(ph->end_s <= c->sleep_s);
		if (c->slept && ph->half == PM_HALF_RESUME)
			FUZZ_CHECK(ph->start_s >= c->wake_s);
	}
	for (size_t j = 0; j < c->devices_count; j++)
		FUZZ_CHECK(c->devices[j].device && c->devices[j].callback);
	for (size_t j = 0; j < c->errors_count; j++)
		FUZZ_CHECK(c->errors[j]);
	if (c->freeze_fail)
		FUZZ_CHECK(!c->freeze_fail->tasks_count || c->freeze_fail->tasks);
	pm_cycle_freeze_ms(c);
	pm_cycle_suspend_ms(c);
	pm_cycle_resume_ms(c);
	for (int half = PM_HALF_SUSPEND; half <= PM_HALF_RESUME; half++) {
		n = pm_cycle_slowest(c, (enum pm_half)half, top, SLOWEST);
		FUZZ_CHECK(n <= SLOWEST);
		for (size_t j = 1; j < n; j++)
			FUZZ_CHECK(top[j - 1]->usecs >= top[j]->usecs);
	}
	draw(r, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	struct pm_report r;
	json_t *j;
	char *dump;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	FUZZ_CHECK(pmlog_parse(text, &r) == 0);
	for (size_t i = 0; i < r.cycles_count; i++)
		check_cycle(&r, i);
	FUZZ_CHECK(timeline_svg(&r, r.cycles_count, devnull) ==
		   (r.cycles_count ? -EINVAL : -ENODATA));
	j = pm_report_to_json(&r);
	FUZZ_CHECK(j);
	dump = json_dumps(j, JSON_COMPACT);
	FUZZ_CHECK(dump);
	free(dump);
	json_decref(j);
	pm_report_free(&r);
	free(text);
	return 0;
}
