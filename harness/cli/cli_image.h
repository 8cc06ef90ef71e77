/* ktb image build: the guest image for a recipe, built or found in the
 * cache. Returns the exit code of docs/cli.md. */
#ifndef KTB_CLI_IMAGE_H
#define KTB_CLI_IMAGE_H

#include "cli.h"

extern const struct cli_command cli_image_command;

#endif
