/* Kernel requirements: what each part of a scenario needs of the guest
 * kernel, as tables keyed by the model's own names (hw/names.h), the step
 * kinds (each kind's row, step_kind.h), and the walk that turns a scenario into
 * the list. Option names and what Debian's 6.1 kernel sets them to are
 * listed in docs/own-kernel.md; tests/unit/test_kreq.c pins each scenario
 * of the library to its options. */
#include "kreq.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk_bus.h"
#include "sleep.h"
#include "step_kind.h"

/* kernel.requires names no module: "" says =m counts, whatever the module
 * (an option given as CONFIG_X=y has none, NULL: it must be built in). */
#define KREQ_ANY_MODULE ""

/* ---- the tables ---- */

/* What every guest needs, whatever the scenario: the console the harness
 * reads, the initramfs with init and the tools, what guest/init.c mounts,
 * and the guest agent's virtio-serial port. */
static const struct {
	struct kreq_opt o;
	const char *why;
} base[] = {
	{ { "CONFIG_SERIAL_8250", NULL }, "the console the harness reads (console=ttyS0)" },
	{ { "CONFIG_SERIAL_8250_CONSOLE", NULL }, "the console the harness reads (console=ttyS0)" },
	{ { "CONFIG_BLK_DEV_INITRD", NULL },
	  "the guest's initramfs (init, the tools, the modules)" },
	{ { "CONFIG_BINFMT_ELF", NULL }, "init and the guest tools are ELF programs" },
	{ { "CONFIG_FUTEX", NULL }, "the guest agent's threads (glibc)" },
	{ { "CONFIG_PROC_FS", NULL }, "init mounts /proc" },
	{ { "CONFIG_SYSFS", NULL }, "init mounts /sys; the guest tools read it" },
	{ { "CONFIG_DEVTMPFS", NULL }, "init mounts devtmpfs on /dev" },
	{ { "CONFIG_TMPFS", NULL }, "init mounts /run and /tmp as tmpfs" },
	{ { "CONFIG_UNIX98_PTYS", NULL }, "init mounts devpts on /dev/pts" },
	{ { "CONFIG_UNIX", "unix" }, "the guest agent (unix sockets)" },
	{ { "CONFIG_PCI", NULL }, "q35's devices are PCI" },
	{ { "CONFIG_ACPI", NULL }, "powering the guest off (q35's ACPI)" },
	{ { "CONFIG_VIRTIO_MENU", NULL }, "the guest agent's virtio-serial port" },
	{ { "CONFIG_VIRTIO_PCI", "virtio_pci" }, "the guest agent's virtio-serial port" },
	{ { "CONFIG_VIRTIO_CONSOLE", "virtio_console" },
	  "the guest agent's virtio-serial port (org.qemu.guest_agent.0)" },
};

/* The minimal kernel's base (ktb kconfig --minimal): what a kernel made
 * with `make tinyconfig` lacks, beyond the base needs above and what the
 * scenarios need, for the guest's programs (busybox, glibc, qemu-ga, init)
 * and the harness to work, and the choices that make it quick to boot
 * under TCG. Found by building tinyconfig plus these and booting the
 * library on it (docs/own-kernel.md); menus and what a wanted option
 * depends on are listed, as merge_config.sh enables nothing by itself. */
/* An option with `with` set is the menu or dependency of that one option
 * of the scenarios' rows: listed only when that option is (alone it would
 * not be taken: its own dependencies come with the row). */
