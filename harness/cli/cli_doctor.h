/* ktb doctor: what is installed, whether KVM really works, what to
 * apt-get; and the version ktb --version prints. */
#ifndef KTB_CLI_DOCTOR_H
#define KTB_CLI_DOCTOR_H

int cli_doctor(int argc, char **argv);
/* "0.1.0": the project's version. */
const char *cli_version(void);

#endif
