/* Does a regular expression match every text? A check whose pattern does
 * passes on any output, none included, so the loader refuses it. Decided
 * on glibc's own semantics, not by trying examples: each character set of
 * the pattern is glibc's (the atom compiled alone and tried on every
 * byte), and the pattern, anchors included, is an automaton searched for a
 * text in which no match is found. */
#ifndef KTB_REGEX_ANY_H
#define KTB_REGEX_ANY_H

#include <stdbool.h>

/* Whether regexec() of pattern, compiled with REG_EXTENDED | cflags (0 or
 * REG_NEWLINE), finds a match in every text: every string of the bytes
 * 1..255, or with lines every one without a newline (a console line).
 * 1 when it does; 0 when some text has no match, or when that cannot be
 * told (back-references, an automaton past the analysis's limits: never a
 * refusal on a guess); -EINVAL when the pattern does not compile. */
int regex_matches_any(const char *pattern, int cflags, bool lines);

#endif
