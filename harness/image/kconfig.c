/* Kernel configs: the .config parser, the lookup, and reading one from a
 * file, from beside a user's kernel, or from a kernel's embedded IKCONFIG. */
#include "kconfig.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

struct kconfig_opt {
	char *name;  /* without CONFIG_ */
	char *value; /* NULL: not set */
	size_t line; /* the later of two assignments wins */
};

struct kconfig {
	struct kconfig_opt *opts; /* sorted by name, one per name */
	size_t n, cap;
	char **mods; /* '-' written as '_' */
	size_t nmods;
	bool mods_known; /* a module list was read (it may be empty) */
	char *source;
};

/* --- parsing ---------------------------------------------------------------- */

static void add_opt(struct kconfig *k, const char *name, size_t namelen, char *value, size_t line)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->opts = xrealloc(k->opts, k->cap * sizeof(*k->opts));
	}
	k->opts[k->n++] = (struct kconfig_opt){ strndup(name, namelen), value, line };
}

static size_t name_len(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
			   (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
		i++;
	return i;
}

/* "# CONFIG_X is not set": X's length, or 0 for any other comment */
static size_t not_set(const char *s, size_t len)
{
	static const char head[] = "# CONFIG_", tail[] = " is not set";
	size_t hl = sizeof(head) - 1, tl = sizeof(tail) - 1, n;

	if (len < hl + tl || memcmp(s, head, hl))
		return 0;
	n = name_len(s + hl, len - hl);
	return n && len == hl + n + tl && !memcmp(s + hl + n, tail, tl) ? n : 0;
}

/* A quoted string, unescaped; NULL when it does not end in its quote. */
static char *unquote(const char *s, size_t len)
{
	char *v = xcalloc(1, len), *o = v;
	size_t i;

	for (i = 1; i < len; i++) {
		if (s[i] == '"')
			return i == len - 1 ? v : (free(v), NULL);
		if (s[i] == '\\' && i + 1 < len)
			i++;
		*o++ = s[i];
	}
	free(v);
	return NULL;
}

/* y, m, n, a decimal (maybe negative) or a 0x hex number */
static bool plain_value(const char *s, size_t len)
{
	size_t i = 0;
	bool hex = len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (len == 1 && (s[0] == 'y' || s[0] == 'm' || s[0] == 'n'))
		return true;
	if (hex)
		i = 2;
	else if (len > 1 && s[0] == '-')
		i = 1;
	if (i == len)
		return false;
	for (; i < len; i++)
		if (!(s[i] >= '0' && s[i] <= '9') &&
		    !(hex && ((s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))))
			return false;
	return true;
}

static int parse_assign(struct kconfig *k, const char *s, size_t len, size_t line, char *why,
			size_t whylen)
{
	size_t n = name_len(s + 7, len - 7);
	const char *v = s + 7 + n;
	size_t vlen = len - 7 - n;
	char *val;

	if (!n || !vlen || *v != '=')
		return say_err(why, whylen, -EINVAL, "line %zu: %.*s assigns nothing (no '=')",
			       line,
			       (int)(n		? 7 + n
				     : len < 40 ? len
						: 40),
			       s);
	v++, vlen--;
	if (vlen && *v == '"')
		val = unquote(v, vlen);
	else if (!vlen || plain_value(v, vlen))
		val = strndup(v, vlen);
	else
		val = NULL;
	if (!val)
		return say_err(
		    why, whylen, -EINVAL,
		    "line %zu: CONFIG_%.*s=%.*s: not y, m, n, a number or a quoted string", line,
		    (int)n, s + 7, (int)(vlen < 40 ? vlen : 40), v);
	if (!strcmp(val, "n")) {
		free(val);
		val = NULL;
	}
	add_opt(k, s + 7, n, val, line);
	return 0;
}

static int parse_line(struct kconfig *k, const char *s, size_t len, size_t line, char *why,
		      size_t whylen)
{
	size_t i, n;

	if (len && s[len - 1] == '\r')
		len--;
	if (len > KCONFIG_MAX_LINE)
		return say_err(why, whylen, -EINVAL,
			       "line %zu: longer than %u bytes: not a kernel config", line,
			       KCONFIG_MAX_LINE);
	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return say_err(why, whylen, -EINVAL,
				       "line %zu: binary data (byte 0x%02x): not a kernel config",
				       line, (unsigned char)s[i]);
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len)
		return 0;
	if (*s == '#') {
		n = not_set(s, len);
		if (n)
			add_opt(k, s + 9, n, NULL, line);
		return 0;
	}
	if (len > 7 && !memcmp(s, "CONFIG_", 7))
		return parse_assign(k, s, len, line, why, whylen);
	return say_err(why, whylen, -EINVAL, "line %zu: '%.*s' is no CONFIG_NAME=value", line,
		       (int)(len < 40 ? len : 40), s);
}

