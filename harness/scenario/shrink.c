#include "shrink.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "argv.h"
#include "util.h"

/* ---- the document ---- */

/* A node as JSON, every scalar a string (its text as written). */
static json_t *node_json(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	json_t *j;

	if (!n || depth > 32)
		return json_null();
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return json_stringn((const char *)n->data.scalar.value, n->data.scalar.length);
	case YAML_SEQUENCE_NODE:
		j = json_array();
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++)
			json_array_append_new(
			    j, node_json(doc, yaml_document_get_node(doc, *i), depth + 1));
		return j;
	case YAML_MAPPING_NODE:
		j = json_object();
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);

			if (k && k->type == YAML_SCALAR_NODE)
				json_object_set_new(j, (const char *)k->data.scalar.value,
						    node_json(doc,
							      yaml_document_get_node(doc, p->value),
							      depth + 1));
		}
		return j;
	default:
		return json_null();
	}
}

/* Where n's text ends: a flow collection or a scalar ends at its own end
 * mark; a block collection's mark lies at the next key, so it ends where
 * its last item or value does. */
static size_t node_end(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	size_t end = n->end_mark.index, e;

	if (depth > 32)
		return end;
	if (n->type == YAML_SEQUENCE_NODE && n->data.sequence.style != YAML_FLOW_SEQUENCE_STYLE) {
		end = n->start_mark.index;
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++)
			if ((e = node_end(doc, yaml_document_get_node(doc, *i), depth + 1)) > end)
				end = e;
	} else if (n->type == YAML_MAPPING_NODE &&
		   n->data.mapping.style != YAML_FLOW_MAPPING_STYLE) {
		end = n->start_mark.index;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++)
			if ((e = node_end(doc, yaml_document_get_node(doc, p->value), depth + 1)) >
			    end)
				end = e;
	}
	return end;
}

/* libyaml's marks count characters, not bytes: the byte where character
 * index begins in the UTF-8 text (libyaml took it, so it is valid UTF-8;
 * a byte order mark ahead of it is not counted). */
static size_t byte_at(const char *text, size_t len, size_t index)
{
	size_t b = len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0;

	for (; index && b < len; index--) {
		unsigned char c = (unsigned char)text[b];

		b += c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	}
	return b < len ? b : len;
}

int shrink_doc_open(const char *text, size_t len, struct shrink_doc *d, char *why, size_t n)
{
	yaml_parser_t p;
	yaml_document_t doc;
	yaml_node_t *root;
	int ret = -EINVAL;

	*d = (struct shrink_doc){ .text = xcalloc(1, len + 1), .len = len, .after = "" };
	memcpy(d->text, text, len);
	d->from = d->to = len;
	if (!yaml_parser_initialize(&p))
		abort();
	yaml_parser_set_input_string(&p, (const unsigned char *)d->text, len);
	if (!yaml_parser_load(&p, &doc)) {
		snprintf(why, n, "not YAML: %s (line %zu)", p.problem ? p.problem : "?",
			 p.problem_mark.line + 1);
		yaml_parser_delete(&p);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		snprintf(why, n, "not a scenario: the document is not a mapping");
		goto out;
	}
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&doc, pr->value);
		size_t end;

		if (!k || k->type != YAML_SCALAR_NODE ||
		    strcmp((char *)k->data.scalar.value, "machine"))
			continue;
		if (!v || v->type != YAML_MAPPING_NODE) {
			snprintf(why, n, "machine (line %zu) is not a mapping",
				 k->start_mark.line + 1);
			goto out;
		}
		d->machine = node_json(&doc, v, 0);
		d->flow = v->data.mapping.style == YAML_FLOW_MAPPING_STYLE;
		if (d->flow) {
			d->from = byte_at(d->text, len, k->start_mark.index);
			d->to = byte_at(d->text, len, v->end_mark.index);
			break;
		}
		d->from = byte_at(d->text, len, k->start_mark.index - k->start_mark.column);
		end = byte_at(d->text, len, node_end(&doc, v, 0));
		while (end < len && d->text[end] != '\n')
			end++;
		d->to = end < len ? end + 1 : len;
		break;
	}
	if (!d->machine && root->data.mapping.style == YAML_FLOW_MAPPING_STYLE) {
		/* a flow file without one: it goes in first, after the brace */
		d->flow = 1;
		d->from = d->to = byte_at(d->text, len, root->start_mark.index + 1);
		d->after =
		    root->data.mapping.pairs.top > root->data.mapping.pairs.start ? ", " : "";
	}
	if (!d->machine)
		d->machine = json_object();
	ret = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	return ret;
}

