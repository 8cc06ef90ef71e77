/* Machine model: the hardware a scenario asks for (CPUs, memory, NUMA, sleep
 * states, disks) and its rendering as a QEMU command line. Knows nothing of
 * the harness: the scenario loader fills these structs, hw/ validates them
 * and turns them into arguments. */
#ifndef KTB_HW_MACHINE_H
#define KTB_HW_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum disk_bus { DISK_BUS_VIRTIO, DISK_BUS_SCSI, DISK_BUS_NVME, DISK_BUS_SATA, DISK_BUS_HYBRID };
enum disk_sector { DISK_SECTOR_512N, DISK_SECTOR_512E, DISK_SECTOR_4KN };

/* Sleep states the firmware offers (bit flags for machine.sleep). */
enum { SLEEP_S3 = 1u << 0, SLEEP_S4 = 1u << 1 };

/* The parts of a machine the runner verifies in the guest after each boot
 * (the machine step); machine.unverified holds MACHINE_PART_BIT flags of
 * parts a scenario deliberately hides from the guest. */
enum machine_part {
	MACHINE_PART_CPUS, MACHINE_PART_MEMORY, MACHINE_PART_NUMA, MACHINE_PART_DISKS,
	MACHINE_PART_BALLOON, MACHINE_PART_HMAT, MACHINE_PART_SLEEP, MACHINE_PART_COUNT
};
#define MACHINE_PART_BIT(p) (1u << (p))

#define MACHINE_MAX_DISKS 16
#define MACHINE_MAX_NODES 8
#define MACHINE_MAX_PATHS 4

/* How the guest joins the paths of a SCSI multipath disk: dm-multipath
 * request-based (rq) or bio-based (bio); with no path left, queue I/O until
 * one comes back or fail it at once. */
enum multipath_mode { MULTIPATH_RQ, MULTIPATH_BIO };
enum multipath_no_path { MULTIPATH_QUEUE, MULTIPATH_FAIL };

struct multipath {
	enum multipath_mode mode;
	enum multipath_no_path no_path;
};

/* A zoned (ZNS) namespace: sequential-write-required zones of zone_size. */
struct zoned {
	char *zone_size;        /* as written, e.g. "8M" */
	uint64_t zone_size_bytes; /* filled by machine_validate() */
};

/* The hybrid drive's model (bus: hybrid only; docs/storage.md). */
enum hybrid_model { HYBRID_MODEL_ON, HYBRID_MODEL_OFF };

struct hybrid {
	char *cache;            /* flash tier size, default 64M */
	uint64_t cache_bytes;   /* filled by machine_validate() */
	unsigned rpm;           /* 0: default 5400 */
	enum hybrid_model model; /* off: pass-through, no tiers, no latency */
	char *write_cache;      /* volatile write cache size, default 8M */
	uint64_t write_cache_bytes;
	unsigned promote_after; /* 0: default 2 platter reads of a chunk */
	char **pin;             /* "OFFSET+LENGTH" ranges kept in flash */
	unsigned pin_count;
	bool ignore_flushes;    /* debug: acknowledge flushes and do nothing */
	char *fail_writes;      /* debug: "OFFSET+LENGTH" where writes fail */
};

struct disk {
	char *id;               /* scenario name; becomes the device serial */
	enum disk_bus bus;
	char *size;             /* as written, e.g. "256M" */
	uint64_t size_bytes;    /* filled by machine_validate() */
	enum disk_sector sector;
	unsigned paths;         /* 0 or 1: single path; > 1 multipath */
	bool rotational;        /* ask for a rotating disk where the bus can say so */
	char *image;            /* optional base image: a qcow2 overlay is made per run */
	struct multipath *multipath; /* scsi with paths > 1: dm-multipath options */
	struct zoned *zoned;    /* nvme only: a zoned namespace */
	struct hybrid *hybrid;  /* bus hybrid: the drive's model; NULL: defaults */
};

struct numa_node {
	unsigned *cpus;
	unsigned cpus_count;    /* 0: memory-only node */
	char *memory;
	uint64_t memory_bytes;  /* filled by machine_validate() */
};

/* HMAT: what an initiator (a node with CPUs) sees of a target node's
 * memory, and the memory-side caches in front of a node. */
struct hmat_lb {
	unsigned initiator, target;
	unsigned latency;       /* ns; 0: not given */
	char *bandwidth;        /* per second, as written ("4G"); NULL: not given */
	uint64_t bandwidth_bytes; /* filled by machine_validate() */
};

struct hmat_cache {
	unsigned node;
	char *size;             /* as written ("16K") */
	uint64_t size_bytes;    /* filled by machine_validate() */
	unsigned level;         /* 1..3 */
	char *associativity;    /* none | direct | complex (default direct) */
	char *policy;           /* none | write-back | write-through (default write-back) */
	unsigned line;          /* bytes, default 64 */
};