static int opt_cmp(const void *a, const void *b)
{
	const struct kconfig_opt *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

/* sort by name; of two assignments of one option, keep the later */
static void settle(struct kconfig *k)
{
	size_t i, o = 0;

	if (k->n)
		qsort(k->opts, k->n, sizeof(*k->opts), opt_cmp);
	for (i = 0; i < k->n; i++) {
		if (o && !strcmp(k->opts[o - 1].name, k->opts[i].name)) {
			free(k->opts[o - 1].name);
			free(k->opts[o - 1].value);
			o--;
		}
		k->opts[o++] = k->opts[i];
	}
	k->n = o;
}

int kconfig_parse(const char *text, size_t len, struct kconfig **out, char *why, size_t whylen)
{
	struct kconfig *k;
	size_t line = 1, off = 0, n;
	const char *nl;
	int ret = 0;

	*out = NULL;
	if (len > KCONFIG_MAX_TEXT)
		return say_err(why, whylen, -EINVAL,
			       "%zu bytes: more than a kernel config holds (%u)", len,
			       KCONFIG_MAX_TEXT);
	k = xcalloc(1, sizeof(*k));
	for (; off < len && !ret; off += n + 1, line++) {
		nl = memchr(text + off, '\n', len - off);
		n = nl ? (size_t)(nl - text - off) : len - off;
		ret = parse_line(k, text + off, n, line, why, whylen);
	}
	if (ret) {
		kconfig_free(k);
		return ret;
	}
	settle(k);
	*out = k;
	return 0;
}

/* --- lookup ----------------------------------------------------------------- */

static int key_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct kconfig_opt *)elem)->name);
}

const char *kconfig_value(const struct kconfig *k, const char *option)
{
	const struct kconfig_opt *o;

	if (!strncmp(option, "CONFIG_", 7))
		option += 7;
	o = k->n ? bsearch(option, k->opts, k->n, sizeof(*k->opts), key_cmp) : NULL;
	return o ? o->value : NULL;
}

static bool same_module(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

bool kconfig_has_module(const struct kconfig *k, const char *module)
{
	size_t i;

	for (i = 0; i < k->nmods; i++)
		if (same_module(k->mods[i], module))
			return true;
	return false;
}

bool kconfig_knows_modules(const struct kconfig *k)
{
	return k->mods_known;
}

const char *kconfig_source(const struct kconfig *k)
{
	return k->source ? k->source : "the given text";
}

void kconfig_free(struct kconfig *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->n; i++) {
		free(k->opts[i].name);
		free(k->opts[i].value);
	}
	for (i = 0; i < k->nmods; i++)
		free(k->mods[i]);
	free(k->opts);
	free(k->mods);
	free(k->source);
	free(k);
}

/* --- reading files ---------------------------------------------------------- */

int kconfig_read_file(const char *path, const char *from, struct kconfig **out, char *why,
		      size_t whylen)
{
	char *text, msg[256];
	struct stat st;
	size_t len;
	int ret;

	*out = NULL;
	if (stat(path, &st))
		return -ENOENT;
	/* a file this big is no config: not read, so memory stays bounded */
	if (st.st_size > (off_t)KCONFIG_MAX_TEXT)
		return say_err(why, whylen, -EINVAL,
			       "%s: %lld bytes, too big for a kernel config: not read", path,
			       (long long)st.st_size);
	text = read_file(path, &len);
	if (!text)
		return say_err(why, whylen, -EINVAL, "%s: %s", path, strerror(errno));
	ret = kconfig_parse(text, len, out, msg, sizeof(msg));
	free(text);
	if (ret)
		return say_err(why, whylen, ret, "%s: %s", path, msg);
	(*out)->source = from ? xasprintf("%s (from %s)", path, from) : xstrdup(path);
	return 0;
}

