#include "scenario.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "load.h"
#include "scenario_limits.h"
#include "schema.h"
#include "step_kind.h"
#include "util.h"
#include "yaml_hint.h"

#define SCENARIO_TIMEOUT_MS 120000
#define PATH_DEPTH 16

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

/* ---- libcyaml's complaints, turned into file:line:col: field: message ---- */

/* A field path rebuilt from libcyaml's backtrace, with the schema of every
 * prefix so that a path can be shortened and still be described. */
struct cy_path {
	char str[128];
	size_t cut[PATH_DEPTH + 1];
	const cyaml_schema_value_t *schema[PATH_DEPTH + 1];
	unsigned depth;
};

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
	p->schema[0] = schema_scenario();
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

static int cy_unknown_key(struct load_ctx *c, struct cy_path *p, const char *key)
{
	yaml_node_pair_t *pair = doc_pair(c, doc_get(c, p->str), key, strlen(key));
	const cyaml_schema_value_t *v = p->schema[p->depth];
	char keys[320] = "";

	if (v && v->type == CYAML_MAPPING)
		schema_join_keys(v, keys, sizeof(keys));
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

/* The list entry of flags field n whose text is bad, for its exact line. */
static yaml_node_t *flag_entry(struct load_ctx *c, yaml_node_t *n, const char *bad)
{
	yaml_node_t *e;

	for (unsigned long i = 0; (e = doc_item(c, n, i)); i++)
		if (scalar_is(e, bad, strlen(bad)))
			return e;
	return n;
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
		schema_join_strings(v, opts, sizeof(opts));
		return fail(c, p->str,
			    scalar ? "%s is not one of %s"
				   : "got %s; expected one "
				     "of %s",
			    node_desc(n, buf, sizeof(buf)), opts);
	}
	if (v->type == CYAML_FLAGS && sscanf(cy_message(c), "Unknown flag: %63s", bad) == 1) {
		schema_join_strings(v, opts, sizeof(opts));
		return fail_at(c, flag_entry(c, n, bad), p->str, "\"%s\" is not one of %s", bad,
			       opts);
	}
	if (schema_type_want(v, opts, sizeof(opts)))
		return fail(c, p->str, "expected %s, got %s",
			    schema_type_want(v, opts, sizeof(opts)),
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

/* ---- steps: their rows (step_kind.h) ---- */

const char *step_kind_name(enum step_kind k)
{
	return (unsigned)k < STEP_KIND_COUNT ? step_kinds[k]->keyword : "?";
}

unsigned step_kind_needs(enum step_kind k)
{
	return (unsigned)k < STEP_KIND_COUNT ? step_kinds[k]->needs : 0;
}

char *step_metric_name(const char *path)
{
	char *name = xstrdup(path);

	for (char *p = name; *p; p++)
		if (*p == '.')
			*p = '_';
	return name;
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
		yaml_syntax_hint(data, len, &parser, hint, sizeof(hint));
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
	schema_walk(c, schema_scenario(), yaml_document_get_root_node(&c->doc), "");
	if (scenario_error_count(c->err))
		return -EINVAL;
	e = cyaml_load_data((const uint8_t *)data, len, &cfg, schema_scenario(),
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
	steps_release(s);
	for (unsigned i = 0; i < s->steps_count; i++)
		if (s->steps[i].expect)
			json_decref(s->steps[i].expect->json);
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
	cyaml_free(&free_config, schema_scenario(), s, 0);
}
