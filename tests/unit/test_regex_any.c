/* Whether a pattern matches every text, as glibc's regexec() searches:
 * what is refused (anything nullable where the search may put it, the
 * anchored forms every text has a place for, the empty pattern) and what
 * is not (a pattern some text misses, even one that matches the empty
 * text, even one that matches every one-byte text). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <regex.h>

#include "regex_any.h"

static void any(const char *re, int cflags, bool lines, int want)
{
	int got = regex_matches_any(re, cflags, lines);

	if (got != want)
		fail_msg("/%s/ (%s%s): %d, expected %d", re, cflags ? "REG_NEWLINE" : "search",
			 lines ? ", lines" : "", got, want);
}

/* in every way a pattern is matched: stdout, a console line, a JSON string */
static void any_everywhere(const char *re, int want)
{
	any(re, REG_NEWLINE, false, want);
	any(re, 0, true, want);
	any(re, 0, false, want);
}

static void test_matches_any(void **state)
{
	static const char *const yes[] = {
		"",	  ".*",	     "^",	  "$",	       "x*",	       "(a|)",
		"()",	  "a?b?",    "^.*$",	  "^.*",       ".*$",	       "(^|x)",
		"a{0,3}", "(a|b|)+", "\\`",	  "\\'",       "\\W*",	       ".|^$",
		".+|^$",  "^.+|^$",  "^[^x]*$|x", "[^x]|x|^$", "[[:alpha:]]*", "(\\w|\\W)*$",
	};
	static const char *const no[] = {
		"a",   "^$",  "^x*$", "[^a]|^$",	  "a{2}",   "\\b", "\\B",
		"\\<", "^1$", ".",    "ktb smoke marker", "[^a]|a", "x+",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		any_everywhere(yes[i], 1);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		any_everywhere(no[i], 0);
}

/* Where the way of matching decides: a newline in the pattern, which a
 * console line never holds; ^ and $ at every line under REG_NEWLINE. */
static void test_context(void **state)
{
	(void)state;
	/* every text but one holding a newline alone */
	any("[^\n]|^$", 0, false, 0);
	any("[^\n]|^$", 0, true, 1);
	/* . takes a newline in a search, not under REG_NEWLINE, where the
	 * lines either side of it are matched by ^ and $ */
	any(".|^$", 0, false, 1);
	any(".|^$", REG_NEWLINE, false, 1);
	any("^a$|[^a]", 0, false, 0);
}

static void test_bad(void **state)
{
	(void)state;
	assert_int_equal(regex_matches_any("(", 0, false), -EINVAL);
	assert_int_equal(regex_matches_any("a{2,1}", 0, false), -EINVAL);
	/* past the analysis (a back-reference): never a refusal on a guess */
	assert_int_equal(regex_matches_any("(a*)\\1", 0, false), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_any),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