void kconfig_read_modules(struct kconfig *k, const char *path)
{
	char *text = read_file(path, NULL), *save = NULL, *m;

	k->mods_known |= text != NULL;
	for (m = text ? strtok_r(text, "\r\n", &save) : NULL; m;
	     m = strtok_r(NULL, "\r\n", &save)) {
		k->mods = xrealloc(k->mods, (k->nmods + 1) * sizeof(char *));
		k->mods[k->nmods++] = xstrdup(m);
	}
	free(text);
}

/* --- beside the user's kernel ---------------------------------------------- */

/* "6.1.0-57-amd64" from a bzImage's header (kernel_version at 0x20e points,
 * from 0x200, at "RELEASE (builder) #1 ...") or a vmlinux's banner. */
static char *kernel_release(const char *data, size_t len)
{
	static const char banner[] = "Linux version ";
	const char *s = NULL, *end = data + len;
	size_t ptr;

	if (len > 0x210 && !memcmp(data + 514, "HdrS", 4)) {
		ptr = (unsigned char)data[0x20e] | (size_t)(unsigned char)data[0x20f] << 8;
		s = ptr && ptr + 0x200 < len ? data + ptr + 0x200 : NULL;
	} else {
		for (s = data; s && (s = memchr(s, 'L', (size_t)(end - s))); s++)
			if ((size_t)(end - s) > sizeof(banner) &&
			    !memcmp(s, banner, sizeof(banner) - 1))
				break;
		s = s ? s + sizeof(banner) - 1 : NULL;
	}
	if (!s)
		return NULL;
	len = 0;
	while (s + len < end && len < 128 && (unsigned char)s[len] > ' ')
		len++;
	return len ? strndup(s, len) : NULL;
}

char *kconfig_kernel_release(const char *kernel)
{
	size_t len;
	char *data = read_file(kernel, &len), *rel = data ? kernel_release(data, len) : NULL;

	free(data);
	return rel;
}

/* DIR's build-tree top when DIR is TOP/arch/ARCH/boot, else NULL */
static char *tree_top(const char *dir)
{
	size_t n = strlen(dir);
	const char *arch;

	if (n < 12 || strcmp(dir + n - 5, "/boot"))
		return NULL;
	for (arch = dir + n - 6; arch > dir && *arch != '/'; arch--)
		;
	if (arch - dir < 5 || strncmp(arch - 5, "/arch", 5))
		return NULL;
	return strndup(dir, (size_t)(arch - 5 - dir));
}

/* The candidates, in order, into PATHS (NULL-terminated, malloc'd). */
static void beside_candidates(const char *kernel, char *paths[5])
{
	const char *slash = strrchr(kernel, '/');
	char *dir = slash ? strndup(kernel, (size_t)(slash - kernel)) : xstrdup(".");
	char *real, *top, *rel = NULL, *data;
	size_t i = 0, len;

	/* the folder, not the file, made absolute: a bzImage that is a link
	 * out of the tree (as in a bisection) still belongs to the tree */
	real = realpath(*dir ? dir : "/", NULL);
	if (!real)
		real = xstrdup(dir);
	free(dir);
	top = tree_top(real);
	if (top)
		paths[i++] = xasprintf("%s/.config", top);
	paths[i++] = xasprintf("%s/.config", real);
	data = read_file(kernel, &len);
	if (data)
		rel = kernel_release(data, len);
	if (rel)
		paths[i++] = xasprintf("%s/config-%s", real, rel);
	paths[i++] = xasprintf("%s/config", real);
	paths[i] = NULL;
	free(data);
	free(rel);
	free(top);
	free(real);
}

int kconfig_find_beside(const char *kernel, char **path, char *why, size_t whylen)
{
	char *paths[5], *looked = xstrdup("");
	size_t i;
	int ret = -ENOENT;

	*path = NULL;
	beside_candidates(kernel, paths);
	for (i = 0; paths[i]; i++) {
		if (ret && !access(paths[i], R_OK)) {
			*path = xstrdup(paths[i]);
			ret = 0;
		} else if (ret) {
			char *t = xasprintf("%s%s%s", looked, *looked ? ", " : "", paths[i]);

			free(looked);
			looked = t;
		}
		free(paths[i]);
	}
	if (ret)
		say_err(why, whylen, ret, "no config beside %s (looked at %s)", kernel, looked);
	free(looked);
	return ret;
}

