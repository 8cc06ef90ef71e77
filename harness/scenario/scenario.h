/* Scenario files: YAML mapped onto the structs of scenario_types.h by a
 * libcyaml schema (schema.c), then checked: the document and its errors
 * (load.c), the machine and the scenario's own keys (scenario.c), the
 * steps (step_kind.c and each kind's kind_FILE.c). Every error names file,
 * line, column and field. */
#ifndef KTB_SCENARIO_H
#define KTB_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario_error.h"
#include "scenario_types.h"

/* Is name one of the guest.root names (GUEST_ROOT_*)? */
bool guest_root_name_valid(const char *name);

/* Load and check a scenario. 0, or -EINVAL (bad input, err filled) or -errno
 * (cannot read the file, err filled). */
int scenario_load(const char *path, struct scenario **out, struct scenario_error *err);
/* The same from len bytes at data (need not be NUL-terminated); path names
 * the file in messages and is the folder relative base images resolve in. */
int scenario_load_buffer(const char *path, const char *data, size_t len, struct scenario **out,
			 struct scenario_error *err);
void scenario_free(struct scenario *s);

/* Step kind name ("run", "wait", "qmp"); "?" for a value out of range. */
const char *step_kind_name(enum step_kind k);
/* The machine parts (enum step_need flags) a step of kind k drives. */
unsigned step_kind_needs(enum step_kind k);
/* The metric a run step's metrics entry sets: the field path with '.' as
 * '_' ("system.latency_ms" sets system_latency_ms). Malloc'd. */
char *step_metric_name(const char *path);

#endif
