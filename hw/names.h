/* The machine model's named choices, each spelled exactly once: a disk's bus
 * and sector format, the sleep states the firmware offers, the sleep state a
 * suspend step enters, the multipath options, the HMAT cache words, the
 * hybrid drive's model, the machine step's parts. Each
 * is an X-macro table X(ID, "name", ...) that generates the enum, the name
 * accessor and the lists messages print; the scenario parser, the renderers
 * (QEMU arguments, libvirt XML), the expected facts and the CLI all read
 * these, so a name added here reaches every one of them. Lowest layer of hw/:
 * includes nothing of the project. */
#ifndef KTB_HW_NAMES_H
#define KTB_HW_NAMES_H

/* Rows have two or more columns; these take any row. (The ~ keeps the
 * ellipsis of HW_NAMES_NAME non-empty, as C11 requires.) */
#define HW_NAMES_NAME(id, name, ...) name
#define HW_NAMES_COUNT_ONE(...) +1
#define HW_NAMES_COMMA(...) ", " HW_NAMES_NAME(__VA_ARGS__, ~)
#define HW_NAMES_BAR(...) "|" HW_NAMES_NAME(__VA_ARGS__, ~)
#define HW_NAMES_STR(...) HW_NAMES_NAME(__VA_ARGS__, ~),
/* A table's names as one string constant, "virtio, scsi, nvme, sata, hybrid"
 * or "virtio|scsi|nvme|sata|hybrid": the joined literal past its first
 * separator. */
#define HW_NAMES_LIST(table) ((table(HW_NAMES_COMMA)) + 2)
#define HW_NAMES_ALTS(table) ((table(HW_NAMES_BAR)) + 1)

/* bus: X(ID, name) */
#define DISK_BUS_TABLE(X)                                                                          \
	X(VIRTIO, "virtio") X(SCSI, "scsi") X(NVME, "nvme") X(SATA, "sata") X(HYBRID, "hybrid")

/* sector: X(ID, name, logical bytes, physical bytes) */
#define DISK_SECTOR_TABLE(X)                                                                       \
	X(512N, "512n", 512, 512) X(512E, "512e", 512, 4096) X(4KN, "4kn", 4096, 4096)

/* machine.sleep, the ACPI sleep states the firmware offers: X(ID, name) */
#define SLEEP_TABLE(X) X(S3, "s3") X(S4, "s4")

/* a suspend step's suspend: X(ID, name) */
#define SLEEP_STATE_TABLE(X) X(S3, "s3") X(S2IDLE, "s2idle") X(S4, "s4")

/* multipath.mode and multipath.no_path: X(ID, name) */
#define MULTIPATH_MODE_TABLE(X) X(RQ, "rq") X(BIO, "bio")
#define MULTIPATH_NO_PATH_TABLE(X) X(QUEUE, "queue") X(FAIL, "fail")

/* machine.numa.caches[].associativity and .policy, kept as written in the
 * model (strings, no enum): X(ID, name) */
#define HMAT_ASSOC_TABLE(X) X(NONE, "none") X(DIRECT, "direct") X(COMPLEX, "complex")
#define HMAT_POLICY_TABLE(X)                                                                       \
	X(NONE, "none") X(WRITE_BACK, "write-back") X(WRITE_THROUGH, "write-through")

/* a hybrid disk's hybrid.model (docs/storage.md): X(ID, name) */
#define HYBRID_MODEL_TABLE(X) X(ON, "on") X(OFF, "off")

/* machine.display, the screen the machine has (docs/scenarios.md): X(ID,
 * name, QEMU device, libvirt video model, what the guest's PCI bus shows:
 * "vendor:device class") */
#define DISPLAY_TABLE(X)                                                                           \
	X(NONE, "none", NULL, NULL, NULL)                                                          \
	X(BOCHS, "bochs-display", "bochs-display", "bochs", "1234:1111 038000")                    \
	X(VGA, "vga", "VGA", "vga", "1234:1111 030000")                                            \
	X(VIRTIO, "virtio-gpu", "virtio-vga", "virtio", "1af4:1050 030000")

/* machine.unverified, the parts the machine step checks: X(ID, name) */
/* clang-format off */
#define MACHINE_PART_TABLE(X)                                                                      \
	X(CPUS, "cpus") X(MEMORY, "memory") X(NUMA, "numa") X(DISKS, "disks")                     \
	X(BALLOON, "balloon") X(HMAT, "hmat") X(SLEEP, "sleep") X(DISPLAY, "display")             \
	X(SHARES, "shares")
/* clang-format on */

#define HW_NAMES_ENUM_DISK_BUS(id, name) DISK_BUS_##id,
#define HW_NAMES_ENUM_DISK_SECTOR(id, name, logical, physical) DISK_SECTOR_##id,
#define HW_NAMES_ENUM_SLEEP_BIT(id, name) SLEEP_BIT_##id,
#define HW_NAMES_ENUM_SLEEP(id, name) SLEEP_##id = 1u << SLEEP_BIT_##id,
#define HW_NAMES_ENUM_SLEEP_STATE(id, name) SLEEP_STATE_##id,
#define HW_NAMES_ENUM_MP_MODE(id, name) MULTIPATH_##id,
#define HW_NAMES_ENUM_MP_NO_PATH(id, name) MULTIPATH_##id,
#define HW_NAMES_ENUM_PART(id, name) MACHINE_PART_##id,
#define HW_NAMES_ENUM_DISPLAY(id, ...) DISPLAY_##id,
#define HW_NAMES_ENUM_HYBRID_MODEL(id, name) HYBRID_MODEL_##id,

