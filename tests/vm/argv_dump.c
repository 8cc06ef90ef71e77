/* Print machine_to_argv() for one named machine, one argument per line,
 * after creating its disks in DIR. For the QEMU acceptance check only. */
#include <stdio.h>
#include <string.h>
#include "machine.h"
#include "spawn.h"

#define D(i, b, s, sec, rot)                                                                       \
	{                                                                                          \
		.id = i, .bus = DISK_BUS_##b, .size = s, .sector = DISK_SECTOR_##sec,              \
		.rotational = rot                                                                  \
	}
static struct disk all[] = {
	D("v512n", VIRTIO, "64M", 512N, 0),   D("v512e", VIRTIO, "64M", 512E, 0),
	D("v4kn", VIRTIO, "64M", 4KN, 1),     D("s512n", SCSI, "64M", 512N, 0),
	D("s512e", SCSI, "64M", 512E, 1),     D("s4kn", SCSI, "64M", 4KN, 0),
	D("n512n", NVME, "64M", 512N, 0),     D("n4kn", NVME, "64M", 4KN, 0),
	D("a512n", SATA, "64M", 512N, 0),     D("a512e", SATA, "64M", 512E, 1),
	D("a2", SATA, "1M", 512N, 0),	      D("a3", SATA, "1M", 512N, 0),
	D("a4", SATA, "1M", 512N, 0),	      D("a5", SATA, "1M", 512N, 1),
	D("ovl_raw", VIRTIO, "64M", 512N, 0), D("ovl_q", NVME, "64M", 4KN, 0),
};
/* multipath: native NVMe (zoned too), dm over SCSI beside a plain SCSI disk */
static struct multipath bio = { MULTIPATH_BIO, MULTIPATH_QUEUE };
static struct zoned z8 = { "8M", 0 };
static struct disk mp[] = {
	{ .id = "mpn", .bus = DISK_BUS_NVME, .size = "64M", .paths = 2 },
	{ .id = "mpz",
	  .bus = DISK_BUS_NVME,
	  .size = "64M",
	  .sector = DISK_SECTOR_4KN,
	  .paths = 4,
	  .zoned = &z8 },
	{ .id = "s1", .bus = DISK_BUS_SCSI, .size = "64M" },
	{ .id = "mps", .bus = DISK_BUS_SCSI, .size = "64M", .paths = 2, .multipath = &bio },
	{ .id = "zns", .bus = DISK_BUS_NVME, .size = "64M", .zoned = &z8 },
};
static unsigned c0[] = { 0, 1, 4 }, c1[] = { 2, 3, 5 };
static struct numa_node nodes[] = { { c0, 3, "1G", 0 },
				    { c1, 3, "512M", 0 },
				    { NULL, 0, "512M", 0 } };
static unsigned dist[] = { 10, 20, 30, 20, 10, 25, 30, 25, 10 };
static struct numa numa = {
	.nodes = nodes, .nodes_count = 3, .distances = dist, .distances_count = 9
};
static struct hmat_lb lbs[] = {
	{ .initiator = 0, .target = 0, .latency = 10, .bandwidth = "10G" },
	{ .initiator = 1, .target = 2, .latency = 60, .bandwidth = "3G" },
};
static struct hmat_cache caches[] = { { .node = 2, .size = "16M" } };
static struct balloon balloon = { .free_page_reporting = true };

int main(int argc, char **argv)
{
	struct machine m = { .cpus = 2, .memory = "1G" };
	struct hw_launch l = { .disk_dir = argv[2], .qga_path = argv[3], .run = spawn_tool };
	struct hw_error err;
	struct argv a;
	const char *w = argv[1];

	if (argc < 5)
		return 2;
	if (!strcmp(w, "disks")) {
		m.disks = all;
		m.disks_count = 14;
	}
	if (!strcmp(w, "overlay")) {
		m.disks = all + 14;
		m.disks_count = 2;
		all[14].image = argv[4];
		all[15].image = argv[5];
	}
	if (!strcmp(w, "multipath")) {
		m.disks = mp;
		m.disks_count = 5;
	}
	if (!strcmp(w, "numa")) {
		m.cpus = 6;
		m.memory = "2G";
		m.numa = &numa;
	}
	if (!strcmp(w, "hmat")) {
		m.cpus = 6;
		m.memory = "2G";
		m.numa = &numa;
		numa.hmat = lbs;
		numa.hmat_count = 2;
		numa.caches = caches;
		numa.caches_count = 1;
	}
	if (!strcmp(w, "balloon"))
		m.balloon = &balloon;
	if (!strcmp(w, "s3"))
		m.sleep = SLEEP_S3;
	if (!strcmp(w, "s3s4"))
		m.sleep = SLEEP_S3 | SLEEP_S4;
	if (machine_validate(&m, &err) || machine_create_disks(&m, &l, &err) ||
	    machine_to_argv(&m, &l, &a, &err)) {
		fprintf(stderr, "%s: %s\n", err.field, err.msg);
		return 1;
	}
	for (size_t i = 0; i < a.n; i++)
		puts(a.v[i]);
	argv_free(&a);
	return 0;
}
