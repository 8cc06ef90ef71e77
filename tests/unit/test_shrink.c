/* ktb shrink's pure part: a scenario's machine read as JSON and written
 * back in place (everything else byte for byte), and the simplifications
 * of a machine: what each one changes, that a disk a step names is never
 * removed, and, over every scenario of the library, that each rendering
 * loads as the same scenario with the machine it says. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"
#include "shrink.h"
#include "util.h"

#define SCENARIO                                                                                   \
	"name: shrink-me\n"                                                                        \
	"summary: a machine with much in it\n"                                                     \
	"# the machine below\n"                                                                    \
	"machine:\n"                                                                               \
	"  cpus: 2\n"                                                                              \
	"  memory: 1G   # a comment on its line\n"                                                 \
	"  sleep: [s3]\n"                                                                          \
	"  numa:\n"                                                                                \
	"    nodes:\n"                                                                             \
	"      - {cpus: [0], memory: 384M}\n"                                                      \
	"      - {cpus: [1], memory: 384M}\n"                                                      \
	"      - {memory: 256M}\n"                                                                 \
	"    distances: [[10, 21, 31], [21, 10, 31], [31, 31, 10]]\n"                              \
	"  balloon: {free_page_reporting: true}\n"                                                 \
	"  disks:\n"                                                                               \
	"    - {id: data, bus: nvme, size: 64M, sector: 4kn}\n"                                    \
	"    - id: spare\n"                                                                        \
	"      bus: scsi\n"                                                                        \
	"      size: 64M\n"                                                                        \
	"      paths: 2\n"                                                                         \
	"\n"                                                                                       \
	"# the steps\n"                                                                            \
	"steps:\n"                                                                                 \
	"  - run: ktb-io write /dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_data 512  # names data\n"

static void open_doc(struct shrink_doc *d, const char *text)
{
	char why[256] = "";

	if (shrink_doc_open(text, strlen(text), d, why, sizeof(why)))
		fail_msg("shrink_doc_open: %s", why);
}

static struct scenario *load_at(const char *path, const char *text, size_t len, char *why, size_t n)
{
	struct scenario *s = NULL;
	struct scenario_error err;

	memset(&err, 0, sizeof(err));
	if (scenario_load_buffer(path, text, len, &s, &err)) {
		scenario_error_format(&err, why, n);
		scenario_free(s);
		return NULL;
	}
	return s;
}

static struct scenario *load(const char *text, size_t len)
{
	struct scenario *s = NULL;
	struct scenario_error err;
	char buf[1024];

	memset(&err, 0, sizeof(err));
	if (scenario_load_buffer("shrink.yaml", text, len, &s, &err)) {
		scenario_error_format(&err, buf, sizeof(buf));
		scenario_free(s);
		return NULL;
	}
	return s;
}

/* The machine comes back as written (the steps, comments and blank lines
 * around it byte for byte), and loads as the same machine. */
static void test_round_trip(void **state)
{
	struct shrink_doc d;
	size_t len;
	char *text;
	struct scenario *a, *b;
	const char *steps;

	(void)state;
	open_doc(&d, SCENARIO);
	assert_string_equal(json_string_value(json_object_get(d.machine, "cpus")), "2");
	assert_int_equal(json_array_size(json_object_get(d.machine, "disks")), 2);
	assert_true(d.from == strlen("name: shrink-me\nsummary: a machine with much in it\n"
				     "# the machine below\n"));
	steps = strstr(SCENARIO, "\n# the steps");
	assert_true(d.to == (size_t)(steps - SCENARIO));
	text = shrink_doc_render(&d, d.machine, &len);
	assert_non_null(strstr(text, "\n# the steps\nsteps:\n  - run: ktb-io"));
	assert_true(!strncmp(text, SCENARIO, d.from));
	assert_string_equal(text + len - strlen(steps), steps);
	assert_non_null(strstr(text, "    - {id: data, bus: nvme, size: 64M, sector: 4kn}\n"));
	a = load(SCENARIO, strlen(SCENARIO));
	b = load(text, len);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->machine->cpus, b->machine->cpus);
	assert_int_equal(a->machine->memory_bytes, b->machine->memory_bytes);
	assert_int_equal(b->machine->disks_count, 2);
	assert_int_equal(b->machine->disks[1].paths, 2);
	assert_int_equal(b->machine->numa->nodes_count, 3);
	assert_int_equal(b->steps_count, a->steps_count);
	scenario_free(a);
	scenario_free(b);
	free(text);
	shrink_doc_free(&d);
}

