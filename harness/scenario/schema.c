/* The schema (schema.h), and the document checked against it first. */
#include "schema.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "disk_bus.h"
#include "load.h"
#include "step_kind.h"

/*
 * The schema. Field order is the order "expected one of" lists keys in.
 * Mappings that hold free-form JSON (arguments, expect.json) and the NUMA
 * distance matrix (which the struct stores flattened) are CYAML_IGNORE here
 * and filled from the libyaml document afterwards.
 */

/* The machine model's names (hw/names.h) as libcyaml string tables. */
#define CY_STR(prefix, id, name) { name, prefix##id },
#define CY_BUS(id, name) CY_STR(DISK_BUS_, id, name)
#define CY_SECTOR(id, name, logical, physical) CY_STR(DISK_SECTOR_, id, name)
#define CY_MP(id, name) CY_STR(MULTIPATH_, id, name)
#define CY_SLEEP(id, name) CY_STR(SLEEP_, id, name)
#define CY_HYBRID_MODEL(id, name) CY_STR(HYBRID_MODEL_, id, name)
#define CY_PART(id, name) { name, MACHINE_PART_BIT(MACHINE_PART_##id) },
#define CY_DISPLAY(id, name, ...) CY_STR(DISPLAY_, id, name)

static const cyaml_strval_t bus_strings[] = { DISK_BUS_TABLE(CY_BUS) };
static const cyaml_strval_t sector_strings[] = { DISK_SECTOR_TABLE(CY_SECTOR) };
static const cyaml_strval_t mp_mode_strings[] = { MULTIPATH_MODE_TABLE(CY_MP) };
static const cyaml_strval_t mp_no_path_strings[] = { MULTIPATH_NO_PATH_TABLE(CY_MP) };
static const cyaml_strval_t sleep_strings[] = { SLEEP_TABLE(CY_SLEEP) };
static const cyaml_strval_t hybrid_model_strings[] = { HYBRID_MODEL_TABLE(CY_HYBRID_MODEL) };
/* the machine step's parts */
static const cyaml_strval_t part_strings[] = { MACHINE_PART_TABLE(CY_PART) };
static const cyaml_strval_t display_strings[] = { DISPLAY_TABLE(CY_DISPLAY) };

