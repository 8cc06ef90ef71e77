/* libFuzzer target: any bytes as the KTAP a ktap: step reads (a guest
 * command's output, or the kernel log since boot). ktap_parse must return
 * 0 with a document inside the limits of ktap.h, -EINVAL with a message and
 * a line, or -ENOENT (no version line), and leave nothing behind. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "ktap.h"

static void check_doc(const struct ktap_doc *d)
{
	FUZZ_CHECK(d->count <= KTAP_MAX_TESTS);
	FUZZ_CHECK(d->top_count <= d->count);
	FUZZ_CHECK(d->points_run + d->points_skipped <= d->count);
	for (size_t i = 0; i < d->count; i++) {
		const struct subtest *t = &d->tests[i];

		FUZZ_CHECK(t->name && t->name[0]);
		/* a path of at most KTAP_MAX_DEPTH + 1 names and their dots */
		FUZZ_CHECK(strlen(t->name) <= (KTAP_MAX_DEPTH + 1) * (KTAP_MAX_NAME + 1));
		FUZZ_CHECK(t->status == ST_PASS || t->status == ST_FAIL || t->status == ST_SKIP);
		FUZZ_CHECK(!t->diag || strlen(t->diag) < KTAP_MAX_DIAG);
		FUZZ_CHECK(t->duration_ms >= -1);
	}
	FUZZ_CHECK(d->top_failed + d->top_skipped <= d->top_count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktap_doc doc;
	struct ktap_error err;
	int ret = ktap_parse((const char *)data, size, &doc, &err);

	if (ret == 0) {
		check_doc(&doc);
	} else {
		FUZZ_CHECK(ret == -EINVAL || ret == -ENOENT);
		FUZZ_CHECK(err.msg[0] && memchr(err.msg, '\0', sizeof(err.msg)));
		FUZZ_CHECK(err.line >= 0 && (ret == -ENOENT || err.line > 0));
		FUZZ_CHECK(!doc.tests && !doc.count && !doc.skip_all);
	}
	ktap_doc_free(&doc);
	return 0;
}