enum disk_bus { DISK_BUS_TABLE(HW_NAMES_ENUM_DISK_BUS) };
enum disk_sector { DISK_SECTOR_TABLE(HW_NAMES_ENUM_DISK_SECTOR) };
/* Defines, not enumerators, so switches over the enums stay complete. */
#define DISK_BUS_COUNT (0 DISK_BUS_TABLE(HW_NAMES_COUNT_ONE))
#define DISK_SECTOR_COUNT (0 DISK_SECTOR_TABLE(HW_NAMES_COUNT_ONE))

/* Sleep states the firmware offers: bit numbers, and bit flags for
 * machine.sleep (SLEEP_S3, SLEEP_S4). */
enum sleep_bit { SLEEP_TABLE(HW_NAMES_ENUM_SLEEP_BIT) };
enum { SLEEP_TABLE(HW_NAMES_ENUM_SLEEP) };
#define SLEEP_COUNT (0 SLEEP_TABLE(HW_NAMES_COUNT_ONE))
#define SLEEP_ALL ((1u << SLEEP_COUNT) - 1)

enum sleep_state { SLEEP_STATE_TABLE(HW_NAMES_ENUM_SLEEP_STATE) };
#define SLEEP_STATE_COUNT (0 SLEEP_STATE_TABLE(HW_NAMES_COUNT_ONE))

/* How the guest joins the paths of a SCSI multipath disk: dm-multipath
 * request-based (rq) or bio-based (bio); with no path left, queue I/O until
 * one comes back or fail it at once. */
enum multipath_mode { MULTIPATH_MODE_TABLE(HW_NAMES_ENUM_MP_MODE) };
enum multipath_no_path { MULTIPATH_NO_PATH_TABLE(HW_NAMES_ENUM_MP_NO_PATH) };
#define MULTIPATH_MODE_COUNT (0 MULTIPATH_MODE_TABLE(HW_NAMES_COUNT_ONE))
#define MULTIPATH_NO_PATH_COUNT (0 MULTIPATH_NO_PATH_TABLE(HW_NAMES_COUNT_ONE))

/* The hybrid drive's model: on, or off (pass-through: no tiers, no latency). */
enum hybrid_model { HYBRID_MODEL_TABLE(HW_NAMES_ENUM_HYBRID_MODEL) };
#define HYBRID_MODEL_COUNT (0 HYBRID_MODEL_TABLE(HW_NAMES_COUNT_ONE))

/* The parts of a machine the runner verifies in the guest after each boot
 * (the machine step); machine.unverified holds MACHINE_PART_BIT flags of
 * parts a scenario deliberately hides from the guest. */
enum machine_part { MACHINE_PART_TABLE(HW_NAMES_ENUM_PART) MACHINE_PART_COUNT };
enum display_model { DISPLAY_TABLE(HW_NAMES_ENUM_DISPLAY) DISPLAY_COUNT };
#define MACHINE_PART_BIT(p) (1u << (p))

/* A name by its enumerator; NULL outside the table. */
#define HW_NAMES_LOOKUP(table, v, count)                                                           \
	static const char *const names[] = { table(HW_NAMES_STR) };                                \
	_Static_assert(sizeof(names) / sizeof(names[0]) == (count), "one name per value");         \
	return (unsigned)(v) < (unsigned)(count) ? names[v] : NULL

static inline const char *disk_bus_name(enum disk_bus b)
{
	HW_NAMES_LOOKUP(DISK_BUS_TABLE, b, DISK_BUS_COUNT);
}

static inline const char *disk_sector_name(enum disk_sector s)
{
	HW_NAMES_LOOKUP(DISK_SECTOR_TABLE, s, DISK_SECTOR_COUNT);
}

/* The format's logical and physical sector sizes in bytes; 0 outside. */
#define HW_NAMES_LOGICAL(id, name, logical, physical) logical,
#define HW_NAMES_PHYSICAL(id, name, logical, physical) physical,

static inline unsigned disk_sector_logical(enum disk_sector s)
{
	static const unsigned v[] = { DISK_SECTOR_TABLE(HW_NAMES_LOGICAL) };

	return (unsigned)s < DISK_SECTOR_COUNT ? v[s] : 0;
}

static inline unsigned disk_sector_physical(enum disk_sector s)
{
	static const unsigned v[] = { DISK_SECTOR_TABLE(HW_NAMES_PHYSICAL) };

	return (unsigned)s < DISK_SECTOR_COUNT ? v[s] : 0;
}

/* By bit number (enum sleep_bit), not flag. */
static inline const char *sleep_name(enum sleep_bit b)
{
	HW_NAMES_LOOKUP(SLEEP_TABLE, b, SLEEP_COUNT);
}

static inline const char *sleep_state_name(enum sleep_state s)
{
	HW_NAMES_LOOKUP(SLEEP_STATE_TABLE, s, SLEEP_STATE_COUNT);
}

static inline const char *multipath_mode_name(enum multipath_mode m)
{
	HW_NAMES_LOOKUP(MULTIPATH_MODE_TABLE, m, MULTIPATH_MODE_COUNT);
}

static inline const char *multipath_no_path_name(enum multipath_no_path n)
{
	HW_NAMES_LOOKUP(MULTIPATH_NO_PATH_TABLE, n, MULTIPATH_NO_PATH_COUNT);
}

static inline const char *hybrid_model_name(enum hybrid_model m)
{
	HW_NAMES_LOOKUP(HYBRID_MODEL_TABLE, m, HYBRID_MODEL_COUNT);
}

static inline const char *display_name(enum display_model d)
{
	HW_NAMES_LOOKUP(DISPLAY_TABLE, d, DISPLAY_COUNT);
}

/* As scenarios write it in machine.unverified ("cpus"); NULL outside. */
static inline const char *machine_part_str(enum machine_part p)
{
	HW_NAMES_LOOKUP(MACHINE_PART_TABLE, p, MACHINE_PART_COUNT);
}

#endif
