/* The virtiofsd daemons of a machine's virtiofs shares (one per share,
 * hw/share.c decides which shares): the VM starts them before QEMU, waits
 * until each one's vhost-user socket is there, and stops and reaps them
 * after QEMU, on errors and signals too, so no daemon outlives the run.
 * And the preflight that tells hw/share.c whether a virtiofsd can serve on
 * this host at all: a throwaway one is asked over vhost-user, since its
 * sandbox is set up only once a client connects (in a chroot, where / is
 * no mount point, it then dies), and the verdict is cached per host. */
#ifndef KTB_VIRTIOFS_PROCS_H
#define KTB_VIRTIOFS_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "sidecar.h"

/* Start a virtiofsd for every virtiofs share of m (into sc), each logging
 * to log_dir/virtiofsd-ktbN.log, and wait until each listens. 0, or -errno
 * with why (len bytes) filled; the ones started are in sc either way
 * (sidecars_stop). */
int virtiofs_start(struct sidecars *sc, const struct machine *m, const struct hw_launch *l,
		   const char *log_dir, int64_t deadline, char *why, size_t len);

/* What a cached verdict depends on: if any of it changes, ask again. */
struct virtiofs_host_key {
	char host_release[65]; /* uname -r */
	char bin[256];	       /* the virtiofsd, its size and mtime: another build */
	long long bin_size, bin_mtime;
	char mnt_ns[64];	      /* /proc/self/ns/mnt: another container, unshare -m */
	long long root_dev, root_ino; /* stat("/"): another chroot */
	long long euid;		      /* its sandbox needs root */
};

/* Fill k for virtiofsd bin here. 0, or -errno with why filled. */
int virtiofs_host_key_fill(struct virtiofs_host_key *k, const char *bin, char *why, size_t len);
/* 0 and the verdict (*serves, why) when dir/virtiofsd.json holds one for
 * exactly k; -ENOENT when it holds none (missing, unreadable, another key). */
int virtiofs_cache_load(const char *dir, const struct virtiofs_host_key *k, bool *serves, char *why,
			size_t len);
/* Replace dir/virtiofsd.json atomically (temporary file, rename). 0/-errno. */
int virtiofs_cache_store(const char *dir, const struct virtiofs_host_key *k, bool serves,
			 const char *why, int64_t probe_ms);

/* Judge a probe: answered (virtiofsd replied to VHOST_USER_GET_FEATURES)
 * means it serves; else why gets its last log line (its own error, such as
 * "mount(/, MS_REC|MS_SLAVE): Invalid argument"), or what failed (fallback)
 * when it logged nothing. True when it serves. */
bool virtiofs_probe_judge(bool answered, const char *log, const char *fallback, char *why,
			  size_t len);

/* Start a throwaway virtiofsd on a temporary folder, as shares run it,
 * connect, send VHOST_USER_GET_FEATURES and wait for its answer (at most
 * a few seconds), then stop it. 0 with *serves set (why: virtiofsd's error
 * when it does not), or -errno when the probe itself could not run. */
int virtiofs_probe(const char *bin, bool *serves, char *why, size_t len);

/* The verdict for bin: from dir/virtiofsd.json when its key matches (and
 * not force), else probed and stored. *cached says which. 0, or -errno. */
int virtiofs_check_in(const char *dir, const char *bin, bool force, bool *serves, bool *cached,
		      char *why, size_t len);

/* The check hw/share.c asks (share_set_virtiofsd_check): the cache in
 * ktb_cache_dir(), remembered for the process. 0 when bin serves here,
 * else -EOPNOTSUPP with why (a probe that could not run counts as no). */
int virtiofs_check(const char *bin, char *why, size_t len);

#endif