void shrink_doc_free(struct shrink_doc *d)
{
	free(d->text);
	json_decref(d->machine);
	*d = (struct shrink_doc){ 0 };
}

/* ---- writing a machine ---- */

struct out {
	char *s;
	size_t len, cap;
};

static void put(struct out *o, const char *s)
{
	size_t n = strlen(s);

	o->s = xgrow(o->s, &o->cap, o->len + n + 1, 256);
	memcpy(o->s + o->len, s, n + 1);
	o->len += n;
}

static void put_indent(struct out *o, int n)
{
	for (int i = 0; i < n; i++)
		put(o, " ");
}

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A plain scalar where nothing in it means more to YAML: letters, digits
 * and _ . / + - = @, not starting with an indicator (a number's sign or
 * point aside). */
static bool plain_ok(const char *s)
{
	if (!*s || ((*s == '-' || *s == '.') && !(s[1] >= '0' && s[1] <= '9')))
		return false;
	for (const char *p = s; *p; p++)
		if (!alnum(*p) && !strchr("_-./+=@", *p))
			return false;
	return true;
}

static void put_scalar(struct out *o, const char *s)
{
	char esc[8];

	if (plain_ok(s)) {
		put(o, s);
		return;
	}
	put(o, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			snprintf(esc, sizeof(esc), "\\%c", *p);
			put(o, esc);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			put(o, esc);
		} else {
			esc[0] = (char)*p;
			esc[1] = '\0';
			put(o, esc);
		}
	}
	put(o, "\"");
}

/* Written on one line: a scalar, or a collection of such, short enough. */
static void put_flow(struct out *o, const json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;
	bool first = true;

	if (json_is_string(v)) {
		put_scalar(o, json_string_value(v));
	} else if (json_is_array(v)) {
		put(o, "[");
		json_array_foreach (v, i, x) {
			put(o, i ? ", " : "");
			put_flow(o, x);
		}
		put(o, "]");
	} else if (json_is_object(v)) {
		put(o, "{");
		json_object_foreach ((json_t *)v, k, x) {
			put(o, first ? "" : ", ");
			first = false;
			put_scalar(o, k);
			put(o, ": ");
			put_flow(o, x);
		}
		put(o, "}");
	} else {
		put(o, "null");
	}
}

static bool flowable(const json_t *v, int depth)
{
	struct out o = { 0 };
	bool ok;
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_string(v) || json_is_null(v))
		return true;
	if (depth > 2)
		return false;
	if (json_is_array(v)) {
		json_array_foreach (v, i, x)
			if (!flowable(x, depth + 1))
				return false;
	} else if (json_is_object(v)) {
		json_object_foreach ((json_t *)v, k, x)
			if (!flowable(x, depth + 1))
				return false;
	}
	put_flow(&o, v);
	ok = o.len <= 72;
	free(o.s);
	return ok;
}

static void put_block(struct out *o, const json_t *v, int indent);

/* "key: value" at indent, the value on the line when it fits. */
static void put_pair(struct out *o, const char *k, const json_t *x, int indent, bool first_on_line)
{
	if (!first_on_line)
		put_indent(o, indent);
	put_scalar(o, k);
	if (flowable(x, 0)) {
		put(o, ": ");
		put_flow(o, x);
		put(o, "\n");
	} else {
		put(o, ":\n");
		put_block(o, x, indent + 2);
	}
}

static void put_block(struct out *o, const json_t *v, int indent)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach ((json_t *)v, k, x)
			put_pair(o, k, x, indent, false);
		return;
	}
	json_array_foreach (v, i, x) {
		bool first = true;
		const char *kk;
		json_t *xx;

		put_indent(o, indent);
		put(o, "- ");
		if (flowable(x, 0) || !json_is_object(x)) {
			put_flow(o, x);
			put(o, "\n");
			continue;
		}
		json_object_foreach (x, kk, xx) {
			put_pair(o, kk, xx, indent + 2, first);
			first = false;
		}
	}
}

