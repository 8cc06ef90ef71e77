/* The kernel command line every machine boots with, for ktb run and ktb
 * boot alike. */
#include "vm_cmdline.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk_bus.h"
#include "util.h"

const char *vm_multipath_arg(const struct machine *m)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < m->disks_count; i++) {
		const struct disk *d = &m->disks[i];
		const struct multipath *mp = d->multipath;

		if (disk_bus_info(d->bus)->multipath != DISK_MP_DM || d->paths < 2 ||
		    n >= sizeof(buf))
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

/* Whether some disk's bus needs the guest driver module (its row's kernel
 * options name it). */
static bool disk_needs(const struct machine *m, const char *module)
{
	for (unsigned i = 0; i < m->disks_count; i++) {
		const struct disk_bus_info *bus = disk_bus_info(m->disks[i].bus);

		for (size_t k = 0; k < DISK_BUS_KOPTS_MAX && bus->kopts[k].option; k++)
			if (bus->kopts[k].module && !strcmp(bus->kopts[k].module, module))
				return true;
	}
	return false;
}

static bool uses_virtio_blk(const struct machine *m)
{
	/* the root's disk is virtio-blk too */
	return disk_needs(m, "virtio_blk") || m->root_disk;
}

static bool uses_scsi(const struct machine *m)
{
	return disk_needs(m, "virtio_scsi");
}

static bool uses_sd(const struct machine *m)
{
	return disk_needs(m, "sd_mod");
}

/* q35's AHCI controller is always there, with six ports. With no SATA disk
 * declared they are all empty, and libata waits 200 ms per link "for PHYs
 * that react badly" before it finds each down; the kernel waits for that
 * before it starts init (0.3 s of the minimal kernel's 1.6 s boot).
 * nodbdelay skips the wait; it is left out when a SATA disk (one that
 * needs ahci) is there, so the links a scenario uses are brought up as the
 * kernel does by itself. */
static bool uses_sata(const struct machine *m)
{
	return disk_needs(m, "ahci");
}

static bool uses_nvme(const struct machine *m)
{
	return disk_needs(m, "nvme");
}

static bool uses_balloon(const struct machine *m)
{
	return m->balloon != NULL;
}

static bool uses_share(const struct machine *m, bool virtiofs)
{
	for (unsigned i = 0; i < m->shares_count; i++)
		if (m->shares[i].virtiofs == virtiofs)
			return true;
	return false;
}

static bool uses_9p(const struct machine *m)
{
	return uses_share(m, false) || m->root;
}

static bool uses_root(const struct machine *m)
{
	return m->root || m->root_disk;
}

/* The Debian root's disk is ext4: init mounts it before anything else. */
static bool uses_root_disk(const struct machine *m)
{
	return m->root_disk != NULL;
}

static bool uses_virtiofs(const struct machine *m)
{
	return uses_share(m, true);
}

static bool uses_dm_multipath(const struct machine *m)
{
	return vm_multipath_arg(m) != NULL;
}

static bool uses_bochs(const struct machine *m)
{
	return m->display == DISPLAY_BOCHS || m->display == DISPLAY_VGA;
}

static bool uses_virtio_gpu(const struct machine *m)
{
	return m->display == DISPLAY_VIRTIO;
}

/* A file system: the kernel loads it when something mounts one (its
 * fs-NAME alias, through modprobe), so no machine needs it at boot. */
static bool on_mount(const struct machine *m)
{
	(void)m;
	return false;
}

/* The default image's drivers for parts a machine may lack, each with the
 * test for the part. Loading them all costs the minimal kernel a second of
 * its boot under TCG (the display's DRM stack most of it); a machine without
 * the part boots without them (ktb.nomod=, guest/init.c). A module not named
 * here (the agent's port, the power button, a recipe's own) is always
 * loaded, and a left-out one is still there for modprobe, which the kernel
 * also runs by itself (a dm target, a file system). */
static const struct {
	const char *module;
	bool (*used)(const struct machine *m);
} optional_modules[] = {
	{ "virtio_blk", uses_virtio_blk },
	{ "virtio_scsi", uses_scsi },
	{ "sd_mod", uses_sd },
	{ "nvme", uses_nvme },
	{ "ahci", uses_sata },
	{ "virtio_balloon", uses_balloon },
	{ "9pnet_virtio", uses_9p },
	{ "9p", uses_9p },
	{ "virtiofs", uses_virtiofs },
	{ "overlay", uses_root },
	{ "ext4", uses_root_disk },
	{ "dm_multipath", uses_dm_multipath },
	{ "dm_round_robin", uses_dm_multipath },
	{ "dm_queue_length", uses_dm_multipath },
	{ "dm_service_time", uses_dm_multipath },
	{ "bochs", uses_bochs },
	{ "virtio_gpu", uses_virtio_gpu },
	{ "xfs", on_mount },
};

char *vm_nomod_arg(const struct machine *m)
{
	char *s = NULL, *n;

	for (size_t i = 0; i < sizeof(optional_modules) / sizeof(optional_modules[0]); i++) {
		if (optional_modules[i].used(m))
			continue;
		n = xasprintf("%s%s", s ? s : "ktb.nomod=", optional_modules[i].module);
		free(s);
		s = n;
		n = xasprintf("%s,", s);
		free(s);
		s = n;
	}
	if (s)
		s[strlen(s) - 1] = '\0'; /* the last comma */
	return s;
}

/* Whether the word ktb.nomod= is among the caller's words (theirs wins). */
static bool has_nomod(const char *words)
{
	const char *p = words;

	while (p && (p = strstr(p, "ktb.nomod=")) != NULL) {
		if (p == words || p[-1] == ' ')
			return true;
		p++;
	}
	return false;
}

char *vm_kernel_cmdline(const struct machine *m, const char *scenario_args, const char *extra)
{
	char *shares, *s = xstrdup("console=ttyS0 loglevel=5 panic=-1 log_buf_len=8M "
				   "no_timer_check cryptomgr.notests " VM_CMDLINE_NOKDFTEST);

	if (!uses_sata(m))
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
	if (m->root)
		append_word(&s, SHARE_ROOT_ARG);
	else if (m->root_disk)
		append_word(&s, SHARE_ROOT_DISK_ARG);
	if (!has_nomod(scenario_args) && !has_nomod(extra)) {
		char *nomod = vm_nomod_arg(m);

		append_word(&s, nomod);
		free(nomod);
	}
	append_word(&s, scenario_args);
	append_word(&s, extra);
	return s;
}
