/* libFuzzer target: any bytes as a kernel .config (a user's kernel tree, a
 * config beside a kernel, the image cache's copy). kconfig_parse must return
 * 0 with a config whose lookups work, or -EINVAL with "line N: ...". */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "kconfig.h"

/* Options the scenarios' requirements look up, and odd spellings. */
static const char *const options[] = {
	"CONFIG_PM_SLEEP", "HIBERNATION",    "CONFIG_VIRTIO_BALLOON",
	"CONFIG_KUNIT",	   "CONFIG_",	     "",
	"CONFIG_CMDLINE",  "CONFIG_NR_CPUS", "X",
};

/* The option of a last line "CONFIG_NAME=y" (which nothing after it can
 * override), as "CONFIG_NAME" into opt, or false. */
static bool last_assignment(const uint8_t *data, size_t size, char *opt, size_t cap)
{
	size_t end = size, start, n;

	while (end && (data[end - 1] == '\n' || data[end - 1] == '\r'))
		end--;
	for (start = end; start && data[start - 1] != '\n'; start--)
		;
	if (end - start < 10 || memcmp(data + start, "CONFIG_", 7) ||
	    memcmp(data + end - 2, "=y", 2))
		return false;
	n = end - 2 - start;
	if (n >= cap)
		return false;
	for (size_t i = 7; i < n; i++) {
		char c = (char)data[start + i];

		if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9')))
			return false;
	}
	memcpy(opt, data + start, n);
	opt[n] = '\0';
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kconfig *k = NULL;
	char why[256] = "", name[128];
	int ret = kconfig_parse((const char *)data, size, &k, why, sizeof(why));

	if (ret) {
		FUZZ_CHECK(ret == -EINVAL && !k);
		FUZZ_CHECK(why[0] && memchr(why, '\0', sizeof(why)));
		return 0;
	}
	FUZZ_CHECK(k);
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		const char *v = kconfig_value(k, options[i]);

		FUZZ_CHECK(!v || strcmp(v, "n"));
	}
	if (last_assignment(data, size, name, sizeof(name))) {
		const char *v = kconfig_value(k, name);

		FUZZ_CHECK(v && !strcmp(v, "y"));
	}
	FUZZ_CHECK(!kconfig_knows_modules(k) && !kconfig_has_module(k, "virtio_blk"));
	FUZZ_CHECK(!strcmp(kconfig_source(k), "the given text"));
	kconfig_free(k);
	return 0;
}
