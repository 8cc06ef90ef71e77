/* The libvirt renderer (hw/libvirt_xml.c): well-formed domain XML, the same
 * machine as machine_to_argv() presents (disks with their serials, buses,
 * sector sizes and rotation; memory, CPUs, NUMA cells and distances; sleep
 * states; kernel, initrd, command line; the harness's sockets), escaping,
 * and clear refusals of what it cannot present. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libvirt_xml.h"
#include "machine.h"
#include "xml_check.h"

static const struct hw_launch launch = {
	.kernel = "/k/bzImage",
	.initrd = "/k/initrd.img",
	.append = "console=ttyS0 ktb.disks=a,b x=\"1&2<3>'\"",
	.qmp_path = "/w/qmp.sock",
	.qga_path = "/w/qga.sock",
	.disk_dir = "/w",
};
static const struct hw_domain dom = { .name = "ktb-1-test", .console_path = "/w/c.raw" };

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static unsigned argv_count(const struct argv *a, const char *needle)
{
	unsigned n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += count(a->v[i], needle);
	return n;
}

static char *render(struct machine *m, struct argv *a)
{
	struct hw_error err;
	char *xml = NULL;

	if (machine_validate(m, &err))
		fail_msg("validate: %s: %s", err.field, err.msg);
	if (machine_to_domain_xml(m, &launch, &dom, &xml, &err))
		fail_msg("render: %s: %s", err.field, err.msg);
	if (!xml_wellformed(xml))
		fail_msg("not well-formed:\n%s", xml);
	if (a && machine_to_argv(m, &launch, a, &err))
		fail_msg("argv: %s: %s", err.field, err.msg);
	return xml;
}

static void expect_in(const char *xml, const char *s, unsigned times)
{
	if (count(xml, s) != times)
		fail_msg("\"%s\" %u times, expected %u, in:\n%s", s, count(xml, s), times, xml);
}

static void test_plain(void **state)
{
	struct machine m = { .cpus = 2, .memory = "512M" };
	struct argv a;
	char *xml;

	(void)state;
	xml = render(&m, &a);
	expect_in(
	    xml, "<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>", 1);
	expect_in(xml, "<name>ktb-1-test</name>", 1);
	/* -m 512M, -smp 2 */
	assert_int_equal(argv_count(&a, "512M"), 1);
	expect_in(xml, "<memory unit='KiB'>524288</memory>", 1);
	expect_in(xml, "<vcpu>2</vcpu>", 1);
	expect_in(xml, "<cpu mode='maximum' check='none'>", 1);
	expect_in(xml, "<feature policy='disable' name='erms'/>", 1);
	expect_in(xml, "<feature policy='disable' name='fsrm'/>", 1);
	/* the command line, escaped */
	expect_in(
	    xml,
	    "<cmdline>console=ttyS0 ktb.disks=a,b x=&quot;1&amp;2&lt;3&gt;&apos;&quot;</cmdline>",
	    1);
	expect_in(xml, "<kernel>/k/bzImage</kernel>", 1);
	expect_in(xml, "<initrd>/k/initrd.img</initrd>", 1);
	/* no S3, no S4: what -global ICH9-LPC.disable_s3=1 says */
	assert_int_equal(argv_count(&a, "ICH9-LPC.disable_s3=1"), 1);
	expect_in(xml, "<suspend-to-mem enabled='no'/>", 1);
	expect_in(xml, "<suspend-to-disk enabled='no'/>", 1);
	/* -no-reboot; ACPI on (QEMU's default, libvirt's opt-in) */
	expect_in(xml, "<on_reboot>destroy</on_reboot>", 1);
	expect_in(xml, "<acpi/>", 1);
	/* the harness's sockets, as on the command line */
	assert_int_equal(argv_count(&a, "unix:/w/qmp.sock,server=on,wait=off"), 1);
	expect_in(xml, "value='unix:/w/qmp.sock,server=on,wait=off'", 1);
	assert_int_equal(argv_count(&a, "path=/w/qga.sock,server=on,wait=off"), 1);
	expect_in(xml, "path=/w/qga.sock,server=on,wait=off'", 1);
	expect_in(xml, "&quot;name&quot;:&quot;org.qemu.guest_agent.0&quot;", 1);
	/* the console to a file; no disks */
	expect_in(xml, "<serial type='file'>", 1);
	expect_in(xml, "<source path='/w/c.raw'/>", 1);
	expect_in(xml, "<disk ", 0);
	/* no display: declared, none rendered */
	expect_in(xml, "<video>", 0);
	free(xml);
	argv_free(&a);
}

/* --dump: the vmcoreinfo feature, a pvpanic device and a panic that
 * leaves the domain paused, as -device vmcoreinfo -device pvpanic -action
 * panic=pause on the command line; without, none of them. */