/* --- IKCONFIG ---------------------------------------------------------------- */

/* Inflate the gzip stream at DATA (LEN bytes at most; what follows it is
 * ignored) into at most MAX bytes. NULL when it is no gzip or too big. */
static char *gunzip(const void *data, size_t len, size_t max, size_t *outlen)
{
	z_stream z = { 0 };
	size_t cap = max < 65536 ? max : 65536;
	char *out;
	int r;

	if (len > UINT_MAX || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return NULL;
	out = xrealloc(NULL, cap + 1);
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)len;
	for (;;) {
		if (z.total_out == cap && cap == max) {
			r = Z_BUF_ERROR; /* more than MAX */
			break;
		}
		if (z.total_out == cap) {
			cap = cap > max / 2 ? max : 2 * cap;
			out = xrealloc(out, cap + 1);
		}
		z.next_out = (Bytef *)out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		r = inflate(&z, Z_NO_FLUSH);
		/* Z_BUF_ERROR with room left: the input ended mid-stream */
		if (r == Z_STREAM_END || (r != Z_OK && (r != Z_BUF_ERROR || z.avail_out)))
			break;
	}
	*outlen = z.total_out;
	inflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	out[*outlen] = '\0';
	return out;
}

/* The config between IKCFG_ST and IKCFG_ED in a kernel image's bytes. */
static int ikconfig_parse(const char *data, size_t len, const char *path, struct kconfig **out,
			  char *why, size_t whylen)
{
	const char *st = NULL, *p;
	char *text, msg[256];
	size_t tlen;
	int ret;

	for (p = data; (p = memchr(p, 'I', len - (size_t)(p - data))); p++)
		if (len - (size_t)(p - data) > 8 && !memcmp(p, "IKCFG_ST", 8)) {
			st = p + 8;
			break;
		}
	if (!st)
		return -ENOENT;
	text = gunzip(st, len - (size_t)(st - data), KCONFIG_MAX_TEXT, &tlen);
	if (!text)
		return say_err(why, whylen, -EINVAL,
			       "%s: IKCONFIG is no gzip stream (or over %u bytes)", path,
			       KCONFIG_MAX_TEXT);
	ret = kconfig_parse(text, tlen, out, msg, sizeof(msg));
	free(text);
	if (ret)
		return say_err(why, whylen, ret, "%s (IKCONFIG): %s", path, msg);
	(*out)->source = xasprintf("%s (IKCONFIG)", path);
	return 0;
}

/* A bzImage's payload (boot protocol 2.08+: setup_sects at 0x1f1,
 * payload_offset at 0x248, payload_length at 0x24c), inflated when gzip:
 * the builder handles the other compressions when it builds the image. */
static char *bzimage_payload(const char *data, size_t len, size_t *outlen)
{
	const unsigned char *u = (const unsigned char *)data;
	size_t off, plen;

	if (len < 0x250 || memcmp(data + 514, "HdrS", 4))
		return NULL;
	off = ((size_t)u[0x1f1] + 1) * 512 + ((size_t)u[0x248] | (size_t)u[0x249] << 8 |
					      (size_t)u[0x24a] << 16 | (size_t)u[0x24b] << 24);
	plen = (size_t)u[0x24c] | (size_t)u[0x24d] << 8 | (size_t)u[0x24e] << 16 |
	       (size_t)u[0x24f] << 24;
	if (off >= len || plen > len - off || plen < 2 || u[off] != 0x1f || u[off + 1] != 0x8b)
		return NULL;
	return gunzip(data + off, plen, (size_t)1 << 30, outlen);
}

int kconfig_read_ikconfig(const char *path, bool bzimage, struct kconfig **out, char *why,
			  size_t whylen)
{
	size_t len, plen;
	char *data = read_file(path, &len), *payload = NULL;
	int ret;

	if (!data)
		return -ENOENT;
	if (bzimage) {
		payload = bzimage_payload(data, len, &plen);
		free(data);
		if (!payload)
			return -ENOENT;
		data = payload;
		len = plen;
	}
	ret = ikconfig_parse(data, len, path, out, why, whylen);
	free(data);
	return ret;
}
