#include "share.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *share_tag(unsigned i, char *buf, size_t len)
{
	snprintf(buf, len, "ktb%u", i);
	return buf;
}

/* The guest path travels on the kernel command line (no space, no comma, no
 * colon) and into JSON (no quote): a plain path of these bytes only. */
static bool guest_path_plain(const char *p)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				 "/._-+@";

	return p[0] == '/' && strspn(p, ok) == strlen(p) && strlen(p) < 128;
}

/* Folders the guest's own init needs: a share there would hide them. */
static bool guest_path_reserved(const char *p)
{
	static const char *const sys[] = { "/proc", "/sys",  "/dev", "/run", "/usr",
					   "/bin",  "/sbin", "/lib", "/etc" };
	size_t n;

	if (!strcmp(p, "/"))
		return true;
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
		n = strlen(sys[i]);
		if (!strncmp(p, sys[i], n) && (!p[n] || p[n] == '/'))
			return true;
	}
	return false;
}

static int share_host(struct share *s, const char *field, struct hw_error *err)
{
	struct stat st;
	char *abs;

	if (!s->host || !s->host[0])
		return hw_fail(err, field, "no host folder; give the folder to share");
	abs = realpath(s->host, NULL);
	if (!abs)
		return hw_fail(err, field, "host folder %s: %s; give a folder that exists", s->host,
			       strerror(errno));
	if (stat(abs, &st) || !S_ISDIR(st.st_mode)) {
		hw_fail(err, field, "%s is not a folder; share a folder", s->host);
		free(abs);
		return -EINVAL;
	}
	free(s->host);
	s->host = abs;
	return 0;
}

static int share_guest(struct share *s, const char *field, struct hw_error *err)
{
	if (!s->guest) {
		s->guest = strdup(s->host);
		if (!s->guest)
			return -ENOMEM;
	}
	/* "/mnt/src/" and "/mnt/src" are one mount point */
	while (strlen(s->guest) > 1 && s->guest[strlen(s->guest) - 1] == '/')
		s->guest[strlen(s->guest) - 1] = '\0';
	if (!guest_path_plain(s->guest))
		return hw_fail(err, field,
			       "\"%.60s\" is not an absolute guest path of letters, digits and "
			       "/._-+@; give one such as /mnt/src",
			       s->guest);
	if (guest_path_reserved(s->guest))
		return hw_fail(err, field,
			       "%s would hide a folder the guest needs; mount the share "
			       "elsewhere, such as /mnt/src",
			       s->guest);
	return 0;
}

const char *share_virtiofsd(void)
{
	static const char *const where[] = { "/usr/libexec/virtiofsd", "/usr/lib/qemu/virtiofsd" };
	const char *env = getenv("KTB_VIRTIOFSD");

	if (env)
		return *env ? env : NULL;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (!access(where[i], X_OK))
			return where[i];
	return NULL;
}

const char *share_transport(const struct share *s)
{
	return s->virtiofs ? "virtiofs" : "9p";
}

bool machine_has_virtiofs(const struct machine *m)
{
	for (unsigned i = 0; i < m->shares_count; i++)
		if (m->shares[i].virtiofs)
			return true;
	return false;
}

const char *shares_transport(const struct machine *m)
{
	bool vfs = machine_has_virtiofs(m), p9 = false;

	for (unsigned i = 0; i < m->shares_count; i++)
		p9 = p9 || !m->shares[i].virtiofs;
	if (!m->shares_count)
		return NULL;
	return vfs ? (p9 ? "9p+virtiofs" : "virtiofs") : "9p";
}

static share_virtiofsd_check_fn virtiofsd_check;

void share_set_virtiofsd_check(share_virtiofsd_check_fn check)
{
	virtiofsd_check = check;
}

const struct share *shares_refused(const struct machine *m, unsigned *index)
{
	for (unsigned i = 0; i < m->shares_count; i++)
		if (m->shares[i].refused) {
			if (index)
				*index = i;
			return &m->shares[i];
		}
	return NULL;
}

/* Ask the check (once per share that would go over virtiofs): true when
 * virtiofsd can serve here, else false with virtiofsd's error in why. */
