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

#include "disk_bus.h"
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
	STR("finding", OPT, struct expect, finding), CYAML_FIELD_END
};

static const cyaml_schema_field_t tolerate_fields[] = { STR("finding", 0, struct tolerate, finding),
							STR("reason", 0, struct tolerate, reason),
							CYAML_FIELD_END };

static const cyaml_schema_value_t tolerate_schema = {
	CYAML_VALUE_MAPPING(0, struct tolerate, tolerate_fields),
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
	STR("junit", OPT, struct step, junit),
	STR("file", OPT, struct step, file),
	STR("blktests", OPT, struct step, blktests),
	STR("results", OPT, struct step, results),
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

/* Everything one load needs: the file, its libyaml document (for exact
 * locations and free-form mappings), and what libcyaml logged. */
struct load_ctx {
	const char *path;
	const struct scenario *s; /* for checks that look across sections */
	struct scenario_error *err;
	bool machine_ok; /* machine_load passed: its derived values are filled */
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

/* Every error is added to the load's list: the loader goes on where it
 * can (the next key, the next step) and reports them all. */
static void err_vset(struct load_ctx *c, const yaml_node_t *at, const char *field, const char *fmt,
		     va_list ap)
{
	scenario_error_vadd(c->err, at ? (int)at->start_mark.line + 1 : 0,
			    at ? (int)at->start_mark.column + 1 : 0, field, fmt, ap);
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

/* Report at line:col (1-based; 0 for none) of the file, no node at hand. */
static int fail_pos(struct load_ctx *c, int line, int col, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail_pos(struct load_ctx *c, int line, int col, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	scenario_error_vadd(c->err, line, col, field, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Report at the file's first line: what is wrong is the file as a whole. */
static int fail_line1(struct load_ctx *c, const char *msg)
{
	return fail_pos(c, 1, 1, "", "%s", msg);
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
	[CYAML_SEQUENCE] = "a list",	[CYAML_FLAGS] = "a list",
};

/* What a value of schema v should be, for "expected ..., got ...": a list
 * of flags shows its first two names ([s3, s4], [cpus, memory]). */
static const char *type_want(const cyaml_schema_value_t *v, char *buf, size_t len)
{
	if (v->type == CYAML_FLAGS && v->enumeration.count >= 2) {
		snprintf(buf, len, "a list such as [%s, %s]", v->enumeration.strings[0].str,
			 v->enumeration.strings[1].str);
		return buf;
	}
	return type_wants[v->type];
}

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
		return fail(c, p->str, "expected %s, got %s", type_want(v, opts, sizeof(opts)),
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

static void schema_walk(struct load_ctx *c, const cyaml_schema_value_t *v, yaml_node_t *n,
			const char *path);

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
			join_keys(v, keys, sizeof(keys));
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

static void schema_walk(struct load_ctx *c, const cyaml_schema_value_t *v, yaml_node_t *n,
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
		join_strings(v, opts, sizeof(opts));
		fail_at(c, n, path, scalar ? "%s is not one of %s" : "got %s; expected one of %s",
			node_desc(n, buf, sizeof(buf)), opts);
		return;
	case CYAML_FLAGS:
		if (n->type != YAML_SEQUENCE_NODE) {
			fail_at(c, n, path, "expected %s, got %s", type_want(v, opts, sizeof(opts)),
				node_desc(n, buf, sizeof(buf)));
			return;
		}
		join_strings(v, opts, sizeof(opts));
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
static const struct regex_use use_finding = {
	0,
	true,
	"any report's title",
	"write what the title holds (\"^memcg OOM kill: \", \"^WARNING in nvme_\"; "
	"docs/debugging.md lists the titles)",
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

/* quit ends QEMU, and so does system_reset: QEMU runs with -no-reboot
 * (hw/argv.c), which turns a reset into an exit. A step after either
 * cannot run. */
static int qmp_check_ends(struct load_ctx *c, const char *f, const char *cmd, const struct step *st)
{
	size_t i = (size_t)(st - c->s->steps);

	if (strcmp(cmd, "quit") && strcmp(cmd, "system_reset"))
		return 0;
	if (i + 1 >= c->s->steps_count)
		return 0;
	return fail(c, f,
		    "%s ends QEMU (it runs with -no-reboot, so a reset ends it too): "
		    "steps[%zu] and the steps after it could not run; end the scenario with "
		    "it, or drop it",
		    cmd, i + 1);
}

/* Is st a qmp step that sends cmd (by name or as a JSON command)? */
static bool qmp_sends(const struct step *st, const char *cmd)
{
	json_t *j;
	bool is;

	if (st->kind != STEP_QMP || !st->qmp)
		return false;
	if (st->qmp[0] != '{')
		return !strcmp(st->qmp, cmd);
	j = json_loads(st->qmp, 0, NULL);
	is = j && json_string_value(json_object_get(j, "execute")) &&
	     !strcmp(json_string_value(json_object_get(j, "execute")), cmd);
	json_decref(j);
	return is;
}

/* A step the guest must carry out (its agent, its console, its kernel)
 * cannot run while QMP stop holds the vCPUs: the step after an earlier
 * stop that no cont undid would only time out. The host's own steps
 * (qmp, measure, screen, hybrid_stats, a plain wait) still run. */
static int step_check_paused(struct load_ctx *c, const struct step *st, const char *path)
{
	static const unsigned guest = 1u << STEP_RUN | 1u << STEP_SUSPEND | 1u << STEP_FAIL_PATH |
				      1u << STEP_RESTORE_PATH | 1u << STEP_BALLOON |
				      1u << STEP_KTAP | 1u << STEP_JUNIT | 1u << STEP_BLKTESTS;
	int stop = -1;
	char f[64];

	if (!(guest & 1u << st->kind) && !(st->kind == STEP_WAIT && st->wait_for))
		return 0;
	for (const struct step *p = c->s->steps; p < st; p++)
		if (qmp_sends(p, "stop"))
			stop = (int)(p - c->s->steps);
		else if (qmp_sends(p, "cont") || p->kind == STEP_POWER_LOSS ||
			 (p->kind == STEP_SUSPEND && p->sleep_state == SLEEP_STATE_S4 &&
			  !p->pm_test))
			stop = -1;
	if (stop < 0)
		return 0;
	snprintf(f, sizeof(f), "%s.%s", path,
		 st->kind == STEP_WAIT ? "for" : step_kinds[st->kind].keyword);
	return fail(c, f,
		    "steps[%d] paused the VM (qmp: stop) and no qmp: cont resumed it: the guest "
		    "cannot carry out this step, which would only time out; give a qmp: cont "
		    "before it",
		    stop);
}

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
	if (!ret)
		ret = qmp_check_ends(c, f, json_string_value(json_object_get(j, "execute")), st);
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
	return qmp_check_host(c, f, st->qmp, st->arguments) || qmp_check_ends(c, f, st->qmp, st);
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

/* A sleep that reaches the devices (every one but pm_test: freezer) with a
 * host folder mounted: 6.1's 9pnet_virtio has no freeze or restore, so the
 * sleep resets the virtio device under it and every file access after the
 * wake waits for a reply that never comes; its virtio_fs refuses to freeze
 * (-EOPNOTSUPP), so the kernel gives the sleep up. The host's root is such
 * a folder; a Debian root is a disk (virtio_blk restores its queues), so it
 * sleeps. f: the step's field. */
static int step_check_shared_sleep(struct load_ctx *c, const struct step *st, const char *f)
{
	const struct machine *m = c->s->machine;

	if (st->pm_test && !strcmp(st->pm_test, "freezer"))
		return 0;
	if (c->s->guest && c->s->guest->root && !strcmp(c->s->guest->root, GUEST_ROOT_HOST))
		return fail(c, f,
			    "the guest's root is shared over 9p (guest.root host), which does "
			    "not come back from a sleep in this kernel (9pnet_virtio has no "
			    "suspend or resume): the guest would hang after the wake; suspend "
			    "on the image's root or a Debian root (a disk), or with pm_test: "
			    "freezer, which stops before the devices");
	/* the first share, by the transport machine_validate chose (auto:
	 * virtiofs where virtiofsd serves and the share is writable) */
	if (m && m->shares_count)
		return fail(c, f,
			    "machine.shares[0] (%s) reaches the guest over %s; suspend on a "
			    "machine without shares (or with pm_test: freezer, which stops "
			    "before the devices)",
			    m->shares[0].host,
			    m->shares[0].virtiofs
				? "virtiofs, which this kernel cannot put to sleep (virtio_fs "
				  "refuses to freeze, -EOPNOTSUPP): the kernel would give the "
				  "sleep up"
				: "9p, which does not come back from a sleep in this kernel "
				  "(9pnet_virtio has no suspend or resume): the guest would hang "
				  "after the wake");
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
	if (step_check_shared_sleep(c, st, f))
		return -EINVAL;
	if (k == SLEEP_STATE_S4 && !c->s->machine->hibernate)
		return fail(c, f,
			    "s4 needs a swap disk for the image: give the machine "
			    "hibernate: {disk: ID}");
	/* the firmware offers S3 only when the machine declares it (QEMU's
	 * ICH9-LPC.disable_s3); s2idle needs no firmware, and s4 hibernates
	 * in the kernel's shutdown mode, which needs none either */
	if (k == SLEEP_STATE_S3 && !(c->s->machine->sleep & SLEEP_S3))
		return fail(c, f,
			    "s3 needs firmware that offers it, and this machine declares no "
			    "S3: give the machine sleep: [s3] (or suspend to s2idle, which "
			    "needs no firmware)");
	st->sleep_state = (enum sleep_state)k;
	snprintf(f, sizeof(f), "%s.after", path);
	if (st->after && k == SLEEP_STATE_S4)
		return fail(c, f,
			    "s4 powers the machine off and starts it again at once: nothing "
			    "waits after; drop it");
	if (st->after && st->pm_test)
		return fail(c, f,
			    "with pm_test the guest never sleeps (the kernel's test holds "
			    "1 s), so nothing waits after; drop one of them");
	snprintf(f, sizeof(f), "%s.wake", path);
	if (st->wake && st->pm_test)
		return fail(c, f,
			    "with pm_test the guest never sleeps, so nothing wakes it; drop "
			    "one of them");
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

/* What the steps before st left path `path` of disk `disk` in: failed by a
 * fail_path, back by a restore_path or a power_loss (the machine starts
 * again with every path), unknown after a hibernation (the restored kernel
 * remembers the path failed, the new QEMU has it). *by: the step that set
 * it, -1 when no step did. */
enum path_state { PATH_UP, PATH_DOWN, PATH_UNKNOWN };

static enum path_state path_state_before(const struct scenario *s, const struct step *st,
					 const char *disk, unsigned path, int *by)
{
	enum path_state state = PATH_UP;

	*by = -1;
	for (const struct step *p = s->steps; p < st; p++) {
		const struct path_ref *r = p->kind == STEP_FAIL_PATH	  ? p->fail_path
					   : p->kind == STEP_RESTORE_PATH ? p->restore_path
									  : NULL;

		if (p->kind == STEP_POWER_LOSS) {
			state = PATH_UP;
			*by = (int)(p - s->steps);
		} else if (p->kind == STEP_SUSPEND && p->sleep_state == SLEEP_STATE_S4 &&
			   !p->pm_test) {
			state = PATH_UNKNOWN;
		} else if (r && r->disk && !strcmp(r->disk, disk) && r->path == path) {
			state = p->kind == STEP_FAIL_PATH ? PATH_DOWN : PATH_UP;
			*by = (int)(p - s->steps);
		}
	}
	return state;
}

/* fail_path takes an active path away (the step checks first that the
 * guest shows it active); restore_path brings back a path a fail_path
 * took: restoring an active one would pass on nothing (dm-multipath
 * reinstates it at once) or be refused by QEMU (an NVMe path's id is in
 * use). */
static int step_check_path_state(struct load_ctx *c, const struct step *st, const char *key,
				 const struct path_ref *p, const char *f)
{
	int by;
	enum path_state state = path_state_before(c->s, st, p->disk, p->path, &by);

	if (st->kind == STEP_FAIL_PATH && state == PATH_DOWN)
		return fail(c, f,
			    "steps[%d] already failed path %u of %s and no restore_path brought "
			    "it back; restore it first",
			    by, p->path, p->disk);
	if (st->kind == STEP_RESTORE_PATH && state == PATH_UP && by < 0)
		return fail(c, f,
			    "no earlier fail_path took path %u of %s away: %s of an active path "
			    "checks nothing; fail it first",
			    p->path, p->disk, key);
	if (st->kind == STEP_RESTORE_PATH && state == PATH_UP)
		return fail(c, f,
			    "path %u of %s is active again after steps[%d]: %s of an active "
			    "path checks nothing; fail it first",
			    p->path, p->disk, by, key);
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
	snprintf(f, sizeof(f), "%s.%s", path, key);
	if (step_check_path_state(c, st, key, p, f))
		return -EINVAL;
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
	struct hw_error herr;
	char f[64];

	snprintf(f, sizeof(f), "%s.balloon", path);
	if (hw_size_field(st->balloon, &st->balloon_bytes, f, &herr) < 0)
		return fail(c, f, "%s", herr.msg);
	if (st->balloon_bytes < MACHINE_MIN_BALLOON ||
	    (c->machine_ok && st->balloon_bytes > m->memory_bytes))
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
		if (!disk_bus_info(m->disks[i].bus)->backend)
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

/* A suite's command, and the guest path its results are read from: a
 * line of text (it is quoted into the reading command). */
static int check_suite(struct load_ctx *c, const char *cmd, const char *kind, const char *where,
		       const char *key, const char *path)
{
	char f[64];

	snprintf(f, sizeof(f), "%s.%s", path, kind);
	if (!*cmd)
		return fail(c, f, "give the command that runs the suite");
	snprintf(f, sizeof(f), "%s.%s", path, key);
	if (where && (!*where || strpbrk(where, "\n\r")))
		return fail(c, f, "give a path in the guest on one line");
	return 0;
}

static int step_check_junit(struct load_ctx *c, struct step *st, const char *path)
{
	return check_suite(c, st->junit, "junit", st->file, "file", path);
}

static int step_check_blktests(struct load_ctx *c, struct step *st, const char *path)
{
	return check_suite(c, st->blktests, "blktests", st->results, "results", path);
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

/* What other tools call the operators (MongoDB's $gte, JSON Schema and
 * assertion libraries' gte, regex, length, shell and C's >=): NULL for
 * equality, which a plain value already is. */
static const struct {
	const char *alias, *op;
} op_aliases[] = {
	{ "gte", "ge" },     { "$gte", "ge" },	 { ">=", "ge" },      { "$gt", "gt" },
	{ ">", "gt" },	     { "lte", "le" },	 { "$lte", "le" },    { "<=", "le" },
	{ "$lt", "lt" },     { "<", "lt" },	 { "neq", "ne" },     { "$ne", "ne" },
	{ "!=", "ne" },	     { "<>", "ne" },	 { "regex", "re" },   { "regexp", "re" },
	{ "$regex", "re" },  { "match", "re" },	 { "matches", "re" }, { "=~", "re" },
	{ "length", "len" }, { "$size", "len" }, { "eq", NULL },      { "$eq", NULL },
	{ "==", NULL },	     { "=", NULL },	 { "equals", NULL },  { "equal", NULL },
};

/* The edit distance of a and b, adjacent swaps counting one (Damerau's);
 * both short (keys near an operator: at most 8 bytes, longer is far). */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t m = strlen(a), n = strlen(b);
	unsigned d[10][10];

	if (m > 8 || n > 8)
		return 9;
	for (size_t i = 0; i <= m; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= n; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= m; i++)
		for (size_t j = 1; j <= n; j++) {
			unsigned v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			v = d[i - 1][j] + 1 < v ? d[i - 1][j] + 1 : v;
			v = d[i][j - 1] + 1 < v ? d[i][j - 1] + 1 : v;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[m][n];
}

/* Is key (not an operator) a misspelt one, or another tool's name for
 * one? 1 with *op the operator (NULL: equality), 0 if not. A key one
 * edit from an operator (a letter more, less, changed or swapped: gt_, lr,
 * eg, lenn), ignoring case, two letters at least, is taken for one. */
static int op_near(const char *key, const char **op)
{
	static const char *const ops[] = { "ge", "gt", "le", "lt", "ne", "re", "len" };
	char low[10];
	size_t n = strlen(key);

	for (size_t i = 0; i < COUNT(op_aliases); i++)
		if (!strcmp(key, op_aliases[i].alias)) {
			*op = op_aliases[i].op;
			return 1;
		}
	if (n < 2 || n > 8)
		return 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)((key[i] >= 'A' && key[i] <= 'Z') ? key[i] + 32 : key[i]);
	for (size_t i = 0; i < COUNT(ops); i++)
		if (!strcmp(low, ops[i])) {
			*op = ops[i];
			return 1;
		}
	for (size_t i = 0; i < COUNT(op_aliases); i++)
		if (!strcmp(low, op_aliases[i].alias)) {
			*op = op_aliases[i].op;
			return 1;
		}
	for (size_t i = 0; i < COUNT(ops); i++)
		if (edit_distance(low, ops[i]) <= 1) {
			*op = ops[i];
			return 1;
		}
	/* and the long aliases misspelt (lenght, regx) */
	for (size_t i = 0; i < COUNT(op_aliases); i++)
		if (strlen(op_aliases[i].alias) >= 5 &&
		    edit_distance(low, op_aliases[i].alias) <= 1) {
			*op = op_aliases[i].op;
			return 1;
		}
	return 0;
}

/* An expectation that is a mapping whose keys are all operators or near
 * one, at least one only near ({gte: 1}, {ge: 1, lte: 5}): expect.c would
 * compare it as a literal mapping, which the field is never equal to. A
 * real literal stays comparable: a key far from every operator makes the
 * mapping a value, as docs/scenarios.md says. */
static int expect_check_op_names(struct load_ctx *c, yaml_node_t *ops, const char *field,
				 const char *jpath)
{
	static const char *const exact[] = { "ge", "gt", "le", "lt", "ne", "re", "len" };
	yaml_node_t *k, *bad = NULL;
	const char *op = NULL, *bad_op = NULL;

	if (!ops || ops->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = ops->data.mapping.pairs.start; p < ops->data.mapping.pairs.top;
	     p++) {
		k = doc_node(c, p->key);
		if (!k || k->type != YAML_SCALAR_NODE)
			return 0;
		if (word_index((const char *)k->data.scalar.value, exact, COUNT(exact)) >= 0)
			continue;
		if (!op_near((const char *)k->data.scalar.value, &op))
			return 0;
		if (!bad)
			bad = k, bad_op = op;
	}
	if (!bad)
		return 0;
	if (!bad_op)
		return fail_at(c, bad, field,
			       "\"%s\" is not an operator: a plain value is compared for "
			       "equality, write the value itself (%s: VALUE) (to compare with a "
			       "mapping that has the key %s, check its member instead: %s.%s: "
			       "VALUE)",
			       (const char *)bad->data.scalar.value, jpath,
			       (const char *)bad->data.scalar.value, jpath,
			       (const char *)bad->data.scalar.value);
	return fail_at(c, bad, field,
		       "\"%s\" is not an operator; did you mean %s:? (the operators are ge, "
		       "gt, le, lt, ne, re and len; to compare with a mapping that has the key "
		       "%s, check its member instead: %s.%s: VALUE)",
		       (const char *)bad->data.scalar.value, bad_op,
		       (const char *)bad->data.scalar.value, jpath,
		       (const char *)bad->data.scalar.value);
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
	/* each path's expectation is its own: all are checked */
	ret = 0;
	for (yaml_node_pair_t *p = json->data.mapping.pairs.start; p < json->data.mapping.pairs.top;
	     p++) {
		k = doc_node(c, p->key);
		ops = doc_node(c, p->value);
		if (!k || k->type != YAML_SCALAR_NODE)
			continue;
		snprintf(f, sizeof(f), "%s.%s", path, (const char *)k->data.scalar.value);
		if (expect_check_op_names(c, ops, f, (const char *)k->data.scalar.value) < 0) {
			ret = -EINVAL;
			continue;
		}
		re = doc_pair(c, ops, "re", 2);
		if (!re || !expect_ops_only(c, ops))
			continue;
		snprintf(f, sizeof(f), "%s.%s.re", path, (const char *)k->data.scalar.value);
		if (check_regex_node(c, doc_node(c, re->value), f) < 0)
			ret = -EINVAL;
	}
	return ret;
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
	if (!e->exit && !e->stdout_re && !e->json && !e->finding)
		return fail(c, f,
			    "an empty expect checks nothing; give exit, stdout or json (what "
			    "this step may check) or finding, or leave expect out");
	ret = expect_check_allowed(c, e, row->expects, row, path);
	if (!ret && e->finding) {
		snprintf(f, sizeof(f), "%s.expect.finding", path);
		ret = check_regex(c, f, e->finding, &use_finding);
	}
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

/* A duration for a message: 500ms, 90s, 1.5s. */
static const char *ms_str(int64_t ms, char *buf, size_t len)
{
	if (ms < 1000)
		snprintf(buf, len, "%lldms", (long long)ms);
	else if (ms % 1000 == 0)
		snprintf(buf, len, "%llds", (long long)(ms / 1000));
	else
		snprintf(buf, len, "%.3gs", (double)ms / 1000);
	return buf;
}

/* How long a pm_test cycle holds the guest at the test point: the harness
 * sets the kernel's suspend.pm_test_delay to 1 (harness/steps/step_pm.c). */
#define PM_TEST_HOLD_MS 1000

/* The time a suspend step's guest sleeps for sure: after each cycle (an RTC
 * alarm is armed in whole seconds, at least 1: step_pm.c), or the pm_test
 * hold; a refused one may end at once. */
static int64_t suspend_asleep_ms(const struct step *st)
{
	int64_t one = st->after_ms;

	if (st->refused)
		return 0;
	if (st->pm_test)
		return (int64_t)st->cycles * PM_TEST_HOLD_MS;
	if (st->sleep_state == SLEEP_STATE_S4)
		return 0;
	if (st->wake_by == WAKE_RTC)
		one = one < 1000 ? 1000 : (one + 999) / 1000 * 1000;
	return (int64_t)st->cycles * one;
}

/* What limits a step: its timeout, or the scenario's when that is shorter
 * (the boot and every step share it). */
static int64_t step_limit(const struct load_ctx *c, const struct step *st)
{
	return c->s->timeout_ms < st->timeout_ms ? c->s->timeout_ms : st->timeout_ms;
}

/* "does not fit in the step's timeout (60s, the default): ..." for a
 * duration of need ms that reaches the step's limit. */
static int fail_fit(struct load_ctx *c, const struct step *st, const char *f, int64_t need,
		    const char *what, bool plural)
{
	const char *verb = plural ? "do" : "does";
	char t[32], n[32];

	if (c->s->timeout_ms < st->timeout_ms)
		return fail(c, f,
			    "%s %s not fit in the scenario's timeout (%s), which the boot and "
			    "every step share; give the scenario a timeout: longer than %s",
			    what, verb, ms_str(c->s->timeout_ms, t, sizeof(t)),
			    ms_str(need, n, sizeof(n)));
	return fail(c, f,
		    "%s %s not fit in the step's timeout (%s%s), which would end the step "
		    "first; give the step a timeout: longer than %s",
		    what, verb, ms_str(st->timeout_ms, t, sizeof(t)),
		    st->timeout		       ? ""
		    : st->kind == STEP_SUSPEND ? ", the default 60s a cycle"
					       : ", the default",
		    ms_str(need, n, sizeof(n)));
}

/* A duration a step spends for sure (a pause, the time asleep) or that
 * bounds what it waits for (a wait's for, a poll, a within, a settle) must
 * end before the step's deadline, or the step ends in timeout, not in the
 * verdict the duration was given for. The runner sets the deadline before
 * the step starts its own clock (run/runner.c), so a duration as long as
 * the timeout does not fit either. */
static int step_check_fits(struct load_ctx *c, const struct step *st, const char *path)
{
	int64_t limit = step_limit(c, st), asleep, need;
	char f[80], what[160], a[32], b[32];

	switch (st->kind) {
	case STEP_WAIT:
		snprintf(f, sizeof(f), "%s.wait", path);
		snprintf(what, sizeof(what), "%s %s", st->wait,
			 st->wait_for ? "of waiting" : "of pause");
		return st->wait_ms >= limit ? fail_fit(c, st, f, st->wait_ms, what, false) : 0;
	case STEP_SUSPEND:
		asleep = suspend_asleep_ms(st);
		snprintf(f, sizeof(f), "%s.%s", path, st->pm_test ? "pm_test" : "after");
		if (st->cycles > 1)
			snprintf(what, sizeof(what), "%u cycles of %s asleep", st->cycles,
				 ms_str(asleep / st->cycles, a, sizeof(a)));
		else
			snprintf(what, sizeof(what), "%s asleep", ms_str(asleep, a, sizeof(a)));
		if (asleep >= limit)
			return fail_fit(c, st, f, asleep, what, st->cycles > 1);
		if (!st->awake_screen || asleep + st->awake_screen->within_ms < limit)
			return 0;
		snprintf(f, sizeof(f), "%s.awake_screen.within", path);
		snprintf(what, sizeof(what), "%s asleep and %s of captures", a,
			 ms_str(st->awake_screen->within_ms, b, sizeof(b)));
		return fail_fit(c, st, f, asleep + st->awake_screen->within_ms, what, true);
	case STEP_MEASURE:
		need = st->settle_ms + st->within_ms;
		snprintf(f, sizeof(f), "%s.%s", path, st->within ? "within" : "settle");
		if (st->within && st->settle)
			snprintf(what, sizeof(what), "settle %s and within %s", st->settle,
				 st->within);
		else
			snprintf(what, sizeof(what), "%s %s", st->within ? "within" : "settle",
				 st->within ? st->within : st->settle);
		return (st->within || st->settle) && need >= limit
			   ? fail_fit(c, st, f, need, what, st->within && st->settle)
			   : 0;
	case STEP_SCREEN:
		snprintf(f, sizeof(f), "%s.poll", path);
		snprintf(what, sizeof(what), "%s of captures", st->poll ? st->poll : "");
		return st->poll && st->poll_ms >= limit
			   ? fail_fit(c, st, f, st->poll_ms, what, false)
			   : 0;
	default:
		return 0;
	}
}

/* The pauses and sleeps of all the steps together (what they spend for
 * sure, boot and commands aside) fit in the scenario's timeout. */
static int steps_check_pauses(struct load_ctx *c, const struct scenario *s)
{
	int64_t total = 0, one;
	char t[32], l[32], parts[240] = "";
	size_t n = 0;
	unsigned count = 0;

	for (unsigned i = 0; i < s->steps_count; i++) {
		const struct step *st = &s->steps[i];

		one = st->kind == STEP_WAIT && !st->wait_for ? st->wait_ms
		      : st->kind == STEP_SUSPEND	     ? suspend_asleep_ms(st)
							     : 0;
		if (!one)
			continue;
		total += one;
		count++;
		if (n < sizeof(parts) - 40)
			n += (size_t)snprintf(parts + n, sizeof(parts) - n, "%ssteps[%u] %s",
					      n ? ", " : "", i, ms_str(one, t, sizeof(t)));
	}
	if (total < s->timeout_ms || count < 2)
		return 0;
	return fail(c, s->timeout ? "timeout" : "steps",
		    "the steps pause or sleep %s in all (%s), which does not fit in the "
		    "scenario's timeout (%s) with the boot; give the scenario a timeout: "
		    "longer than %s and the boot",
		    ms_str(total, t, sizeof(t)), parts, ms_str(s->timeout_ms, l, sizeof(l)), t);
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
		ret = step_check_fits(c, st, path);
	if (!ret)
		ret = step_check_paused(c, st, path);
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

/* Each step is checked whatever the steps before it held: a step's own
 * checks stop at its first error, the next step is checked all the same. */
static int steps_load(struct load_ctx *c, struct scenario *s)
{
	int ret = 0;

	if (!s->steps_count)
		return fail(c, "steps", "a scenario needs at least one step");
	for (unsigned i = 0; i < s->steps_count; i++)
		if (step_load(c, &s->steps[i], i) < 0)
			ret = -EINVAL;
	if (!ret)
		ret = steps_check_pauses(c, s);
	return ret;
}

/* tolerate: each entry a pattern that could match some title, and a reason */
static int tolerate_load(struct load_ctx *c, struct scenario *s)
{
	char f[64];
	int ret = 0;

	for (unsigned i = 0; i < s->tolerate_count; i++) {
		const struct tolerate *t = &s->tolerate[i];

		snprintf(f, sizeof(f), "tolerate[%u].finding", i);
		if (check_regex(c, f, t->finding, &use_finding) < 0)
			ret = -EINVAL;
		snprintf(f, sizeof(f), "tolerate[%u].reason", i);
		if (!t->reason[strspn(t->reason, " \t")])
			ret = fail(c, f,
				   "an empty reason; say why this kernel report is no failure "
				   "here (it stays in the results with the reason)");
	}
	return ret;
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
		if (!name_valid(s->name)) {
			fail_at(c, NULL, "name",
				"the file name gives the scenario "
				"name \"%s\", which does not match [a-z0-9][a-z0-9._-]*; "
				"rename the file or set name:",
				s->name);
			s->timeout_ms = SCENARIO_TIMEOUT_MS;
			if (s->timeout)
				duration_field(c, "timeout", s->timeout, &s->timeout_ms,
					       "120s, 5m");
			return -EINVAL;
		}
	}
	int ret = 0;

	if (strlen(s->name) > SCENARIO_MAX_NAME)
		ret = fail(c, "name", "%zu characters; a name is at most %d (it names a folder)",
			   strlen(s->name), SCENARIO_MAX_NAME);
	else if (!name_valid(s->name))
		ret = fail(c, "name",
			   "\"%s\" does not match [a-z0-9][a-z0-9._-]*; use lower "
			   "case letters, digits, '.', '_' and '-'",
			   s->name);
	s->timeout_ms = SCENARIO_TIMEOUT_MS;
	if (s->timeout && duration_field(c, "timeout", s->timeout, &s->timeout_ms, "120s, 5m") < 0)
		return -EINVAL;
	return ret;
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
	int ret = 0;

	for (unsigned i = 0; k && i < k->requires_count; i++) {
		snprintf(field, sizeof(field), "kernel.requires[%u]", i);
		if (require_value(c, k, i, field)) {
			ret = -EINVAL;
			continue;
		}
		if (!option_name_valid(k->requires[i])) {
			ret = fail(c, field,
				   "\"%s\" is not a kernel option name; give it as .config "
				   "spells it, CONFIG_ and capitals, digits or '_' "
				   "(CONFIG_BLK_DEV_NVME), =y after it when it must be built in",
				   k->requires[i]);
			continue;
		}
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(k->requires[i], k -> requires[j])) {
				ret = fail(c, field, "%s is already kernel.requires[%u]",
					   k->requires[i], j);
				break;
			}
	}
	return ret;
}

bool guest_root_name_valid(const char *name)
{
	return name && (!strcmp(name, GUEST_ROOT_IMAGE) || !strcmp(name, GUEST_ROOT_HOST) ||
			!strcmp(name, GUEST_ROOT_DEBIAN));
}

/* A Debian package name as Debian policy spells one: lower case letters,
 * digits and + - ., two or more, starting with a letter or digit. */
static bool package_name_valid(const char *p)
{
	size_t n = strlen(p);

	static const char ok[] = "abcdefghijklmnopqrstuvwxyz0123456789+-.";

	if (n < 2 || strchr("+-.", p[0]))
		return false;
	return strspn(p, ok) == n;
}

/* guest: the root by name; packages only for a Debian root, each a package
 * name, each once. Whether apt knows them is the builder's to say (before
 * anything boots). */
static int guest_load(struct load_ctx *c, struct scenario *s)
{
	struct guest_opts *g = s->guest;
	char field[64];
	int ret = 0;

	if (!g)
		return 0;
	if (g->root && !guest_root_name_valid(g->root))
		ret =
		    fail(c, "guest.root", "\"%s\" is no root; give image, host or debian", g->root);
	if (g->packages_count && (!g->root || strcmp(g->root, GUEST_ROOT_DEBIAN)))
		ret = fail(c, "guest.packages",
			   "packages go into a Debian root; give root: debian, or drop packages");
	for (unsigned i = 0; i < g->packages_count; i++) {
		snprintf(field, sizeof(field), "guest.packages[%u]", i);
		if (!package_name_valid(g->packages[i])) {
			ret = fail(c, field,
				   "\"%s\" is no Debian package name; give one as apt spells it "
				   "(lower case, digits, + - .), such as fio",
				   g->packages[i]);
			continue;
		}
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(g->packages[i], g->packages[j])) {
				ret = fail(c, field, "%s is already guest.packages[%u]",
					   g->packages[i], j);
				break;
			}
	}
	return ret;
}

/* ---- YAML syntax errors: libyaml's words, and what they usually mean ---- */

/* Line n (1-based) of data: its start and length, without the newline. */
static const char *text_line(const char *data, size_t len, size_t n, size_t *out)
{
	const char *p = data, *end = data + len, *nl;

	for (size_t i = 1; i < n && p < end; i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	*out = (size_t)((nl ? nl : end) - p);
	if (*out && p[*out - 1] == '\r')
		(*out)--;
	return p;
}

/* The spaces a line starts with. */
static size_t text_indent(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && l[i] == ' ')
		i++;
	return i;
}

/* The nearest line above line n that holds something other than a comment;
 * 0 if none. */
static size_t text_prev(const char *data, size_t len, size_t n)
{
	size_t ln, ind;
	const char *l;

	while (--n > 0) {
		l = text_line(data, len, n, &ln);
		ind = text_indent(l, ln);
		if (ind < ln && l[ind] != '#')
			return n;
	}
	return 0;
}

/* A "key: value" line: the offset of the value after the first ": " (0 if
 * the line is not one); a list entry's "- " is skipped. */
static size_t text_value_at(const char *l, size_t n)
{
	size_t i = text_indent(l, n), k;

	if (i + 1 < n && l[i] == '-' && l[i + 1] == ' ')
		i = i + 2 + text_indent(l + i + 2, n - i - 2);
	k = i;
	while (i + 1 < n && !(l[i] == ':' && l[i + 1] == ' ') && l[i] != '"' && l[i] != '\'' &&
	       l[i] != '#')
		i++;
	if (i + 1 >= n || l[i] != ':' || i == k)
		return 0;
	i++;
	return i + text_indent(l + i, n - i);
}

/* "mapping values are not allowed": a ": " where the line's value goes on,
 * most often a value that holds ": " itself (run: echo a: b). */
static void hint_colon(const char *data, size_t len, const yaml_mark_t *m, char *h, size_t hl)
{
	size_t ln, pn, v, prev = text_prev(data, len, m->line + 1);
	const char *l = text_line(data, len, m->line + 1, &ln), *pl;
	const char *q;

	v = text_value_at(l, ln);
	if (v && v <= m->column) {
		size_t k = text_indent(l, ln);

		if (k + 1 < ln && l[k] == '-' && l[k + 1] == ' ')
			k += 2;
		q = memchr(l + v, '"', ln - v) ? "'" : "\"";
		snprintf(h, hl,
			 "the value on line %zu holds \": \", which YAML reads as a second key; "
			 "quote the value: %.*s%s%.*s%s",
			 (size_t)m->line + 1, (int)(v - k > 80 ? 80 : v - k), l + k, q,
			 (int)(ln - v > 60 ? 60 : ln - v), l + v, q);
		return;
	}
	pl = prev ? text_line(data, len, prev, &pn) : NULL;
	if (pl && text_indent(l, ln) > text_indent(pl, pn))
		snprintf(h, hl,
			 "line %zu is indented deeper (%zu spaces) than line %zu (%zu), so YAML "
			 "reads it as more of line %zu's value; give the keys of one mapping the "
			 "same indentation",
			 (size_t)m->line + 1, text_indent(l, ln), prev, text_indent(pl, pn), prev);
	else if (pl && !text_value_at(pl, pn) && pn && pl[pn - 1] != ':')
		snprintf(h, hl,
			 "line %zu has no \": \" after its key, so YAML reads it and line %zu as "
			 "one text; write each key as key: value",
			 prev, (size_t)m->line + 1);
}

/* A block mapping or list whose next line lines up with neither it nor the
 * line above. */
static void hint_indent(const char *data, size_t len, const yaml_parser_t *p, bool list, char *h,
			size_t hl)
{
	size_t ln, pn, prev = text_prev(data, len, p->problem_mark.line + 1);
	size_t at = p->context_mark.column, line = p->problem_mark.line + 1;
	const char *l = text_line(data, len, line, &ln);
	const char *pl = prev ? text_line(data, len, prev, &pn) : NULL;
	size_t ind = text_indent(l, ln);
	char above[80] = "";

	if (pl && prev != p->context_mark.line + 1)
		snprintf(above, sizeof(above), ", line %zu at %zu", prev, text_indent(pl, pn));
	if (list)
		snprintf(h, hl,
			 "line %zu is indented %zu space%s, but the list begun on line %zu has "
			 "its '-' at %zu and the keys of its entries at %zu%s; indent the line "
			 "as one of them",
			 line, ind, ind == 1 ? "" : "s", (size_t)p->context_mark.line + 1, at,
			 at + 2, above);
	else
		snprintf(h, hl,
			 "line %zu is indented %zu space%s, but the mapping begun on line %zu "
			 "has its keys at %zu%s; the keys of one mapping line up",
			 line, ind, ind == 1 ? "" : "s", (size_t)p->context_mark.line + 1, at,
			 above);
}

/* Does the line of mark m hold a tab where YAML wants indentation, or at m? */
static bool text_tab_at(const char *data, size_t len, const yaml_mark_t *m)
{
	size_t ln, col = 0, i;
	const char *l = text_line(data, len, m->line + 1, &ln);

	for (i = 0; i < ln && (l[i] == ' ' || l[i] == '\t'); i++)
		if (l[i] == '\t')
			return true;
	for (i = 0; i < ln; i++) {
		if (((unsigned char)l[i] & 0xc0) == 0x80)
			continue;
		if (col++ == m->column)
			return l[i] == '\t';
	}
	return false;
}

/* What a libyaml syntax error most likely means, for the common cases. */
static void syntax_hint(const char *data, size_t len, const yaml_parser_t *p, char *h, size_t hl)
{
	const char *what = p->problem ? p->problem : "";
	const char *ctx = p->context ? p->context : "";

	h[0] = '\0';
	if (strstr(what, "tab") || text_tab_at(data, len, &p->problem_mark))
		snprintf(h, hl,
			 "line %zu holds a tab: YAML indents with spaces only; replace the tab "
			 "with spaces",
			 (size_t)p->problem_mark.line + 1);
	else if (strstr(what, "mapping values are not allowed"))
		hint_colon(data, len, &p->problem_mark, h, hl);
	else if (strstr(what, "did not find expected key") && strstr(ctx, "block mapping"))
		hint_indent(data, len, p, false, h, hl);
	else if (strstr(what, "expected '-' indicator"))
		hint_indent(data, len, p, true, h, hl);
	else if (strstr(what, "unknown escape character"))
		snprintf(h, hl,
			 "in double quotes a backslash starts an escape (\\n, \\\\); write a "
			 "regular expression in single quotes ('[0-9]+\\.') or double each "
			 "backslash");
	else if (strstr(what, "end of stream") && strstr(ctx, "quoted scalar"))
		snprintf(h, hl, "the quote opened on line %zu, column %zu, is never closed",
			 (size_t)p->context_mark.line + 1, (size_t)p->context_mark.column + 1);
	else if (strstr(what, "expected ',' or"))
		snprintf(h, hl,
			 "in the flow %s begun on line %zu, quote a value that holds \": \", "
			 "',', '[', ']', '{' or '}' ({run: \"echo a: b\"}), and close the %s",
			 strstr(what, "']'") ? "list [...]" : "mapping {...}",
			 (size_t)p->context_mark.line + 1, strstr(what, "']'") ? "']'" : "'}'");
	else if (strstr(what, "could not find expected ':'"))
		snprintf(h, hl, "line %zu holds a key without \": \" after it; write key: value",
			 (size_t)p->context_mark.line + 1);
}

static int yaml_load_doc(struct load_ctx *c, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_mark_t mark;
	char hint[400];
	int ret = 0;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&parser, &c->doc)) {
		mark = parser.problem_mark;
		syntax_hint(data, len, &parser, hint, sizeof(hint));
		/* libyaml cannot go on past a syntax error: this is the only one */
		fail_pos(c, (int)mark.line + 1, (int)mark.column + 1, "",
			 "YAML syntax error: %s%s%s%s%s (the parse stops here: the rest of the "
			 "file is checked once this is fixed)",
			 parser.problem ? parser.problem : "unknown problem",
			 parser.context ? " " : "", parser.context ? parser.context : "",
			 hint[0] ? "; " : "", hint);
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
	schema_walk(c, &scenario_schema, yaml_document_get_root_node(&c->doc), "");
	if (scenario_error_count(c->err))
		return -EINVAL;
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
	/* each part is checked whatever the parts before it held (a step's
	 * check that needs what a refused machine lacks is left out) */
	header_load(c, s);
	kernel_load(c, s);
	guest_load(c, s);
	c->machine_ok = !machine_load(c, s);
	steps_load(c, s);
	tolerate_load(c, s);
	ret = scenario_error_count(err) ? -EINVAL : 0;
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
	if (s->guest) {
		free(s->guest->root_dir);
		free(s->guest->root_disk);
		free(s->guest->root_why);
	}
	free(s->file);
	cyaml_free(&free_config, &scenario_schema, s, 0);
}
