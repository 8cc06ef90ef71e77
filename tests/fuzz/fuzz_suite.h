/* What the fuzz targets of the suites' results readers (junit.h) check of
 * a document that parsed: inside ktap.h's limits, every test a point. */
#ifndef KTB_FUZZ_SUITE_H
#define KTB_FUZZ_SUITE_H

#include <string.h>

#include "fuzz_util.h"
#include "ktap.h"

static inline void fuzz_suite_doc(const struct ktap_doc *doc)
{
	FUZZ_CHECK(doc->count <= KTAP_MAX_TESTS && doc->top_count == doc->count);
	FUZZ_CHECK(doc->points_run + doc->points_skipped == doc->count);
	for (size_t i = 0; i < doc->count; i++) {
		const struct subtest *t = &doc->tests[i];

		FUZZ_CHECK(t->name && t->name[0] && strlen(t->name) <= KTAP_MAX_NAME);
		FUZZ_CHECK(t->status == ST_PASS || t->status == ST_FAIL || t->status == ST_SKIP);
		FUZZ_CHECK(!t->diag || strlen(t->diag) < KTAP_MAX_DIAG);
		FUZZ_CHECK(!t->reason || strlen(t->reason) < KTAP_MAX_DIAG);
		FUZZ_CHECK(t->duration_ms >= -1);
	}
}

#endif