/* A flow machine, one at the file's end, and a file with none. */
static void test_shapes(void **state)
{
	struct shrink_doc d;
	size_t len;
	char *text;
	const char *flow = "name: a\nsummary: b\nmachine: {cpus: 2, memory: 512M}\nsteps:\n"
			   "  - run: \"true\"\n";
	const char *none = "name: a\nsummary: b\nsteps:\n  - run: \"true\"";
	json_t *m;
	struct scenario *sc;

	(void)state;
	open_doc(&d, flow);
	m = json_deep_copy(d.machine);
	json_object_set_new(m, "cpus", json_string("1"));
	text = shrink_doc_render(&d, m, &len);
	assert_string_equal(text, "name: a\nsummary: b\nmachine: {cpus: 1, memory: 512M}\nsteps:\n"
				  "  - run: \"true\"\n");
	free(text);
	json_decref(m);
	shrink_doc_free(&d);

	/* a whole file in flow style, with a machine and without */
	open_doc(&d, "{name: a, summary: b, machine: {cpus: 2}, steps: [{run: x}]}");
	m = json_pack("{s:s}", "memory", "256M");
	text = shrink_doc_render(&d, m, &len);
	assert_string_equal(text,
			    "{name: a, summary: b, machine: {memory: 256M}, steps: [{run: x}]}");
	sc = load(text, len);
	assert_non_null(sc);
	scenario_free(sc);
	free(text);
	shrink_doc_free(&d);
	open_doc(&d, "{name: a, summary: b, steps: [{run: x}]}");
	text = shrink_doc_render(&d, m, &len);
	assert_string_equal(text,
			    "{machine: {memory: 256M}, name: a, summary: b, steps: [{run: x}]}");
	free(text);
	json_decref(m);
	shrink_doc_free(&d);

	/* characters of more than one byte before the machine (libyaml's
	 * marks count characters) */
	open_doc(
	    &d, "name: a\nsummary: caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80\nmachine:\n  cpus: 2\n"
		"steps:\n  - run: x\n");
	m = json_pack("{s:s}", "cpus", "1");
	text = shrink_doc_render(&d, m, &len);
	assert_string_equal(
	    text, "name: a\nsummary: caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80\nmachine:\n"
		  "  cpus: 1\nsteps:\n  - run: x\n");
	free(text);
	json_decref(m);
	shrink_doc_free(&d);

	open_doc(&d, none);
	assert_int_equal(json_object_size(d.machine), 0);
	m = json_pack("{s:s}", "memory", "256M");
	text = shrink_doc_render(&d, m, &len);
	assert_string_equal(text, "name: a\nsummary: b\nsteps:\n  - run: \"true\"\nmachine:\n"
				  "  memory: 256M\n");
	free(text);
	json_decref(m);
	shrink_doc_free(&d);
}

static const struct shrink_cand *find(const struct shrink_cand *c, size_t n, const char *part,
				      const char *change)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].part, part) && (!change || !strcmp(c[i].change, change)))
			return &c[i];
	return NULL;
}

/* Each simplification of the rich machine, and what it leaves. */
static void test_candidates(void **state)
{
	struct shrink_doc d;
	struct shrink_cand *c;
	const char *ids[] = { "data", NULL };
	size_t n;
	const struct shrink_cand *x;
	json_t *numa;

	(void)state;
	open_doc(&d, SCENARIO);
	n = shrink_candidates(d.machine, ids, &c);
	/* the named disk stays, the other can go */
	assert_null(find(c, n, "disk data", "removed"));
	assert_non_null(find(c, n, "disk spare", "removed"));
	assert_non_null(find(c, n, "disk data: sector", "4kn -> 512e"));
	assert_non_null(find(c, n, "disk data: sector", "4kn -> 512n"));
	assert_non_null(find(c, n, "disk data: bus", "nvme -> virtio"));
	assert_non_null(find(c, n, "disk spare: paths", "2 -> 1"));
	assert_non_null(find(c, n, "balloon", "removed"));
	assert_non_null(find(c, n, "balloon free page reporting", "true -> false"));
	assert_non_null(find(c, n, "sleep s3", "removed"));
	assert_non_null(find(c, n, "numa distances", "removed"));
	assert_non_null(find(c, n, "cpus", "2 -> 1"));
	/* the memory-only node: its memory leaves the machine, its row and
	 * column the distances */
	x = find(c, n, "numa node 2 (memory only)", "removed");
	assert_non_null(x);
	assert_string_equal(json_string_value(json_object_get(x->machine, "memory")), "768M");
	numa = json_object_get(x->machine, "numa");
	assert_int_equal(json_array_size(json_object_get(numa, "nodes")), 2);
	assert_int_equal(json_array_size(json_array_get(json_object_get(numa, "distances"), 0)), 2);
	/* node 1's CPU and memory go to node 0 */
	x = find(c, n, "numa nodes", "node 1 merged into node 0");
	assert_non_null(x);
	numa = json_object_get(x->machine, "numa");
	assert_int_equal(json_array_size(json_object_get(numa, "nodes")), 2);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(numa, "nodes"), 0), "memory")),
			    "768M");
	/* memory halves, each node's too */
	x = find(c, n, "memory", NULL);
	assert_non_null(x);
	assert_string_equal(json_string_value(json_object_get(x->machine, "memory")), "512M");
	/* the candidates do not touch the machine they came from */
	assert_int_equal(json_array_size(json_object_get(d.machine, "disks")), 2);
	shrink_cands_free(c, n);
	shrink_doc_free(&d);
}

