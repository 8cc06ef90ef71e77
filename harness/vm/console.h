/* Guest console capture: splits the byte stream into lines, writes them to
 * console.log, keeps a tail for reports, and flags kernel oops, panic, BUG,
 * WARNING and hung tasks the moment a line shows one. */
#ifndef KTB_CONSOLE_H
#define KTB_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct console;

/* log may be NULL. tail_lines: how many lines to keep for console_tail(). */
struct console *console_new(FILE *log, size_t tail_lines);
void console_free(struct console *c);

/* Feed raw bytes. Returns 1 when this call saw the first fatal line, else 0. */
int console_feed(struct console *c, const char *buf, size_t len);
/* Flush a pending partial line (at end of stream). */
void console_flush(struct console *c);

/* First fatal line seen ("Kernel panic - not syncing: ..."), or NULL. */
const char *console_fatal(const struct console *c);
/* What kind, as kreport names it ("panic", "oops", "warning", "hung task",
 * "rcu stall", ...; kreport.h), or NULL. */
const char *console_fatal_kind(const struct console *c);

/* Classify one line: NULL when harmless, else the kind as above: the first
 * line of any kernel report but an OOM kill (kreport_line_kind). */
const char *console_classify(const char *line);

/* True once a line containing needle (plain substring) has been seen
 * since the last console_reset_match(); for markers such as KTB_READY_MARKER.
 * Looks at everything fed (up to the newest 64 MiB), partial line included. */
bool console_seen(const struct console *c, const char *needle);
/* From now on console_seen() and console_matched() look only at new output. */
void console_reset_match(struct console *c);
/* Register a POSIX extended regex for wait steps (replacing any earlier
 * one); console_matched() says whether a complete line fed after
 * registration matched. 0 or -EINVAL for a bad regex. */
int console_watch(struct console *c, const char *regex);
bool console_matched(const struct console *c);

/* Whether the newest output ends inside a kernel report's head or stack
 * (kreport_cut): the kernel is printing one. */
bool console_report_cut(const struct console *c);
/* Bytes fed so far, all of them: grows while the guest prints. */
unsigned long long console_bytes(const struct console *c);

/* The last lines (at most tail_lines of console_new, plus the unfinished
 * one) as one malloc'd string, each ending in "\n" (caller frees). */
char *console_tail(const struct console *c, size_t max_lines);

#endif
