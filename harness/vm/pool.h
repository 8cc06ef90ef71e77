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
/* Where a qemu+ssh:// URI points: [user@]host[:port], and the query's
 * keyfile= and no_verify=1 that libvirt's own ssh transport honours too. */
struct ssh_target {
	char *user;	/* NULL: ssh's default */
	char *host;	/* a name or address, without brackets */
	int port;	/* 0: ssh's default */
	char *keyfile;	/* NULL: none given */
	bool no_verify; /* no_verify=1: do not check the host key */
};

/* Parse qemu+ssh://[user@]host[:port]/path[?query]. 0 and t filled, or
 * -EINVAL with a message in err (another transport, no host, a bad port). */
int hosts_uri_ssh(const char *uri, struct ssh_target *t, char *err, size_t len);
void ssh_target_free(struct ssh_target *t);
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