static const struct {
	const char *option, *why, *with;
} minimal[] = {
	{ "CONFIG_64BIT", "the guest's programs are x86-64 (tinyconfig on x86 is 32-bit)", NULL },
	{ "CONFIG_SMP", "machines with more than one cpu", NULL },
	{ "CONFIG_KERNEL_GZIP", "tinyconfig's xz bzImage unpacks slowly under TCG", NULL },
	{ "CONFIG_SLUB",
	  "the default allocator (tinyconfig's SLOB lacks what the memory steps read)", NULL },
	{ "CONFIG_PRINTK", "kernel messages on the console: wait steps and the timeline read them",
	  NULL },
	{ "CONFIG_PRINTK_TIME",
	  "kernel messages on the console: wait steps and the timeline read them", NULL },
	{ "CONFIG_BUG", "a kernel BUG is reported, not silent", NULL },
	{ "CONFIG_MULTIUSER", "glibc programs and busybox (uids, setgroups)", NULL },
	{ "CONFIG_EPOLL", "the guest agent's main loop (glib)", NULL },
	{ "CONFIG_SIGNALFD", "the guest agent's main loop (glib)", NULL },
	{ "CONFIG_TIMERFD", "the guest agent's main loop (glib)", NULL },
	{ "CONFIG_EVENTFD", "the guest agent's main loop (glib)", NULL },
	{ "CONFIG_SHMEM", "tmpfs on /run, /tmp and /dev/shm", NULL },
	{ "CONFIG_AIO", "glibc programs", NULL },
	{ "CONFIG_FILE_LOCKING", "the guest agent's pid file and glibc programs", NULL },
	{ "CONFIG_POSIX_TIMERS", "glibc's clocks and timers", NULL },
	{ "CONFIG_ADVISE_SYSCALLS", "madvise: the memory tools (ktb-mem)", NULL },
	{ "CONFIG_MEMBARRIER", "glibc programs", NULL },
	{ "CONFIG_FHANDLE", "glibc programs", NULL },
	{ "CONFIG_PROC_SYSCTL", "/proc/sys: the memory and power steps write there", NULL },
	{ "CONFIG_TTY", "the console the harness reads (console=ttyS0)", NULL },
	{ "CONFIG_BINFMT_SCRIPT", "shell scripts in run steps", NULL },
	{ "CONFIG_BLOCK", "disks", NULL },
	{ "CONFIG_BLK_DEV", "disks", NULL },
	{ "CONFIG_DEBUG_FS", "init mounts debugfs", NULL },
	{ "CONFIG_NET", "unix sockets (the guest agent)", NULL },
	{ "CONFIG_PCI_MSI", "virtio and NVMe interrupts", NULL },
	{ "CONFIG_PCIEPORTBUS", "q35's PCIe root ports (disks hot-plugged for path failures)",
	  NULL },
	{ "CONFIG_HOTPLUG_PCI", "a disk path failed and restored (device_del, device_add)", NULL },
	{ "CONFIG_HOTPLUG_PCI_ACPI", "a disk path failed and restored (q35's ACPI hot-plug)",
	  NULL },
	{ "CONFIG_HOTPLUG_PCI_PCIE", "a disk path failed and restored (PCIe native hot-plug)",
	  NULL },
	{ "CONFIG_HPET_TIMER", "q35's HPET, a clock that TCG keeps steady", NULL },
	{ "CONFIG_HIGH_RES_TIMERS", "timers as precise as the steps measure", NULL },
	{ "CONFIG_NO_HZ_IDLE", "idle cpus stop the tick (idle accounting, quick TCG)", NULL },
	{ "CONFIG_HYPERVISOR_GUEST", "CONFIG_PVH depends on it", "CONFIG_PVH" },
	{ "CONFIG_SCSI_LOWLEVEL", "CONFIG_SCSI_VIRTIO depends on it", "CONFIG_SCSI_VIRTIO" },
	{ "CONFIG_INPUT", "CONFIG_KEYBOARD_ATKBD depends on it", "CONFIG_KEYBOARD_ATKBD" },
	{ "CONFIG_INPUT_KEYBOARD", "CONFIG_KEYBOARD_ATKBD depends on it", "CONFIG_KEYBOARD_ATKBD" },
	{ "CONFIG_SERIO", "CONFIG_SERIO_I8042 depends on it", "CONFIG_SERIO_I8042" },
	{ "CONFIG_RTC_CLASS", "the guest's clock at boot", NULL },
	{ "CONFIG_CRYPTO", "CONFIG_ZSWAP depends on it", "CONFIG_ZSWAP" },
	{ "CONFIG_X86_64_ACPI_NUMA", "NUMA nodes from q35's ACPI SRAT", "CONFIG_NUMA" },
	{ "CONFIG_DM_MULTIPATH_QL", "dm-multipath's queue-length path selector",
	  "CONFIG_DM_MULTIPATH" },
	{ "CONFIG_DM_MULTIPATH_ST", "dm-multipath's service-time path selector",
	  "CONFIG_DM_MULTIPATH" },
};

