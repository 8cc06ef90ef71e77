/* Machine model: the hardware a scenario asks for (CPUs, memory, NUMA, sleep
 * states, disks), as plain structs and nothing else. Knows nothing of the
 * harness: the scenario loader fills these structs; the other hw/ headers
 * validate them and turn them into QEMU arguments or libvirt XML. */
#ifndef KTB_HW_MODEL_H
#define KTB_HW_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"

#define HW_KIB (1ull << 10)
#define HW_MIB (1ull << 20)

#define MACHINE_MAX_DISKS 16
#define MACHINE_MAX_NODES 8
#define MACHINE_MAX_PATHS 4
#define MACHINE_MAX_SHARES 8

/* A SCSI disk with paths > 1: how dm-multipath joins them (names.h). */
struct multipath {
	enum multipath_mode mode;
	enum multipath_no_path no_path;
};

/* A zoned (ZNS) namespace: sequential-write-required zones of zone_size. */
struct zoned {
	char *zone_size;	  /* as written, e.g. "8M" */
	uint64_t zone_size_bytes; /* filled by machine_validate() */
};

struct hybrid {
	char *cache;		 /* flash tier size, default 64M */
	uint64_t cache_bytes;	 /* filled by machine_validate() */
	unsigned rpm;		 /* 0: default 5400 */
	enum hybrid_model model; /* off: pass-through, no tiers, no latency */
	char *write_cache;	 /* volatile write cache size, default 8M */
	uint64_t write_cache_bytes;
	unsigned promote_after; /* 0: default 2 platter reads of a chunk */
	char **pin;		/* "OFFSET+LENGTH" ranges kept in flash */
	unsigned pin_count;
	bool ignore_flushes; /* debug: acknowledge flushes and do nothing */
	char *fail_writes;   /* debug: "OFFSET+LENGTH" where writes fail */
	char *fail_reads;    /* debug: "OFFSET+LENGTH" where reads fail */
};

struct disk {
	char *id; /* scenario name; becomes the device serial */
	enum disk_bus bus;
	char *size;	     /* as written, e.g. "256M" */
	uint64_t size_bytes; /* filled by machine_validate() */
	enum disk_sector sector;
	unsigned paths;		     /* 0 or 1: single path; > 1 multipath */
	bool rotational;	     /* ask for a rotating disk where the bus can say so */
	char *image;		     /* optional base image: a qcow2 overlay is made per run */
	struct multipath *multipath; /* scsi with paths > 1: dm-multipath options */
	struct zoned *zoned;	     /* nvme only: a zoned namespace */
	struct hybrid *hybrid;	     /* bus hybrid: the drive's model; NULL: defaults */
};

struct numa_node {
	unsigned *cpus;
	unsigned cpus_count; /* 0: memory-only node */
	char *memory;
	uint64_t memory_bytes; /* filled by machine_validate() */
};

/* HMAT: what an initiator (a node with CPUs) sees of a target node's
 * memory, and the memory-side caches in front of a node. */
struct hmat_lb {
	unsigned initiator, target;
	unsigned latency;	  /* ns; 0: not given */
	char *bandwidth;	  /* per second, as written ("4G"); NULL: not given */
	uint64_t bandwidth_bytes; /* filled by machine_validate() */
};

struct hmat_cache {
	unsigned node;
	char *size;	     /* as written ("16K") */
	uint64_t size_bytes; /* filled by machine_validate() */
	unsigned level;	     /* 1..3 */
	char *associativity; /* none | direct | complex (default direct) */
	char *policy;	     /* none | write-back | write-through (default write-back) */
	unsigned line;	     /* bytes, default 64 */
};

struct numa {
	struct numa_node *nodes;
	unsigned nodes_count;
	/* distances[i * nodes_count + j]; NULL when the scenario gives none */
	unsigned *distances;
	unsigned distances_count; /* nodes_count * nodes_count when given */
	struct hmat_lb *hmat;	  /* latency/bandwidth entries; any turns HMAT on */
	unsigned hmat_count;
	struct hmat_cache *caches; /* memory-side caches (need hmat entries) */
	unsigned caches_count;
};

/* Hibernation (S4) writes its image to the swap disk named here. */
struct hibernate {
	char *disk; /* a disk id */
};

/* A virtio balloon the balloon step drives; free page reporting lets the
 * guest hand pages it freed back to the host (QEMU's RSS falls). */
struct balloon {
	bool free_page_reporting;
};

/* A host folder the guest mounts at boot (hw/share.c): virtiofs where a
 * virtiofsd is installed and the share is writable, else 9p over virtio. */
