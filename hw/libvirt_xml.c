#include "libvirt_xml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "disk_bus.h"
#include "disk_path.h"
#include "display.h"
#include "share.h"

#define QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"

/* Text with &, <, >, ' and " escaped, for element text and attributes. */
static void xml_put(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* <tag>text</tag> on its own line, text escaped. */
static void xml_elem(FILE *f, const char *indent, const char *tag, const char *text)
{
	fprintf(f, "%s<%s>", indent, tag);
	xml_put(f, text);
	fprintf(f, "</%s>\n", tag);
}

int machine_libvirt_check(const struct machine *m, struct hw_error *err)
{
	char f[64];

	memset(err, 0, sizeof(*err));
	if (m->hibernate)
		return hw_fail(err, "machine.hibernate",
			       "S4 on the libvirt backend is not "
			       "supported yet (the domain ends when the guest hibernates); run "
			       "this scenario with --backend qemu");
	if (m->balloon)
		return hw_fail(err, "machine.balloon",
			       "the libvirt renderer cannot present a balloon yet; run this "
			       "scenario with --backend qemu");
	if (m->numa && (m->numa->hmat_count || m->numa->caches_count))
		return hw_fail(err,
			       m->numa->hmat_count ? "machine.numa.hmat" : "machine.numa.caches",
			       "the libvirt renderer cannot present HMAT yet; run this "
			       "scenario with --backend qemu");
	for (unsigned i = 0; i < m->disks_count; i++) {
		const struct disk *d = &m->disks[i];

		if (!disk_bus_info(d->bus)->libvirt) {
			snprintf(f, sizeof(f), "machine.disks[%u].bus", i);
			return hw_fail(err, f,
				       "the libvirt renderer cannot present %s disks yet; "
				       "use virtio, scsi or sata, or run with --backend qemu",
				       disk_bus_name(d->bus));
		}
		if (d->paths > 1) {
			snprintf(f, sizeof(f), "machine.disks[%u].paths", i);
			return hw_fail(err, f,
				       "the libvirt renderer cannot present multipath "
				       "disks yet; run with --backend qemu");
		}
	}
	return 0;
}

/* HW_TCG_CPU's features, NAME=off or NAME=on after the model's name, as
 * libvirt's <feature>s: the one list both renderers read (model.h says why
 * they are there) */
static void tcg_cpu_features(FILE *f)
{
	for (const char *p = strchr(HW_TCG_CPU, ','); p;) {
		const char *name = p + 1, *eq = strchr(name, '=');

		p = strchr(name, ',');
		fprintf(f, "    <feature policy='%s' name='%.*s'/>\n",
			!strncmp(eq + 1, "off", 3) ? "disable" : "require", (int)(eq - name), name);
	}
}

static void domain_cpu(FILE *f, const struct machine *m, bool kvm)
{
	const struct numa *nu = m->numa;

	fprintf(f, kvm ? "  <cpu mode='host-passthrough' check='none'>\n"
		       : "  <cpu mode='maximum' check='none'>\n");
	/* as on the command line: with NUMA, every CPU is its own socket */
	if (nu)
		fprintf(f, "    <topology sockets='%u' dies='1' cores='1' threads='1'/>\n",
			m->cpus);
	if (!kvm)
		tcg_cpu_features(f);
	if (nu) {
		fprintf(f, "    <numa>\n");
		for (unsigned n = 0; n < nu->nodes_count; n++) {
			const struct numa_node *node = &nu->nodes[n];

			fprintf(f, "      <cell id='%u'", n);
			for (unsigned k = 0; k < node->cpus_count; k++)
				fprintf(f, "%s%u", k ? "," : " cpus='", node->cpus[k]);
			fprintf(f, "%s memory='%llu' unit='KiB'%s>\n", node->cpus_count ? "'" : "",
				(unsigned long long)(node->memory_bytes / HW_KIB),
				nu->distances ? "" : "/");
			if (!nu->distances)
				continue;
			fprintf(f, "        <distances>\n");
			for (unsigned j = 0; j < nu->nodes_count; j++)
				fprintf(f, "          <sibling id='%u' value='%u'/>\n", j,
					nu->distances[n * nu->nodes_count + j]);
			fprintf(f, "        </distances>\n      </cell>\n");
		}
		fprintf(f, "    </numa>\n");
	}
	fprintf(f, "  </cpu>\n");
}

static void domain_os(FILE *f, const struct hw_launch *l)
{
	fprintf(f, "  <os>\n    <type arch='x86_64' machine='q35'>hvm</type>\n");
	if (l->kernel)
		xml_elem(f, "    ", "kernel", l->kernel);
	if (l->initrd)
		xml_elem(f, "    ", "initrd", l->initrd);
	if (l->append)
		xml_elem(f, "    ", "cmdline", l->append);
	fprintf(f, "  </os>\n");
}

/* The ICH9 LPC properties sleep_to_args() sets, in libvirt's words. */
static void domain_pm(FILE *f, const struct machine *m)
{
	fprintf(f,
		"  <pm>\n    <suspend-to-mem enabled='%s'/>\n"
		"    <suspend-to-disk enabled='%s'/>\n  </pm>\n",
		m->sleep & SLEEP_S3 ? "yes" : "no", m->sleep & SLEEP_S4 ? "yes" : "no");
}

/* Linux-style names: 0 a, 25 z, 26 aa (a machine has at most 16 disks). */
static const char *disk_letters(unsigned k, char buf[4])
{
	if (k < 26) {
		buf[0] = (char)('a' + k);
		buf[1] = '\0';
	} else {
		buf[0] = (char)('a' + k / 26 - 1);
		buf[1] = (char)('a' + k % 26);
		buf[2] = '\0';
	}
	return buf;
}

static int domain_disk(FILE *f, const struct disk *d, const struct hw_launch *l, unsigned *vd,
		       unsigned *sd)
{
	char *path = machine_disk_path(l, d);
	bool virtio = disk_bus_info(d->bus)->libvirt_virtio;
	const char *bus = disk_bus_name(d->bus);
	unsigned k = virtio ? (*vd)++ : (*sd)++;
	char letters[4];

	if (!path)
		return -ENOMEM;
	fprintf(f,
		"    <disk type='file' device='disk'>\n"
		"      <driver name='qemu' type='%s' cache='writeback'/>\n"
		"      <source file='",
		d->image ? "qcow2" : "raw");
	xml_put(f, path);
	fprintf(f, "'/>\n      <target dev='%s%s' bus='%s'%s/>\n", virtio ? "vd" : "sd",
		disk_letters(k, letters), bus,
		!virtio && !d->rotational ? " rotation_rate='1'" : "");
	xml_elem(f, "      ", "serial", d->id);
	fprintf(f,
		"      <blockio logical_block_size='%u' physical_block_size='%u'/>\n"
		"    </disk>\n",
		disk_sector_logical(d->sector), disk_sector_physical(d->sector));
	free(path);
	return 0;
}

/* The Debian root's image, as shares_to_args gives it: read-only, after
 * the machine's own virtio disks, its serial the root's tag. */
static void domain_root_disk(FILE *f, const char *image, unsigned k)
{
	char letters[4];

	fprintf(f, "    <disk type='file' device='disk'>\n"
		   "      <driver name='qemu' type='raw'/>\n"
		   "      <source file='");
	xml_put(f, image);
	fprintf(f,
		"'/>\n      <target dev='vd%s' bus='virtio'/>\n"
		"      <serial>" SHARE_ROOT_TAG "</serial>\n      <readonly/>\n    </disk>\n",
		disk_letters(k, letters));
}

static int domain_disks(FILE *f, const struct machine *m, const struct hw_launch *l)
{
	unsigned vd = 0, sd = 0;
	bool controller = false; /* one controller, the SCSI one, is all a bus needs today */
	int ret;

	for (unsigned i = 0; i < m->disks_count; i++) {
		const char *model = disk_bus_info(m->disks[i].bus)->libvirt_controller;

		if (model && !controller) {
			fprintf(f, "    <controller type='scsi' index='0' model='%s'/>\n", model);
			controller = true;
		}
		ret = domain_disk(f, &m->disks[i], l, &vd, &sd);
		if (ret < 0)
			return ret;
	}
	if (m->root_disk)
		domain_root_disk(f, m->root_disk, vd);
	return 0;
}

/* The harness's QMP monitor and guest-agent port, as on the QEMU command
 * line, so the harness talks to them the same way on both backends. The
 * devices are JSON: QEMU creates JSON -devices after key=value ones, so in
 * JSON, and last, they come after libvirt's PCIe root ports and take a free
 * slot instead of one libvirt assigned. */
static void domain_sockets(FILE *f, const struct hw_launch *l)
{
	if (!l->qmp_path && !l->qga_path)
		return;
	fprintf(f, "  <qemu:commandline>\n");
	if (l->qmp_path) {
		fprintf(f, "    <qemu:arg value='-qmp'/>\n    <qemu:arg value='unix:");
		xml_put(f, l->qmp_path);
		fprintf(f, ",server=on,wait=off'/>\n");
	}
	if (l->qga_path) {
		fprintf(f, "    <qemu:arg value='-chardev'/>\n"
			   "    <qemu:arg value='socket,id=ktbqga,path=");
		xml_put(f, l->qga_path);
		fprintf(
		    f,
		    ",server=on,wait=off'/>\n"
		    "    <qemu:arg value='-device'/>\n"
		    "    <qemu:arg value='{&quot;driver&quot;:&quot;virtio-serial-pci&quot;,"
		    "&quot;id&quot;:&quot;ktbvser&quot;}'/>\n"
		    "    <qemu:arg value='-device'/>\n"
		    "    <qemu:arg value='{&quot;driver&quot;:&quot;virtserialport&quot;,"
		    "&quot;bus&quot;:&quot;ktbvser.0&quot;,&quot;chardev&quot;:&quot;ktbqga&quot;,"
		    "&quot;name&quot;:&quot;org.qemu.guest_agent.0&quot;}'/>\n");
	}
	fprintf(f, "  </qemu:commandline>\n");
}

/* Paths travel inside QEMU option strings: a comma would split them. */
/* The same exports as shares_to_args (the guest's root first, as there): a 9p one with accessmode
 * squash (QEMU's security_model=none), a virtiofs one with libvirt starting the virtiofsd it names
 * (accessmode passthrough: virtiofsd's only mode). */
static void domain_shares(FILE *f, const struct machine *m)
{
	char tag[16];

	if (m->root) {
		fprintf(f, "    <filesystem type='mount' accessmode='squash' multidevs='remap'>\n"
			   "      <driver type='path'/>\n      <source dir='");
		xml_put(f, m->root);
		fprintf(f, "'/>\n      <target dir='" SHARE_ROOT_TAG "'/>\n      <readonly/>\n"
			   "    </filesystem>\n");
	}
	for (unsigned i = 0; i < m->shares_count; i++) {
		if (m->shares[i].virtiofs)
			fprintf(f, "    <filesystem type='mount' accessmode='passthrough'>\n"
				   "      <driver type='virtiofs'/>\n      <binary path='");
		else
			fprintf(f, "    <filesystem type='mount' accessmode='squash'>\n"
				   "      <driver type='path'/>\n      <source dir='");
		if (m->shares[i].virtiofs) {
			xml_put(f, share_virtiofsd());
			fprintf(f, "'/>\n      <source dir='");
		}
		xml_put(f, m->shares[i].host);
		fprintf(f, "'/>\n      <target dir='%s'/>\n%s    </filesystem>\n",
			share_tag(i, tag, sizeof(tag)),
			m->shares[i].writable ? "" : "      <readonly/>\n");
	}
}

/* virtiofsd maps guest RAM: it must be shared memory. */
static void domain_memory_backing(FILE *f, const struct machine *m)
{
	if (machine_has_virtiofs(m))
		fprintf(f, "  <memoryBacking>\n    <source type='memfd'/>\n"
			   "    <access mode='shared'/>\n  </memoryBacking>\n");
}

static int domain_check_paths(const struct hw_launch *l, struct hw_error *err)
{
	if ((l->qmp_path && strchr(l->qmp_path, ',')) || (l->qga_path && strchr(l->qga_path, ',')))
		return hw_fail(err, "workdir", "socket paths must not contain ','");
	return 0;
}

int machine_to_domain_xml(const struct machine *m, const struct hw_launch *l,
			  const struct hw_domain *dom, char **out, struct hw_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	*out = NULL;
	ret = machine_libvirt_check(m, err);
	if (!ret)
		ret = domain_check_paths(l, err);
	if (ret)
		return ret;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "<domain type='%s' xmlns:qemu='" QEMU_NS "'>\n", l->kvm ? "kvm" : "qemu");
	xml_elem(f, "  ", "name", dom->name);
	fprintf(f, "  <memory unit='KiB'>%llu</memory>\n  <vcpu>%u</vcpu>\n",
		(unsigned long long)(m->memory_bytes / HW_KIB), m->cpus ? m->cpus : 1);
	domain_memory_backing(f, m);
	domain_os(f, l);
	/* --dump: QEMU's vmcoreinfo device, and a panic pauses the guest (its
	 * pvpanic device below) instead of ending it (docs/debugging.md) */
	fprintf(f, "  <features>\n    <acpi/>\n    <apic/>\n%s  </features>\n",
		l->dump_ready ? "    <vmcoreinfo state='on'/>\n" : "");
	domain_cpu(f, m, l->kvm);
	fprintf(f,
		"  <clock offset='utc'/>\n"
		"  <on_poweroff>destroy</on_poweroff>\n"
		"  <on_reboot>destroy</on_reboot>\n"
		"  <on_crash>%s</on_crash>\n",
		l->dump_ready ? "preserve" : "destroy");
	domain_pm(f, m);
	fprintf(f, "  <devices>\n");
	if (l->qemu)
		xml_elem(f, "    ", "emulator", l->qemu);
	ret = domain_disks(f, m, l);
	domain_shares(f, m);
	if (dom->console_path) {
		fprintf(f, "    <serial type='file'>\n      <source path='");
		xml_put(f, dom->console_path);
		fprintf(f, "'/>\n      <target port='0'/>\n    </serial>\n");
	}
	if (display_libvirt_model(m))
		fprintf(f, "    <video>\n      <model type='%s'/>\n    </video>\n",
			display_libvirt_model(m));
	if (l->dump_ready)
		fprintf(f, "    <panic model='isa'/>\n");
	fprintf(f, "    <controller type='usb' model='none'/>\n"
		   "    <memballoon model='none'/>\n  </devices>\n");
	domain_sockets(f, l);
	fprintf(f, "</domain>\n");
	if (fclose(f) || ret) {
		free(buf);
		return ret ? ret : -ENOMEM;
	}
	*out = buf;
	return 0;
}
