/* libFuzzer target: any bytes as the JUnit XML a junit step reads (a
 * guest command's output or a file it left). junit_parse must return 0
 * with a document inside the limits of ktap.h, or -EINVAL with a message,
 * and leave nothing behind. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "junit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktap_doc doc;
	struct ktap_error err;
	int ret = junit_parse((const char *)data, size, &doc, &err);

	if (ret == 0) {
		FUZZ_CHECK(doc.count <= KTAP_MAX_TESTS && doc.top_count == doc.count);
		FUZZ_CHECK(doc.points_run + doc.points_skipped == doc.count);
		for (size_t i = 0; i < doc.count; i++) {
			const struct subtest *t = &doc.tests[i];

			FUZZ_CHECK(t->name && t->name[0] && strlen(t->name) <= KTAP_MAX_NAME);
			FUZZ_CHECK(t->status == ST_PASS || t->status == ST_FAIL ||
				   t->status == ST_SKIP);
			FUZZ_CHECK(!t->diag || strlen(t->diag) < KTAP_MAX_DIAG);
			FUZZ_CHECK(!t->reason || strlen(t->reason) < KTAP_MAX_DIAG);
			FUZZ_CHECK(t->duration_ms >= -1);
		}
	} else {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(err.msg[0] && memchr(err.msg, '\0', sizeof(err.msg)));
		FUZZ_CHECK(err.line >= 0);
		FUZZ_CHECK(!doc.tests && !doc.count);
	}
	ktap_doc_free(&doc);
	return 0;
}