static const cyaml_schema_field_t multipath_fields[] = {
	CYAML_FIELD_ENUM("mode", OPT | CYAML_FLAG_STRICT, struct multipath, mode, mp_mode_strings,
			 COUNT(mp_mode_strings)),
	CYAML_FIELD_ENUM("no_path", OPT | CYAML_FLAG_STRICT, struct multipath, no_path,
			 mp_no_path_strings, COUNT(mp_no_path_strings)),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t zoned_fields[] = { STR("zone_size", 0, struct zoned, zone_size),
						     CYAML_FIELD_END };

static const cyaml_schema_value_t pin_schema = {
	CYAML_VALUE_STRING(PTR, char, 0, CYAML_UNLIMITED),
};

static const cyaml_schema_field_t hybrid_fields[] = {
	STR("cache", OPT, struct hybrid, cache),
	CYAML_FIELD_UINT("rpm", OPT, struct hybrid, rpm),
	CYAML_FIELD_ENUM("model", OPT | CYAML_FLAG_STRICT, struct hybrid, model,
			 hybrid_model_strings, COUNT(hybrid_model_strings)),
	STR("write_cache", OPT, struct hybrid, write_cache),
	CYAML_FIELD_UINT("promote_after", OPT, struct hybrid, promote_after),
	CYAML_FIELD_SEQUENCE("pin", PTR | OPT, struct hybrid, pin, &pin_schema, 0, CYAML_UNLIMITED),
	CYAML_FIELD_BOOL("ignore_flushes", OPT, struct hybrid, ignore_flushes),
	STR("fail_writes", OPT, struct hybrid, fail_writes),
	STR("fail_reads", OPT, struct hybrid, fail_reads),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t disk_fields[] = {
	STR("id", 0, struct disk, id),
	CYAML_FIELD_ENUM("bus", CYAML_FLAG_STRICT, struct disk, bus, bus_strings,
			 COUNT(bus_strings)),
	STR("size", 0, struct disk, size),
	CYAML_FIELD_ENUM("sector", OPT | CYAML_FLAG_STRICT, struct disk, sector, sector_strings,
			 COUNT(sector_strings)),
	CYAML_FIELD_UINT("paths", OPT, struct disk, paths),
	CYAML_FIELD_BOOL("rotational", OPT, struct disk, rotational),
	STR("image", OPT, struct disk, image),
	CYAML_FIELD_MAPPING_PTR("multipath", PTR | OPT, struct disk, multipath, multipath_fields),
	CYAML_FIELD_MAPPING_PTR("zoned", PTR | OPT, struct disk, zoned, zoned_fields),
	CYAML_FIELD_MAPPING_PTR("hybrid", PTR | OPT, struct disk, hybrid, hybrid_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t disk_schema = {
	CYAML_VALUE_MAPPING(0, struct disk, disk_fields),
};

static const cyaml_schema_value_t cpu_schema = {
	CYAML_VALUE_UINT(0, unsigned),
};

static const cyaml_schema_field_t node_fields[] = {
	CYAML_FIELD_SEQUENCE("cpus", PTR | OPT, struct numa_node, cpus, &cpu_schema, 0,
			     CYAML_UNLIMITED),
	STR("memory", 0, struct numa_node, memory), CYAML_FIELD_END
};

static const cyaml_schema_value_t node_schema = {
	CYAML_VALUE_MAPPING(0, struct numa_node, node_fields),
};

static const cyaml_schema_field_t hmat_lb_fields[] = {
	CYAML_FIELD_UINT("initiator", 0, struct hmat_lb, initiator),
	CYAML_FIELD_UINT("target", 0, struct hmat_lb, target),
	CYAML_FIELD_UINT("latency", OPT, struct hmat_lb, latency),
	STR("bandwidth", OPT, struct hmat_lb, bandwidth), CYAML_FIELD_END
};

static const cyaml_schema_value_t hmat_lb_schema = {
	CYAML_VALUE_MAPPING(0, struct hmat_lb, hmat_lb_fields),
};

static const cyaml_schema_field_t hmat_cache_fields[] = {
	CYAML_FIELD_UINT("node", 0, struct hmat_cache, node),
	STR("size", 0, struct hmat_cache, size),
	CYAML_FIELD_UINT("level", OPT, struct hmat_cache, level),
	STR("associativity", OPT, struct hmat_cache, associativity),
	STR("policy", OPT, struct hmat_cache, policy),
	CYAML_FIELD_UINT("line", OPT, struct hmat_cache, line),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t hmat_cache_schema = {
	CYAML_VALUE_MAPPING(0, struct hmat_cache, hmat_cache_fields),
};

static const cyaml_schema_field_t numa_fields[] = {
	CYAML_FIELD_SEQUENCE("nodes", PTR, struct numa, nodes, &node_schema, 0, CYAML_UNLIMITED),
	CYAML_FIELD_IGNORE("distances", OPT),
	CYAML_FIELD_SEQUENCE("hmat", PTR | OPT, struct numa, hmat, &hmat_lb_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("caches", PTR | OPT, struct numa, caches, &hmat_cache_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t hibernate_fields[] = { STR("disk", 0, struct hibernate, disk),
							 CYAML_FIELD_END };

static const cyaml_schema_field_t balloon_fields[] = {
	CYAML_FIELD_BOOL("free_page_reporting", OPT, struct balloon, free_page_reporting),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t share_fields[] = {
	STR("host", 0, struct share, host), STR("guest", OPT, struct share, guest),
	CYAML_FIELD_BOOL_PTR("readonly", PTR | OPT, struct share, readonly),
	STR("transport", OPT, struct share, transport), CYAML_FIELD_END
};

static const cyaml_schema_value_t share_schema = {
	CYAML_VALUE_MAPPING(0, struct share, share_fields),
};

static const cyaml_schema_field_t machine_fields[] = {
	CYAML_FIELD_UINT("cpus", OPT, struct machine, cpus),
	STR("memory", OPT, struct machine, memory),
	CYAML_FIELD_FLAGS("sleep", OPT | CYAML_FLAG_STRICT, struct machine, sleep, sleep_strings,
			  COUNT(sleep_strings)),
	CYAML_FIELD_SEQUENCE("disks", PTR | OPT, struct machine, disks, &disk_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_MAPPING_PTR("numa", PTR | OPT, struct machine, numa, numa_fields),
	CYAML_FIELD_MAPPING_PTR("hibernate", PTR | OPT, struct machine, hibernate,
				hibernate_fields),
	CYAML_FIELD_MAPPING_PTR("balloon", PTR | OPT, struct machine, balloon, balloon_fields),
	CYAML_FIELD_ENUM("display", OPT | CYAML_FLAG_STRICT, struct machine, display,
			 display_strings, COUNT(display_strings)),
	CYAML_FIELD_FLAGS("unverified", OPT | CYAML_FLAG_STRICT, struct machine, unverified,
			  part_strings, COUNT(part_strings)),
	CYAML_FIELD_SEQUENCE("shares", PTR | OPT, struct machine, shares, &share_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t expect_fields[] = {
	CYAML_FIELD_INT_PTR("exit", PTR | OPT, struct expect, exit),
	STR("stdout", OPT, struct expect, stdout_re), CYAML_FIELD_IGNORE("json", OPT),
	STR("finding", OPT, struct expect, finding), CYAML_FIELD_END
};

static const cyaml_schema_field_t tolerate_fields[] = { STR("finding", 0, struct tolerate, finding),
							STR("reason", 0, struct tolerate, reason),
							CYAML_FIELD_END };

static const cyaml_schema_value_t tolerate_schema = {
	CYAML_VALUE_MAPPING(0, struct tolerate, tolerate_fields),
};
/* A step's keys: those every kind takes (name, timeout, expect) and each
 * kind's own, from its row (step_kind.h). They are put in the order
 * "unknown key ... (expected one of: ...)" lists them, step_key_order,
 * which is the order of the one array they were in before each kind had
 * a file of its own; a key it does not name follows, in table order. */
static const cyaml_schema_field_t step_shared_fields[] = {
	STR("name", OPT, struct step, name), STR("timeout", OPT, struct step, timeout),
	CYAML_FIELD_MAPPING_PTR("expect", PTR | OPT, struct step, expect, expect_fields),
	CYAML_FIELD_END
};

static const char step_key_order[] =
    " name run wait for qmp arguments suspend wake after pm_test cycles refused asleep_screen"
    " awake_screen fail_path restore_path timeout balloon measure as since within settle"
    " power_loss hybrid_stats ktap screen same_as poll junit file blktests results metrics"
    " expect ";

#define STEP_FIELDS_MAX 63
static cyaml_schema_field_t step_fields[STEP_FIELDS_MAX + 1];

static const cyaml_schema_value_t step_schema = {
	CYAML_VALUE_MAPPING(0, struct step, step_fields),
};

/* Where key goes in step_key_order; past its end when it is not there. */
static size_t step_key_rank(const char *key)
{
	char word[40];
	const char *at;

	snprintf(word, sizeof(word), " %s ", key);
	at = strstr(step_key_order, word);
	return at ? (size_t)(at - step_key_order) : sizeof(step_key_order);
}

/* Add the fields of f to step_fields[0..*n), each after those of a lower
 * or equal rank (a stable insertion). */
static void step_fields_add(const cyaml_schema_field_t *f, size_t *n)
{
	for (; f->key && *n < STEP_FIELDS_MAX; f++) {
		size_t rank = step_key_rank(f->key), i = *n;

		for (; i > 0 && step_key_rank(step_fields[i - 1].key) > rank; i--)
			step_fields[i] = step_fields[i - 1];
		step_fields[i] = *f;
		(*n)++;
	}
}

/* The steps' schema is put together once, before the first load. */
static void step_fields_build(void)
{
	size_t n = 0;

	step_fields_add(step_shared_fields, &n);
	for (size_t k = 0; k < STEP_KIND_COUNT; k++)
		step_fields_add(step_kinds[k]->fields, &n);
}
static const cyaml_schema_value_t tag_schema = {
	CYAML_VALUE_STRING(PTR, char, 0, CYAML_UNLIMITED),
};

static const cyaml_schema_value_t require_schema = {
	CYAML_VALUE_STRING(PTR, char, 0, CYAML_UNLIMITED),
};

static const cyaml_schema_field_t kernel_fields[] = {
	STR("cmdline", OPT, struct kernel_opts, cmdline),
	CYAML_FIELD_SEQUENCE("requires", PTR | OPT, struct kernel_opts, requires, &require_schema,
			     0, CYAML_UNLIMITED),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t guest_fields[] = { STR("root", OPT, struct guest_opts, root),
						     CYAML_FIELD_SEQUENCE(
							 "packages", PTR | OPT, struct guest_opts,
							 packages, &tag_schema, 0, CYAML_UNLIMITED),
						     CYAML_FIELD_END };

static const cyaml_schema_field_t scenario_fields[] = {
	STR("name", OPT, struct scenario, name),
	STR("summary", OPT, struct scenario, summary),
	CYAML_FIELD_SEQUENCE("tags", PTR | OPT, struct scenario, tags, &tag_schema, 0,
			     CYAML_UNLIMITED),
	STR("timeout", OPT, struct scenario, timeout),
	CYAML_FIELD_MAPPING_PTR("kernel", PTR | OPT, struct scenario, kernel, kernel_fields),
	CYAML_FIELD_MAPPING_PTR("guest", PTR | OPT, struct scenario, guest, guest_fields),
	CYAML_FIELD_MAPPING_PTR("machine", PTR | OPT, struct scenario, machine, machine_fields),
	CYAML_FIELD_SEQUENCE("steps", PTR, struct scenario, steps, &step_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("tolerate", PTR | OPT, struct scenario, tolerate, &tolerate_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t scenario_schema = {
	CYAML_VALUE_MAPPING(PTR, struct scenario, scenario_fields),
};

const cyaml_schema_value_t *schema_scenario(void)
{
	if (!step_fields[0].key)
		step_fields_build();
	return &scenario_schema;
}
const cyaml_schema_value_t *schema_field(const cyaml_schema_value_t *v, const char *key)
{
	if (!v || v->type != CYAML_MAPPING)
		return NULL;
	for (const cyaml_schema_field_t *f = v->mapping.fields; f->key; f++)
		if (!strcmp(f->key, key))
			return &f->value;
	return NULL;
}

void schema_join_keys(const cyaml_schema_value_t *v, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const cyaml_schema_field_t *f = v->mapping.fields; f->key && n < len; f++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", f->key);
}

void schema_join_strings(const cyaml_schema_value_t *v, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < v->enumeration.count && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      v->enumeration.strings[i].str);
}

static const char *const type_wants[CYAML__TYPE_COUNT] = {
	[CYAML_INT] = "a whole number", [CYAML_UINT] = "a whole number (0 or more)",
	[CYAML_BOOL] = "true or false", [CYAML_FLOAT] = "a number",
	[CYAML_STRING] = "a string",	[CYAML_MAPPING] = "a mapping",
	[CYAML_SEQUENCE] = "a list",	[CYAML_FLAGS] = "a list",
};

/* What a value of schema v should be, for "expected ..., got ...": a list
 * of flags shows its first two names ([s3, s4], [cpus, memory]). */
const char *schema_type_want(const cyaml_schema_value_t *v, char *buf, size_t len)
{
	if (v->type == CYAML_FLAGS && v->enumeration.count >= 2) {
		snprintf(buf, len, "a list such as [%s, %s]", v->enumeration.strings[0].str,
			 v->enumeration.strings[1].str);
		return buf;
	}
	return type_wants[v->type];
}

/* ---- the schema, checked on the document first ---- */

/* libcyaml stops at the first key or value it cannot take. The document is
 * walked against the same schema first, so that every unknown or missing
 * key, every value of the wrong shape and every name not in its list is
 * reported, each where it is; libcyaml then reads a document the walk
 * found nothing wrong with (what only it checks, a number that does not
 * fit, still ends the load at the first). The messages are cy_error's. */

static bool enum_has(const cyaml_schema_value_t *v, const yaml_node_t *n)
{
	for (uint32_t i = 0; n && n->type == YAML_SCALAR_NODE && i < v->enumeration.count; i++)
		if (scalar_is(n, v->enumeration.strings[i].str,
			      strlen(v->enumeration.strings[i].str)))
			return true;
	return false;
}

/* The root is a list: most likely the steps without their key. */
static void schema_root_list(struct load_ctx *c, yaml_node_t *n)
{
	fail_at(c, n, "",
		"expected a mapping, got a list; a scenario is a mapping of keys (name, "
		"machine, steps, ...): if this list is the steps, write steps: on a line "
		"above it and indent the list under it");
}

static void schema_walk_mapping(struct load_ctx *c, const cyaml_schema_value_t *v, yaml_node_t *n,
				const char *path)
{
	char sub[160], keys[320];

	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = doc_node(c, p->key);
		const char *key =
		    k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
		const cyaml_schema_value_t *fv = key ? schema_field(v, key) : NULL;

		if (!key)
			continue; /* scenario_limits.c refuses such keys first */
		if (!fv) {
			schema_join_keys(v, keys, sizeof(keys));
			fail_at(c, k, path, "unknown key \"%s\" (expected one of: %s)", key, keys);
			continue;
		}
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", key);
		schema_walk(c, fv, doc_node(c, p->value), sub);
	}
	for (const cyaml_schema_field_t *f = v->mapping.fields; f->key; f++)
		if (!(f->value.flags & CYAML_FLAG_OPTIONAL) &&
		    !doc_pair(c, n, f->key, strlen(f->key)))
			fail_at(c, n, path, "missing required key \"%s\"", f->key);
}

void schema_walk(struct load_ctx *c, const cyaml_schema_value_t *v, yaml_node_t *n,
		 const char *path)
{
	char buf[80], opts[160], sub[160];
	bool scalar = n && n->type == YAML_SCALAR_NODE;
	yaml_node_t *e;

	if (!n || !v)
		return;
	switch (v->type) {
	case CYAML_MAPPING:
		if (n->type == YAML_MAPPING_NODE)
			schema_walk_mapping(c, v, n, path);
		else if (!*path && n->type == YAML_SEQUENCE_NODE)
			schema_root_list(c, n);
		else
			fail_at(c, n, path, "expected a mapping, got %s",
				node_desc(n, buf, sizeof(buf)));
		return;
	case CYAML_SEQUENCE:
	case CYAML_SEQUENCE_FIXED:
		if (n->type != YAML_SEQUENCE_NODE) {
			fail_at(c, n, path, "expected a list, got %s",
				node_desc(n, buf, sizeof(buf)));
			return;
		}
		for (unsigned long i = 0; (e = doc_item(c, n, i)); i++) {
			snprintf(sub, sizeof(sub), "%s[%lu]", path, i);
			schema_walk(c, v->sequence.entry, e, sub);
		}
		return;
	case CYAML_ENUM:
		if (enum_has(v, n))
			return;
		schema_join_strings(v, opts, sizeof(opts));
		fail_at(c, n, path, scalar ? "%s is not one of %s" : "got %s; expected one of %s",
			node_desc(n, buf, sizeof(buf)), opts);
		return;
	case CYAML_FLAGS:
		if (n->type != YAML_SEQUENCE_NODE) {
			fail_at(c, n, path, "expected %s, got %s",
				schema_type_want(v, opts, sizeof(opts)),
				node_desc(n, buf, sizeof(buf)));
			return;
		}
		schema_join_strings(v, opts, sizeof(opts));
		for (unsigned long i = 0; (e = doc_item(c, n, i)); i++)
			if (!enum_has(v, e))
				fail_at(c, e, path, "%s is not one of %s",
					node_desc(e, buf, sizeof(buf)), opts);
		return;
	case CYAML_INT:
	case CYAML_UINT:
	case CYAML_BOOL:
	case CYAML_FLOAT:
	case CYAML_STRING:
		if (!scalar)
			fail_at(c, n, path, "expected %s, got %s", type_wants[v->type],
				node_desc(n, buf, sizeof(buf)));
		return;
	default:
		return;
	}
}
