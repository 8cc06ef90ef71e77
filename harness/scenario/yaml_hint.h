/* YAML syntax errors: libyaml's words, and what they usually mean in a
 * scenario file (a tab, a ": " in a value, a line indented wrong, an
 * escape in double quotes, a quote never closed), found in the text
 * around the error (yaml_hint.c). */
#ifndef KTB_YAML_HINT_H
#define KTB_YAML_HINT_H

#include <stddef.h>
#include <yaml.h>

/* The hint for parser p's error over data (len bytes) into h (hl bytes);
 * "" when none fits. */
void yaml_syntax_hint(const char *data, size_t len, const yaml_parser_t *p, char *h, size_t hl);

#endif
