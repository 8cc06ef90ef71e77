/* libFuzzer target: any bytes as the JUnit XML a junit step reads (a
 * guest command's output or a file it left). junit_parse must return 0
 * with a document inside the limits of ktap.h, or -EINVAL with a message,
 * and leave nothing behind. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_suite.h"
#include "junit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktap_doc doc;
	struct ktap_error err;
	int ret = junit_parse((const char *)data, size, &doc, &err);

	if (ret == 0) {
		fuzz_suite_doc(&doc);
	} else {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(err.msg[0] && memchr(err.msg, '\0', sizeof(err.msg)));
		FUZZ_CHECK(err.line >= 0);
		FUZZ_CHECK(!doc.tests && !doc.count);
	}
	ktap_doc_free(&doc);
	return 0;
}
