/* ktb-probe: prints facts about the guest as JSON, for scenario steps to
 * check with `expect: json:`. Usage errors exit 2, a missing disk exits 1. */
#include "facts.h"
#include "facts_machine.h"
#include "idle.h"
#include "size.h"
#include "json_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

struct probe_cmd {
	const char *name;
	int (*fn)(const char *root, struct json_out *j);
	const char *help;
};

static const struct probe_cmd probe_cmds[] = {
	{ "kernel", facts_kernel, "release, version, cmdline" },
	{ "cpus", facts_cpus, "online and possible CPUs" },
	{ "memory", facts_memory, "MemTotal and MemFree" },
	{ "disks", facts_disks, "every disk, with its id (serial) and geometry" },
	{ "numa", facts_numa, "nodes, their CPUs and memory, distances" },
	{ "sleep", facts_sleep, "sleep states offered" },
	{ NULL, NULL, NULL },
};

static void probe_usage(FILE *f)
{
	const struct probe_cmd *c;

	fprintf(f, "usage: ktb-probe [SECTION | disk ID]\n"
		   "With no argument, prints every section as one object.\n");
	for (c = probe_cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->help);
	fprintf(f, "  %-8s %s\n", "disk ID", "the disk whose serial is ID");
	fprintf(f, "  %-8s %s\n", "machine",
		"everything the harness's machine step checks, as one object");
	fprintf(f, "  %-8s %s\n", "idle [--interval MS]",
		"share of an interval (default 2000 ms) the CPUs spent idle");
}

/* Sections are keyed objects in the combined output, except disks, whose
 * section already is {"disks": [...]}. */
static int probe_all(struct json_out *j)
{
	const struct probe_cmd *c;
	int ret = 0;

	json_obj_begin(j);
	for (c = probe_cmds; c->name; c++) {
		if (c->fn == facts_disks) {
			ret |= c->fn("", j);
			continue;
		}
		json_key(j, c->name);
		json_obj_begin(j);
		ret |= c->fn("", j);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_finish(j);
	return ret ? 1 : 0;
}

static int probe_disk(struct json_out *j, const char *id)
{
	char msg[256];
	int ret;

	json_obj_begin(j);
	ret = facts_disk("", id, j);
	if (ret) {
		snprintf(msg, sizeof(msg), "no disk with id %s", id);
		json_kv_str(j, "error", ret == -ENOENT ? msg : strerror(-ret));
	}
	json_obj_end(j);
	json_finish(j);
	return ret ? 1 : 0;
}

static int probe_section(struct json_out *j, const struct probe_cmd *c)
{
	int ret;

	json_obj_begin(j);
	ret = c->fn("", j);
	if (ret)
		json_kv_str(j, "error", strerror(-ret));
	json_obj_end(j);
	json_finish(j);
	return ret ? 1 : 0;
}

/* "2s", "500ms" or a bare number of milliseconds. */
static int parse_interval(const char *s, uint64_t *ms)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t unit = 1, v;

	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	if (n > 2 && !strcmp(num + n - 2, "ms")) {
		num[n - 2] = '\0';
	} else if (n > 1 && num[n - 1] == 's') {
		num[n - 1] = '\0';
		unit = 1000;
	}
	if (size_parse(num, &v) || !v)
		return -EINVAL;
	*ms = v * unit;
	return 0;
}

/* idle [--interval DUR]: not part of "everything", since it takes time. */
static int probe_idle(struct json_out *j, int argc, char **argv)
{
	uint64_t ms = 2000;
	int ret;

	if (argc == 4 && !strcmp(argv[2], "--interval")) {
		if (parse_interval(argv[3], &ms)) {
			fprintf(stderr, "ktb-probe idle: --interval takes e.g. 2s or 500ms\n");
			return 2;
		}
	} else if (argc != 2) {
		probe_usage(stderr);
		return 2;
	}
	json_obj_begin(j);
	ret = facts_idle("", ms, j);
	json_obj_end(j);
	json_finish(j);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct probe_cmd *c;
	struct json_out j;

	json_init(&j, stdout);
	if (argc == 1)
		return probe_all(&j);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		probe_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "idle"))
		return probe_idle(&j, argc, argv);
	if (!strcmp(argv[1], "machine") && argc == 2) {
		int ret = facts_machine("", &j);

		json_finish(&j);
		return ret ? 1 : 0;
	}
	if (!strcmp(argv[1], "disk") && argc == 3)
		return probe_disk(&j, argv[2]);
	for (c = probe_cmds; c->name && argc == 2; c++)
		if (!strcmp(argv[1], c->name))
			return probe_section(&j, c);
	fprintf(stderr, "ktb-probe: bad arguments\n");
	probe_usage(stderr);
	return 2;
}
