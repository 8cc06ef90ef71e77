/* libFuzzer target: any bytes as a scenario file, through the whole loader
 * (limits, libyaml, libcyaml, the checks). Whatever the bytes, the loader
 * must return 0 with a scenario or -EINVAL with a located message, without
 * crashing, leaking, or taking more than the documented bounds of memory
 * and time (the CTest run sets -rss_limit_mb and -timeout to catch that). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario_error err;
	struct scenario *s = NULL;
	int ret = scenario_load_buffer("fuzz/scenario.yaml", (const char *)data, size, &s, &err);

	if (ret == 0 && !s)
		abort();
	if (ret < 0 && (s || ret != -EINVAL || !err.msg[0]))
		abort();
	scenario_free(s);
	return 0;
}