static bool share_virtiofsd_serves(const char *bin, char *why, size_t len)
{
	why[0] = '\0';
	if (!virtiofsd_check || !virtiofsd_check(bin, why, len))
		return true;
	if (!why[0])
		snprintf(why, len, "it did not answer");
	return false;
}

/* ro stays on 9p whatever: virtiofsd cannot refuse writes, and a guest's
 * read-only mount is only the guest's word. */
static int share_pick(struct share *s, const char *field, struct hw_error *err)
{
	const char *t = s->transport ? s->transport : "auto";
	const char *bin = share_virtiofsd();
	char why[200];

	s->note[0] = '\0';
	s->refused = false;
	if (!strcmp(t, "9p")) {
		s->virtiofs = false;
	} else if (!strcmp(t, "virtiofs")) {
		if (!s->writable)
			return hw_fail(err, field,
				       "a read-only share stays on 9p (virtiofsd cannot refuse "
				       "writes); make it writable or give transport 9p");
		if (!bin)
			return hw_fail(err, field,
				       "no virtiofsd (in /usr/libexec, /usr/lib/qemu or "
				       "$KTB_VIRTIOFSD); install it or give transport 9p");
		s->virtiofs = true;
		if (!share_virtiofsd_serves(bin, why, sizeof(why))) {
			s->refused = true;
			snprintf(s->note, sizeof(s->note),
				 "%s: transport virtiofs, but %s cannot serve here: %s; run "
				 "where it can (not in a chroot) or give transport auto or 9p",
				 field, bin, why);
		}
	} else if (!strcmp(t, "auto")) {
		s->virtiofs = s->writable && bin && geteuid() == 0;
		if (s->virtiofs && !share_virtiofsd_serves(bin, why, sizeof(why))) {
			s->virtiofs = false;
			snprintf(s->note, sizeof(s->note), "over 9p: %s cannot serve here: %s", bin,
				 why);
		}
	} else {
		return hw_fail(err, field, "\"%.40s\" is no transport; give 9p, virtiofs or auto",
			       t);
	}
	return 0;
}

int shares_validate(struct machine *m, struct hw_error *err)
{
	char field[64];
	int ret = 0;

	if (m->shares_count > MACHINE_MAX_SHARES)
		return hw_fail(err, "machine.shares", "%u shares; give at most %d", m->shares_count,
			       MACHINE_MAX_SHARES);
	for (unsigned i = 0; i < m->shares_count && !ret; i++) {
		struct share *s = &m->shares[i];

		snprintf(field, sizeof(field), "machine.shares[%u].host", i);
		ret = share_host(s, field, err);
		snprintf(field, sizeof(field), "machine.shares[%u].guest", i);
		if (!ret)
			ret = share_guest(s, field, err);
		s->writable = s->readonly && !*s->readonly;
		for (unsigned j = 0; j < i && !ret; j++)
			if (!strcmp(m->shares[j].guest, s->guest))
				ret = hw_fail(err, field,
					      "%s is already the guest path of shares[%u]; give "
					      "each share its own",
					      s->guest, j);
		snprintf(field, sizeof(field), "machine.shares[%u].transport", i);
		if (!ret)
			ret = share_pick(s, field, err);
	}
	return ret;
}

char *share_socket_path(const struct hw_launch *l, unsigned i)
{
	char *p;

	if (asprintf(&p, "%s/ktb%u.virtiofs", l->disk_dir ? l->disk_dir : ".", i) < 0)
		return NULL;
	return p;
}

/* sandbox=namespace: the daemon sees only the shared folder; cache=auto:
 * the host's later writes reach the guest on the next open. */
int share_virtiofsd_cmd(const char *bin, const char *sock, const char *source, struct argv *out)
{
	argv_init(out);
	if (!bin || !sock || !source)
		return -ENOENT;
	argv_add(out, bin);
	argv_addf(out, "--socket-path=%s", sock);
	argv_add(out, "-o");
	argv_addf(out, "source=%s", source);
	argv_add_list(out,
		      (const char *const[]){ "-o", "cache=auto", "-o", "sandbox=namespace", NULL });
	if (out->err)
		argv_free(out);
	return out->err;
}

int share_virtiofsd_argv(const struct machine *m, const struct hw_launch *l, unsigned i,
			 struct argv *out)
{
	char *sock = share_socket_path(l, i);
	int ret = share_virtiofsd_cmd(share_virtiofsd(), sock, m->shares[i].host, out);

