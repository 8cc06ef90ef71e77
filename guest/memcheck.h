/* The ktb-mem page pattern and the kernel counters it reports: pure
 * functions that the guest tool and the unit tests share. A page's words
 * are all one tag derived from its address and the seed, except word 0,
 * which holds the page index: a lost, stale, zeroed or misplaced page reads
 * back wrong, yet zswap can still compress the page (and never takes it for
 * a same-filled one). */
#ifndef KTB_GUEST_MEMCHECK_H
#define KTB_GUEST_MEMCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MEMCHECK_PAGE 4096u

/* The tag of the page at addr (its virtual address) for seed. */
uint64_t memcheck_tag(uint64_t seed, uint64_t addr);

/* Fill / verify one page (MEMCHECK_PAGE bytes at p, index idx). */
void memcheck_fill(void *p, uint64_t idx, uint64_t seed);
bool memcheck_ok(const void *p, uint64_t idx, uint64_t seed);
/* The check behind it, for any tag: word 0 is idx, every other word tag
 * (ktb-mem pagecache tags a file's pages by offset, not address). */
bool memcheck_page_ok(const uint64_t *w, uint64_t idx, uint64_t tag);

/* Counters from /proc/vmstat text: true with the value of name in *out, or
 * false when there is no such line (CONFIG_VM_EVENT_COUNTERS off drops the
 * event counters: pswpin, pswpout, pgmajfault), never a 0 for nothing. */
bool memcheck_vmstat(const char *text, const char *name, uint64_t *out);

/* /proc/meminfo text: the value of "Name:" in kB, or 0 when absent. */
uint64_t memcheck_meminfo_kb(const char *text, const char *name);

/* One line of /proc/pressure/memory ("some" or "full"). */
struct psi_line {
	double avg10, avg60, avg300;
	uint64_t total_us;
};

/* Parse the kind line ("some"/"full") of a PSI file. 0 or -EINVAL. */
int memcheck_psi(const char *text, const char *kind, struct psi_line *out);

/* "name: N kB" of /proc/meminfo: true with N in *kb; false when no line
 * has the name (then the caller reports null, not 0). */
bool memcheck_meminfo_line(const char *text, const char *name, uint64_t *kb);

/* Free blocks of 2M and more in /proc/buddyinfo text, in 2M units (order 9
 * counts one, order 10 two), summed over every zone line; false when no
 * line has the 11 orders. */
bool memcheck_buddy_free_2m(const char *text, uint64_t *n);
/* compact: write compact_memory once more after rounds passes (max at
 * most), the free 2M blocks before the last pass and now, need blocks for
 * the try? The first pass unless the try is covered; after it, only while
 * the last pass built blocks: one that built none is the kernel saying it
 * made no more progress. */
bool memcheck_compact_again(int rounds, int max, uint64_t before, uint64_t now, uint64_t need);
/* The percent of a try of try_2m huge pages that free_2m free 2M blocks can
 * serve, at most 100 (0 for an empty try). */
uint64_t memcheck_huge_pct_possible(uint64_t free_2m, uint64_t try_2m);

/* A size for ktb-mem: "256M" (bytes) or "1.5x" (that many times
 * memtotal). 0, -EINVAL or -ERANGE. */
int memcheck_size(const char *s, uint64_t memtotal, uint64_t *out);

/* How many percent fewer writes after than before (0 when before is 0;
 * negative when after is more). */
int64_t memcheck_saved_pct(uint64_t before, uint64_t after);

/* The AnonHugePages (kB) of the /proc/self/smaps entry of f that starts at
 * addr: 0, or -ENOENT when there is no such entry or it has no such line. */
int memcheck_smaps_huge_kb(FILE *f, uintptr_t addr, uint64_t *kb);

/* ktb-mem's error as its JSON report on stdout, {"op": op, "error": msg},
 * so a step always has JSON, and "ktb-mem OP: msg" on stderr. Returns 1,
 * the exit status. */
int memcheck_fail_json(const char *op, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A whole number option (decimal, 0x hex, 0 octal) into *v: 0, or -EINVAL
 * for anything else, a sign included, or one out of range. */
int memcheck_u64(const char *s, uint64_t *v);

#endif