char *shrink_machine_yaml(const json_t *machine)
{
	struct out o = { 0 };

	put(&o, "machine:");
	if (!json_object_size(machine)) {
		put(&o, " {}\n");
		return o.s;
	}
	put(&o, "\n");
	put_block(&o, machine, 2);
	return o.s;
}

char *shrink_doc_render(const struct shrink_doc *d, const json_t *machine, size_t *len)
{
	struct out o = { 0 };
	char *m;

	if (d->flow) {
		put(&o, "machine: ");
		put_flow(&o, machine);
		put(&o, d->after);
	}
	m = d->flow ? o.s : shrink_machine_yaml(machine);
	/* a file without a machine gets one at its end, after a line break */
	const char *nl = d->from == d->len && d->len && d->text[d->len - 1] != '\n' ? "\n" : "";
	char *s = xasprintf("%.*s%s%s%s", (int)d->from, d->text, nl, m, d->text + d->to);

	free(m);
	*len = strlen(s);
	return s;
}

/* ---- the candidates ---- */

struct cands {
	struct shrink_cand *v;
	size_t n, cap;
};

static json_t *add(struct cands *c, const json_t *base, char *part, char *change)
{
	c->v = xgrow(c->v, &c->cap, (c->n + 1) * sizeof(*c->v), 16 * sizeof(*c->v));
	c->v[c->n] = (struct shrink_cand){ part, change, json_deep_copy(base) };
	return c->v[c->n++].machine;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static unsigned long long mib_of(const char *s)
{
	uint64_t b;

	return s && !hw_parse_size(s, &b) ? (unsigned long long)(b >> 20) : 0;
}

static json_t *mib_json(unsigned long long mib)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lluM", mib);
	return json_string(buf);
}

static bool named(const char *const *ids, const char *id)
{
	for (; ids && *ids; ids++)
		if (!strcmp(*ids, id))
			return true;
	return false;
}

/* A node index value ("2") in an HMAT entry or cache. */
static long index_of(const json_t *o, const char *key)
{
	const char *s = str(o, key);
	char *end;
	long v;

	if (!s)
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < 0 ? -1 : v;
}

/* numa without node k: its distances row and column, the HMAT entries and
 * caches that name it, the indices above it one lower. */
static void numa_drop_node(json_t *numa, size_t k)
{
	json_t *nodes = json_object_get(numa, "nodes"), *d = json_object_get(numa, "distances");
	const char *lists[] = { "hmat", "caches" };

	json_array_remove(nodes, k);
	if (json_is_array(d)) {
		size_t i;
		json_t *row;

		json_array_remove(d, k);
		json_array_foreach (d, i, row)
			json_array_remove(row, k);
	}
	for (size_t l = 0; l < 2; l++) {
		json_t *a = json_object_get(numa, lists[l]);
		const char *keys[] = { l ? "node" : "initiator", l ? NULL : "target" };

		for (size_t i = json_array_size(a); i-- > 0;) {
			json_t *e = json_array_get(a, i);
			bool gone = false;

			for (size_t q = 0; q < 2 && keys[q]; q++) {
				long v = index_of(e, keys[q]);
				char buf[24];

				if (v == (long)k) {
					gone = true;
				} else if (v > (long)k) {
					snprintf(buf, sizeof(buf), "%ld", v - 1);
					json_object_set_new(e, keys[q], json_string(buf));
				}
			}
			if (gone)
				json_array_remove(a, i);
		}
		if (a && !json_array_size(a))
			json_object_del(numa, lists[l]);
	}
	/* caches need HMAT entries */
	if (!json_object_get(numa, "hmat"))
		json_object_del(numa, "caches");
}