	free(sock);
	return ret;
}

/* security_model=none: files the guest writes belong to the user QEMU runs
 * as, so the host reads them after the run; readonly=on makes the server
 * refuse writes (EROFS) whatever the guest's mount says. */
static void share_9p_args(const struct share *s, unsigned i, struct argv *a)
{
	char tag[16], *host = hw_escape(s->host);

	argv_add(a, "-fsdev");
	if (host)
		argv_addf(a, "local,id=fsdev%u,path=%s,security_model=none%s", i, host,
			  s->writable ? "" : ",readonly=on");
	else
		argv_take(a, NULL);
	free(host);
	argv_add(a, "-device");
	argv_addf(a, "virtio-9p-pci,fsdev=fsdev%u,mount_tag=%s", i, share_tag(i, tag, sizeof(tag)));
}

static void share_virtiofs_args(const struct hw_launch *l, unsigned i, struct argv *a)
{
	char tag[16], *sock = share_socket_path(l, i), *esc = sock ? hw_escape(sock) : NULL;

	argv_add(a, "-chardev");
	if (esc)
		argv_addf(a, "socket,id=vfs%u,path=%s", i, esc);
	else
		argv_take(a, NULL);
	free(esc);
	free(sock);
	argv_add(a, "-device");
	argv_addf(a, "vhost-user-fs-pci,chardev=vfs%u,tag=%s", i, share_tag(i, tag, sizeof(tag)));
}

/* The guest's root: read-only whatever the guest does (its writes go to an
 * overlay in its memory); multidevs=remap because a root spans the host's
 * mounts, whose inode numbers would otherwise collide in the guest (two
 * folders taken for one). */
static void share_root_args(const char *root, struct argv *a)
{
	char *host = hw_escape(root);

	argv_add(a, "-fsdev");
	if (host)
		argv_addf(a,
			  "local,id=fsroot,path=%s,security_model=none,readonly=on,"
			  "multidevs=remap",
			  host);
	else
		argv_take(a, NULL);
	free(host);
	argv_add(a, "-device");
	argv_add(a, "virtio-9p-pci,fsdev=fsroot,mount_tag=" SHARE_ROOT_TAG);
}

/* The Debian root: its ext4 image, read-only to QEMU too, on a virtio disk
 * whose serial init looks for (guest/root.c) and the guest's disk lists
 * leave out (guest/disk.c); after the machine's own disks, so it takes the
 * last virtio name. */
static void share_root_disk_args(const char *image, struct argv *a)
{
	char *esc = hw_escape(image);

	argv_add(a, "-blockdev");
	if (esc)
		argv_addf(a,
			  "driver=raw,node-name=" SHARE_ROOT_TAG ",read-only=on,file.driver=file,"
			  "file.filename=%s",
			  esc);
	else
		argv_take(a, NULL);
	free(esc);
	argv_add(a, "-device");
	argv_add(a, "virtio-blk-pci,drive=" SHARE_ROOT_TAG ",serial=" SHARE_ROOT_TAG);
}

int shares_to_args(const struct machine *m, const struct hw_launch *l, struct argv *a)
{
	if (m->root)
		share_root_args(m->root, a);
	else if (m->root_disk)
		share_root_disk_args(m->root_disk, a);
	for (unsigned i = 0; i < m->shares_count; i++) {
		if (m->shares[i].virtiofs)
			share_virtiofs_args(l, i, a);
		else
			share_9p_args(&m->shares[i], i, a);
	}
	return a->err;
}

char *shares_cmdline(const struct machine *m)
{
	char *s = NULL, tag[16];
	size_t len = 0;
	FILE *f;

	if (!m->shares_count)
		return NULL;
	f = open_memstream(&s, &len);
	if (!f)
		return NULL;
	for (unsigned i = 0; i < m->shares_count; i++)
		fprintf(f, "%s%s:%s:%s%s", i ? "," : "ktb.shares=", share_tag(i, tag, sizeof(tag)),
			m->shares[i].guest, m->shares[i].writable ? "rw" : "ro",
			m->shares[i].virtiofs ? ":virtiofs" : "");
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}
