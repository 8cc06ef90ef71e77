/* The kernel command line every machine boots with, for ktb run and ktb
 * boot alike. */
#include "vm_cmdline.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

const char *vm_multipath_arg(const struct machine *m)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < m->disks_count; i++) {
		const struct disk *d = &m->disks[i];
		const struct multipath *mp = d->multipath;

		if (d->bus != DISK_BUS_SCSI || d->paths < 2 || n >= sizeof(buf))
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s:%s:%u:%s",
				      n ? "," : "ktb.mp=", d->id,
				      multipath_mode_name(mp ? mp->mode : MULTIPATH_RQ), d->paths,
				      multipath_no_path_name(mp ? mp->no_path : MULTIPATH_QUEUE));
	}
	return n ? buf : NULL;
}

/* Append " WORD" to *s (WORD may be NULL: nothing). */
static void append_word(char **s, const char *word)
{
	char *n;

	if (!word || !*word)
		return;
	n = xasprintf("%s %s", *s, word);
	free(*s);
	*s = n;
}

/* q35's AHCI controller is always there, with six ports. With no SATA disk
 * declared they are all empty, and libata waits 200 ms per link "for PHYs
 * that react badly" before it finds each down; the kernel waits for that
 * before it starts init (0.3 s of the minimal kernel's 1.6 s boot).
 * nodbdelay skips the wait; it is left out when a SATA disk is there, so
 * the links a scenario uses are brought up as the kernel does by itself. */
static bool has_sata(const struct machine *m)
{
	for (unsigned i = 0; i < m->disks_count; i++)
		if (m->disks[i].bus == DISK_BUS_SATA)
			return true;
	return false;
}

char *vm_kernel_cmdline(const struct machine *m, const char *scenario_args, const char *extra)
{
	char *shares,
	    *s = xstrdup("console=ttyS0 loglevel=5 panic=-1 log_buf_len=8M no_timer_check");

	if (!has_sata(m))
		append_word(&s, VM_CMDLINE_NODBDELAY);

	for (unsigned i = 0; i < m->disks_count; i++) {
		char *n = xasprintf("%s%s%s", s, i ? "," : " ktb.disks=", m->disks[i].id);

		free(s);
		s = n;
	}
	append_word(&s, vm_multipath_arg(m));
	shares = shares_cmdline(m);
	append_word(&s, shares);
	free(shares);
	append_word(&s, scenario_args);
	append_word(&s, extra);
	return s;
}
