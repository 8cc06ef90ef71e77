/* libFuzzer target: any bytes as `ktb-probe machine`'s output, the guest's
 * own account of its hardware, compared with a library scenario's machine
 * as the machine step does. The first line names the scenario (another
 * name picks one by its bytes), the rest is what the guest printed.
 * machine_check_compare must give a verdict whatever the document holds:
 * the step's data with its counts, and a message unless all matched. */
#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "machine_step.h"
#include "scenario.h"

static struct scenario **lib;
static size_t lib_n;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	glob_t g;

	(void)argc;
	(void)argv;
	if (glob(KTB_FUZZ_SOURCE_DIR "/scenarios/*.yaml", 0, NULL, &g))
		abort();
	lib = calloc(g.gl_pathc, sizeof(*lib));
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct scenario_error err;

		if (scenario_load(g.gl_pathv[i], &lib[lib_n], &err) == 0)
			lib_n++;
	}
	globfree(&g);
	if (!lib_n)
		abort();
	return 0;
}

static const struct machine *pick(const uint8_t *name, size_t len)
{
	unsigned h = 0;

	for (size_t i = 0; i < lib_n; i++)
		if (strlen(lib[i]->name) == len && !memcmp(lib[i]->name, name, len))
			return lib[i]->machine;
	for (size_t i = 0; i < len; i++)
		h = h * 31 + name[i];
	return lib[h % lib_n]->machine;
}

static void check_verdict(const json_t *data, const char *message, int mismatches)
{
	const json_t *unread = json_object_get(data, "unread");

	FUZZ_CHECK(json_is_object(data));
	FUZZ_CHECK(json_integer_value(json_object_get(data, "mismatches")) == mismatches);
	FUZZ_CHECK(json_is_array(json_object_get(data, "facts")));
	FUZZ_CHECK(json_is_array(unread) && json_is_array(json_object_get(data, "checked")));
	if (!message)
		FUZZ_CHECK(!mismatches && !json_array_size(unread));
	if (mismatches || json_array_size(unread))
		FUZZ_CHECK(message && message[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t name_len = nl ? (size_t)(nl - data) : size;
	const struct machine *m = pick(data, name_len);
	char *text = fuzz_strndup(nl ? nl + 1 : data + size, nl ? size - name_len - 1 : 0);
	json_t *seen = json_loads(text, 0, NULL), *verdict = NULL;
	char *message = NULL;
	int ret;

	free(text);
	if (!json_is_object(seen)) { /* the step's error, before any comparison */
		json_decref(seen);
		return 0;
	}
	ret = machine_check_compare(m, seen, &message, &verdict);
	FUZZ_CHECK(ret >= 0);
	check_verdict(verdict, message, ret);
	machine_check_lookup(seen, "kernel.cmdline");
	machine_check_lookup(seen, "disks.id=data.size_bytes");
	machine_check_lookup(seen, "numa.nodes.1.cpus");
	free(message);
	json_decref(verdict);
	json_decref(seen);
	return 0;
}
