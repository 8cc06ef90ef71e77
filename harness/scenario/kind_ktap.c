/* ktap: a guest command whose stdout is KTAP ("ktap: CMD" or
 * {run: CMD}), or the KTAP the kernel printed since boot ({console:
 * true}); a string or a mapping, which the schema cannot say, so it is read
 * from the document. What its tests need of the kernel is
 * kernel.requires. Runs in harness/steps/step_ktap.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "load.h"
#include "schema.h"
#include "step_kind.h"
#include "util.h"

static const cyaml_schema_field_t ktap_fields[] = {
	CYAML_FIELD_IGNORE("ktap", OPT),
	CYAML_FIELD_END,
};

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

static void ktap_release(struct step *st)
{
	free(st->ktap);
}

const struct step_kind_row kind_ktap = {
	.keyword = "ktap",
	.kind = STEP_KTAP,
	.field = offsetof(struct step, ktap),
	.expects = 0,
	.needs = NEEDS_NOTHING,
	.keys = "",
	.fields = ktap_fields,
	.read = ktap_load,
	.release = ktap_release,
	.guest_key = step_in_guest,
};