/* dm-multipath, either mode: the bio-based target is the same module
 * (dm-mpath.c, queue_mode bio); the path selector guest/mpath.c asks for,
 * round-robin, is built with it (dm-round-robin.o under DM_MULTIPATH). */
static const struct kreq_opts dm_multipath_opts[] = {
	[MULTIPATH_RQ] = { { { "CONFIG_MD", NULL },
			     { "CONFIG_BLK_DEV_DM", "dm_mod" },
			     { "CONFIG_DM_MULTIPATH", "dm_multipath" } } },
	[MULTIPATH_BIO] = { { { "CONFIG_MD", NULL },
			      { "CONFIG_BLK_DEV_DM", "dm_mod" },
			      { "CONFIG_DM_MULTIPATH", "dm_multipath" } } },
};
_Static_assert(sizeof(dm_multipath_opts) / sizeof(dm_multipath_opts[0]) == MULTIPATH_MODE_COUNT,
	       "a row per multipath mode");

/* A part of the machine: whether the machine has it (filling why), and
 * what it needs. */
struct machine_row {
	bool (*has)(const struct machine *m, char *why, size_t len);
	struct kreq_opts opts;
};

static bool has_cpus(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.cpus is %u", m->cpus);
	return m->cpus > 1;
}

/* vm_pick_kernel(): the vmlinux through its PVH entry unless the machine
 * needs the bzImage through SeaBIOS (S3). */
static bool has_pvh_boot(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "booting the vmlinux through its PVH entry (no S3 in machine.sleep)");
	return !machine_needs_bios_boot(m);
}

static bool has_numa(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.numa has %u nodes", m->numa ? m->numa->nodes_count : 0);
	return m->numa != NULL;
}

static bool has_hmat(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.numa.hmat (the guest reads node access0 and caches)");
	return m->numa && m->numa->hmat_count > 0;
}

static bool has_balloon(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.balloon");
	return m->balloon != NULL;
}

static bool has_page_reporting(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.balloon.free_page_reporting");
	return m->balloon && m->balloon->free_page_reporting;
}

/* The machine step looks for deep in /sys/power/mem_sleep and platform in
 * /sys/power/disk when the firmware offers them (hw/expected.c). */
static bool has_s3_verified(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.sleep offers s3 (deep in /sys/power/mem_sleep)");
	return (m->sleep & SLEEP_S3) && !(m->unverified & MACHINE_PART_BIT(MACHINE_PART_SLEEP));
}

static bool has_s4_verified(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.sleep offers s4 (platform in /sys/power/disk)");
	return (m->sleep & SLEEP_S4) && !(m->unverified & MACHINE_PART_BIT(MACHINE_PART_SLEEP));
}

static bool has_hibernate(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.hibernate writes the image to disk '%s'",
		 m->hibernate ? m->hibernate->disk : "");
	return m->hibernate != NULL;
}

/* init mounts each share over 9p on virtio or over virtiofs, as
 * shares_validate picked for it (hw/share.c). */
static bool has_shares(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.shares (9p over virtio)");
	for (unsigned i = 0; i < m->shares_count; i++)
		if (!m->shares[i].virtiofs)
			return true;
	return false;
}

static bool has_virtiofs(const struct machine *m, char *why, size_t len)
{
	snprintf(why, len, "machine.shares (virtiofs)");
	return machine_has_virtiofs(m);
}

