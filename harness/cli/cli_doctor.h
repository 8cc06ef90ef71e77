/* ktb doctor: what is installed (packages.txt's programs and packages, with
 * the apt-get line for what is missing) and what the KVM and virtiofsd
 * probes found; and the version ktb --version prints. */
#ifndef KTB_CLI_DOCTOR_H
#define KTB_CLI_DOCTOR_H

#include <stddef.h>

#include "cli.h"

extern const struct cli_command cli_doctor_command;
/* "0.1.0": the project's version. */
const char *cli_version(void);

/* packages.txt of the source tree ktb was built from, as text (generated
 * into the build by harness/CMakeLists.txt). */
extern const char ktb_packages_txt[];

/* One row of packages.txt: package, suite|test, the commands it brings
 * ("" for -), what uses it. */
struct package_row {
	char *package, *used_for, *commands, *what;
};

/* The rows of text, read as bootstrap reads them: lines that are not
 * comments and have at least two columns. 0; free with packages_free. */
int packages_parse(const char *text, struct package_row **rows, size_t *n);
void packages_free(struct package_row *rows, size_t n);

#endif
