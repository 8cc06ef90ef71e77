/* What every subcommand shares: the name its messages start with. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "util.h"

const char *cli_name(void)
{
	return msg_name();
}

void cli_name_set(const char *name)
{
	msg_name_set(name);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_verr(fmt, ap);
	va_end(ap);
}

void cli_usage_hint(void)
{
	cli_err("'ktb help %s' lists the options", msg_name());
}