struct numa {
	struct numa_node *nodes;
	unsigned nodes_count;
	/* distances[i * nodes_count + j]; NULL when the scenario gives none */
	unsigned *distances;
	unsigned distances_count; /* nodes_count * nodes_count when given */
	struct hmat_lb *hmat;     /* latency/bandwidth entries; any turns HMAT on */
	unsigned hmat_count;
	struct hmat_cache *caches; /* memory-side caches (need hmat entries) */
	unsigned caches_count;
};

/* Hibernation (S4) writes its image to the swap disk named here. */
struct hibernate {
	char *disk;             /* a disk id */
};

/* A virtio balloon the balloon step drives; free page reporting lets the
 * guest hand pages it freed back to the host (QEMU's RSS falls). */
struct balloon {
	bool free_page_reporting;
};

struct machine {
	unsigned cpus;          /* 0: default 1 */
	char *memory;           /* NULL: default "512M" */
	uint64_t memory_bytes;  /* filled by machine_validate() */
	unsigned sleep;         /* SLEEP_* flags; 0: firmware offers neither S3 nor S4 */
	struct disk *disks;
	unsigned disks_count;
	struct numa *numa;      /* NULL: no NUMA topology */
	struct hibernate *hibernate; /* NULL: no swap disk for S4 */
	struct balloon *balloon; /* NULL: no balloon device */
	unsigned unverified;    /* MACHINE_PART_BIT flags the machine step leaves out */
};

/* Where validation failed: a field path such as "machine.disks[1].sector"
 * and a message that says what is wrong and what to do. */
struct hw_error {
	char field[128];
	char msg[256];
};

/* A growable, NULL-terminated argument vector. */
struct argv {
	char **v;
	size_t n, cap;
};
void argv_init(struct argv *a);
int argv_add(struct argv *a, const char *s);
int argv_addf(struct argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void argv_free(struct argv *a);

/* What the harness supplies to launch a machine. */
struct hw_launch {
	const char *qemu;        /* binary, default "qemu-system-x86_64" */
	const char *kernel;      /* vmlinux (PVH) or bzImage */
	const char *initrd;
	const char *append;      /* full kernel command line */
	const char *qmp_path;    /* unix socket, QEMU is the server */
	const char *qga_path;    /* unix socket for the guest agent, QEMU is the server */
	const char *disk_dir;    /* where per-run disk images live */
	bool kvm;                /* accelerate with KVM (else TCG, -cpu max) */
	bool interactive;        /* console on the terminal (mon:stdio) instead of stdout pipe */
	/* Runs a program (qemu-img, for overlays on a disk's base image): 0 when
	 * it exits 0, else -errno with the first line of its stderr in why. hw/
	 * never forks itself: the harness runs every child under its one policy
	 * (spawn_tool in harness/base/spawn.h). NULL: an image disk fails. */
	int (*run)(char *const argv[], char *why, size_t len, void *ctx);
	void *run_ctx;
};

/* Parse a size such as "512", "4K", "256M", "1G" (binary units) into bytes. */
int hw_parse_size(const char *s, uint64_t *out);

/* The -machine argument: "q35", with ",hmat=on" when the NUMA model has
 * HMAT entries. */
const char *machine_type_arg(const struct machine *m);

/* Check the machine and fill the parsed fields (sizes, defaults). Refuses what
 * QEMU cannot present faithfully. Returns 0 or -EINVAL with err filled. */
int machine_validate(struct machine *m, struct hw_error *err);

/* True when the machine must boot the bzImage through SeaBIOS (it offers S3,
 * and S3 resume triple-faults on a PVH-booted kernel). */
bool machine_needs_bios_boot(const struct machine *m);

/* Path of disk d's image under l->disk_dir. Caller frees. */
char *machine_disk_path(const struct hw_launch *l, const struct disk *d);

/* Create each disk's image for this run: a fresh sparse raw file, or a qcow2
 * overlay on the user's base image (never written). Returns 0 or -errno. */
int machine_create_disks(const struct machine *m, const struct hw_launch *l, struct hw_error *err);

/* The -device option string of path p of multipath disk i (the nvme
 * controller or scsi-hd behind that path), as the command line has it and
 * device_add takes it back; its id after "id=". 0, or -EINVAL when disk i
 * has no path p. */
int machine_path_device(const struct machine *m, unsigned i, unsigned p, char *buf, size_t len);

/* The full QEMU argument vector (argv[0] is the binary). m must be validated. */
int machine_to_argv(const struct machine *m, const struct hw_launch *l, struct argv *out,
		    struct hw_error *err);

/* Hybrid disks are served by a ktb-hybrid process per disk: its vhost-user
 * socket, control socket and flash file live under l->disk_dir (the platter
 * is machine_disk_path()). Callers free. */
char *machine_hybrid_path(const struct hw_launch *l, const struct disk *d, const char *ext);
/* True when some disk is on bus hybrid (guest RAM must then be shared). */
bool machine_has_hybrid(const struct machine *m);
/* The argument vector that starts disk d's back end (argv[0] is binary). */
int hybrid_backend_argv(const struct disk *d, const struct hw_launch *l, const char *binary,
			struct argv *out);

#endif