static const struct machine_row machine_rows[] = {
	{ has_pvh_boot, { { { "CONFIG_PVH", NULL } } } },
	{ has_cpus, { { { "CONFIG_SMP", NULL } } } },
	{ has_numa, { { { "CONFIG_NUMA", NULL }, { "CONFIG_ACPI_NUMA", NULL } } } },
	{ has_hmat, { { { "CONFIG_ACPI_HMAT", NULL }, { "CONFIG_HMEM_REPORTING", NULL } } } },
	{ has_balloon, { { { "CONFIG_VIRTIO_BALLOON", "virtio_balloon" } } } },
	{ has_page_reporting, { { { "CONFIG_PAGE_REPORTING", NULL } } } },
	{ has_s3_verified, { { { "CONFIG_SUSPEND", NULL }, { "CONFIG_ACPI_SLEEP", NULL } } } },
	{ has_s4_verified, { { { "CONFIG_HIBERNATION", NULL }, { "CONFIG_ACPI_SLEEP", NULL } } } },
	{ has_hibernate, { { { "CONFIG_SWAP", NULL }, { "CONFIG_HIBERNATION", NULL } } } },
	/* the menus and cores they sit under, which make tinyconfig leaves off */
	{ has_shares,
	  { { { "CONFIG_INET", NULL },
	      { "CONFIG_NETWORK_FILESYSTEMS", NULL },
	      { "CONFIG_NET_9P", "9pnet" },
	      { "CONFIG_NET_9P_VIRTIO", "9pnet_virtio" },
	      { "CONFIG_9P_FS", "9p" } } } },
	{ has_virtiofs, { { { "CONFIG_FUSE_FS", "fuse" }, { "CONFIG_VIRTIO_FS", "virtiofs" } } } },
};

/* ---- the list ---- */

static int why_append(struct kreq *r, const char *why)
{
	size_t have = strlen(r->why), add = strlen(why);
	const char *p = r->why;
	char *n;

	if (!add)
		return 0;
	/* already said: as a whole, or as one of the "; " parts */
	for (; (p = strstr(p, why)); p++) {
		bool starts = p == r->why || (p - r->why >= 2 && p[-2] == ';' && p[-1] == ' ');
		bool ends = !p[add] || (p[add] == ';' && p[add + 1] == ' ');

		if (starts && ends)
			return 0;
	}
	n = realloc(r->why, have + add + 3);
	if (!n)
		return -ENOMEM;
	memcpy(n + have, "; ", 2);
	memcpy(n + have + 2, why, add + 1);
	r->why = n;
	return 0;
}

int kreq_list_add(struct kreq_list *l, const char *option, const char *module, const char *why)
{
	struct kreq *v;

	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].option, option))
			continue;
		/* both must hold: one that must be built in makes it so */
		if (!module)
			l->v[i].module = NULL;
		return why_append(&l->v[i], why);
	}
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	v[l->n].option = option;
	v[l->n].module = module;
	v[l->n].why = strdup(why);
	if (!v[l->n].why)
		return -ENOMEM;
	l->n++;
	return 0;
}

int kreq_add_opts(struct kreq_list *l, const struct kreq_opts *o, const char *why)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < KREQ_ROW_MAX && o->o[i].option; i++)
		ret = kreq_list_add(l, o->o[i].option, o->o[i].module, why);
	return ret;
}

