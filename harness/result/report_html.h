/* The run as one HTML page a browser opens offline: a filterable results
 * table, then each scenario's steps, metrics, console tail and timeline.
 * Everything it shows from the guest is escaped; nothing is fetched. */
#ifndef KTB_REPORT_HTML_H
#define KTB_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "result.h"

/* Lines of console.log shown for a scenario whose result kept no tail. */
#define HTML_CONSOLE_LINES 30
/* Step output beyond this many bytes is cut from the front. */
#define HTML_OUTPUT_MAX (64 * 1024)
/* A timeline.svg larger than this is named, not embedded. */
#define HTML_SVG_MAX (4 * 1024 * 1024)

/* The page, to f: 0 or -EIO. Reads console.log and timeline.svg from each
 * scenario's artifacts folder when they are there. */
int report_html(const struct run_result *r, FILE *f);

/* n bytes of s as HTML text, safe both in element content and inside a
 * double- or single-quoted attribute: & < > " ' become references, bytes
 * that are not UTF-8 and Unicode noncharacters become U+FFFD, terminal
 * escape sequences, NUL and other control characters (but tab, LF, CR) go. */
void html_escape(FILE *f, const char *s, size_t n);

/* The page's inline style and script, whose SHA-256 hashes its
 * Content-Security-Policy names (that policy also allows data: images and
 * nothing else): exposed for the tests. */
const char *report_html_script(void);
const char *report_html_style(void);

#endif
