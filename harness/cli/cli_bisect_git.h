/* ktb bisect --git, implemented by cli_bisect_git.c: the endpoints checked
 * out and judged, then `git bisect run` with `ktb bisect --git-step`. Called
 * by cli_bisect.c only. */
#ifndef KTB_CLI_BISECT_GIT_H
#define KTB_CLI_BISECT_GIT_H

#include <jansson.h>

#include "cli_bisect_session.h"

/* --git: check DIR, --good and --bad (exit 2 when wrong); bisect; one
 * `git bisect run` step (the internal --git-step mode). */
int bisect_git_validate(struct bisect_cli *c);
int bisect_git_main(struct session *s, json_t *j);
int bisect_git_step(struct session *s);

#endif