static int add_disk(struct kreq_list *l, const struct disk *d)
{
	static const struct kreq_opts nvme_mp = { { { "CONFIG_NVME_MULTIPATH", NULL } } };
	static const struct kreq_opts zoned = { { { "CONFIG_BLK_DEV_ZONED", NULL } } };
	const struct disk_bus_info *bus = disk_bus_info(d->bus);
	char why[256];
	int ret = 0;

	snprintf(why, sizeof(why), "disk '%s' is on bus %s%s%s%s", d->id, disk_bus_name(d->bus),
		 bus->guest_note ? " (" : "", bus->guest_note ? bus->guest_note : "",
		 bus->guest_note ? ")" : "");
	/* the guest's driver for the bus (a hybrid disk: virtio-blk) */
	for (size_t i = 0; !ret && i < DISK_BUS_KOPTS_MAX && bus->kopts[i].option; i++)
		ret = kreq_list_add(l, bus->kopts[i].option, bus->kopts[i].module, why);
	if (!ret && d->paths > 1 && bus->multipath == DISK_MP_NVME) {
		snprintf(why, sizeof(why), "disk '%s' has %u paths (native NVMe multipath)", d->id,
			 d->paths);
		ret = kreq_add_opts(l, &nvme_mp, why);
	} else if (!ret && d->paths > 1) {
		enum multipath_mode mode = d->multipath ? d->multipath->mode : MULTIPATH_RQ;

		snprintf(why, sizeof(why), "disk '%s' has %u paths (dm-multipath, %s)", d->id,
			 d->paths, multipath_mode_name(mode));
		ret = kreq_add_opts(l, &dm_multipath_opts[mode], why);
	}
	if (!ret && d->zoned) {
		snprintf(why, sizeof(why), "disk '%s' is zoned", d->id);
		ret = kreq_add_opts(l, &zoned, why);
	}
	return ret;
}

static int add_machine(struct kreq_list *l, const struct machine *m)
{
	char why[256];
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(machine_rows) / sizeof(machine_rows[0]); i++)
		if (machine_rows[i].has(m, why, sizeof(why)))
			ret = kreq_add_opts(l, &machine_rows[i].opts, why);
	for (unsigned i = 0; !ret && i < m->disks_count; i++)
		ret = add_disk(l, &m->disks[i]);
	return ret;
}

/* The kind's own row, and what its argument adds (its row's kreq). */
static int add_step(struct kreq_list *l, unsigned i, const struct step *st)
{
	const struct step_kind_row *row = step_kinds[st->kind];
	char why[256];
	int ret;

	snprintf(why, sizeof(why), "steps[%u] is a %s step", i, row->keyword);
	ret = row->kopts ? kreq_add_opts(l, row->kopts, why) : 0;
	if (!ret && row->kreq)
		ret = row->kreq(l, i, st);
	return ret;
}

/* A root other than the image (guest.root host or debian): init mounts it
 * and puts an overlay on top (guest/root.c), its upper layer on a tmpfs
 * that takes the overlay's xattrs (opaque directories, whiteouts): without
 * TMPFS_XATTR, removing a directory of the root fails with EIO. */
static const struct kreq root_needs[] = {
	{ "CONFIG_OVERLAY_FS", "overlay", NULL },
	{ "CONFIG_TMPFS", NULL, NULL },
	{ "CONFIG_TMPFS_XATTR", NULL, NULL },
};
/* The host's root comes over 9p. */
static const struct kreq root_host_needs[] = {
	{ "CONFIG_INET", NULL, NULL },	    { "CONFIG_NETWORK_FILESYSTEMS", NULL, NULL },
	{ "CONFIG_NET_9P", "9pnet", NULL }, { "CONFIG_NET_9P_VIRTIO", "9pnet_virtio", NULL },
	{ "CONFIG_9P_FS", "9p", NULL },
};
/* A Debian root is an ext4 image on a read-only virtio disk. */
static const struct kreq root_debian_needs[] = {
	{ "CONFIG_VIRTIO_BLK", "virtio_blk", NULL },
	{ "CONFIG_EXT4_FS", "ext4", NULL },
};

static int add_rows(struct kreq_list *l, const struct kreq *rows, size_t n, const char *why)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++)
		ret = kreq_list_add(l, rows[i].option, rows[i].module, why);
	return ret;
}