static void test_dump(void **state)
{
	struct machine m = { .cpus = 1, .memory = "512M" };
	struct hw_launch l = launch;
	struct hw_error err;
	char *xml;

	(void)state;
	xml = render(&m, NULL);
	expect_in(xml, "<panic", 0);
	expect_in(xml, "<vmcoreinfo", 0);
	expect_in(xml, "<on_crash>destroy</on_crash>", 1);
	free(xml);
	l.dump_ready = true;
	if (machine_to_domain_xml(&m, &l, &dom, &xml, &err))
		fail_msg("render: %s: %s", err.field, err.msg);
	assert_true(xml_wellformed(xml));
	expect_in(xml, "<panic model='isa'/>", 1);
	expect_in(xml, "<vmcoreinfo state='on'/>", 1);
	expect_in(xml, "<on_crash>preserve</on_crash>", 1);
	free(xml);
}

/* A declared display is libvirt's video model for the same QEMU device. */
static void test_display(void **state)
{
	static const char *const model[] = { "bochs", "vga", "virtio" };
	static const enum display_model d[] = { DISPLAY_BOCHS, DISPLAY_VGA, DISPLAY_VIRTIO };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct machine m = { .display = d[i] };
		char want[96], *xml = render(&m, NULL);

		snprintf(want, sizeof(want), "<video>\n      <model type='%s'/>\n    </video>",
			 model[i]);
		expect_in(xml, want, 1);
		free(xml);
	}
}

static void test_sleep_and_kvm(void **state)
{
	struct machine m = { .sleep = SLEEP_S3 | SLEEP_S4 };
	struct hw_launch l = launch;
	struct hw_error err;
	char *xml = NULL;

	(void)state;
	assert_int_equal(machine_validate(&m, &err), 0);
	l.kvm = true;
	l.qemu = "/opt/qemu&co/qemu";
	assert_int_equal(machine_to_domain_xml(&m, &l, &dom, &xml, &err), 0);
	assert_true(xml_wellformed(xml));
	expect_in(xml, "<suspend-to-mem enabled='yes'/>", 1);
	expect_in(xml, "<suspend-to-disk enabled='yes'/>", 1);
	expect_in(xml, "<domain type='kvm'", 1);
	expect_in(xml, "<cpu mode='host-passthrough' check='none'>", 1);
	expect_in(xml, "<emulator>/opt/qemu&amp;co/qemu</emulator>", 1);
	free(xml);
}

/* Every disk the command line has, with the same serial, bus, sectors and
 * rotation. */
static void test_disks_match_argv(void **state)
{
	struct disk disks[] = {
		{ .id = "va", .bus = DISK_BUS_VIRTIO, .size = "64M", .sector = DISK_SECTOR_4KN },
		{ .id = "sa", .bus = DISK_BUS_SCSI, .size = "64M", .sector = DISK_SECTOR_512E },
		{ .id = "sb",
		  .bus = DISK_BUS_SCSI,
		  .size = "64M",
		  .sector = DISK_SECTOR_4KN,
		  .rotational = true },
		{ .id = "ha", .bus = DISK_BUS_SATA, .size = "64M", .sector = DISK_SECTOR_512N },
		{ .id = "vb",
		  .bus = DISK_BUS_VIRTIO,
		  .size = "64M",
		  .sector = DISK_SECTOR_512N,
		  .image = "/base.qcow2" },
	};
	struct machine m = { .disks = disks, .disks_count = 5 };
	struct argv a;
	char *xml, want[128];

	(void)state;
	xml = render(&m, &a);
	expect_in(xml, "<disk type='file' device='disk'>", 5);
	assert_int_equal(argv_count(&a, "virtio-blk-pci,"), 2);
	expect_in(xml, "bus='virtio'", 2);
	assert_int_equal(argv_count(&a, "scsi-hd,"), 2);
	expect_in(xml, "bus='scsi'", 2);
	assert_int_equal(argv_count(&a, "virtio-scsi-pci"), 1);
	expect_in(xml, "<controller type='scsi' index='0' model='virtio-scsi'/>", 1);
	assert_int_equal(argv_count(&a, "ide-hd,"), 1);
	expect_in(xml, "bus='sata'", 1);
	/* non-rotating scsi and sata disks say so; virtio has no such property */
	assert_int_equal(argv_count(&a, "rotation_rate=1"), 2);
	expect_in(xml, "rotation_rate='1'", 2);
	/* distinct target names */
	expect_in(xml, "dev='vda'", 1);
	expect_in(xml, "dev='vdb'", 1);
	expect_in(xml, "dev='sda'", 1);
	expect_in(xml, "dev='sdb'", 1);
	expect_in(xml, "dev='sdc'", 1);
	for (unsigned i = 0; i < m.disks_count; i++) {
		const struct disk *d = &disks[i];
		unsigned lbs = d->sector == DISK_SECTOR_4KN ? 4096 : 512;
		unsigned pbs = d->sector == DISK_SECTOR_512N ? 512 : 4096;
		char *path = machine_disk_path(&launch, d);

		snprintf(want, sizeof(want),
			 "serial=%s,logical_block_size=%u,physical_block_size=%u", d->id, lbs, pbs);
		if (argv_count(&a, want) != 1)
			fail_msg("argv lacks %s", want);
		snprintf(want, sizeof(want),
			 "<serial>%s</serial>\n      <blockio logical_block_size='%u' "
			 "physical_block_size='%u'/>",
			 d->id, lbs, pbs);
		expect_in(xml, want, 1);
		snprintf(want, sizeof(want), "<source file='%s'/>", path);
		expect_in(xml, want, 1);
		assert_int_equal(argv_count(&a, path), 1);
		free(path);
	}
	expect_in(xml, "type='qcow2'", 1);
	expect_in(xml, "type='raw'", 4);
	free(xml);
	argv_free(&a);
}

