/* libFuzzer target: any bytes as kernel console text, which a broken or
 * hostile guest writes. kreport_scan must keep the promises of kreport.h:
 * 0, its limits (reports, frames, text), kinds from its list, titles and
 * text in printable ASCII, line numbers inside the input, and a 64-digit
 * signature; and the same input must give the same findings twice. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "kreport.h"

static const char *const kinds[] = { "panic",	  "oops",      "bug",	      "kasan",
				     "ubsan",	  "kfence",    "lockdep",     "warning",
				     "hung task", "rcu stall", "soft lockup", "hard lockup",
				     "oom kill" };

static bool known_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

/* Printable ASCII and tabs, and newlines where allowed. */
static bool printable(const char *s, bool newlines)
{
	for (; *s; s++)
		if (!((*s >= 0x20 && *s < 0x7f) || *s == '\t' || (newlines && *s == '\n')))
			return false;
	return true;
}

static void check_report(const struct kreport *r, size_t lines)
{
	FUZZ_CHECK(known_kind(r->kind));
	FUZZ_CHECK(r->title[0] && printable(r->title, false));
	FUZZ_CHECK(printable(r->text, true) && strlen(r->text) <= KREPORT_MAX_TEXT);
	FUZZ_CHECK(r->first_line >= 1 && r->first_line <= r->last_line && r->last_line <= lines);
	FUZZ_CHECK(r->nframes <= KREPORT_MAX_FRAMES);
	for (size_t i = 0; i < r->nframes; i++)
		FUZZ_CHECK(r->frames[i].func[0] && r->frames[i].off &&
			   (!r->frames[i].module || r->frames[i].module[0]));
	FUZZ_CHECK(strlen(r->signature) == 64 && strspn(r->signature, "0123456789abcdef") == 64);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kreport_list a, b;
	size_t lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	FUZZ_CHECK(kreport_scan((const char *)data, size, &a) == 0);
	FUZZ_CHECK(kreport_scan((const char *)data, size, &b) == 0);
	FUZZ_CHECK(a.count <= KREPORT_MAX_REPORTS && a.count == b.count && a.dropped == b.dropped);
	FUZZ_TRACE("%zu reports, %zu dropped\n", a.count, a.dropped);
	for (size_t i = 0; i < a.count; i++) {
		FUZZ_TRACE("  %s: %s (lines %zu-%zu, %zu frames)\n", a.items[i].kind,
			   a.items[i].title, a.items[i].first_line, a.items[i].last_line,
			   a.items[i].nframes);
		check_report(&a.items[i], lines);
		FUZZ_CHECK(!strcmp(a.items[i].signature, b.items[i].signature));
		FUZZ_CHECK(!strcmp(a.items[i].text, b.items[i].text));
	}
	kreport_list_free(&a);
	kreport_list_free(&b);
	return 0;
}
