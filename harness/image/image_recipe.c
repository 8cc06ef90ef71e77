/* Loading images/NAME.yaml: a libcyaml schema, libcyaml's log turned into one
 * "file:line:col: message" error, then checks libcyaml cannot express. */
#include "image_recipe.h"

#include "image_dirs.h"
#include "util.h"

#include <cyaml/cyaml.h>
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const cyaml_schema_value_t string_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, CYAML_UNLIMITED),
};

static const cyaml_schema_field_t kernel_fields[] = {
	CYAML_FIELD_STRING_PTR("package", CYAML_FLAG_POINTER, struct image_recipe_kernel, package,
			       1, CYAML_UNLIMITED),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t kselftest_fields[] = {
	CYAML_FIELD_STRING_PTR("source", CYAML_FLAG_POINTER, struct image_recipe_kselftest, source,
			       1, CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("targets", CYAML_FLAG_POINTER, struct image_recipe_kselftest, targets,
			     &string_entry, 1, CYAML_UNLIMITED),
	CYAML_FIELD_END
};

#define STRING_LIST(key, member)                                                                   \
	CYAML_FIELD_SEQUENCE(key, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct image_recipe,   \
			     member, &string_entry, 0, CYAML_UNLIMITED)

static const cyaml_schema_field_t recipe_fields[] = {
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
			       struct image_recipe, name, 1, CYAML_UNLIMITED),
	CYAML_FIELD_MAPPING_PTR("kernel", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
				struct image_recipe, kernel, kernel_fields),
	STRING_LIST("modules", modules),
	STRING_LIST("binaries", binaries),
	STRING_LIST("packages", packages),
	CYAML_FIELD_MAPPING_PTR("kselftest", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL,
				struct image_recipe, kselftest, kselftest_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t recipe_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct image_recipe, recipe_fields),
};

/* What libcyaml said: its first error, and the first place its backtrace
 * names (the innermost mapping or sequence entry). */
struct cyaml_log {
	char msg[256];
	unsigned line, col;
};

static void cyaml_log_collect(cyaml_log_t level, void *ctx, const char *fmt, va_list ap)
{
	struct cyaml_log *log = ctx;
	char buf[256], *at;
	size_t n;

	if (level < CYAML_LOG_ERROR)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	at = strstr(buf, "(line: ");
	if (at) {
		if (!log->line)
			sscanf(at, "(line: %u, column: %u)", &log->line, &log->col);
		return;
	}
	/* the backtrace's heading is no error (an alias has no message of its
	 * own before it: then cyaml_strerror says what was wrong) */
	if (!log->msg[0] && !strstr(buf, "Backtrace:"))
		snprintf(log->msg, sizeof(log->msg), "%s",
			 strncmp(buf, "Load: ", 6) ? buf : buf + 6);
}

static bool key_at(const char *text, const char *p, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(p, key, n) && p[n] == ':' && (p == text || strchr(" \t{,-\n", p[-1]));
}

/* libcyaml places an unknown key where the previous value ended, often a
 * line early: look for the key itself from there on. */
static void log_find_key(struct cyaml_log *log, const char *path)
{
	const char *key = log->msg + strlen("Unexpected key: ");
	char *text = read_file(path, NULL), *p, *bol;
	unsigned line = 1;

	for (p = bol = text; p && *p; p++) {
		if (*p == '\n') {
			line++;
			bol = p + 1;
		} else if (line >= log->line && key_at(text, p, key)) {
			log->line = line;
			log->col = (unsigned)(p - bol) + 1;
			break;
		}
	}
	free(text);
}

/* No anchors and aliases: a recipe has no use for them, and each alias is
 * a copy of what it names, so a small file could ask for gigabytes (as the
 * scenario loader refuses them too). */
static const cyaml_config_t recipe_config_template = {
	.log_fn = cyaml_log_collect,
	.mem_fn = cyaml_mem,
	.log_level = CYAML_LOG_ERROR,
	.flags = CYAML_CFG_NO_ALIAS,
};

/* Names end up on the builder's command line and in file names: keep them to
 * characters that need no quoting anywhere. */
static int name_ok(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && !strchr(extra, *s))
			return 0;
	return 1;
}

static int check_list(const char *path, const char *field, char **v, unsigned n, const char *extra,
		      char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (!v[i][0] || v[i][0] == '-' || !name_ok(v[i], extra)) {
			snprintf(err, errlen, "%s: %s[%u]: '%s' is not a valid name", path, field,
				 i, v[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int recipe_check(const char *path, struct image_recipe *r, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *pkg = r->kernel ? r->kernel->package : NULL;
	struct image_recipe_kselftest *ks = r->kselftest;

	if (!r->name) {
		r->name = xstrdup(base);
		if (strlen(r->name) > 5 && !strcmp(r->name + strlen(r->name) - 5, ".yaml"))
			r->name[strlen(r->name) - 5] = '\0';
	}
	if (check_list(path, "name", &r->name, 1, "._-", err, errlen) ||
	    check_list(path, "kernel.package", &pkg, pkg ? 1 : 0, ".+-", err, errlen) ||
	    check_list(path, "modules", r->modules, r->modules_count, "_-", err, errlen) ||
	    check_list(path, "binaries", r->binaries, r->binaries_count, "._+-/", err, errlen) ||
	    check_list(path, "packages", r->packages, r->packages_count, ".+-", err, errlen) ||
	    (ks && check_list(path, "kselftest.source", &ks->source, 1, ".+-", err, errlen)) ||
	    (ks && check_list(path, "kselftest.targets", ks->targets, ks->targets_count, "_-", err,
			      errlen)))
		return -EINVAL;
	return 0;
}

int image_recipe_load(const char *path, struct image_recipe **out, char *err, size_t errlen)
{
	cyaml_config_t config = recipe_config_template;
	struct cyaml_log log = { .msg = "" };
	struct image_recipe *r = NULL;
	cyaml_err_t cerr;
	struct stat st;
	int ret;

	*out = NULL;
	if (access(path, R_OK) || stat(path, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (st.st_size > IMAGE_RECIPE_MAX_BYTES) {
		snprintf(err, errlen, "%s: %lld bytes, more than a recipe holds (%u): not read",
			 path, (long long)st.st_size, IMAGE_RECIPE_MAX_BYTES);
		return -EINVAL;
	}
	config.log_ctx = &log;
	cerr = cyaml_load_file(path, &config, &recipe_schema, (void **)&r, NULL);
	if (cerr != CYAML_OK) {
		if (!strncmp(log.msg, "Unexpected key: ", 16))
			log_find_key(&log, path);
		snprintf(err, errlen, "%s:%u:%u: %s", path, log.line, log.col,
			 log.msg[0] ? log.msg : cyaml_strerror(cerr));
		return -EINVAL;
	}
	if (!r) {
		snprintf(err, errlen, "%s: empty recipe", path);
		return -EINVAL;
	}
	ret = recipe_check(path, r, err, errlen);
	if (ret) {
		image_recipe_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

void image_recipe_free(struct image_recipe *r)
{
	cyaml_config_t config = recipe_config_template;

	if (r)
		cyaml_free(&config, &recipe_schema, r, 0);
}

char *image_recipe_path(const char *recipe)
{
	if (!recipe)
		recipe = "default";
	if (strchr(recipe, '/') || strstr(recipe, ".yaml"))
		return xstrdup(recipe);
	return xasprintf("%s/images/%s.yaml", ktb_source_dir(), recipe);
}
