/* Print machine_to_domain_xml() for one named machine (after creating its
 * disks in DIR), or its machine_to_argv() with "argv" as the third argument.
 * For the libvirt acceptance check (t_libvirt_accepts.sh) only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt_xml.h"
#include "machine.h"
#include "spawn.h"

#define D(i, b, s, sec, rot)                                                                       \
	{                                                                                          \
		.id = i, .bus = DISK_BUS_##b, .size = s, .sector = DISK_SECTOR_##sec,              \
		.rotational = rot                                                                  \
	}
static struct disk all[] = {
	D("v512n", VIRTIO, "64M", 512N, 0), D("v512e", VIRTIO, "64M", 512E, 0),
	D("v4kn", VIRTIO, "64M", 4KN, 1),   D("s512n", SCSI, "64M", 512N, 0),
	D("s512e", SCSI, "64M", 512E, 1),   D("s4kn", SCSI, "64M", 4KN, 0),
	D("a512n", SATA, "64M", 512N, 0),   D("a512e", SATA, "64M", 512E, 1),
	D("nvme", NVME, "64M", 4KN, 0),
};
static unsigned c0[] = { 0, 1, 4 }, c1[] = { 2, 3, 5 };
static struct numa_node nodes[] = {
	{ c0, 3, "1G", 0 },
	{ c1, 3, "512M", 0 },
	{ NULL, 0, "512M", 0 },
};
static unsigned dist[] = { 10, 20, 30, 20, 10, 25, 30, 25, 10 };
static struct numa numa = {
	.nodes = nodes, .nodes_count = 3, .distances = dist, .distances_count = 9
};

int main(int argc, char **argv)
{
	struct machine m = { .cpus = 2, .memory = "1G" };
	struct hw_launch l = { .disk_dir = argc > 2 ? argv[2] : ".", .run = spawn_tool };
	struct hw_domain dom = { .name = argc > 3 ? argv[3] : "ktb-dump" };
	struct hw_error err;
	struct argv a;
	char *xml = NULL;
	const char *w = argc > 1 ? argv[1] : "";

	if (argc < 4)
		return 2;
	if (!strcmp(w, "disks")) {
		m.disks = all;
		m.disks_count = 8;
	}
	if (!strcmp(w, "nvme")) {
		m.disks = all + 8;
		m.disks_count = 1;
	}
	if (!strcmp(w, "numa")) {
		m.cpus = 6;
		m.memory = "2G";
		m.numa = &numa;
	}
	if (!strcmp(w, "s3"))
		m.sleep = SLEEP_S3;
	if (!strcmp(w, "s3s4"))
		m.sleep = SLEEP_S3 | SLEEP_S4;
	if (!strcmp(w, "bochs"))
		m.display = DISPLAY_BOCHS;
	if (!strcmp(w, "vga"))
		m.display = DISPLAY_VGA;
	if (!strcmp(w, "virtio-gpu"))
		m.display = DISPLAY_VIRTIO;
	if (machine_validate(&m, &err) || machine_create_disks(&m, &l, &err)) {
		fprintf(stderr, "%s: %s\n", err.field, err.msg);
		return 1;
	}
	if (argc > 4 && !strcmp(argv[4], "argv")) {
		if (machine_to_argv(&m, &l, &a, &err)) {
			fprintf(stderr, "%s: %s\n", err.field, err.msg);
			return 1;
		}
		for (size_t i = 0; i < a.n; i++)
			puts(a.v[i]);
		argv_free(&a);
		return 0;
	}
	if (machine_to_domain_xml(&m, &l, &dom, &xml, &err)) {
		fprintf(stderr, "%s: %s\n", err.field, err.msg);
		return 1;
	}
	fputs(xml, stdout);
	free(xml);
	return 0;
}
