/* A remote libvirt host reached over ssh (qemu+ssh:// URIs), the transport
 * libvirt itself uses: commands run there through OpenSSH's client with the
 * URI's user, port and keyfile, BatchMode (never a password prompt) and the
 * extra options of $KTB_SSH_OPTS. The libvirt backend uses it to prepare a
 * work directory on the host, upload the kernel and initrd once (a cache
 * there named by their SHA-256), follow the console file and forward the
 * monitor and agent sockets (backend_libvirt.c). */
#ifndef KTB_REMOTE_H
#define KTB_REMOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "pool.h"

/* Where the host keeps the uploaded kernels and initrds, and its runs. */
#define REMOTE_CACHE_DIR "/var/tmp/ktb-cache"
#define REMOTE_RUN_PARENT "/var/tmp"

struct remote {
	struct ssh_target t;
	char *label;	     /* [user@]host[:port] for messages */
	bool stop_on_signal; /* remote_run ends early (-EINTR) after SIGINT/SIGTERM */
};

/* 0, or -EINVAL with err when uri is not qemu+ssh://[user@]host[:port]/... */
int remote_init(struct remote *r, const char *uri, char *err, size_t len);
void remote_free(struct remote *r);
/* "ssh" and its options, then opts (NULL-terminated, may be NULL), the host
 * and cmd (NULL: none, e.g. with -N). A NULL-terminated vector; free each
 * string and the vector with remote_argv_free. */
char **remote_argv(const struct remote *r, const char *const *opts, const char *cmd);
void remote_argv_free(char **v);
/* Run cmd (a shell command line) on the host, stdin from in_path (NULL:
 * nothing), stdout into *out (malloc'd; out may be NULL). 0; -ETIMEDOUT
 * after timeout_ms; -EINTR on a signal if r->stop_on_signal; -EIO when ssh or the command failed,
 * with err saying "ssh HOST: " and the last line of its standard error. */
int remote_run(const struct remote *r, const char *cmd, const char *in_path, char **out,
	       int timeout_ms, char *err, size_t len);
/* The SHA-256 of a local file as 64 hex digits (out), 0 or -errno. Kept in
 * the ktb cache (sha256/) under the file's device, inode, size and mtime. */
int remote_file_sha256(const char *path, char out[65]);

#endif
