/* libFuzzer target: any bytes as blktests' results a blktests step reads
 * from the guest: the results folder's dump, then (after a 0x1e) check's
 * own output, where the reasons of tests not run are. blktests_parse must
 * return 0 with a document inside the limits of ktap.h, or -EINVAL with a
 * message and a line, and leave nothing behind. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_suite.h"
#include "junit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, FUZZ_SEP, size);
	size_t dlen = sep ? (size_t)(sep - data) : size;
	char *check = NULL;
	struct ktap_doc doc;
	struct ktap_error err;
	int ret;

	if (sep) {
		check = malloc(size - dlen);
		memcpy(check, sep + 1, size - dlen - 1);
		check[size - dlen - 1] = '\0';
	}
	ret = blktests_parse((const char *)data, dlen, check, &doc, &err);
	if (ret == 0) {
		fuzz_suite_doc(&doc);
		/* only a failure keeps its reason and exit status */
		for (size_t i = 0; i < doc.count; i++)
			FUZZ_CHECK(doc.tests[i].status == ST_FAIL || !doc.tests[i].diag);
	} else {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(err.msg[0] && memchr(err.msg, '\0', sizeof(err.msg)));
		FUZZ_CHECK(err.line > 0);
		FUZZ_CHECK(!doc.tests && !doc.count);
	}
	ktap_doc_free(&doc);
	free(check);
	return 0;
}
