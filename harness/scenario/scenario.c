#include "scenario.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "regex_any.h"
#include "scenario_limits.h"
#include "util.h"

#define SCENARIO_TIMEOUT_MS 120000
#define STEP_TIMEOUT_MS 60000
#define CY_LOG_LINES 32
#define PATH_DEPTH 16
#define JSON_DEPTH 64

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

#define OPT CYAML_FLAG_OPTIONAL
#define PTR CYAML_FLAG_POINTER
/* enums and flags take their names only, never a number */
#define STR(key, flags, type, member)                                                              \
	CYAML_FIELD_STRING_PTR(key, PTR | (flags), type, member, 0, CYAML_UNLIMITED)
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

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
	CYAML_FIELD_END
};

static const cyaml_schema_field_t path_ref_fields[] = {
	STR("disk", 0, struct path_ref, disk), CYAML_FIELD_UINT("path", 0, struct path_ref, path),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t awake_screen_fields[] = {
	STR("same_as", 0, struct awake_screen, same_as),
	STR("within", OPT, struct awake_screen, within), CYAML_FIELD_END
};

static const cyaml_schema_value_t metric_path_schema = {
	CYAML_VALUE_STRING(PTR, char, 0, CYAML_UNLIMITED),
};

static const cyaml_schema_field_t step_fields[] = {
	STR("name", OPT, struct step, name),
	STR("run", OPT, struct step, run),
	STR("wait", OPT, struct step, wait),
	STR("for", OPT, struct step, wait_for),
	STR("qmp", OPT, struct step, qmp),
	CYAML_FIELD_IGNORE("arguments", OPT),
	STR("suspend", OPT, struct step, suspend),
	STR("wake", OPT, struct step, wake),
	STR("after", OPT, struct step, after),
	STR("pm_test", OPT, struct step, pm_test),
	CYAML_FIELD_UINT("cycles", OPT, struct step, cycles),
	STR("refused", OPT, struct step, refused),
	STR("asleep_screen", OPT, struct step, asleep_screen),
	CYAML_FIELD_MAPPING_PTR("awake_screen", PTR | OPT, struct step, awake_screen,
				awake_screen_fields),
	CYAML_FIELD_MAPPING_PTR("fail_path", PTR | OPT, struct step, fail_path, path_ref_fields),
	CYAML_FIELD_MAPPING_PTR("restore_path", PTR | OPT, struct step, restore_path,
				path_ref_fields),
	STR("timeout", OPT, struct step, timeout),
	STR("balloon", OPT, struct step, balloon),
	STR("measure", OPT, struct step, measure),
	STR("as", OPT, struct step, as),
	STR("since", OPT, struct step, since),
	STR("within", OPT, struct step, within),
	STR("settle", OPT, struct step, settle),
	STR("power_loss", OPT, struct step, power_loss),
	STR("hybrid_stats", OPT, struct step, hybrid_stats),
	CYAML_FIELD_IGNORE("ktap", OPT),
	STR("screen", OPT, struct step, screen),
	STR("same_as", OPT, struct step, same_as),
	STR("poll", OPT, struct step, poll),
	CYAML_FIELD_SEQUENCE("metrics", PTR | OPT, struct step, metrics, &metric_path_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_MAPPING_PTR("expect", PTR | OPT, struct step, expect, expect_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t step_schema = {
	CYAML_VALUE_MAPPING(0, struct step, step_fields),
};

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

static const cyaml_schema_field_t scenario_fields[] = {
	STR("name", OPT, struct scenario, name),
	STR("summary", OPT, struct scenario, summary),
	CYAML_FIELD_SEQUENCE("tags", PTR | OPT, struct scenario, tags, &tag_schema, 0,
			     CYAML_UNLIMITED),
	STR("timeout", OPT, struct scenario, timeout),
	CYAML_FIELD_MAPPING_PTR("kernel", PTR | OPT, struct scenario, kernel, kernel_fields),
	CYAML_FIELD_MAPPING_PTR("machine", PTR | OPT, struct scenario, machine, machine_fields),
	CYAML_FIELD_SEQUENCE("steps", PTR, struct scenario, steps, &step_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t scenario_schema = {
	CYAML_VALUE_MAPPING(PTR, struct scenario, scenario_fields),
};

/* Everything one load needs: the file, its libyaml document (for exact
 * locations and free-form mappings), and what libcyaml logged. */
struct load_ctx {
	const char *path;
	const struct scenario *s; /* for checks that look across sections */
	struct scenario_error *err;
	yaml_document_t doc;
	char log[CY_LOG_LINES][256];
	unsigned log_n;
};

static void cy_log_collect(cyaml_log_t level, void *data, const char *fmt, va_list args)
{
	struct load_ctx *c = data;
	char *line;

	(void)level;
	if (c->log_n >= CY_LOG_LINES)
		return;
	line = c->log[c->log_n++];
	vsnprintf(line, sizeof(c->log[0]), fmt, args);
	line[strcspn(line, "\n")] = '\0';
}

static void cy_log_drop(cyaml_log_t level, void *data, const char *fmt, va_list args)
{
	(void)level, (void)data, (void)fmt, (void)args;
}

static const cyaml_config_t free_config = {
	.log_fn = cy_log_drop,
	.mem_fn = cyaml_mem,
	.log_level = CYAML_LOG_ERROR,
};

/* ---- the libyaml document: find nodes by field path ---- */

/* Where a path leads: the deepest node reached, and the key node naming it
 * when it is a mapping value. complete: the whole path was found. */
struct doc_hit {
	yaml_node_t *key, *val;
	bool complete;
};

static yaml_node_t *doc_node(struct load_ctx *c, int id)
{
	return yaml_document_get_node(&c->doc, id);
}

static bool scalar_is(const yaml_node_t *n, const char *s, size_t len)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == len &&
	       !memcmp(n->data.scalar.value, s, len);
}

/* The last pair of mapping m whose key is k (len bytes); NULL if none. */
static yaml_node_pair_t *doc_pair(struct load_ctx *c, yaml_node_t *m, const char *k, size_t len)
{
	yaml_node_pair_t *hit = NULL;

	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (scalar_is(doc_node(c, p->key), k, len))
			hit = p;
	return hit;
}

static yaml_node_t *doc_item(struct load_ctx *c, yaml_node_t *s, unsigned long i)
{
	if (!s || s->type != YAML_SEQUENCE_NODE)
		return NULL;
	if (i >= (unsigned long)(s->data.sequence.items.top - s->data.sequence.items.start))
		return NULL;
	return doc_node(c, s->data.sequence.items.start[i]);
}

/* One step of a path such as "machine.disks[1].size"; advances *p. */
static bool doc_step(struct load_ctx *c, const char **p, struct doc_hit *h)
{
	const char *s = *p;
	yaml_node_pair_t *pair;
	yaml_node_t *next;
	size_t len;

	if (*s == '[') {
		next = doc_item(c, h->val, strtoul(s + 1, NULL, 10));
		s += strcspn(s, "]");
		s += *s == ']';
		h->key = NULL;
	} else {
		s += *s == '.';
		len = strcspn(s, ".[");
		pair = doc_pair(c, h->val, s, len);
		next = pair ? doc_node(c, pair->value) : NULL;
		h->key = pair ? doc_node(c, pair->key) : NULL;
		s += len;
	}
	*p = s;
	if (next)
		h->val = next;
	return next != NULL;
}

static void doc_find(struct load_ctx *c, const char *path, struct doc_hit *h)
{
	h->key = NULL;
	h->val = yaml_document_get_root_node(&c->doc);
	h->complete = h->val != NULL;
	while (h->complete && path && *path)
		h->complete = doc_step(c, &path, h);
}

static yaml_node_t *doc_get(struct load_ctx *c, const char *path)
{
	struct doc_hit h;

	doc_find(c, path, &h);
	return h.complete ? h.val : NULL;
}

/* ---- errors ---- */

static void err_vset(struct load_ctx *c, const yaml_node_t *at, const char *field, const char *fmt,
		     va_list ap)
{
	struct scenario_error *e = c->err;

	e->line = at ? (int)at->start_mark.line + 1 : 0;
	e->col = at ? (int)at->start_mark.column + 1 : 0;
	snprintf(e->field, sizeof(e->field), "%s", field ? field : "");
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
}

/* Report at node at (NULL: no location). Returns -EINVAL. */
static int fail_at(struct load_ctx *c, const yaml_node_t *at, const char *field, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));
static int fail_at(struct load_ctx *c, const yaml_node_t *at, const char *field, const char *fmt,
		   ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(c, at, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Report at the value the field path names, or its nearest ancestor present
 * in the file (a defaulted field has no line of its own). */
static int fail(struct load_ctx *c, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct load_ctx *c, const char *field, const char *fmt, ...)
{
	struct doc_hit h;
	va_list ap;

	doc_find(c, field, &h);
	va_start(ap, fmt);
	err_vset(c, h.val, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Report at the file's first line: what is wrong is the file as a whole. */
static int fail_line1(struct load_ctx *c, const char *msg)
{
	c->err->line = 1;
	c->err->col = 1;
	snprintf(c->err->msg, sizeof(c->err->msg), "%s", msg);
	return -EINVAL;
}

/* ---- libcyaml's complaints, turned into file:line:col: field: message ---- */

/* A field path rebuilt from libcyaml's backtrace, with the schema of every
 * prefix so that a path can be shortened and still be described. */
struct cy_path {
	char str[128];
	size_t cut[PATH_DEPTH + 1];
	const cyaml_schema_value_t *schema[PATH_DEPTH + 1];
	unsigned depth;
};

static const cyaml_schema_value_t *schema_field(const cyaml_schema_value_t *v, const char *key)
{
	if (!v || v->type != CYAML_MAPPING)
		return NULL;
	for (const cyaml_schema_field_t *f = v->mapping.fields; f->key; f++)
		if (!strcmp(f->key, key))
			return &f->value;
	return NULL;
}

static void cy_path_push(struct cy_path *p, const char *key, long entry)
{
	const cyaml_schema_value_t *v = p->schema[p->depth];
	size_t n = strlen(p->str);

	if (p->depth >= PATH_DEPTH)
		return;
	if (key) {
		snprintf(p->str + n, sizeof(p->str) - n, "%s%s", n ? "." : "", key);
		v = schema_field(v, key);
	} else {
		snprintf(p->str + n, sizeof(p->str) - n, "[%ld]", entry);
		v = v && v->type == CYAML_SEQUENCE ? v->sequence.entry : NULL;
	}
	p->cut[p->depth++] = n;
	p->schema[p->depth] = v;
}

static void cy_path_pop(struct cy_path *p)
{
	if (p->depth)
		p->str[p->cut[--p->depth]] = '\0';
}

/* Backtrace lines come innermost first: "  in mapping field 'disks' (...)",
 * "  in sequence entry '2' (...)" (counted from 1), "  in mapping (...)". */
static void cy_path_build(struct load_ctx *c, struct cy_path *p)
{
	char key[64];
	unsigned entry;

	memset(p, 0, sizeof(*p));
	p->schema[0] = &scenario_schema;
	for (unsigned i = c->log_n; i-- > 1;) {
		if (sscanf(c->log[i], " in mapping field '%63[^']'", key) == 1)
			cy_path_push(p, key, 0);
		else if (sscanf(c->log[i], " in sequence entry '%u'", &entry) == 1)
			cy_path_push(p, NULL, (long)entry - 1);
	}
}

static const char *cy_message(struct load_ctx *c)
{
	const char *m = c->log_n ? c->log[0] : "invalid scenario";

	return strncmp(m, "Load: ", 6) ? m : m + 6;
}

static void join_keys(const cyaml_schema_value_t *v, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const cyaml_schema_field_t *f = v->mapping.fields; f->key && n < len; f++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", f->key);
}

static void join_strings(const cyaml_schema_value_t *v, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < v->enumeration.count && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      v->enumeration.strings[i].str);
}

static int cy_unknown_key(struct load_ctx *c, struct cy_path *p, const char *key)
{
	yaml_node_pair_t *pair = doc_pair(c, doc_get(c, p->str), key, strlen(key));
	const cyaml_schema_value_t *v = p->schema[p->depth];
	char keys[320] = "";

	if (v && v->type == CYAML_MAPPING)
		join_keys(v, keys, sizeof(keys));
	return fail_at(c, pair ? doc_node(c, pair->key) : doc_get(c, p->str), p->str,
		       "unknown key \"%s\" (expected one of: %s)", key, keys);
}

static int cy_missing_key(struct load_ctx *c, struct cy_path *p, const char *key)
{
	/* the backtrace ends at the last field read, not at the mapping lacking key */
	if (!schema_field(p->schema[p->depth], key))
		cy_path_pop(p);
	return fail(c, p->str, "missing required key \"%s\"", key);
}

static int cy_duplicate_key(struct load_ctx *c, struct cy_path *p, const char *key)
{
	yaml_node_pair_t *pair;

	cy_path_pop(p);
	pair = doc_pair(c, doc_get(c, p->str), key, strlen(key));
	return fail_at(c, pair ? doc_node(c, pair->key) : doc_get(c, p->str), p->str,
		       "key \"%s\" appears twice; give it once", key);
}

static const char *node_desc(const yaml_node_t *n, char *buf, size_t len)
{
	if (!n)
		return "nothing";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	snprintf(buf, len, "\"%.*s\"",
		 (int)(n->data.scalar.length > 60 ? 60 : n->data.scalar.length),
		 (const char *)n->data.scalar.value);
	return buf;
}

/* The list entry of flags field n whose text is bad, for its exact line. */
static yaml_node_t *flag_entry(struct load_ctx *c, yaml_node_t *n, const char *bad)
{
	yaml_node_t *e;

	for (unsigned long i = 0; (e = doc_item(c, n, i)); i++)
		if (scalar_is(e, bad, strlen(bad)))
			return e;
	return n;
}

static const char *const type_wants[CYAML__TYPE_COUNT] = {
	[CYAML_INT] = "a whole number", [CYAML_UINT] = "a whole number (0 or more)",
	[CYAML_BOOL] = "true or false", [CYAML_FLOAT] = "a number",
	[CYAML_STRING] = "a string",	[CYAML_MAPPING] = "a mapping",
	[CYAML_SEQUENCE] = "a list",	[CYAML_FLAGS] = "a list such as [s3, s4]",
};

static int cy_bad_value(struct load_ctx *c, struct cy_path *p)
{
	const cyaml_schema_value_t *v = p->schema[p->depth];
	yaml_node_t *n = doc_get(c, p->str);
	char buf[80], opts[128], bad[64];
	bool scalar = n && n->type == YAML_SCALAR_NODE;

	if (!v)
		return fail(c, p->str, "%s", cy_message(c));
	if (v->type == CYAML_ENUM) {
		join_strings(v, opts, sizeof(opts));
		return fail(c, p->str,
			    scalar ? "%s is not one of %s"
				   : "got %s; expected one "
				     "of %s",
			    node_desc(n, buf, sizeof(buf)), opts);
	}
	if (v->type == CYAML_FLAGS && sscanf(cy_message(c), "Unknown flag: %63s", bad) == 1) {
		join_strings(v, opts, sizeof(opts));
		return fail_at(c, flag_entry(c, n, bad), p->str, "\"%s\" is not one of %s", bad,
			       opts);
	}
	if (type_wants[v->type])
		return fail(c, p->str, "expected %s, got %s", type_wants[v->type],
			    node_desc(n, buf, sizeof(buf)));
	return fail(c, p->str, "%s", cy_message(c));
}

static int cy_error(struct load_ctx *c, cyaml_err_t e)
{
	const char *msg = cy_message(c);
	struct cy_path p;
	char key[64];

	if (e == CYAML_ERR_OOM)
		return -ENOMEM;
	cy_path_build(c, &p);
	if (sscanf(msg, "Unexpected key: %63s", key) == 1)
		return cy_unknown_key(c, &p, key);
	if (sscanf(msg, "Missing required mapping field: %63s", key) == 1)
		return cy_missing_key(c, &p, key);
	if (sscanf(msg, "Mapping field already seen: %63s", key) == 1)
		return cy_duplicate_key(c, &p, key);
	return cy_bad_value(c, &p);
}

/* ---- YAML to JSON, for qmp arguments and expect.json ---- */

static json_t *scalar_to_json(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;
	char *end;

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_string(s);
	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	    !strcmp(s, "NULL"))
		return json_null();
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
		return json_true();
	if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
		return json_false();
	errno = 0;
	long long i = strtoll(s, &end, 10);
	if (!*end && !errno)
		return json_integer(i);
	double d = strtod(s, &end);
	if (!*end && strpbrk(s, "0123456789") && !strpbrk(s, "xXnN"))
		return json_real(d);
	return json_string(s);
}

static json_t *node_to_json(struct load_ctx *c, yaml_node_t *n, int depth);

static json_t *mapping_to_json(struct load_ctx *c, yaml_node_t *n, int depth)
{
	json_t *obj = json_object();

	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = doc_node(c, p->key);
		json_t *v = node_to_json(c, doc_node(c, p->value), depth + 1);

		if (!v || !k || k->type != YAML_SCALAR_NODE) {
			json_decref(v);
			json_decref(obj);
			return NULL;
		}
		json_object_set_new(obj, (const char *)k->data.scalar.value, v);
	}
	return obj;
}

static json_t *node_to_json(struct load_ctx *c, yaml_node_t *n, int depth)
{
	json_t *arr;

	if (!n || depth > JSON_DEPTH)
		return NULL;
	if (n->type == YAML_SCALAR_NODE)
		return scalar_to_json(n);
	if (n->type == YAML_MAPPING_NODE)
		return mapping_to_json(c, n, depth);
	arr = json_array();
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		json_t *v = node_to_json(c, doc_node(c, *i), depth + 1);

		if (!v) {
			json_decref(arr);
			return NULL;
		}
		json_array_append_new(arr, v);
	}
	return arr;
}

/* The mapping at path as a JSON object into *out (NULL when absent). */
static int mapping_field_json(struct load_ctx *c, const char *path, json_t **out)
{
	yaml_node_t *n = doc_get(c, path);
	char buf[80];

	*out = NULL;
	if (!n)
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, path, "expected a mapping, got %s", node_desc(n, buf, sizeof(buf)));
	*out = node_to_json(c, n, 0);
	if (!*out)
		return fail(c, path, "keys must be plain strings and nesting at most %d deep",
			    JSON_DEPTH);
	return 0;
}

/* ---- the machine ---- */

static int distances_row(struct load_ctx *c, struct numa *nu, unsigned i, yaml_node_t *row)
{
	unsigned n = nu->nodes_count;
	char path[64], *end;
	yaml_node_t *cell;

	snprintf(path, sizeof(path), "machine.numa.distances[%u]", i);
	if (row->type != YAML_SEQUENCE_NODE ||
	    row->data.sequence.items.top - row->data.sequence.items.start != n)
		return fail(c, path, "each row holds %u distances, one per node, e.g. [10, 20]", n);
	for (unsigned j = 0; j < n; j++) {
		cell = doc_item(c, row, j);
		unsigned long v = cell->type == YAML_SCALAR_NODE
				      ? strtoul((const char *)cell->data.scalar.value, &end, 10)
				      : 0;

		snprintf(path, sizeof(path), "machine.numa.distances[%u][%u]", i, j);
		if (cell->type != YAML_SCALAR_NODE || *end || !cell->data.scalar.length || v > 255)
			return fail(c, path, "expected a distance 10..255");
		nu->distances[i * n + j] = (unsigned)v;
	}
	return 0;
}

/* The matrix is a list of rows in the file but flat in struct numa. */
static int distances_load(struct load_ctx *c, struct numa *nu)
{
	yaml_node_t *m = doc_get(c, "machine.numa.distances"), *row;
	unsigned n = nu->nodes_count;
	int ret;

	if (!m)
		return 0;
	if (m->type != YAML_SEQUENCE_NODE ||
	    m->data.sequence.items.top - m->data.sequence.items.start != n)
		return fail(c, "machine.numa.distances",
			    "expected %u rows of %u, one per node, "
			    "e.g. [[10, 20], [20, 10]]",
			    n, n);
	nu->distances = xcalloc((size_t)n * n, sizeof(*nu->distances));
	nu->distances_count = n * n;
	for (unsigned i = 0; i < n; i++) {
		row = doc_item(c, m, i);
		ret = distances_row(c, nu, i, row);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* A base image or a shared folder is named relative to the scenario file
 * and stays in its folder or below: the guest reads it, so a scenario from
 * elsewhere must not be able to hand it /etc/shadow or ~/.ssh. */
static bool path_inside(const char *p)
{
	size_t n = strlen(p);

	return p[0] && p[0] != '/' && strcmp(p, "..") && strncmp(p, "../", 3) &&
	       !strstr(p, "/../") && !(n >= 3 && !strcmp(p + n - 3, "/.."));
}

static int images_check(struct load_ctx *c, const struct machine *m)
{
	char f[64];

	for (unsigned i = 0; i < m->disks_count; i++) {
		const char *img = m->disks[i].image;

		snprintf(f, sizeof(f), "machine.disks[%u].image", i);
		if (img && !path_inside(img))
			return fail(c, f,
				    "\"%.60s\" is not inside the scenario's folder; name the "
				    "base image relative to the scenario file, without a leading / "
				    "or ..",
				    img);
	}
	for (unsigned i = 0; i < m->shares_count; i++) {
		const char *h = m->shares[i].host;

		snprintf(f, sizeof(f), "machine.shares[%u].host", i);
		if (h && !path_inside(h))
			return fail(
			    c, f,
			    "\"%.60s\" is not inside the scenario's folder; name the "
			    "shared folder relative to the scenario file, without a leading "
			    "/ or .. (ktb boot --share takes any folder)",
			    h);
	}
	return 0;
}

/* Base images and shared folders are named relative to the scenario file. */
static void relative_resolve(struct load_ctx *c, char **path)
{
	const char *slash = strrchr(c->path, '/');
	char *p = *path;

	if (!slash || !p || p[0] == '/')
		return;
	*path = xasprintf("%.*s/%s", (int)(slash - c->path), c->path, p);
	free(p);
}

static void images_resolve(struct load_ctx *c, struct machine *m)
{
	for (unsigned i = 0; i < m->disks_count; i++)
		relative_resolve(c, &m->disks[i].image);
	for (unsigned i = 0; i < m->shares_count; i++)
		relative_resolve(c, &m->shares[i].host);
}

static int machine_load(struct load_ctx *c, struct scenario *s)
{
	struct hw_error herr;
	struct doc_hit h;
	int ret;

	doc_find(c, "machine", &h);
	s->machine_line = h.complete && h.key ? (int)h.key->start_mark.line + 1 : 0;
	if (!s->machine)
		s->machine = xcalloc(1, sizeof(*s->machine));
	if (s->machine->numa) {
		ret = distances_load(c, s->machine->numa);
		if (ret < 0)
			return ret;
	}
	ret = images_check(c, s->machine);
	if (ret < 0)
		return ret;
	images_resolve(c, s->machine);
	if (machine_validate(s->machine, &herr) < 0)
		return fail(c, herr.field, "%s", herr.msg);
	return 0;
}

/* ---- steps ---- */

/* Each kind's own load-time checks, step_check_KEYWORD, defined below. */
#define KTB_STEP_CHECK_DECL(id, keyword, expects, needs, keys)                                     \
	static int step_check_##keyword(struct load_ctx *c, struct step *st, const char *path);
KTB_STEP_KINDS(KTB_STEP_CHECK_DECL)
#undef KTB_STEP_CHECK_DECL

/* One row per step kind, indexed by kind, from KTB_STEP_KINDS: its keyword,
 * the field holding its argument, what expect may check, the machine parts
 * it drives, the keys only it takes and its own checks. */
static const struct step_kind_row {
	const char *keyword;
	enum step_kind kind;
	size_t field;
	unsigned expects;
	unsigned needs;
	const char *keys;
	int (*check)(struct load_ctx *c, struct step *st, const char *path);
} step_kinds[] = {
/* clang-format off */
#define KTB_STEP_ROW(id, keyword, expects, needs, keys)                                            \
	[STEP_##id] = { #keyword, STEP_##id, offsetof(struct step, keyword), (expects),    \
			(needs), keys, step_check_##keyword },
	KTB_STEP_KINDS(KTB_STEP_ROW)
#undef KTB_STEP_ROW
};
/* clang-format on */
_Static_assert(COUNT(step_kinds) == STEP_KIND_COUNT, "one loader row per step kind");

const char *step_kind_name(enum step_kind k)
{
	return (unsigned)k < COUNT(step_kinds) ? step_kinds[k].keyword : "?";
}

unsigned step_kind_needs(enum step_kind k)
{
	return (unsigned)k < COUNT(step_kinds) ? step_kinds[k].needs : 0;
}

static const char *step_arg(const struct step *st, const struct step_kind_row *row)
{
	return *(char *const *)((const char *)st + row->field);
}

/* Where a pattern is matched, as the runner matches it, and what to write
 * instead of one that matches anything there. */
struct regex_use {
	int cflags;	 /* REG_NEWLINE for stdout: ^ and $ at every line */
	bool lines;	 /* matched against each console line, which holds no newline */
	const char *any; /* "any text, even none" */
	const char *instead;
};

static const struct regex_use use_stdout = {
	REG_NEWLINE,
	false,
	"any output, even none",
	"write what the output must hold (\"^ready$\" for a line that is exactly "
	"ready), or leave stdout out to check only the exit code",
};
static const struct regex_use use_wait = {
	0,
	true,
	"any console line, even an empty one, so the wait ends at the first line",
	"write what the line waited for holds (\"Freezing user space\")",
};
static const struct regex_use use_json = {
	0,
	false,
	"any string, even \"\"",
	"write what the value must be: the value itself, or an anchored pattern "
	"(\"^[0-9]+$\")",
};

/* The runner matches with POSIX extended regexes, as a search: refuse one
 * that does not compile, whose compiled form could take more memory or
 * time than a scenario may (scenario_limits.c), or that finds a match in
 * every text (regex_any.c), which passes whatever the guest did. */
static int regex_refusal(const char *pattern, const struct regex_use *u, char *why, size_t len)
{
	int r;

	if (limits_check_regex(pattern, why, len) < 0)
		return -EINVAL;
	r = regex_matches_any(pattern, u->cflags, u->lines);
	if (r < 0)
		snprintf(why, len, "not a POSIX extended regular expression");
	else if (r > 0)
		snprintf(why, len, "/%.60s/ matches %s: it checks nothing; %s", pattern, u->any,
			 u->instead);
	return r ? -EINVAL : 0;
}

static int check_regex(struct load_ctx *c, const char *field, const char *pattern,
		       const struct regex_use *u)
{
	char why[512];

	if (regex_refusal(pattern, u, why, sizeof(why)) < 0)
		return fail(c, field, "%s", why);
	return 0;
}

/* A duration field into *out; eg: examples for the message. */
static int duration_field(struct load_ctx *c, const char *f, const char *v, int64_t *out,
			  const char *eg)
{
	int r = parse_duration_ms(v, out);

	if (r == -ERANGE)
		return fail(c, f,
			    "\"%.40s\" is longer than 24h, the longest duration a scenario "
			    "may give",
			    v);
	if (r < 0)
		return fail(c, f, "\"%.60s\" is not a duration; write e.g. %s", v, eg);
	return 0;
}

static bool name_valid_metric(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

static int step_check_wait(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.wait", path);
	if (duration_field(c, f, st->wait, &st->wait_ms, "500ms, 5s, 2m") < 0)
		return -EINVAL;
	snprintf(f, sizeof(f), "%s.for", path);
	return st->wait_for ? check_regex(c, f, st->wait_for, &use_wait) : 0;
}

/* QMP commands that read or write files on the host, run host programs or
 * plug in devices behind the machine model's back (migrate "exec:", a
 * memory dump to a host path, a loader device reading a host file): a
 * scenario drives the guest, never the host. */
static const char *const qmp_host_commands[] = {
	"add-fd",
	"block-commit",
	"block-stream",
	"blockdev-add",
	"blockdev-backup",
	"blockdev-change-medium",
	"blockdev-create",
	"blockdev-mirror",
	"blockdev-snapshot-sync",
	"change-backing-file",
	"chardev-add",
	"chardev-change",
	"device_add",
	"drive-backup",
	"drive-mirror",
	"dump-guest-memory",
	"getfd",
	"memsave",
	"migrate",
	"migrate-incoming",
	"netdev_add",
	"object-add",
	"pmemsave",
	"qom-set",
	"screendump",
	"snapshot-load",
	"snapshot-save",
	"xen-load-devices-state",
	"xen-save-devices-state",
};

/* 0, or the step refused: cmd may touch the host (human-monitor-command
 * only for "info ..."). */
static int qmp_check_host(struct load_ctx *c, const char *f, const char *cmd, json_t *args)
{
	const char *hmp = json_string_value(json_object_get(args, "command-line"));

	for (size_t i = 0; i < sizeof(qmp_host_commands) / sizeof(qmp_host_commands[0]); i++)
		if (!strcmp(cmd, qmp_host_commands[i]))
			return fail(c, f,
				    "%s reaches past the guest to the host's files, programs "
				    "or devices; a scenario may not use it",
				    cmd);
	if (!strcmp(cmd, "human-monitor-command") &&
	    (!hmp || strncmp(hmp, "info ", 5) || strpbrk(hmp, ";\n")))
		return fail(c, f,
			    "human-monitor-command takes only \"info ...\" here: other "
			    "monitor commands reach the host");
	return 0;
}

static int step_check_qmp_json(struct load_ctx *c, struct step *st, const char *f)
{
	json_error_t jerr;
	json_t *j = json_loads(st->qmp, 0, &jerr);
	int ret = 0;

	if (!j)
		ret = fail(c, f, "not valid JSON: %s (column %d)", jerr.text, jerr.column);
	else if (!json_is_string(json_object_get(j, "execute")))
		ret = fail(c, f, "a JSON command needs \"execute\": \"COMMAND\"");
	else if (st->arguments)
		ret = fail(c, f,
			   "give the arguments inside the JSON command or as arguments:, "
			   "not both");
	else
		ret = qmp_check_host(c, f, json_string_value(json_object_get(j, "execute")),
				     json_object_get(j, "arguments"));
	json_decref(j);
	return ret;
}

static int step_check_qmp(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];
	int ret;

	snprintf(f, sizeof(f), "%s.arguments", path);
	ret = mapping_field_json(c, f, &st->arguments);
	if (ret < 0)
		return ret;
	snprintf(f, sizeof(f), "%s.qmp", path);
	if (st->qmp[0] == '{')
		return step_check_qmp_json(c, st, f);
	if (!st->qmp[0] || strpbrk(st->qmp, " \t\n"))
		return fail(c, f,
			    "\"%s\" is not a QMP command name; write e.g. query-status, "
			    "or a JSON object {\"execute\": ...}",
			    st->qmp);
	return qmp_check_host(c, f, st->qmp, st->arguments);
}

static int word_index(const char *w, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, words[i]))
			return (int)i;
	return -1;
}

/* Which wake sources can end which sleep here (docs/pm.md, "Which wake
 * ends which sleep"): QEMU's system_wakeup and the RTC alarm wake S3 but not
 * s2idle; a key or the ACPI power button wake s2idle. S4 ends by restarting
 * the machine. */
static int step_check_wake(struct load_ctx *c, struct step *st, const char *path)
{
	static const char *const wakes[] = { "", "qmp", "rtc", "key", "button" };
	static const unsigned ok[] = { [SLEEP_STATE_S3] = 1 << WAKE_QMP | 1 << WAKE_RTC,
				       [SLEEP_STATE_S2IDLE] = 1 << WAKE_KEY | 1 << WAKE_BUTTON,
				       [SLEEP_STATE_S4] = 0 };
	char f[64];
	int w;

	snprintf(f, sizeof(f), "%s.wake", path);
	if (!st->wake) {
		st->wake_by = st->sleep_state == SLEEP_STATE_S2IDLE ? WAKE_KEY : WAKE_QMP;
		return 0;
	}
	w = word_index(st->wake, wakes, COUNT(wakes));
	if (w <= 0)
		return fail(c, f, "\"%s\" is not one of qmp, rtc, key, button", st->wake);
	if (!(ok[st->sleep_state] & 1u << w))
		return fail(c, f, "%s cannot end %s: %s", st->wake, st->suspend,
			    st->sleep_state == SLEEP_STATE_S2IDLE
				? "QEMU's system_wakeup and the RTC alarm do not wake s2idle; "
				  "use key or button"
			    : st->sleep_state == SLEEP_STATE_S4
				? "an S4 step restores by restarting the machine; drop wake"
				: "S3 wakes by qmp or rtc");
	st->wake_by = (enum wake_source)w;
	return 0;
}

/* refused: freezing, a suspend the kernel must refuse because its freezer
 * gives up: one cycle of s3 or s2idle (a hibernation that fails to freeze
 * is not driven to its end here), really asked for (no pm_test). */
static int step_check_refused(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.refused", path);
	if (!st->refused)
		return 0;
	if (strcmp(st->refused, "freezing"))
		return fail(c, f, "\"%s\" is not freezing (the only refusal a step can expect)",
			    st->refused);
	if (st->sleep_state == SLEEP_STATE_S4 || st->pm_test || st->cycles > 1)
		return fail(c, f, "refused: freezing takes one cycle of s3 or s2idle, no pm_test");
	return 0;
}

/* An earlier step saved a capture as name: a screen step, or a suspend
 * step's asleep_screen. */
static bool screen_saved_before(const struct scenario *s, const struct step *st, const char *name)
{
	for (const struct step *p = s->steps; p < st; p++)
		if ((p->kind == STEP_SCREEN && !strcmp(p->screen, name)) ||
		    (p->kind == STEP_SUSPEND && p->asleep_screen &&
		     !strcmp(p->asleep_screen, name)))
			return true;
	return false;
}

/* A capture's name (field f): the machine has a display, the name is a
 * file-name-safe word no earlier step used. */
static int check_screen_name(struct load_ctx *c, const struct step *st, const char *name,
			     const char *f)
{
	if (c->s->machine->display == DISPLAY_NONE)
		return fail(c, f, "the machine has no display; give it display: bochs-display");
	if (!name_valid_metric(name))
		return fail(c, f, "\"%s\" does not match [a-z0-9_]+", name);
	if (screen_saved_before(c->s, st, name))
		return fail(c, f, "an earlier step already saved the capture \"%s\"", name);
	return 0;
}

/* asleep_screen: NAME on a suspend step: S3 or s2idle (under S4 the
 * machine is off), one cycle, no pm_test (nothing sleeps). */
static int step_check_asleep_screen(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	if (!st->asleep_screen)
		return 0;
	snprintf(f, sizeof(f), "%s.asleep_screen", path);
	if (st->sleep_state == SLEEP_STATE_S4)
		return fail(c, f, "s4 powers the machine off: there is no screen while asleep");
	if (st->pm_test)
		return fail(c, f, "with pm_test the guest never sleeps; drop one of them");
	if (st->cycles > 1)
		return fail(c, f, "one capture per step: give cycles: 1");
	return check_screen_name(c, st, st->asleep_screen, f);
}

/* awake_screen: {same_as: NAME, within: DURATION} on a suspend step: one
 * cycle of S3 or s2idle woken by the host (the wake is when the captures
 * start), NAME an earlier capture. */
static int step_check_awake_screen(struct load_ctx *c, struct step *st, const char *path)
{
	struct awake_screen *a = st->awake_screen;
	char f[64];

	if (!a)
		return 0;
	snprintf(f, sizeof(f), "%s.awake_screen", path);
	if (c->s->machine->display == DISPLAY_NONE)
		return fail(c, f, "the machine has no display; give it display: bochs-display");
	if (st->sleep_state == SLEEP_STATE_S4)
		return fail(c, f,
			    "s4 restores in a new QEMU, not on a wake; compare with a screen "
			    "step after it (same_as, poll)");
	if (st->pm_test)
		return fail(c, f, "with pm_test the guest never sleeps; drop one of them");
	if (st->cycles > 1)
		return fail(c, f, "one return timed per step: give cycles: 1");
	if (st->wake_by == WAKE_RTC)
		return fail(c, f,
			    "wake: rtc is the guest's own alarm: the host has no wake to time "
			    "from; wake by qmp");
	snprintf(f, sizeof(f), "%s.awake_screen.same_as", path);
	if (!screen_saved_before(c->s, st, a->same_as))
		return fail(c, f, "no earlier step saved the capture \"%s\"; give one screen: %s",
			    a->same_as, a->same_as);
	snprintf(f, sizeof(f), "%s.awake_screen.within", path);
	a->within_ms = 5000;
	if (a->within && duration_field(c, f, a->within, &a->within_ms, "2s, 5s") < 0)
		return -EINVAL;
	if (!a->within_ms)
		return fail(c, f, "0 leaves no time for a capture; give e.g. 5s");
	/* the guest agent is asked after the captures, and must answer within
	 * a minute of the wake */
	if (a->within_ms > 30000)
		return fail(c, f,
			    "%s is more than 30s: the guest is asked whether it is back "
			    "only after the captures",
			    a->within);
	return 0;
}

static int step_check_suspend(struct load_ctx *c, struct step *st, const char *path)
{
	static const char *const states[] = { SLEEP_STATE_TABLE(HW_NAMES_STR) };
	static const char *const levels[] = { "freezer", "devices", "platform", "processors",
					      "core" };
	char f[64];
	int k = word_index(st->suspend, states, COUNT(states));

	snprintf(f, sizeof(f), "%s.suspend", path);
	if (k < 0)
		return fail(c, f, "\"%s\" is not one of %s", st->suspend,
			    HW_NAMES_LIST(SLEEP_STATE_TABLE));
	if (k == SLEEP_STATE_S4 && !c->s->machine->hibernate)
		return fail(c, f,
			    "s4 needs a swap disk for the image: give the machine "
			    "hibernate: {disk: ID}");
	st->sleep_state = (enum sleep_state)k;
	snprintf(f, sizeof(f), "%s.pm_test", path);
	if (st->pm_test && word_index(st->pm_test, levels, COUNT(levels)) < 0)
		return fail(c, f,
			    "\"%s\" is not one of freezer, devices, platform, processors, "
			    "core",
			    st->pm_test);
	snprintf(f, sizeof(f), "%s.after", path);
	st->after_ms = 1000;
	if (st->after && duration_field(c, f, st->after, &st->after_ms, "500ms, 2s") < 0)
		return -EINVAL;
	snprintf(f, sizeof(f), "%s.cycles", path);
	if (st->cycles > 1000)
		return fail(c, f, "%u cycles is more than 1000", st->cycles);
	if (!st->cycles)
		st->cycles = 1;
	if (k == SLEEP_STATE_S4 && st->cycles > 1)
		return fail(c, f, "one hibernation per step; repeat the step instead");
	if (step_check_refused(c, st, path) || step_check_asleep_screen(c, st, path) ||
	    step_check_wake(c, st, path))
		return -EINVAL;
	return step_check_awake_screen(c, st, path);
}

char *step_metric_name(const char *path)
{
	char *name = xstrdup(path);

	for (char *p = name; *p; p++)
		if (*p == '.')
			*p = '_';
	return name;
}

/* Does one of metrics[0..n) name metric name? */
static bool metric_in(char **metrics, unsigned n, const char *name)
{
	bool found = false;

	for (unsigned i = 0; i < n && !found; i++) {
		char *other = step_metric_name(metrics[i]);

		found = !strcmp(other, name);
		free(other);
	}
	return found;
}

/* The step that sets metric name before st's field i: an earlier run
 * step's metrics or measure's as, or st's own earlier field; -1 if none. */
static int metric_set_before(const struct scenario *s, const struct step *st, unsigned i,
			     const char *name)
{
	for (const struct step *p = s->steps; p < st; p++)
		if (metric_in(p->metrics, p->metrics_count, name) ||
		    (p->kind == STEP_MEASURE && p->as && !strcmp(p->as, name)))
			return (int)(p - s->steps);
	return metric_in(st->metrics, i, name) ? (int)(st - s->steps) : -1;
}

/* run: any command (expect is checked for every kind); metrics: fields of
 * its JSON output by path (a.b.0), each a metric named by the path with
 * '.' as '_', set by no other step. */
static int step_check_run(struct load_ctx *c, struct step *st, const char *path)
{
	char f[96];

	for (unsigned i = 0; i < st->metrics_count; i++) {
		const char *m = st->metrics[i];
		char *name = step_metric_name(m);
		bool words = name_valid_metric(name) && *m != '.' && m[strlen(m) - 1] != '.' &&
			     !strstr(m, "..");
		int other = metric_set_before(c->s, st, i, name), ret = 0;

		snprintf(f, sizeof(f), "%s.metrics[%u]", path, i);
		if (!words)
			ret =
			    fail(c, f,
				 "\"%s\" is not a field path: words of [a-z0-9_] joined by '.'", m);
		else if (other >= 0)
			ret = fail(c, f, "%s sets the metric %s, which steps[%d] already sets", m,
				   name, other);
		free(name);
		if (ret)
			return ret;
	}
	return 0;
}

/* fail_path / restore_path name a multipath disk of this machine and one of
 * its paths; the step's default name says which. */
static int step_check_path(struct load_ctx *c, struct step *st, const char *path)
{
	const char *key = st->fail_path ? "fail_path" : "restore_path";
	struct path_ref *p = st->fail_path ? st->fail_path : st->restore_path;
	const struct machine *m = c->s->machine;
	char f[64];
	unsigned i;

	snprintf(f, sizeof(f), "%s.%s.disk", path, key);
	for (i = 0; i < m->disks_count && strcmp(m->disks[i].id, p->disk); i++)
		;
	if (i == m->disks_count)
		return fail(c, f, "\"%s\" is not one of the machine's disks", p->disk);
	if (m->disks[i].paths < 2)
		return fail(c, f, "disk %s has one path; give it paths: 2 or more", p->disk);
	snprintf(f, sizeof(f), "%s.%s.path", path, key);
	if (p->path >= m->disks[i].paths)
		return fail(c, f, "disk %s has paths 0 to %u; there is no path %u", p->disk,
			    m->disks[i].paths - 1, p->path);
	p->disk_index = i;
	if (!st->name)
		st->name = xasprintf("%s: %s path %u", key, p->disk, p->path);
	return 0;
}

static int step_check_fail_path(struct load_ctx *c, struct step *st, const char *path)
{
	return step_check_path(c, st, path);
}

static int step_check_restore_path(struct load_ctx *c, struct step *st, const char *path)
{
	return step_check_path(c, st, path);
}

static int step_check_balloon(struct load_ctx *c, struct step *st, const char *path)
{
	const struct machine *m = c->s->machine;
	char f[64];

	snprintf(f, sizeof(f), "%s.balloon", path);
	if (hw_parse_size(st->balloon, &st->balloon_bytes) < 0)
		return fail(c, f, "\"%s\" is not a size; write e.g. 256M, 1G", st->balloon);
	if (st->balloon_bytes < MACHINE_MIN_BALLOON || st->balloon_bytes > m->memory_bytes)
		return fail(c, f,
			    "%s is outside 64M..machine.memory (%s); the balloon sets the "
			    "guest's memory size",
			    st->balloon, m->memory ? m->memory : "512M");
	return 0;
}

/* The names earlier measure steps saved their values under (as:). */
static bool measure_saved_before(const struct scenario *s, const struct step *st, const char *name)
{
	for (const struct step *p = s->steps; p < st; p++)
		if (p->kind == STEP_MEASURE && p->as && !strcmp(p->as, name))
			return true;
	return false;
}

static int step_check_measure(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.measure", path);
	if (strcmp(st->measure, "qemu_rss"))
		return fail(c, f, "\"%s\" is not a host metric; give qemu_rss", st->measure);
	snprintf(f, sizeof(f), "%s.as", path);
	if (st->as && !name_valid_metric(st->as))
		return fail(c, f, "\"%s\" does not match [a-z0-9_]+", st->as);
	snprintf(f, sizeof(f), "%s.since", path);
	if (st->since && !measure_saved_before(c->s, st, st->since))
		return fail(c, f, "no earlier measure step saved \"%s\"; give one as: %s",
			    st->since, st->since);
	snprintf(f, sizeof(f), "%s.within", path);
	if (st->within && duration_field(c, f, st->within, &st->within_ms, "500ms, 20s") < 0)
		return -EINVAL;
	if (st->within && !st->expect)
		return fail(c, f, "within: samples until expect holds; give an expect");
	snprintf(f, sizeof(f), "%s.settle", path);
	if (st->settle && duration_field(c, f, st->settle, &st->settle_ms, "10s, 30s") < 0)
		return -EINVAL;
	if (st->settle && st->settle_ms < MEASURE_SETTLE_MIN_MS)
		return fail(c, f,
			    "\"%s\" is shorter than 2s, the shortest settle that holds "
			    "four samples",
			    st->settle);
	return 0;
}

/* The hybrid disk that key (power_loss, hybrid_stats) names; "all" too when
 * all_ok. */
static int check_hybrid_disk(struct load_ctx *c, const char *id, const char *f, bool all_ok)
{
	const struct machine *m = c->s->machine;

	if (all_ok && !strcmp(id, "all"))
		return 0;
	for (unsigned i = 0; i < m->disks_count; i++) {
		if (strcmp(m->disks[i].id, id))
			continue;
		if (m->disks[i].bus != DISK_BUS_HYBRID)
			return fail(c, f,
				    "disk \"%s\" is not on bus hybrid; write the id of a "
				    "hybrid disk%s",
				    id, all_ok ? " (or all)" : "");
		return 0;
	}
	return fail(c, f,
		    "\"%s\" is not one of the machine's disks; write the id of a hybrid "
		    "disk%s",
		    id, all_ok ? " (or all)" : "");
}

/* power_loss: all | ID of a hybrid disk (the one whose volatile cache is
 * lost; the machine loses power either way). */
static int step_check_power_loss(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.power_loss", path);
	return check_hybrid_disk(c, st->power_loss, f, true);
}

static int step_check_hybrid_stats(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.hybrid_stats", path);
	return check_hybrid_disk(c, st->hybrid_stats, f, false);
}

/* screen: NAME [same_as: EARLIER] [poll: DURATION]; the machine has a
 * display, NAME is a file-name-safe word, EARLIER an earlier capture. */
static int step_check_screen(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.screen", path);
	if (check_screen_name(c, st, st->screen, f))
		return -EINVAL;
	snprintf(f, sizeof(f), "%s.same_as", path);
	if (st->same_as && !screen_saved_before(c->s, st, st->same_as))
		return fail(c, f, "no earlier step saved the capture \"%s\"; give one screen: %s",
			    st->same_as, st->same_as);
	snprintf(f, sizeof(f), "%s.poll", path);
	if (st->poll && !st->same_as)
		return fail(c, f, "poll: captures until the screen equals same_as; give same_as");
	if (st->poll && duration_field(c, f, st->poll, &st->poll_ms, "5s, 30s") < 0)
		return -EINVAL;
	return 0;
}

/* ", run, wait, ..." from KTB_STEP_KINDS: the list past its first ", ". */
#define KTB_STEP_KEYWORD(id, keyword, expects, needs, keys) ", " #keyword
static const char step_keywords[] = KTB_STEP_KINDS(KTB_STEP_KEYWORD);
#undef KTB_STEP_KEYWORD

static int step_kind_find(struct load_ctx *c, struct step *st, const char *path,
			  const struct step_kind_row **out)
{
	const struct step_kind_row *found = NULL;

	for (size_t i = 0; i < COUNT(step_kinds); i++) {
		if (!step_arg(st, &step_kinds[i]))
			continue;
		if (found)
			return fail(c, path,
				    "two actions (%s and %s); a step does one thing, "
				    "split it into two steps",
				    found->keyword, step_kinds[i].keyword);
		found = &step_kinds[i];
	}
	if (!found)
		return fail(c, path, "no action; give one of %s", step_keywords + 2);
	*out = found;
	return 0;
}

/* ktap's {run: CMD} or {console: true}: exactly one of the two. */
static int ktap_mapping(struct load_ctx *c, struct step *st, yaml_node_t *m, const char *f)
{
	char g[80];
	yaml_node_t *run = NULL, *con = NULL;

	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = doc_node(c, p->key), *v = doc_node(c, p->value);

		if (scalar_is(k, "run", 3))
			run = v;
		else if (scalar_is(k, "console", 7))
			con = v;
		else
			return fail_at(
			    c, k, f,
			    "\"%.*s\" is not a ktap key; give {run: CMD} or "
			    "{console: true}",
			    k && k->type == YAML_SCALAR_NODE ? (int)k->data.scalar.length : 1,
			    k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value
							     : "?");
	}
	if (run && con)
		return fail(c, f, "run: and console: both; give one of them");
	snprintf(g, sizeof(g), "%s.%s", f, run ? "run" : "console");
	if (run && (run->type != YAML_SCALAR_NODE || !run->data.scalar.length))
		return fail(c, g, "the command is a non-empty string");
	if (con && !scalar_is(con, "true", 4))
		return fail(c, g, "only true: the KTAP the kernel printed on the console");
	if (!run && !con)
		return fail(c, f, "give {run: CMD} or {console: true}");
	st->ktap_console = con != NULL;
	st->ktap = run ? xasprintf("%.*s", (int)run->data.scalar.length,
				   (const char *)run->data.scalar.value)
		       : xstrdup("console");
	return 0;
}

/* ktap: a string or a mapping, which the schema cannot say: read from the
 * document before the step's kind is looked for. */
static int ktap_load(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];
	yaml_node_t *n;

	snprintf(f, sizeof(f), "%s.ktap", path);
	n = doc_get(c, f);
	if (!n)
		return 0;
	if (n->type == YAML_MAPPING_NODE)
		return ktap_mapping(c, st, n, f);
	if (n->type != YAML_SCALAR_NODE || !n->data.scalar.length)
		return fail(c, f, "give a command, {run: CMD} or {console: true}");
	st->ktap =
	    xasprintf("%.*s", (int)n->data.scalar.length, (const char *)n->data.scalar.value);
	return 0;
}

static int step_check_ktap(struct load_ctx *c, struct step *st, const char *path)
{
	(void)c, (void)st, (void)path;
	return 0;
}

/* The machine parts a kind needs whatever its argument names; those the
 * argument picks (a disk, a sleep state) are the kind's own check's. */
static int step_check_needs(struct load_ctx *c, const struct step_kind_row *row, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.%s", path, row->keyword);
	if ((row->needs & NEEDS_BALLOON) && !c->s->machine->balloon)
		return fail(c, f,
			    "the machine has no balloon; give it balloon: "
			    "{free_page_reporting: true|false}");
	return 0;
}

/* A key that only another kind of step takes (its row's keys). */
static int step_check_modifiers(struct load_ctx *c, const struct step *st, const char *path)
{
	char f[64];

	for (size_t k = 0; k < COUNT(step_kinds); k++) {
		const char *key = step_kinds[k].keys;
		int n;

		for (; *key; key += n + (key[n] == ' ')) {
			n = (int)strcspn(key, " ");
			snprintf(f, sizeof(f), "%s.%.*s", path, n, key);
			if (st->kind != step_kinds[k].kind && doc_get(c, f))
				return fail(c, f,
					    "\"%.*s\" belongs to a %s step, this is a %s step", n,
					    key, step_kinds[k].keyword, step_kind_name(st->kind));
		}
	}
	return 0;
}

static int expect_check_allowed(struct load_ctx *c, const struct expect *e, unsigned allowed,
				const struct step_kind_row *row, const char *path)
{
	static const struct {
		unsigned bit;
		const char *key;
	} keys[] = {
		{ EXPECT_EXIT, "exit" },
		{ EXPECT_STDOUT, "stdout" },
		{ EXPECT_JSON, "json" },
	};
	unsigned given = (e->exit ? EXPECT_EXIT : 0) | (e->stdout_re ? EXPECT_STDOUT : 0) |
			 (e->json ? EXPECT_JSON : 0);
	char f[80];

	for (size_t i = 0; i < COUNT(keys); i++) {
		snprintf(f, sizeof(f), "%s.expect.%s", path, keys[i].key);
		if ((given & keys[i].bit) && !(allowed & keys[i].bit))
			return fail(c, f, "a %s step cannot check %s", row->keyword, keys[i].key);
	}
	return 0;
}

/* A mapping of expect.json operators only ({ge: 1, re: x}), as expect.c
 * tells them from a value to compare with. */
static bool expect_ops_only(struct load_ctx *c, yaml_node_t *m)
{
	static const char *const ops[] = { "ge", "gt", "le", "lt", "ne", "re", "len" };
	yaml_node_t *k;

	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		k = doc_node(c, p->key);
		if (!k || k->type != YAML_SCALAR_NODE ||
		    word_index((const char *)k->data.scalar.value, ops, COUNT(ops)) < 0)
			return false;
	}
	return true;
}

static int check_regex_node(struct load_ctx *c, yaml_node_t *n, const char *field)
{
	char why[512];

	if (!n || n->type != YAML_SCALAR_NODE)
		return fail_at(c, n, field, "expected a string, a regular expression");
	if (regex_refusal((const char *)n->data.scalar.value, &use_json, why, sizeof(why)) < 0)
		return fail_at(c, n, field, "%s", why);
	return 0;
}

/* {re: RE} operators of expect.json are compiled when the step runs: their
 * patterns get the same checks as stdout's, here, with the exact line. */
static int expect_check_json_res(struct load_ctx *c, const char *path)
{
	yaml_node_t *json = doc_get(c, path), *k, *ops;
	yaml_node_pair_t *re;
	char f[128];
	int ret;

	if (!json || json->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = json->data.mapping.pairs.start; p < json->data.mapping.pairs.top;
	     p++) {
		k = doc_node(c, p->key);
		ops = doc_node(c, p->value);
		re = doc_pair(c, ops, "re", 2);
		if (!re || !k || k->type != YAML_SCALAR_NODE || !expect_ops_only(c, ops))
			continue;
		snprintf(f, sizeof(f), "%s.%s.re", path, (const char *)k->data.scalar.value);
		ret = check_regex_node(c, doc_node(c, re->value), f);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int expect_load(struct load_ctx *c, struct step *st, const struct step_kind_row *row,
		       const char *path)
{
	struct expect *e = st->expect;
	char f[80];
	int ret;

	if (!e)
		return 0;
	snprintf(f, sizeof(f), "%s.expect.json", path);
	ret = mapping_field_json(c, f, &e->json);
	if (!ret && e->json && !json_object_size(e->json))
		return fail(c, f,
			    "an empty mapping checks nothing; give the values to check "
			    "(json: {KEY: VALUE}), or leave json out");
	if (!ret)
		ret = expect_check_json_res(c, f);
	if (ret < 0)
		return ret;
	snprintf(f, sizeof(f), "%s.expect", path);
	if (!e->exit && !e->stdout_re && !e->json)
		return fail(c, f,
			    "an empty expect checks nothing; give exit, stdout or json (what "
			    "this step may check), or leave expect out");
	ret = expect_check_allowed(c, e, row->expects, row, path);
	if (ret < 0 || !e->stdout_re)
		return ret;
	snprintf(f, sizeof(f), "%s.expect.stdout", path);
	return check_regex(c, f, e->stdout_re, &use_stdout);
}

/* A screen step with nothing to compare its capture with passes whatever
 * the screen shows (a blank one, a crashed guest's). */
static int step_check_compares(struct load_ctx *c, const struct step *st, const char *path)
{
	char f[64];

	if (st->kind != STEP_SCREEN || st->same_as || (st->expect && st->expect->json))
		return 0;
	snprintf(f, sizeof(f), "%s.screen", path);
	return fail(c, f,
		    "a capture with neither expect nor same_as passes whatever the screen "
		    "shows; give expect: {json: {...}} (width, height, sha256, black) or "
		    "same_as: an earlier capture");
}

static int step_check_timeout(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];

	st->timeout_ms = STEP_TIMEOUT_MS;
	if (st->kind == STEP_SUSPEND)
		st->timeout_ms = STEP_TIMEOUT_MS * st->cycles;
	snprintf(f, sizeof(f), "%s.timeout", path);
	if (st->timeout && duration_field(c, f, st->timeout, &st->timeout_ms, "500ms, 30s, 2m") < 0)
		return -EINVAL;
	return 0;
}

static int step_load(struct load_ctx *c, struct step *st, unsigned i)
{
	const struct step_kind_row *row = NULL;
	yaml_node_t *n;
	char path[32];
	int ret;

	snprintf(path, sizeof(path), "steps[%u]", i);
	n = doc_get(c, path);
	st->line = n ? (int)n->start_mark.line + 1 : 0;
	ret = ktap_load(c, st, path);
	if (!ret)
		ret = step_kind_find(c, st, path, &row);
	if (ret < 0)
		return ret;
	st->kind = row->kind;
	ret = step_check_modifiers(c, st, path);
	if (!ret)
		ret = step_check_needs(c, row, path);
	if (!ret)
		ret = row->check(c, st, path);
	if (!ret)
		ret = step_check_timeout(c, st, path);
	if (!ret)
		ret = expect_load(c, st, row, path);
	if (!ret)
		ret = step_check_compares(c, st, path);
	if (ret < 0)
		return ret;
	if (!st->name)
		st->name = xasprintf("%s: %s", row->keyword, step_arg(st, row));
	return 0;
}

static int steps_load(struct load_ctx *c, struct scenario *s)
{
	int ret;

	if (!s->steps_count)
		return fail(c, "steps", "a scenario needs at least one step");
	for (unsigned i = 0; i < s->steps_count; i++) {
		ret = step_load(c, &s->steps[i], i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* ---- the scenario ---- */

static bool name_valid(const char *s)
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz0123456789";

	return *s && strchr(first, *s) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(s);
}

static int header_load(struct load_ctx *c, struct scenario *s)
{
	const char *base = strrchr(c->path, '/');
	size_t len;

	if (!s->name) {
		base = base ? base + 1 : c->path;
		len = strlen(base);
		if (len > 5 && !strcmp(base + len - 5, ".yaml"))
			len -= 5;
		s->name = xasprintf("%.*s", (int)len, base);
		if (!name_valid(s->name))
			return fail_at(c, NULL, "name",
				       "the file name gives the scenario "
				       "name \"%s\", which does not match [a-z0-9][a-z0-9._-]*; "
				       "rename the file or set name:",
				       s->name);
	}
	if (strlen(s->name) > SCENARIO_MAX_NAME)
		return fail(c, "name", "%zu characters; a name is at most %d (it names a folder)",
			    strlen(s->name), SCENARIO_MAX_NAME);
	if (!name_valid(s->name))
		return fail(c, "name",
			    "\"%s\" does not match [a-z0-9][a-z0-9._-]*; use lower "
			    "case letters, digits, '.', '_' and '-'",
			    s->name);
	s->timeout_ms = SCENARIO_TIMEOUT_MS;
	if (s->timeout && duration_field(c, "timeout", s->timeout, &s->timeout_ms, "120s, 5m") < 0)
		return -EINVAL;
	return 0;
}

/* An option name as the kernel's .config spells it: CONFIG_ and at least
 * one of A-Z, 0-9, _. */
static bool option_name_valid(const char *s)
{
	if (strncmp(s, "CONFIG_", 7) || !s[7])
		return false;
	for (s += 7; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* "CONFIG_X=y" in kernel.requires[i]: the option must be built in. The
 * "=y" is cut off, and requires_builtin[i] says it was there. */
static int require_value(struct load_ctx *c, struct kernel_opts *k, unsigned i, const char *field)
{
	char *eq = strchr(k->requires[i], '=');

	if (!eq)
		return 0;
	if (!strcmp(eq, "=y")) {
		*eq = '\0';
		k->requires_builtin[i] = true;
		return 0;
	}
	*eq = '\0';
	if (!strcmp(eq + 1, "m"))
		return fail(c, field,
			    "\"%s=m\": a module cannot be required; write %s (built in or a "
			    "module) or %s=y (built in)",
			    k->requires[i], k -> requires[i], k -> requires[i]);
	if (!strcmp(eq + 1, "n"))
		return fail(c, field,
			    "\"%s=n\": kernel.requires lists what the scenario needs, not what "
			    "it must lack; write %s (built in or a module) or %s=y (built in)",
			    k->requires[i], k -> requires[i], k -> requires[i]);
	return fail(c, field,
		    "\"%s=%.20s\": only =y may follow an option; write %s (built in or a "
		    "module) or %s=y (built in)",
		    k->requires[i], eq + 1, k->requires[i], k -> requires[i]);
}

/* kernel.requires: option names, each once, alone (y or m will do) or with
 * =y (it must be built in); what that means against a config is the
 * requirement checker's (kreq.c). */
static int kernel_load(struct load_ctx *c, struct scenario *s)
{
	struct kernel_opts *k = s->kernel;
	char field[64];

	if (k && k->requires_count)
		k->requires_builtin = xcalloc(k->requires_count, sizeof(bool));
	for (unsigned i = 0; k && i < k->requires_count; i++) {
		snprintf(field, sizeof(field), "kernel.requires[%u]", i);
		if (require_value(c, k, i, field))
			return -EINVAL;
		if (!option_name_valid(k->requires[i]))
			return fail(
			    c, field,
			    "\"%s\" is not a kernel option name; give it as .config "
			    "spells it, CONFIG_ and capitals, digits or '_' (CONFIG_BLK_DEV_NVME), "
			    "=y after it when it must be built in",
			    k->requires[i]);
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(k->requires[i], k -> requires[j]))
				return fail(c, field, "%s is already kernel.requires[%u]",
					    k->requires[i], j);
	}
	return 0;
}

static int yaml_load_doc(struct load_ctx *c, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_mark_t mark;
	int ret = 0;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&parser, &c->doc)) {
		mark = parser.problem_mark;
		c->err->line = (int)mark.line + 1;
		c->err->col = (int)mark.column + 1;
		snprintf(c->err->msg, sizeof(c->err->msg), "YAML syntax error: %s%s%s",
			 parser.problem ? parser.problem : "unknown problem",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		ret = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
	}
	yaml_parser_delete(&parser);
	return ret;
}

static int scenario_parse(struct load_ctx *c, const char *data, size_t len, struct scenario **out)
{
	cyaml_config_t cfg = {
		.log_fn = cy_log_collect,
		.log_ctx = c,
		.mem_fn = cyaml_mem,
		.log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_NO_ALIAS,
	};
	cyaml_err_t e;

	if (!yaml_document_get_root_node(&c->doc))
		return fail_line1(c, "the file is empty; a scenario needs at least steps:");
	e = cyaml_load_data((const uint8_t *)data, len, &cfg, &scenario_schema,
			    (cyaml_data_t **)out, NULL);
	if (e != CYAML_OK)
		return cy_error(c, e);
	return 0;
}

/* The whole-file limits, before libyaml builds a document or libcyaml a
 * struct from it: both allocate in proportion to what they are given. */
static int limits_load(struct load_ctx *c, const char *data, size_t len)
{
	int ret = limits_check_bytes(data, len, c->err);

	return ret ? ret : limits_check_yaml(data, len, c->err);
}

int scenario_load_buffer(const char *path, const char *data, size_t len, struct scenario **out,
			 struct scenario_error *err)
{
	struct load_ctx *c = xcalloc(1, sizeof(*c));
	struct scenario *s = NULL;
	int ret;

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", path);
	*out = NULL;
	c->path = path;
	c->err = err;
	ret = limits_load(c, data, len);
	if (!ret)
		ret = yaml_load_doc(c, data, len);
	if (ret < 0)
		goto out_ctx;
	ret = scenario_parse(c, data, len, &s);
	if (ret < 0)
		goto out_doc;
	s->file = xstrdup(path);
	c->s = s;
	ret = header_load(c, s);
	if (!ret)
		ret = kernel_load(c, s);
	if (!ret)
		ret = machine_load(c, s);
	if (!ret)
		ret = steps_load(c, s);
	if (ret < 0) {
		scenario_free(s);
		s = NULL;
	}
	*out = s;
out_doc:
	yaml_document_delete(&c->doc);
out_ctx:
	free(c);
	return ret;
}

int scenario_load(const char *path, struct scenario **out, struct scenario_error *err)
{
	size_t len = 0;
	char *data;
	int ret;

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", path);
	*out = NULL;
	ret = limits_read_file(path, &data, &len, err);
	if (ret == -EFBIG)
		return -EINVAL;
	if (ret < 0) {
		snprintf(err->msg, sizeof(err->msg), "cannot read the scenario: %s",
			 strerror(-ret));
		return ret;
	}
	ret = scenario_load_buffer(path, data, len, out, err);
	free(data);
	return ret;
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->steps_count; i++) {
		json_decref(s->steps[i].arguments);
		free(s->steps[i].ktap);
		if (s->steps[i].expect)
			json_decref(s->steps[i].expect->json);
	}
	/* fields outside the schema: libcyaml does not know to free them */
	if (s->machine && s->machine->numa)
		free(s->machine->numa->distances);
	if (s->kernel)
		free(s->kernel->requires_builtin);
	free(s->file);
	cyaml_free(&free_config, &scenario_schema, s, 0);
}
