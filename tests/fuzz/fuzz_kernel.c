/* libFuzzer target: any bytes as a user's kernel file (--kernel PATH): the
 * release its bzImage header or vmlinux banner names, the config it embeds
 * (IKCONFIG, in a vmlinux or a bzImage's gzip payload) and the configs
 * looked for beside it. Each must answer in bounded memory: a release of at
 * most 128 printable bytes, a config or -ENOENT or -EINVAL with a reason. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "kconfig.h"

static void check_release(const char *path)
{
	char *rel = kconfig_kernel_release(path);

	if (!rel)
		return;
	FUZZ_CHECK(rel[0] && strlen(rel) <= 128);
	for (const char *c = rel; *c; c++)
		FUZZ_CHECK((unsigned char)*c > ' ');
	free(rel);
}

static void check_ikconfig(const char *path, bool bzimage)
{
	struct kconfig *k = NULL;
	char why[512] = "";
	int ret = kconfig_read_ikconfig(path, bzimage, &k, why, sizeof(why));

	if (ret == 0) {
		FUZZ_CHECK(k && strstr(kconfig_source(k), "(IKCONFIG)"));
		kconfig_value(k, "CONFIG_PM_SLEEP");
		kconfig_free(k);
		return;
	}
	FUZZ_CHECK(!k && (ret == -ENOENT || ret == -EINVAL));
	FUZZ_CHECK(ret == -ENOENT || why[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[256], why[1024] = "", *found = NULL;

	fuzz_file(path, sizeof(path), "vmlinuz", data, size);
	check_release(path);
	check_ikconfig(path, false);
	check_ikconfig(path, true);
	/* nothing lies beside it in the scratch folder but what it names */
	if (kconfig_find_beside(path, &found, why, sizeof(why)) == 0)
		FUZZ_CHECK(found && !access(found, R_OK));
	else
		FUZZ_CHECK(!found && strstr(why, "no config beside"));
	free(found);
	return 0;
}
