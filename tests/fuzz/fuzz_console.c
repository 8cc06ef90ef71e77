/* libFuzzer target: any bytes as a guest's serial console, which a broken
 * or hostile kernel writes. The input is fed in the pieces it is cut into
 * at each 0x1e (reads end anywhere: inside a line, between "\r" and "\n"),
 * with a wait: pattern watched and the markers looked for, as vm.c and the
 * steps do. The console must flag the first fatal line once, with the kind
 * console_classify gives it, and keep a bounded tail. */
#include <stdint.h>
#include <string.h>

#include "console.h"
#include "fuzz_util.h"
#include "protocol.h"

#define TAIL_LINES 200	/* vm.c's CONSOLE_TAIL_LINES */
#define REPORT_LINES 30 /* runner.c's console_tail */

/* kreport's kinds but the OOM kill, which the console does not flag */
static const char *const kinds[] = { "panic",	  "oops",      "bug",	      "kasan",
				     "ubsan",	  "kfence",    "lockdep",     "warning",
				     "hung task", "rcu stall", "soft lockup", "hard lockup" };

static FILE *devnull;

static bool known_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

static void check_tail(struct console *c)
{
	char *tail = console_tail(c, REPORT_LINES);
	size_t lines = 0;

	FUZZ_CHECK(tail);
	for (const char *p = tail; (p = strchr(p, '\n')); p++)
		lines++;
	/* the lines asked for, and the unfinished one */
	FUZZ_CHECK(lines <= REPORT_LINES + 1);
	free(tail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console *c;
	struct fuzz_parts parts;
	const uint8_t *p;
	size_t n, pieces = 0;
	int flagged = 0;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	c = console_new(devnull, TAIL_LINES);
	FUZZ_CHECK(console_watch(c, "PM: suspend (entry|exit)|Restarting tasks") == 0);
	fuzz_parts_init(&parts, data, size);
	while (fuzz_parts_next(&parts, &p, &n)) {
		flagged += console_feed(c, (const char *)p, n);
		console_seen(c, KTB_READY_MARKER);
		console_seen(c, KTB_INIT_FAIL_MARKER);
		console_matched(c);
		if (++pieces == 2)
			console_reset_match(c);
	}
	console_flush(c);
	FUZZ_CHECK(flagged <= 1);
	if (console_fatal(c)) {
		FUZZ_CHECK(known_kind(console_fatal_kind(c)));
		FUZZ_CHECK(!strcmp(console_classify(console_fatal(c)), console_fatal_kind(c)));
	} else {
		FUZZ_CHECK(!console_fatal_kind(c) && !flagged);
	}
	FUZZ_CHECK(console_seen(c, ""));
	check_tail(c);
	console_free(c);
	return 0;
}
