#include "kernel_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kreq.h"
#include "util.h"

static const char *config_value(void *ctx, const char *option)
{
	return kconfig_value(ctx, option);
}

static bool config_has_module(void *ctx, const char *module)
{
	return kconfig_has_module(ctx, module);
}

/* Append one requirement's complaint to c. */
static void add_missing(struct kernel_check *c, const char *option, char *why)
{
	char *m;

	c->missing = xrealloc(c->missing, (c->count + 2) * sizeof(char *));
	c->missing[c->count++] = xstrdup(option);
	c->missing[c->count] = NULL;
	m = c->message ? xasprintf("%s; %s", c->message, why) : xstrdup(why);
	free(c->message);
	c->message = m;
}

int kernel_check(const struct scenario *s, const struct kconfig *k, struct kernel_check *c)
{
	/* without a module list, an =m option cannot be said to be missing */
	struct kreq_source src = {
		.value = config_value,
		.has_module = kconfig_knows_modules(k) ? config_has_module : NULL,
		.ctx = (void *)k,
	};
	struct kreq_list l = { 0 };
	int ret;

	memset(c, 0, sizeof(*c));
	ret = kreq_for_scenario(s, &l);
	for (size_t i = 0; !ret && i < l.n; i++) {
		struct kreq_list one = { .v = &l.v[i], .n = 1 };
		char *why = NULL;

		ret = kreq_missing(&one, &src, &why);
		if (ret > 0) {
			why[strcspn(why, "\n")] = '\0';
			add_missing(c, l.v[i].option, why);
			ret = 0;
		}
		free(why);
	}
	kreq_list_free(&l);
	if (ret < 0)
		kernel_check_free(c);
	return ret < 0 ? ret : 0;
}

void kernel_check_free(struct kernel_check *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->missing[i]);
	free(c->missing);
	free(c->message);
	memset(c, 0, sizeof(*c));
}