struct share {
	char *host;	 /* the host's folder; machine_validate makes it absolute */
	char *guest;	 /* absolute path in the guest; NULL: the host's (absolute) path */
	bool *readonly;	 /* as written; NULL: read-only */
	char *transport; /* "9p", "virtiofs" or "auto"; NULL: auto */
	bool writable;	 /* filled by machine_validate() from readonly */
	bool virtiofs;	 /* filled by machine_validate() from transport */
	/* filled by machine_validate() when virtiofsd cannot serve on this host
	 * (share_set_virtiofsd_check): for "auto", why the share went over 9p
	 * instead; for "virtiofs" (refused set), why it cannot boot here */
	char note[256];
	bool refused;
};

struct machine {
	unsigned cpus;	       /* 0: default 1 */
	char *memory;	       /* NULL: default "512M" */
	uint64_t memory_bytes; /* filled by machine_validate() */
	unsigned sleep;	       /* SLEEP_* flags; 0: firmware offers neither S3 nor S4 */
	struct disk *disks;
	unsigned disks_count;
	struct numa *numa;	     /* NULL: no NUMA topology */
	struct hibernate *hibernate; /* NULL: no swap disk for S4 */
	struct balloon *balloon;     /* NULL: no balloon device */
	enum display_model display;  /* DISPLAY_NONE: no display device at all */
	unsigned unverified;	     /* MACHINE_PART_BIT flags the machine step leaves out */
	struct share *shares;	     /* host folders the guest mounts */
	unsigned shares_count;
	/* Both NULL: the image is the guest's root. root: the host folder its
	 * userspace runs on, shared read-only over 9p; root_disk: an ext4
	 * image of one (the Debian root), a read-only virtio disk the guest
	 * can sleep on (docs/guest.md). Borrowed: set by the harness from the
	 * scenario's guest.root, never freed here. */
	const char *root;
	const char *root_disk;
};

/* Where validation failed: a field path such as "machine.disks[1].sector"
 * and a message that says what is wrong and what to do. */
struct hw_error {
	char field[128];
	char msg[256];
};

/* The guest CPU under TCG: QEMU's "max" model without ERMS and FSRM. With
 * ERMS the kernel copies and clears memory with byte-wise "rep movsb" and
 * "rep stosb" (memcpy_erms, clear_page_erms); TCG runs a rep-prefixed
 * string instruction one element per iteration, so a 4 KiB page cleared
 * byte-wise takes 4096 iterations where the 8-byte "rep stosq" of the
 * kernel's fallback takes 512. Measured on the scenario library (QEMU 7.2,
 * a 2-core host): 6 % less CPU over all of it, 11 to 20 % on the scenarios
 * that move memory (s4-hibernate, paging-zswap, compaction-thp). Every
 * other feature of "max" stays (docs/guest.md, The guest CPU). The
 * libvirt renderer reads its features from this string: each one after the
 * model's name is written NAME=off or NAME=on. */
#define HW_TCG_CPU "max,erms=off,fsrm=off"

/* What the harness supplies to launch a machine. */
struct hw_launch {
	const char *qemu;   /* binary, default "qemu-system-x86_64" */
	const char *kernel; /* vmlinux (PVH) or bzImage */
	const char *initrd;
	const char *append;   /* full kernel command line */
	const char *qmp_path; /* unix socket, QEMU is the server */
	const char *qga_path; /* unix socket for the guest agent, QEMU is the server */
	const char *disk_dir; /* where per-run disk images live */
	bool kvm;	      /* accelerate with KVM (else TCG, -cpu HW_TCG_CPU) */
	bool interactive;     /* console on the terminal (mon:stdio) instead of stdout pipe */
	unsigned gdb_port;    /* 1..65535: QEMU's gdb server on 127.0.0.1:PORT; 0: none */
	bool gdb_wait;	      /* with gdb_port: the CPUs start stopped (-S) until the
				 debugger lets them go */
	bool dump_ready;      /* the machine can be dumped after a panic: QEMU's
				 vmcoreinfo device, a pvpanic device and
				 -action panic=pause (docs/debugging.md) */
	/* Runs a program (qemu-img, for overlays on a disk's base image): 0 when
	 * it exits 0, else -errno with the first line of its stderr in why. hw/
	 * never forks itself: the harness runs every child under its one policy
	 * (spawn_tool in harness/base/spawn.h). NULL: an image disk fails. */
	int (*run)(char *const argv[], char *why, size_t len, void *ctx);
	void *run_ctx;
};

#endif
