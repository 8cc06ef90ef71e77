/* What the guest must see of a machine: the machine model turned into a
 * list of expected facts, one per thing the kernel shows (CPUs online,
 * MemTotal, each node's CPUs and memory, each disk's geometry, ...). The
 * machine step compares them with what `ktb-probe machine` prints; this file
 * knows the model and where the probe's document shows each fact, never how
 * the comparison is made. */
#ifndef KTB_HW_EXPECTED_H
#define KTB_HW_EXPECTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* One fact. Either want holds the expected value as JSON text ("2",
 * "[0,1]", "\"host-managed\"", "true"), or want is "" and the value is an
 * integer in min..max (memory present in KiB, less what the firmware keeps). */
struct machine_fact {
	enum machine_part part;
	char what[96]; /* for people: "CPUs online", "node 1 memory (MB)" */
	char path[96]; /* in the probe's document: "cpus.online", "disks.id=data.size_bytes" */
	char want[192];
	int64_t min, max;
	bool presence; /* when this one is absent, skip the others under its path's parent */
};

struct machine_facts {
	struct machine_fact *v;
	size_t n, cap;
};

/* The part's name as scenarios write it in machine.unverified ("cpus"). */
const char *machine_part_name(enum machine_part p);

/* Every fact of validated machine m, whatever m->unverified says (the
 * caller leaves those parts out and reports them as not checked).
 * 0 or -ENOMEM. */
int machine_expected_facts(const struct machine *m, struct machine_facts *out);
void machine_facts_free(struct machine_facts *f);

#endif