/* Every candidate of SCENARIO renders to a file the loader reads or
 * refuses; the ones it reads have the machine the candidate says. */
static void test_candidates_load(void **state)
{
	struct shrink_doc d;
	struct shrink_cand *c;
	const char *ids[] = { "data", NULL };
	size_t n, len, loaded = 0;

	(void)state;
	open_doc(&d, SCENARIO);
	n = shrink_candidates(d.machine, ids, &c);
	for (size_t i = 0; i < n; i++) {
		char *text = shrink_doc_render(&d, c[i].machine, &len);
		struct scenario *s = load(text, len);

		if (s) {
			loaded++;
			assert_int_equal(s->steps_count, 1);
		}
		/* the nvme disk cannot be 512e: refused */
		if (!strcmp(c[i].change, "4kn -> 512e"))
			assert_null(s);
		if (!strcmp(c[i].part, "disk spare"))
			assert_true(s && s->machine->disks_count == 1);
		scenario_free(s);
		free(text);
	}
	assert_true(loaded >= n - 3);
	shrink_cands_free(c, n);
	shrink_doc_free(&d);
}

/* Every scenario of the library: read, written back unchanged, loaded as
 * the same machine; every candidate renders and loads or is refused. */
static void test_library(void **state)
{
	char *dir = xasprintf("%s/scenarios", KTB_SOURCE_DIR_TEST);
	DIR *dh = opendir(dir);
	struct dirent *e;
	size_t files = 0;

	(void)state;
	assert_non_null(dh);
	while ((e = readdir(dh))) {
		char *path, *text, *out, why[256], e1[1024] = "", e2[1024] = "";
		size_t len, olen, n;
		struct shrink_doc d;
		struct shrink_cand *c;
		struct scenario *a, *b;

		if (!strstr(e->d_name, ".yaml"))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		text = read_file(path, &len);
		assert_non_null(text);
		assert_int_equal(shrink_doc_open(text, len, &d, why, sizeof(why)), 0);
		out = shrink_doc_render(&d, d.machine, &olen);
		a = load_at(path, text, len, e1, sizeof(e1));
		b = load_at(path, out, olen, e2, sizeof(e2));
		if (!a || !b)
			fail_msg("%s: %s%s", e->d_name, e1, e2);
		assert_int_equal(a->machine->cpus, b->machine->cpus);
		assert_int_equal(a->machine->memory_bytes, b->machine->memory_bytes);
		assert_int_equal(a->machine->disks_count, b->machine->disks_count);
		assert_int_equal(a->machine->sleep, b->machine->sleep);
		assert_int_equal(a->steps_count, b->steps_count);
		n = shrink_candidates(d.machine, NULL, &c);
		for (size_t i = 0; i < n; i++) {
			char *t = shrink_doc_render(&d, c[i].machine, &olen);
			struct scenario *s = load_at(path, t, olen, e1, sizeof(e1));

			scenario_free(s);
			free(t);
		}
		shrink_cands_free(c, n);
		scenario_free(a);
		scenario_free(b);
		free(out);
		shrink_doc_free(&d);
		free(text);
		free(path);
		files++;
	}
	closedir(dh);
	free(dir);
	assert_true(files >= 50);
}

static void test_names_word(void **state)
{
	const char *t = "ktb-io /dev/disk/by-id/virtio-data 512; spare2 nvme-QEMU_NVMe_Ctrl_x";

	(void)state;
	assert_true(shrink_names_word(t, strlen(t), "data"));
	assert_true(shrink_names_word(t, strlen(t), "x"));
	assert_false(shrink_names_word(t, strlen(t), "spare"));
	assert_false(shrink_names_word(t, strlen(t), "dat"));
	assert_true(shrink_names_word("data", 4, "data"));
	assert_false(shrink_names_word("data", 4, ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip), cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_candidates), cmocka_unit_test(test_candidates_load),
		cmocka_unit_test(test_library),	   cmocka_unit_test(test_names_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
