/* What every subcommand shares: the name its messages start with. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

static const char *current = "";

const char *cli_name(void)
{
	return current;
}

void cli_name_set(const char *name)
{
	current = name ? name : "";
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, *current ? "ktb %s: " : "ktb: ", current);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_usage_hint(void)
{
	cli_err("'ktb help %s' lists the options", current);
}
