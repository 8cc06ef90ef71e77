#include "scenario_error.h"

#include <stdio.h>

void scenario_error_format(const struct scenario_error *e, char *buf, size_t len)
{
	size_t n = 0;

#define PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	PUT("%s", e->file);
	if (e->line > 0)
		PUT(":%d", e->line);
	if (e->line > 0 && e->col > 0)
		PUT(":%d", e->col);
	if (e->field[0])
		PUT("%s%s", n ? ": " : "", e->field);
	PUT("%s%s", n ? ": " : "", e->msg);
#undef PUT
}
