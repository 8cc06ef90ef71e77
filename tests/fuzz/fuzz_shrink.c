/* libFuzzer target: any bytes as a scenario file, through ktb shrink's
 * reading and writing of its machine (scenario/shrink.c). Whatever the
 * bytes: the reading returns 0 or -EINVAL with a reason; a file the loader
 * takes, written back with its machine unchanged, is taken again as the
 * same scenario (its steps, CPUs, memory and disks); every simplification
 * written into it loads or is refused, never crashes or leaks. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "shrink.h"

static struct scenario *load(const char *text, size_t len)
{
	struct scenario_error err;
	struct scenario *s = NULL;

	if (scenario_load_buffer("fuzz/scenario.yaml", text, len, &s, &err)) {
		scenario_free(s);
		return NULL;
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shrink_doc d;
	struct shrink_cand *c;
	struct scenario *a, *b;
	char why[256] = "", *text;
	size_t len, n;
	int ret = shrink_doc_open((const char *)data, size, &d, why, sizeof(why));

	if (ret && (ret != -EINVAL || !why[0]))
		abort();
	if (ret) {
		shrink_doc_free(&d);
		return 0;
	}
	a = load((const char *)data, size);
	text = shrink_doc_render(&d, d.machine, &len);
	b = a ? load(text, len) : NULL;
	if (a && (!b || a->steps_count != b->steps_count || a->machine->cpus != b->machine->cpus ||
		  a->machine->memory_bytes != b->machine->memory_bytes ||
		  a->machine->disks_count != b->machine->disks_count))
		abort();
	scenario_free(b);
	free(text);
	n = a ? shrink_candidates(d.machine, NULL, &c) : 0;
	for (size_t i = 0; i < n; i++) {
		text = shrink_doc_render(&d, c[i].machine, &len);
		scenario_free(load(text, len));
		free(text);
	}
	if (a)
		shrink_cands_free(c, n);
	scenario_free(a);
	shrink_doc_free(&d);
	return 0;
}
