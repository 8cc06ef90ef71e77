#include "pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int parse_slots(const char *s, unsigned *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtol(s, &end, 10);
	if (*end || v < 1 || v > HOSTS_MAX_SLOTS)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int hosts_add(struct hosts *p, const char *arg, char *err, size_t len)
{
	const char *opt = strrchr(arg, ',');
	size_t ulen = opt ? (size_t)(opt - arg) : strlen(arg);
	unsigned slots = 1;
	struct pool_host *h;

	if (opt && (strncmp(opt + 1, "slots=", 6) || parse_slots(opt + 7, &slots))) {
		snprintf(err, len, "--connect %s: after the URI, give ,slots=N with N from 1 to %d",
			 arg, HOSTS_MAX_SLOTS);
		return -EINVAL;
	}
	if (!ulen || !memchr(arg, ':', ulen)) {
		snprintf(err, len,
			 "--connect %s: not a libvirt URI (e.g. qemu:///system, "
			 "qemu+ssh://host/system)",
			 arg);
		return -EINVAL;
	}
	p->h = xrealloc(p->h, (p->n + 1) * sizeof(*p->h));
	h = &p->h[p->n++];
	memset(h, 0, sizeof(*h));
	h->uri = xasprintf("%.*s", (int)ulen, arg);
	h->slots = slots;
	return 0;
}

bool hosts_uri_local(const char *uri)
{
	const char *colon = strchr(uri, ':'), *plus = strchr(uri, '+');
	size_t hostlen;

	if (!colon || strncmp(colon, "://", 3))
		return false;
	if (plus && plus < colon && ((size_t)(colon - plus) != 5 || strncmp(plus, "+unix", 5)))
		return false;
	hostlen = strcspn(colon + 3, "/?");
	return hostlen == 0 || (hostlen == 9 && !strncmp(colon + 3, "localhost", 9));
}

int hosts_acquire(struct hosts *p)
{
	int best = -1;
	bool live = false;

	for (size_t i = 0; i < p->n; i++) {
		const struct pool_host *h = &p->h[i];

		if (h->out)
			continue;
		live = true;
		if (h->busy >= h->slots)
			continue;
		/* busy/slots < best's busy/slots, without division */
		if (best < 0 || (unsigned long)h->busy * p->h[best].slots <
				    (unsigned long)p->h[best].busy * h->slots)
			best = (int)i;
	}
	if (best < 0)
		return live ? -EBUSY : -EHOSTDOWN;
	p->h[best].busy++;
	return best;
}

void hosts_release(struct hosts *p, int h)
{
	if (h >= 0 && (size_t)h < p->n && p->h[h].busy)
		p->h[h].busy--;
}

void hosts_take_out(struct hosts *p, int h, const char *why)
{
	if (h < 0 || (size_t)h >= p->n)
		return;
	hosts_release(p, h);
	if (p->h[h].out)
		return;
	p->h[h].out = true;
	p->h[h].why = xstrdup(why && *why ? why : "failed");
}

unsigned hosts_capacity(const struct hosts *p)
{
	unsigned n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->h[i].out ? 0 : p->h[i].slots;
	return n;
}

char *hosts_describe_out(const struct hosts *p)
{
	char *s = xstrdup(""), *t;

	for (size_t i = 0; i < p->n; i++) {
		if (!p->h[i].out)
			continue;
		t = xasprintf("%s%s%s: %s", s, *s ? "; " : "", p->h[i].uri, p->h[i].why);
		free(s);
		s = t;
	}
	return s;
}

void hosts_free(struct hosts *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->h[i].uri);
		free(p->h[i].why);
	}
	free(p->h);
	p->h = NULL;
	p->n = 0;
}

/* One query parameter's value (up to & or the end), or NULL. */
static char *query_param(const char *q, const char *name)
{
	size_t n = strlen(name);

	while (q && *q) {
		if (!strncmp(q, name, n) && q[n] == '=')
			return xasprintf("%.*s", (int)strcspn(q + n + 1, "&"), q + n + 1);
		q = strchr(q, '&');
		if (q)
			q++;
	}
	return NULL;
}

int hosts_uri_ssh(const char *uri, struct ssh_target *t, char *err, size_t len)
{
	static const char scheme[] = "qemu+ssh://";
	const char *a = uri + sizeof(scheme) - 1, *end, *at, *hp, *colon = NULL;
	char *v;

	memset(t, 0, sizeof(*t));
	if (strncmp(uri, scheme, sizeof(scheme) - 1)) {
		snprintf(err, len, "%s: only qemu+ssh:// remote hosts are supported", uri);
		return -EINVAL;
	}
	end = a + strcspn(a, "/?");
	at = memchr(a, '@', (size_t)(end - a));
	hp = at ? at + 1 : a;
	if (*hp == '[') { /* [v6 address] */
		const char *rb = memchr(hp, ']', (size_t)(end - hp));

		if (!rb || (rb + 1 < end && rb[1] != ':'))
			goto bad;
		t->host = xasprintf("%.*s", (int)(rb - hp - 1), hp + 1);
		colon = rb + 1 < end ? rb + 1 : NULL;
	} else {
		colon = memchr(hp, ':', (size_t)(end - hp));
		t->host = xasprintf("%.*s", (int)((colon ? colon : end) - hp), hp);
	}
	if (!*t->host || strpbrk(t->host, " '\"\\%") || *t->host == '-')
		goto bad;
	if (at) {
		t->user = xasprintf("%.*s", (int)(at - a), a);
		if (!*t->user || strpbrk(t->user, " '\"\\%:") || *t->user == '-')
			goto bad;
	}
	if (colon) {
		char *pe;
		long p = strtol(colon + 1, &pe, 10);

		if (pe != end || colon + 1 == end || p < 1 || p > 65535)
			goto bad;
		t->port = (int)p;
	}
	end = strchr(uri, '?');
	t->keyfile = query_param(end ? end + 1 : NULL, "keyfile");
	v = query_param(end ? end + 1 : NULL, "no_verify");
	t->no_verify = v && !strcmp(v, "1");
	free(v);
	return 0;
bad:
	snprintf(err, len, "%s: give qemu+ssh://[user@]host[:port]/system", uri);
	ssh_target_free(t);
	return -EINVAL;
}

void ssh_target_free(struct ssh_target *t)
{
	free(t->user);
	free(t->host);
	free(t->keyfile);
	memset(t, 0, sizeof(*t));
}
