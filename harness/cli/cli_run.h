/* ktb run: scenarios booted and judged, reports written. argv[0] is
 * "run"; returns the exit code of docs/cli.md. */
#ifndef KTB_CLI_RUN_H
#define KTB_CLI_RUN_H

int cli_run(int argc, char **argv);

#endif