static void numa_cands(struct cands *c, const json_t *m)
{
	const json_t *numa = json_object_get(m, "numa"), *nodes = json_object_get(numa, "nodes");
	json_t *x, *node;
	size_t n = json_array_size(nodes), i, with_cpus = 0;

	if (!numa)
		return;
	x = add(c, m, xstrdup("numa"), xasprintf("%zu nodes -> none", n));
	json_object_del(x, "numa");
	/* a memory-only node, the last first */
	for (i = n; i-- > 0;) {
		node = json_array_get(nodes, i);
		if (json_array_size(json_object_get(node, "cpus")))
			continue;
		x = add(c, m, xasprintf("numa node %zu (memory only)", i), xstrdup("removed"));
		json_object_set_new(
		    x, "memory", mib_json(mib_of(str(m, "memory")) - mib_of(str(node, "memory"))));
		numa_drop_node(json_object_get(x, "numa"), i);
	}
	json_array_foreach (nodes, i, node)
		with_cpus += json_array_size(json_object_get(node, "cpus")) > 0;
	/* the last node with CPUs merged into the one before it */
	if (with_cpus >= 2) {
		size_t k = with_cpus - 1;
		json_t *xn, *into, *from;
		size_t j;

		x = add(c, m, xstrdup("numa nodes"),
			xasprintf("node %zu merged into node %zu", k, k - 1));
		xn = json_object_get(json_object_get(x, "numa"), "nodes");
		into = json_array_get(xn, k - 1);
		from = json_array_get(xn, k);
		json_array_foreach (json_object_get(from, "cpus"), j, node)
			json_array_append(json_object_get(into, "cpus"), node);
		json_object_set_new(
		    into, "memory",
		    mib_json(mib_of(str(into, "memory")) + mib_of(str(from, "memory"))));
		numa_drop_node(json_object_get(x, "numa"), k);
	}
	if (json_object_get(numa, "caches")) {
		x = add(c, m, xstrdup("numa caches"), xstrdup("removed"));
		json_object_del(json_object_get(x, "numa"), "caches");
	}
	if (json_object_get(numa, "hmat")) {
		x = add(c, m, xstrdup("numa hmat"), xstrdup("removed"));
		json_object_del(json_object_get(x, "numa"), "hmat");
		json_object_del(json_object_get(x, "numa"), "caches");
	}
	if (json_object_get(numa, "distances")) {
		x = add(c, m, xstrdup("numa distances"), xstrdup("removed"));
		json_object_del(json_object_get(x, "numa"), "distances");
	}
}

/* The disk of x at index i, for a change. */
static json_t *disk_at(json_t *x, size_t i)
{
	return json_array_get(json_object_get(x, "disks"), i);
}

static void disk_cands(struct cands *c, const json_t *m, const char *const *ids)
{
	const json_t *disks = json_object_get(m, "disks"), *d;
	size_t i;

	/* removed: the ones no step names */
	json_array_foreach (disks, i, d) {
		const char *id = str(d, "id");
		json_t *x;

		if (!id || named(ids, id))
			continue;
		x = add(c, m, xasprintf("disk %s", id), xstrdup("removed"));
		json_array_remove(json_object_get(x, "disks"), i);
		if (!json_array_size(json_object_get(x, "disks")))
			json_object_del(x, "disks");
	}
	json_array_foreach (disks, i, d) {
		const char *id = str(d, "id") ? str(d, "id") : "?", *bus = str(d, "bus"),
			   *sector = str(d, "sector");
		unsigned long paths = str(d, "paths") ? strtoul(str(d, "paths"), NULL, 10) : 1;
		json_t *x;

		if (paths > 1) {
			x = add(c, m, xasprintf("disk %s: paths", id),
				xasprintf("%lu -> 1", paths));
			json_object_del(disk_at(x, i), "paths");
			json_object_del(disk_at(x, i), "multipath");
		}
		if (bus && strcmp(bus, "virtio")) {
			x = add(c, m, xasprintf("disk %s: bus", id),
				xasprintf("%s -> virtio", bus));
			json_object_set_new(disk_at(x, i), "bus", json_string("virtio"));
			json_object_del(disk_at(x, i), "paths");
			json_object_del(disk_at(x, i), "multipath");
			json_object_del(disk_at(x, i), "zoned");
			json_object_del(disk_at(x, i), "hybrid");
			json_object_del(disk_at(x, i), "rotational");
		}
		if (sector && !strcmp(sector, "4kn")) {
			x = add(c, m, xasprintf("disk %s: sector", id), xstrdup("4kn -> 512e"));
			json_object_set_new(disk_at(x, i), "sector", json_string("512e"));
		}
		if (sector && strcmp(sector, "512n")) {
			x = add(c, m, xasprintf("disk %s: sector", id),
				xasprintf("%s -> 512n", sector));
			json_object_del(disk_at(x, i), "sector");
		}
		if (json_object_get(d, "zoned")) {
			x = add(c, m, xasprintf("disk %s: zoned", id), xstrdup("removed"));
			json_object_del(disk_at(x, i), "zoned");
		}
		if (json_object_get(d, "hybrid")) {
			x = add(c, m, xasprintf("disk %s: hybrid model", id),
				xstrdup("the defaults"));
			json_object_del(disk_at(x, i), "hybrid");
		}
		if (str(d, "rotational") && strcmp(str(d, "rotational"), "false")) {
			x = add(c, m, xasprintf("disk %s: rotational", id),
				xstrdup("true -> false"));
			json_object_del(disk_at(x, i), "rotational");
		}
	}
}

