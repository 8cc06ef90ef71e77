#include "machine.h"
#include "disk.h"
#include "memory.h"
#include "numa.h"
#include "share.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MACHINE_MAX_CPUS 64
#define MACHINE_MIN_MEMORY (64 * HW_MIB)
#define MACHINE_DEFAULT_MEMORY "512M"

static int machine_check_memory(struct machine *m, struct hw_error *err)
{
	const char *mem = m->memory ? m->memory : MACHINE_DEFAULT_MEMORY;
	int ret = hw_size_field(mem, &m->memory_bytes, "machine.memory", err);

	if (ret < 0)
		return ret;
	if (m->memory_bytes < MACHINE_MIN_MEMORY)
		return hw_fail(err, "machine.memory",
			       "%s is too little for a kernel; give at "
			       "least 64M",
			       mem);
	/* -m and memory backends take whole megabytes here */
	if (m->memory_bytes % HW_MIB)
		return hw_fail(err, "machine.memory", "%s is not a whole number of megabytes", mem);
	return 0;
}

static int hibernate_validate(const struct machine *m, struct hw_error *err)
{
	if (!m->hibernate)
		return 0;
	for (unsigned i = 0; m->hibernate->disk && i < m->disks_count; i++)
		if (!strcmp(m->disks[i].id, m->hibernate->disk))
			return 0;
	return hw_fail(err, "machine.hibernate.disk",
		       "\"%s\" is not one of the machine's "
		       "disks; name the disk that holds the swap for the hibernation image",
		       m->hibernate->disk ? m->hibernate->disk : "");
}

int machine_validate(struct machine *m, struct hw_error *err)
{
	int ret;

	memset(err, 0, sizeof(*err));
	if (!m->cpus)
		m->cpus = 1;
	if (m->cpus > MACHINE_MAX_CPUS)
		return hw_fail(err, "machine.cpus", "%u cpus; give 1 to %d", m->cpus,
			       MACHINE_MAX_CPUS);
	ret = machine_check_memory(m, err);
	if (!ret)
		ret = sleep_validate(m, err);
	if (!ret)
		ret = disks_validate(m, err);
	if (!ret)
		ret = numa_validate(m, err);
	if (!ret)
		ret = hibernate_validate(m, err);
	if (!ret)
		ret = shares_validate(m, err);
	return ret;
}

static int disk_create_raw(const struct disk *d, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)d->size_bytes) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* qcow2 files open with "QFI\xfb"; anything else is taken as raw. */
static int image_format(const char *path, const char **fmt)
{
	unsigned char magic[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n < 0)
		return -errno;
	*fmt = memcmp(magic, "QFI\xfb", 4) ? "raw" : "qcow2";
	return 0;
}

static int disk_create_overlay(const struct disk *d, unsigned i, const char *path,
			       const struct hw_launch *l, struct hw_error *err)
{
	char field[64], size[32], why[200] = "", *base = realpath(d->image, NULL);
	const char *fmt = "raw";
	int ret = base ? image_format(base, &fmt) : -errno;

	snprintf(field, sizeof(field), "machine.disks[%u].image", i);
	if (ret < 0) {
		hw_fail(err, field, "base image %s: %s; check the path", d->image, strerror(-ret));
		goto out;
	}
	snprintf(size, sizeof(size), "%llu", (unsigned long long)d->size_bytes);
	ret = l->run ? l->run((char *const[]){ "qemu-img", "create", "-q", "-f", "qcow2", "-F",
					       (char *)fmt, "-b", base, (char *)path, size, NULL },
			      why, sizeof(why), l->run_ctx)
		     : -ENOSYS;
	if (ret < 0)
		hw_fail(err, field, "qemu-img create of an overlay on %s failed: %s", d->image,
			*why ? why : strerror(-ret));
out:
	free(base);
	return ret;
}

int machine_create_disks(const struct machine *m, const struct hw_launch *l, struct hw_error *err)
{
	char field[64];
	int ret = 0;

	memset(err, 0, sizeof(*err));
	for (unsigned i = 0; i < m->disks_count && !ret; i++) {
		const struct disk *d = &m->disks[i];
		char *path = machine_disk_path(l, d);

		if (!path)
			return -ENOMEM;
		if (d->image) {
			ret = disk_create_overlay(d, i, path, l, err);
		} else {
			ret = disk_create_raw(d, path);
			snprintf(field, sizeof(field), "machine.disks[%u]", i);
			if (ret < 0)
				hw_fail(err, field, "cannot create %s: %s", path, strerror(-ret));
		}
		free(path);
	}
	return ret;
}

/* With NUMA, every CPU is its own socket: CPUs sharing a socket share the
 * last-level cache, and the kernel warns (topology_sane) when LLC siblings
 * sit on different nodes. */
