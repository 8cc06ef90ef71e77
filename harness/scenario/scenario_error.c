#include "scenario_error.h"

#include <stdio.h>
#include <string.h>

unsigned scenario_error_count(const struct scenario_error *e)
{
	return e->count ? e->count : e->msg[0] != '\0';
}

static unsigned kept(const struct scenario_error *e)
{
	unsigned n = scenario_error_count(e);

	return n < SCENARIO_MAX_ERRORS ? n : SCENARIO_MAX_ERRORS;
}

static void at(const struct scenario_error *e, unsigned i, int *line, int *col, const char **field,
	       const char **msg)
{
	if (!i) {
		*line = e->line, *col = e->col, *field = e->field, *msg = e->msg;
		return;
	}
	*line = e->more[i - 1].line, *col = e->more[i - 1].col;
	*field = e->more[i - 1].field, *msg = e->more[i - 1].msg;
}

void scenario_error_vadd(struct scenario_error *e, int line, int col, const char *field,
			 const char *fmt, va_list ap)
{
	unsigned n = scenario_error_count(e), k = kept(e);
	char msg[sizeof(e->msg)], fld[sizeof(e->field)];
	const char *f2, *m2;
	int l2, c2;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(fld, sizeof(fld), "%s", field ? field : "");
	for (unsigned i = 0; i < k; i++) {
		at(e, i, &l2, &c2, &f2, &m2);
		if (l2 == line && c2 == col && !strcmp(f2, fld) && !strcmp(m2, msg))
			return;
	}
	if (!n) {
		e->line = line, e->col = col;
		memcpy(e->field, fld, sizeof(fld));
		memcpy(e->msg, msg, sizeof(msg));
	} else if (n < SCENARIO_MAX_ERRORS) {
		struct scenario_error_at *m = &e->more[n - 1];

		m->line = line, m->col = col;
		memcpy(m->field, fld, sizeof(fld));
		memcpy(m->msg, msg, sizeof(msg));
	}
	e->count = n + 1;
}

void scenario_error_format_nth(const struct scenario_error *e, unsigned i, char *buf, size_t len)
{
	const char *field, *msg;
	int line, col;
	size_t n = 0;

	at(e, i < kept(e) ? i : 0, &line, &col, &field, &msg);
#define PUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	PUT("%s", e->file);
	if (line > 0)
		PUT(":%d", line);
	if (line > 0 && col > 0)
		PUT(":%d", col);
	if (field[0])
		PUT("%s%s", n ? ": " : "", field);
	PUT("%s%s", n ? ": " : "", msg);
#undef PUT
}

void scenario_error_format(const struct scenario_error *e, char *buf, size_t len)
{
	scenario_error_format_nth(e, 0, buf, len);
}

void scenario_error_print(FILE *f, const char *prefix, const struct scenario_error *e)
{
	unsigned n = scenario_error_count(e), k = kept(e);
	char line[sizeof(e->file) + sizeof(e->field) + sizeof(e->msg) + 32];

	for (unsigned i = 0; i < (k ? k : 1); i++) {
		scenario_error_format_nth(e, i, line, sizeof(line));
		fprintf(f, "%s%s\n", prefix, line);
	}
	if (n > k)
		fprintf(f, "%s%s: and %u more error%s (the first %u are shown)\n", prefix, e->file,
			n - k, n - k == 1 ? "" : "s", k);
}
