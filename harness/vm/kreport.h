/* Kernel reports in console text: each oops, BUG, WARNING, KASAN, KFENCE or
 * UBSAN report, lockdep splat, hung task, RCU stall, lockup, OOM kill or
 * panic becomes one finding, with a kind, the title a person would search
 * for, its lines, its stack and a signature that stays the same from run to
 * run. Pure logic over a string: docs/debugging.md has the rules. */
#ifndef KTB_KREPORT_H
#define KTB_KREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"

/* Limits against hostile input: a guest can print anything, as much as it
 * likes. A report keeps at most KREPORT_MAX_FRAMES frames and
 * KREPORT_MAX_TEXT bytes of text (a line that would not fit ends it); a line
 * is read up to KREPORT_MAX_LINE bytes (the kernel's own records are
 * shorter); a scan keeps KREPORT_MAX_REPORTS reports and counts the rest. */
#define KREPORT_MAX_FRAMES 64
#define KREPORT_MAX_TEXT 65536
#define KREPORT_MAX_LINE 2048
#define KREPORT_MAX_REPORTS 100

struct kreport_frame {
	char *func;    /* as printed, compiler suffix included: "foo.cold" */
	char *off;     /* "0x1a/0x2b" */
	char *module;  /* "nvme", or NULL for the kernel itself */
	bool reliable; /* false for the unwinder's guesses, the "? " frames */
	bool irq;      /* inside <IRQ>, <SOFTIRQ> or <NMI> */
};

struct kreport {
	/* "panic", "oops", "bug", "kasan", "ubsan", "kfence", "lockdep",
	 * "warning", "hung task", "rcu stall", "soft lockup", "hard lockup" or
	 * "oom kill" (a static string) */
	const char *kind;
	char *title;		      /* "WARNING in nvme_setup_io_queues" */
	char *text;		      /* the report's lines, each ending in "\n" */
	size_t first_line, last_line; /* 1-based, in the scanned text */
	struct kreport_frame *frames; /* the first stack, RIP lines included */
	size_t nframes;
	bool panicked; /* a panic ended this report (its lines are in text) */
	/* The text ended inside its head or first stack: the kernel was still
	 * printing it (a snapshot taken mid-report), so its title may lack
	 * what the rest would have said ("BUG: soft lockup" without "in ...") */
	bool cut;
	/* sha256 of the kind, the title and the stack's function names */
	char signature[SHA256_HEX_LEN + 1];
};

struct kreport_list {
	struct kreport *items; /* in the order of the text */
	size_t count;
	size_t dropped; /* reports past KREPORT_MAX_REPORTS, only counted */
};

/* Every report in text[0..len) (any bytes: NULs, no final newline) into
 * *out, which the caller frees with kreport_list_free (also after an
 * error). 0, or -EINVAL for a NULL out, or a NULL text with len > 0. */
int kreport_scan(const char *text, size_t len, struct kreport_list *out);
void kreport_list_free(struct kreport_list *l);

/* Whether text[0..len) ends inside a report's head or first stack (its
 * last report is cut, as above): a snapshot taken while the kernel was
 * printing one. Its whole lines only: an unfinished last line is left out. */
bool kreport_cut(const char *text, size_t len);

/* The kind of report one console line begins ("panic", "oops", "warning",
 * ... as struct kreport's kind; the lines that only continue an open
 * report, such as "Oops: ", count), or NULL: what the console watches for
 * as lines arrive, by the same rules as kreport_scan. The printk prefix
 * is skipped as there; line is NUL-terminated and may hold any bytes. */
const char *kreport_line_kind(const char *line);

#endif
