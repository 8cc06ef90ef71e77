/* libFuzzer target: any bytes as an image recipe (images/NAME.yaml, or a
 * path given to --recipe). image_recipe_load must return 0 with a recipe
 * whose every name passed its check, or -EINVAL with "file:...: what", in
 * bounded memory whatever the YAML does (anchors, aliases, nesting). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "image_recipe.h"

static void check_names(char **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		FUZZ_CHECK(v[i] && v[i][0] && v[i][0] != '-' && !strpbrk(v[i], " \t\n'\"$;&|"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image_recipe *r = NULL;
	char path[256], err[512] = "";
	int ret;

	fuzz_file(path, sizeof(path), "fuzz.yaml", data, size);
	ret = image_recipe_load(path, &r, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL && !r);
		FUZZ_CHECK(!strncmp(err, path, strlen(path)) && err[strlen(path)] == ':');
		return 0;
	}
	FUZZ_CHECK(r && r->name);
	check_names(&r->name, 1);
	if (r->kernel)
		check_names(&r->kernel->package, 1);
	check_names(r->modules, r->modules_count);
	check_names(r->binaries, r->binaries_count);
	check_names(r->packages, r->packages_count);
	if (r->kselftest) {
		check_names(&r->kselftest->source, 1);
		check_names(r->kselftest->targets, r->kselftest->targets_count);
	}
	image_recipe_free(r);
	return 0;
}