static void drop_part(struct cands *c, const json_t *m, const char *key)
{
	if (json_object_get(m, key))
		json_object_del(add(c, m, xstrdup(key), xstrdup("removed")), key);
}

static void sleep_cands(struct cands *c, const json_t *m)
{
	const json_t *sleep = json_object_get(m, "sleep"), *s;
	size_t i;

	json_array_foreach (sleep, i, s) {
		json_t *x =
		    add(c, m, xasprintf("sleep %s", json_string_value(s)), xstrdup("removed"));

		json_array_remove(json_object_get(x, "sleep"), i);
		if (!json_array_size(json_object_get(x, "sleep")))
			json_object_del(x, "sleep");
	}
}

static void memory_cands(struct cands *c, const json_t *m)
{
	const char *mem = str(m, "memory") ? str(m, "memory") : "512M";
	unsigned long long total = mib_of(mem), half = total / 2, sum = 0;
	json_t *nodes = json_object_get(json_object_get(m, "numa"), "nodes"), *node, *x;
	size_t i;

	if (half < SHRINK_MIN_MEMORY_MIB)
		half = SHRINK_MIN_MEMORY_MIB;
	if (!total || half >= total)
		return;
	x = add(c, m, xstrdup("memory"), xasprintf("%s -> %lluM", mem, half));
	/* each node's half, the machine's the nodes' sum */
	json_array_foreach (json_object_get(json_object_get(x, "numa"), "nodes"), i, node) {
		unsigned long long h = mib_of(str(node, "memory")) / 2;

		json_object_set_new(node, "memory", mib_json(h));
		sum += h;
	}
	json_object_set_new(x, "memory", mib_json(nodes ? sum : half));
}

size_t shrink_candidates(const json_t *m, const char *const *ids, struct shrink_cand **out)
{
	struct cands c = { 0 };
	const char *cpus = str(m, "cpus");
	const json_t *balloon = json_object_get(m, "balloon");

	/* parts removed */
	disk_cands(&c, m, ids);
	numa_cands(&c, m);
	drop_part(&c, m, "hibernate");
	drop_part(&c, m, "balloon");
	if (str(balloon, "free_page_reporting") &&
	    strcmp(str(balloon, "free_page_reporting"), "false"))
		json_object_del(json_object_get(add(&c, m, xstrdup("balloon free page reporting"),
						    xstrdup("true -> false")),
						"balloon"),
				"free_page_reporting");
	drop_part(&c, m, "display");
	sleep_cands(&c, m);
	/* then fewer CPUs and less memory */
	if (cpus && strtoul(cpus, NULL, 10) > 1)
		json_object_del(add(&c, m, xstrdup("cpus"), xasprintf("%s -> 1", cpus)), "cpus");
	memory_cands(&c, m);
	*out = c.v;
	return c.n;
}

void shrink_cands_free(struct shrink_cand *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].part);
		free(c[i].change);
		json_decref(c[i].machine);
	}
	free(c);
}

int shrink_names_word(const char *text, size_t len, const char *word)
{
	size_t w = strlen(word);

	if (!w)
		return 0;
	for (const char *p = text; (p = memmem(p, len - (size_t)(p - text), word, w)); p++)
		if ((p == text || !alnum(p[-1])) && (p + w == text + len || !alnum(p[w])))
			return 1;
	return 0;
}
