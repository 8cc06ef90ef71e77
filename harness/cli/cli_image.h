/* ktb image build: the guest image for a recipe, built or found in the
 * cache. Returns the exit code of docs/cli.md. */
#ifndef KTB_CLI_IMAGE_H
#define KTB_CLI_IMAGE_H

int cli_image(int argc, char **argv);

#endif
