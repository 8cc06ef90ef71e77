/* ktb boot: an interactive VM with a scenario's hardware or hardware given
 * by flags. Returns the exit code of docs/cli.md. */
#ifndef KTB_CLI_BOOT_H
#define KTB_CLI_BOOT_H

int cli_boot(int argc, char **argv);

#endif
