#include "share.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	}
	return ret;
}

/* security_model=none: files the guest writes belong to the user QEMU runs
 * as, so the host reads them after the run; readonly=on makes the server
 * refuse writes (EROFS) whatever the guest's mount says. */
int shares_to_args(const struct machine *m, struct argv *a)
{
	char tag[16];

	for (unsigned i = 0; i < m->shares_count; i++) {
		const struct share *s = &m->shares[i];
		char *host = hw_escape(s->host);

		argv_add(a, "-fsdev");
		if (host)
			argv_addf(a, "local,id=fsdev%u,path=%s,security_model=none%s", i, host,
				  s->writable ? "" : ",readonly=on");
		else
			argv_take(a, NULL);
		free(host);
		argv_add(a, "-device");
		argv_addf(a, "virtio-9p-pci,fsdev=fsdev%u,mount_tag=%s", i,
			  share_tag(i, tag, sizeof(tag)));
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
		fprintf(f, "%s%s:%s:%s", i ? "," : "ktb.shares=", share_tag(i, tag, sizeof(tag)),
			m->shares[i].guest, m->shares[i].writable ? "rw" : "ro");
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}
