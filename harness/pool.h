/* A pool of libvirt hosts for ktb run --connect: which host runs the next
 * scenario (the least loaded one with a free slot), per-host slot limits,
 * and taking a failed host out so its scenarios go elsewhere. Pure
 * bookkeeping: no libvirt calls, no processes (parallel.c does those). */
#ifndef KTB_POOL_H
#define KTB_POOL_H

#include <stdbool.h>
#include <stddef.h>

#define HOSTS_MAX_SLOTS 64

struct pool_host {
	char *uri;
	unsigned slots; /* scenarios at once on this host */
	unsigned busy;	/* running now */
	bool out;	/* taken out after a failure */
	char *why;	/* why it was taken out */
};

struct hosts {
	struct pool_host *h;
	size_t n;
};

/* Add one --connect argument: "URI" (1 slot) or "URI,slots=N" (1..64).
 * 0, or -EINVAL with a message in err. */
int hosts_add(struct hosts *p, const char *arg, char *err, size_t len);
/* Does uri reach a daemon on this machine? qemu:///system, qemu:///session,
 * qemu+unix:///...: yes; a host name in the URI, or a network transport
 * (+ssh, +libssh, +libssh2, +tcp, +tls, +ext): no. */
bool hosts_uri_local(const char *uri);
/* A live host with a free slot, least loaded first (busy/slots, then the
 * order given), marked busy; -EBUSY when every live host is full, -EHOSTDOWN
 * when no host is left. */
int hosts_acquire(struct hosts *p);
/* The scenario on host h ended. */
void hosts_release(struct hosts *p, int h);
/* The scenario on host h ended because the host failed: take h out. */
void hosts_take_out(struct hosts *p, int h, const char *why);
/* Slots of the hosts still in. */
unsigned hosts_capacity(const struct hosts *p);
/* "URI: why; URI: why" for the hosts taken out (caller frees). */
char *hosts_describe_out(const struct hosts *p);
void hosts_free(struct hosts *p);

#endif