static int add_guest(struct kreq_list *l, const struct guest_opts *g)
{
	bool host;
	char why[64];
	int ret;

	if (!g || !g->root || !strcmp(g->root, GUEST_ROOT_IMAGE))
		return 0;
	host = !strcmp(g->root, GUEST_ROOT_HOST);
	snprintf(why, sizeof(why), "guest.root is %.8s (%s with an overlay)", g->root,
		 host ? "9p" : "an ext4 disk");
	ret = add_rows(l, root_needs, sizeof(root_needs) / sizeof(root_needs[0]), why);
	if (!ret && host)
		ret = add_rows(l, root_host_needs,
			       sizeof(root_host_needs) / sizeof(root_host_needs[0]), why);
	else if (!ret)
		ret = add_rows(l, root_debian_needs,
			       sizeof(root_debian_needs) / sizeof(root_debian_needs[0]), why);
	return ret;
}

static int add_all(struct kreq_list *l, const struct scenario *s)
{
	const struct kernel_opts *k = s->kernel;
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(base) / sizeof(base[0]); i++)
		ret = kreq_list_add(l, base[i].o.option, base[i].o.module, base[i].why);
	if (!ret && s->machine)
		ret = add_machine(l, s->machine);
	if (!ret)
		ret = add_guest(l, s->guest);
	for (unsigned i = 0; !ret && i < s->steps_count; i++)
		ret = add_step(l, i, &s->steps[i]);
	for (unsigned i = 0; !ret && k && i < k->requires_count; i++) {
		bool builtin = k->requires_builtin && k->requires_builtin[i];

		ret = kreq_list_add(l, k->requires[i], builtin ? NULL : KREQ_ANY_MODULE,
				    "kernel.requires");
	}
	return ret;
}

int kreq_for_scenario(const struct scenario *s, struct kreq_list *out)
{
	int ret;

	out->v = NULL;
	out->n = 0;
	ret = add_all(out, s);
	if (ret)
		kreq_list_free(out);
	return ret;
}

static bool list_has(const struct kreq_list *l, const char *option)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].option, option))
			return true;
	return false;
}

int kreq_minimal_base(const struct kreq_list *needs, struct kreq_list *out)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !ret && i < sizeof(base) / sizeof(base[0]); i++)
		ret = kreq_list_add(out, base[i].o.option, NULL, base[i].why);
	for (size_t i = 0; !ret && i < sizeof(minimal) / sizeof(minimal[0]); i++)
		if (!minimal[i].with || !needs || list_has(needs, minimal[i].with))
			ret = kreq_list_add(out, minimal[i].option, NULL, minimal[i].why);
	if (ret)
		kreq_list_free(out);
	return ret;
}

void kreq_list_free(struct kreq_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].why);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* ---- checking a config ---- */

/* Why r is not met by src, or NULL when it is. */
static const char *unmet(const struct kreq *r, const struct kreq_source *src)
{
	const char *v = src->value(src->ctx, r->option);

	if (!v || !*v || !strcmp(v, "n"))
		return " is not set";
	if (strcmp(v, "m"))
		return NULL;
	if (!r->module)
		return "=m but it must be built in (=y)";
	if (*r->module && src->has_module && !src->has_module(src->ctx, r->module))
		return "=m but the image has no module ";
	return NULL;
}

static int msg_add(char **msg, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int msg_add(char **msg, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *m;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	m = realloc(*msg, *len + (size_t)n + 1);
	if (!m)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(m + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*msg = m;
	*len += (size_t)n;
	return 0;
}

int kreq_missing(const struct kreq_list *l, const struct kreq_source *src, char **message)
{
	size_t len = 0;
	int missing = 0, ret = 0;
	const char *why;

	*message = NULL;
	for (size_t i = 0; !ret && i < l->n; i++) {
		why = unmet(&l->v[i], src);
		if (!why)
			continue;
		missing++;
		ret =
		    msg_add(message, &len, "%s%s%s%s: %s", missing > 1 ? "\n" : "", l->v[i].option,
			    why, why[strlen(why) - 1] == ' ' ? l->v[i].module : "", l->v[i].why);
	}
	if (ret) {
		free(*message);
		*message = NULL;
		return ret;
	}
	return missing;
}