static void test_numa(void **state)
{
	unsigned c0[] = { 0, 1 }, c1[] = { 2 }, dist[] = { 10, 20, 30, 20, 10, 25, 30, 25, 10 };
	struct numa_node nodes[] = {
		{ c0, 2, "256M", 0 },
		{ c1, 1, "256M", 0 },
		{ NULL, 0, "512M", 0 },
	};
	struct numa nu = {
		.nodes = nodes, .nodes_count = 3, .distances = dist, .distances_count = 9
	};
	struct machine m = { .cpus = 3, .memory = "1G", .numa = &nu };
	struct argv a;
	char *xml;

	(void)state;
	xml = render(&m, &a);
	/* -numa node x3 and -numa dist for every ordered pair */
	assert_int_equal(argv_count(&a, "memdev=m"), 3);
	expect_in(xml, "<cell id=", 3);
	expect_in(xml, "<cell id='0' cpus='0,1' memory='262144' unit='KiB'>", 1);
	expect_in(xml, "<cell id='1' cpus='2' memory='262144' unit='KiB'>", 1);
	expect_in(xml, "<cell id='2' memory='524288' unit='KiB'>", 1);
	assert_int_equal(argv_count(&a, "dist,src=0,dst=2,val=30"), 1);
	expect_in(xml, "<sibling id='2' value='30'/>", 1);
	expect_in(xml, "<sibling id='0' value='30'/>", 1);
	expect_in(xml, "<sibling id='1' value='25'/>", 1);
	/* every cpu its own socket, as -smp 3,sockets=3 */
	assert_int_equal(argv_count(&a, "3,sockets=3,cores=1,threads=1"), 1);
	expect_in(xml, "<topology sockets='3' dies='1' cores='1' threads='1'/>", 1);
	free(xml);
	argv_free(&a);

	/* without distances, cells close themselves */
	nu.distances = NULL;
	nu.distances_count = 0;
	xml = render(&m, NULL);
	expect_in(xml, "<distances>", 0);
	expect_in(xml, "<cell id='2' memory='524288' unit='KiB'/>", 1);
	free(xml);
}

static void expect_refused(struct machine *m, const char *field, const char *msg)
{
	struct hw_error err;
	char *xml = (char *)"untouched";

	if (machine_validate(m, &err))
		fail_msg("validate: %s: %s", err.field, err.msg);
	assert_int_equal(machine_to_domain_xml(m, &launch, &dom, &xml, &err), -EINVAL);
	assert_null(xml);
	assert_string_equal(err.field, field);
	if (!strstr(err.msg, msg))
		fail_msg("%s: \"%s\" lacks \"%s\"", field, err.msg, msg);
	assert_int_equal(machine_libvirt_check(m, &err), -EINVAL);
}

static void test_refusals(void **state)
{
	struct disk disks[] = {
		{ .id = "a", .bus = DISK_BUS_VIRTIO, .size = "64M" },
		{ .id = "n", .bus = DISK_BUS_NVME, .size = "64M", .sector = DISK_SECTOR_4KN },
	};
	struct hibernate hib = { .disk = "a" };
	struct machine m = { .disks = disks, .disks_count = 2 };
	struct hw_launch l = launch;
	struct hw_error err;
	char *xml;

	(void)state;
	expect_refused(&m, "machine.disks[1].bus", "cannot present nvme disks yet");
	m.disks_count = 1;
	m.hibernate = &hib;
	expect_refused(&m, "machine.hibernate", "S4 on the libvirt backend is not supported");
	m.hibernate = NULL;
	assert_int_equal(machine_libvirt_check(&m, &err), 0);
	/* a comma would split the QEMU option the socket path travels in */
	l.qga_path = "/w,x/qga.sock";
	assert_int_equal(machine_to_domain_xml(&m, &l, &dom, &xml, &err), -EINVAL);
	assert_string_equal(err.field, "workdir");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_display),	      cmocka_unit_test(test_plain),
		cmocka_unit_test(test_sleep_and_kvm), cmocka_unit_test(test_disks_match_argv),
		cmocka_unit_test(test_numa),	      cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_dump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
