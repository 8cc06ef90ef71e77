/* ktb shrink's pure part: a scenario's machine as a JSON tree (each scalar
 * a string, as written), the machines one simplification smaller, and the
 * scenario's text again with another machine in place of its own: the
 * steps, the comments and everything outside `machine:` as they were.
 * Which candidate is valid is the loader's word (scenario_load_buffer),
 * not this file's; docs/debugging.md has the list of simplifications. */
#ifndef KTB_SHRINK_H
#define KTB_SHRINK_H

#include <jansson.h>
#include <stddef.h>

struct shrink_doc {
	char *text; /* the scenario file's text */
	size_t len;
	/* text[from, to) is the machine: a block one from its key's line to
	 * its last value's; a flow one (machine: {cpus: 2}, or the whole file
	 * in flow style) from its key to its closing brace, written back in
	 * flow style there; from == to == len when the file has no machine */
	size_t from, to;
	int flow;
	const char *after; /* written after a flow machine put in ("" or ", ") */
	json_t *machine;   /* an object: {} for a file without one */
};

/* Read text[0..len) (a scenario file) into d. 0, or -EINVAL with why filled
 * (not YAML, not a mapping, a machine that is not a mapping): the loader
 * would refuse the file anyway. d is freed with shrink_doc_free either way. */
int shrink_doc_open(const char *text, size_t len, struct shrink_doc *d, char *why, size_t n);
void shrink_doc_free(struct shrink_doc *d);

/* The machine as the block "machine:\n  key: value\n..." (malloc'd). */
char *shrink_machine_yaml(const json_t *machine);
/* d's text with machine in place of its own (malloc'd, NUL-terminated;
 * *len its length). */
char *shrink_doc_render(const struct shrink_doc *d, const json_t *machine, size_t *len);

/* One simplification of a machine. Candidates of one part (a disk's sector:
 * 4kn to 512e, else to 512n) are alternatives: the first the loader takes
 * is the one tried. */
struct shrink_cand {
	char *part;	 /* what it simplifies: "cpus", "disk data: sector" */
	char *change;	 /* "4kn -> 512e", "removed" */
	json_t *machine; /* the machine with the change */
};

/* Every simplification of machine, the largest first (parts removed, then
 * simplified, then CPUs and memory). named lists the disk ids the steps
 * name (NULL-terminated, may be NULL): such a disk is never removed, only
 * simplified. *out is freed with shrink_cands_free; returns the count. */
size_t shrink_candidates(const json_t *machine, const char *const *named, struct shrink_cand **out);
void shrink_cands_free(struct shrink_cand *c, size_t n);

/* The smallest memory a candidate is given: the image boots in it, with
 * room for a step's own use (the default image's guest takes about 90M). */
#define SHRINK_MIN_MEMORY_MIB 256

/* Whether word occurs in text with no letter or digit next to it: a disk
 * id a step's command names, as in /dev/disk/by-id/virtio-ID (an id inside
 * a longer name counts too: a disk kept for nothing costs less than one
 * wrongly removed). */
int shrink_names_word(const char *text, size_t len, const char *word);

#endif
