/* ktb's command line: every subcommand's --help (what `ktb help CMD`
 * prints too) names every option its getopt table takes, and each option
 * line of it names an option the table has; report files are checked
 * before anything runs; packages.txt is compiled into ktb as it is in the
 * source tree, and read as bootstrap reads it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_main.h"
#include "cli_common.h"
#include "cli_doctor.h"
#include "util.h"

static char *usage_text(const struct cli_command *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	c->usage(f);
	fclose(f);
	return text;
}

/* word occurs in text with no option-name character right after it */
static bool mentions(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		if (!isalnum((unsigned char)p[n]) && p[n] != '-' && p[n] != '_')
			return true;
	return false;
}

static bool unlisted(const struct cli_command *c, const char *name)
{
	for (size_t i = 0; c->unlisted && c->unlisted[i]; i++)
		if (!strcmp(c->unlisted[i], name))
			return true;
	return false;
}

static bool takes_long(const struct cli_command *c, const char *name, size_t n)
{
	for (const struct option *o = c->options; o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n))
			return true;
	return false;
}

static void test_help_names_every_option(void **state)
{
	(void)state;
	assert_true(cli_commands_count >= 8);
	for (size_t i = 0; i < cli_commands_count; i++) {
		const struct cli_command *c = cli_commands[i];
		char *text = usage_text(c);

		assert_non_null(c->options);
		assert_non_null(c->shortopts);
		assert_ptr_equal(cli_command_find(c->name), c);
		for (const struct option *o = c->options; o->name; o++) {
			char *word = xasprintf("--%s", o->name);

			if (strcmp(o->name, "help") && !unlisted(c, o->name) &&
			    !mentions(text, word))
				fail_msg("ktb %s --help does not name %s", c->name, word);
			free(word);
		}
		for (const char *s = c->shortopts; *s; s++) {
			char word[3] = { '-', *s, 0 };

			if (*s == ':' || *s == 'h')
				continue;
			if (!mentions(text, word))
				fail_msg("ktb %s --help does not name %s", c->name, word);
		}
		/* what the help lists as unlisted is still taken (it says what to
		 * write instead), and is not in the help */
		for (size_t k = 0; c->unlisted && c->unlisted[k]; k++) {
			char *word = xasprintf("--%s", c->unlisted[k]);

			assert_true(takes_long(c, c->unlisted[k], strlen(c->unlisted[k])));
			if (mentions(text, word))
				fail_msg("ktb %s --help names %s, which is not to be used", c->name,
					 word);
			free(word);
		}
		/* each option line starts with an option the command takes */
		for (const char *l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			if (strncmp(l, "  --", 4))
				continue;
			size_t n = strcspn(l + 4, " [=\n");

			if (!takes_long(c, l + 4, n))
				fail_msg("ktb %s --help lists --%.*s, which it does not take",
					 c->name, (int)n, l + 4);
		}
		free(text);
	}
}

static void test_unknown_help_topic(void **state)
{
	char a0[] = "ktb", a1[] = "help", a2[] = "bogus", a3[] = "run";
	char *bogus[] = { a0, a1, a2, NULL }, *two[] = { a0, a1, a3, a3, NULL };

	(void)state;
	assert_int_equal(cli_main(3, bogus), KTB_EXIT_USAGE);
	assert_int_equal(cli_main(4, two), KTB_EXIT_USAGE);
}

static void test_report_paths(void **state)
{
	struct report_file f[2] = { { "--json", NULL, NULL }, { "--tap", NULL, NULL } };

	(void)state;
	assert_int_equal(reports_check(f, 2), 0);
	f[0].path = "r.json";
	f[1].path = "-";
	assert_int_equal(reports_check(f, 2), 0);
	assert_true(reports_to_stdout(f, 2));
	f[1].path = "r.tap";
	assert_false(reports_to_stdout(f, 2));
	assert_int_equal(reports_check(f, 2), 0);
	/* one place for two reports */
	f[1].path = "r.json";
	assert_int_equal(reports_check(f, 2), KTB_EXIT_USAGE);
	f[0].path = f[1].path = "-";
	assert_int_equal(reports_check(f, 2), KTB_EXIT_USAGE);
	/* an option taken for the file; a scenario; a folder; nothing */
	f[0].path = NULL;
	f[1].path = "-j";
	assert_int_equal(reports_check(f, 2), KTB_EXIT_USAGE);
	f[1].path = "scenarios/smoke.yaml";
	assert_int_equal(reports_check(f, 2), KTB_EXIT_USAGE);
	f[1].path = "s.yml";
	assert_int_equal(reports_check(f, 2), KTB_EXIT_USAGE);
	f[1].path = "/";
	assert_int_equal(reports_check(f, 2), KTB_EXIT_USAGE);
	f[1].path = "";
	assert_int_equal(reports_check(f, 2), KTB_EXIT_USAGE);
}

static void test_packages_parse(void **state)
{
	static const char text[] = "# a comment\n"
				   "\n"
				   "qemu-utils    suite  qemu-img        disk images\n"
				   "libfoo        test   -               the tests;  two  words\n"
				   "lonely\n"
				   "two  suite\n"
				   "build-essential suite cc,make";
	struct package_row *r;
	size_t n;

	(void)state;
	assert_int_equal(packages_parse(text, &r, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(r[0].package, "qemu-utils");
	assert_string_equal(r[0].used_for, "suite");
	assert_string_equal(r[0].commands, "qemu-img");
	assert_string_equal(r[0].what, "disk images");
	assert_string_equal(r[1].commands, "");
	assert_string_equal(r[1].what, "the tests;  two  words");
	assert_string_equal(r[2].package, "two");
	assert_string_equal(r[2].commands, "");
	assert_string_equal(r[2].what, "");
	assert_string_equal(r[3].commands, "cc,make");
	packages_free(r, n);
}

/* the list ktb doctor reads is the source tree's, byte for byte */
static void test_packages_compiled_in(void **state)
{
	size_t len = 0;
	char *src = read_file(KTB_SOURCE_DIR_TEST "/packages.txt", &len);
	struct package_row *r;
	size_t n;

	(void)state;
	assert_non_null(src);
	assert_int_equal(strlen(ktb_packages_txt), len);
	assert_memory_equal(ktb_packages_txt, src, len);
	packages_parse(ktb_packages_txt, &r, &n);
	assert_true(n > 40);
	for (size_t i = 0; i < n; i++)
		assert_true(!strcmp(r[i].used_for, "suite") || !strcmp(r[i].used_for, "test"));
	packages_free(r, n);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_names_every_option),
		cmocka_unit_test(test_unknown_help_topic),
		cmocka_unit_test(test_report_paths),
		cmocka_unit_test(test_packages_parse),
		cmocka_unit_test(test_packages_compiled_in),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