static int machine_smp_arg(const struct machine *m, struct argv *a)
{
	unsigned n = m->cpus ? m->cpus : 1;

	if (m->numa)
		return argv_addf(a, "%u,sockets=%u,cores=1,threads=1", n, n);
	return argv_addf(a, "%u", n);
}

static int machine_base_args(const struct machine *m, const struct hw_launch *l, struct argv *a)
{
	argv_add_list(a, (const char *const[]){ l->qemu ? l->qemu : "qemu-system-x86_64", "-accel",
						l->kvm ? "kvm" : "tcg", "-cpu",
						l->kvm ? "host" : HW_TCG_CPU, "-machine",
						machine_type_arg(m), "-m", NULL });
	argv_addf(a, "%lluM", (unsigned long long)(m->memory_bytes / HW_MIB));
	argv_add(a, "-smp");
	machine_smp_arg(m, a);
	return argv_add_list(a,
			     (const char *const[]){ "-nodefaults", "-display", "none", "-no-reboot",
						    "-no-user-config", "-serial",
						    l->interactive ? "mon:stdio" : "stdio", NULL });
}

/* QEMU's gdb server, on the loopback only: the guest's memory is not for
 * the network to read. */
static int machine_gdb_args(const struct hw_launch *l, struct argv *a)
{
	if (!l->gdb_port)
		return a->err;
	argv_add(a, "-gdb");
	argv_addf(a, "tcp:127.0.0.1:%u", l->gdb_port);
	if (l->gdb_wait)
		argv_add(a, "-S");
	return a->err;
}

/* For a dump of guest memory (--dump): the vmcoreinfo device, through
 * which the guest's qemu_fw_cfg driver hands QEMU the kernel's VMCOREINFO
 * (so the dump says where the kernel is and what it is), and a pvpanic
 * device, whose driver tells QEMU of a panic before the kernel's panic=-1
 * reboot, which -action panic=pause turns into a paused guest instead of
 * QEMU's end (-no-reboot). */
static int machine_dump_args(const struct hw_launch *l, struct argv *a)
{
	if (!l->dump_ready)
		return a->err;
	return argv_add_list(a, (const char *const[]){ "-device", "vmcoreinfo", "-device",
						       "pvpanic", "-action", "panic=pause", NULL });
}

static int machine_opt_arg(struct argv *a, const char *opt, const char *val)
{
	if (val) {
		argv_add(a, opt);
		argv_add(a, val);
	}
	return a->err;
}

static int machine_boot_args(const struct hw_launch *l, struct argv *a)
{
	machine_opt_arg(a, "-kernel", l->kernel);
	machine_opt_arg(a, "-initrd", l->initrd);
	return machine_opt_arg(a, "-append", l->append);
}

/* The monitor and the guest agent: QEMU listens, the harness connects. */
static int machine_socket_args(const struct hw_launch *l, struct argv *a)
{
	char *qmp = l->qmp_path ? hw_escape(l->qmp_path) : NULL;
	char *qga = l->qga_path ? hw_escape(l->qga_path) : NULL;
	int ret = -ENOMEM;

	if ((l->qmp_path && !qmp) || (l->qga_path && !qga))
		goto out;
	if (qmp) {
		argv_add(a, "-qmp");
		argv_addf(a, "unix:%s,server=on,wait=off", qmp);
	}
	if (qga) {
		argv_add(a, "-chardev");
		argv_addf(a, "socket,id=qga0,path=%s,server=on,wait=off", qga);
		argv_add_list(a, (const char *const[]){
				     "-device", "virtio-serial-pci", "-device",
				     "virtserialport,chardev=qga0,name=org.qemu.guest_agent.0",
				     NULL });
	}
	ret = a->err;
out:
	free(qga);
	free(qmp);
	return ret;
}

int machine_to_argv(const struct machine *m, const struct hw_launch *l, struct argv *out,
		    struct hw_error *err)
{
	int ret;

	memset(err, 0, sizeof(*err));
	argv_init(out);
	ret = machine_base_args(m, l, out);
	if (!ret)
		ret = machine_gdb_args(l, out);
	if (!ret)
		ret = machine_dump_args(l, out);
	if (!ret)
		ret = sleep_to_args(m, out);
	if (!ret)
		ret = numa_to_args(m, out);
	if (!ret)
		ret = hybrid_memory_args(m, out);
	if (!ret)
		ret = machine_boot_args(l, out);
	if (!ret)
		ret = machine_socket_args(l, out);
	if (!ret)
		ret = disks_to_args(m, l, out, err);
	if (!ret)
		ret = balloon_to_args(m, out);
	if (!ret)
		ret = display_to_args(m, out);
	if (!ret)
		ret = shares_to_args(m, l, out);
	if (ret < 0)
		argv_free(out);
	return ret;
}
