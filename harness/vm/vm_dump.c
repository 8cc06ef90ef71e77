/* A dump of guest memory through QMP (vm_dump.h). */
#include "vm_dump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "loop.h"
#include "qmp.h"
#include "util.h"
#include "vm.h"

#define MIB (1024ULL * 1024)
#define DUMP_POLL_MS 100
#define DUMP_CMD_MS 5000

uint64_t vm_dump_bound(uint64_t guest_bytes)
{
	return guest_bytes + guest_bytes / 64 + 16 * MIB;
}

void vm_dump_free(struct vm_dump *d)
{
	free(d->file);
	free(d->note);
	d->file = d->note = NULL;
}

static void __attribute__((format(printf, 2, 3)))
dump_note(struct vm_dump *out, const char *fmt, ...)
{
	va_list ap;

	free(out->note);
	va_start(ap, fmt);
	if (vasprintf(&out->note, fmt, ap) < 0)
		out->note = NULL;
	va_end(ap);
}

/* Room on the file system that will hold path, in bytes; 0 when unknown. */
static uint64_t dump_room(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct statvfs sv;
	uint64_t room = 0;

	if (slash)
		*slash = '\0';
	if (!statvfs(slash ? (*dir ? dir : "/") : ".", &sv))
		room = (uint64_t)sv.f_bavail * sv.f_frsize;
	free(dir);
	return room;
}

/* QEMU's own word on a failed dump: DUMP_COMPLETED's "error", if it came. */
static char *dump_error(struct vm *vm)
{
	struct qmp_event *ev = NULL;
	const char *e;
	char *err;

	if (!vm->qmp ||
	    qmp_wait_event(vm->qmp, "DUMP_COMPLETED", &ev, loop_now(vm->loop) + DUMP_POLL_MS))
		return xstrdup("QEMU gave no reason");
	e = json_string_value(json_object_get(ev->data, "error"));
	err = xstrdup(e ? e : "QEMU gave no reason");
	qmp_event_free(ev);
	return err;
}

static const char *dump_status(json_t *ret, uint64_t *done, uint64_t *total)
{
	*done = (uint64_t)json_integer_value(json_object_get(ret, "completed"));
	*total = (uint64_t)json_integer_value(json_object_get(ret, "total"));
	return json_string_value(json_object_get(ret, "status"));
}

/* Wait for QEMU's detached dump to end: 0 completed, else -errno with the
 * note filled (the partial file is the caller's to remove). */
static int dump_wait(struct vm *vm, const char *part, uint64_t limit, int64_t deadline,
		     struct vm_dump *out)
{
	char *err = NULL;
	uint64_t done, total;
	struct stat st;

	for (;;) {
		json_t *ret = NULL;
		const char *status;
		int r = vm_qmp(vm, "query-dump", NULL, &ret, &err, deadline);

		if (r) {
			dump_note(out, "no dump: QEMU's query-dump failed: %s",
				  err ? err : strerror(-r));
			free(err);
			return r;
		}
		status = dump_status(ret, &done, &total);
		if (status && !strcmp(status, "completed")) {
			json_decref(ret);
			return 0;
		}
		if (!status || strcmp(status, "active")) {
			json_decref(ret);
			err = dump_error(vm);
			dump_note(out, "no dump: QEMU could not write it: %s", err);
			free(err);
			return -EIO;
		}
		json_decref(ret);
		if (limit && !stat(part, &st) && (uint64_t)st.st_size > limit) {
			dump_note(out,
				  "no dump: it grew past the limit of %llu MiB (--dump-limit); "
				  "the partial file was removed",
				  (unsigned long long)(limit / MIB));
			return -EFBIG;
		}
		r = loop_run_until(vm->loop, NULL, NULL, loop_now(vm->loop) + DUMP_POLL_MS);
		if (r == -ECANCELED || loop_now(vm->loop) >= deadline) {
			dump_note(
			    out,
			    "no dump: %s (%llu of %llu MiB written); the partial file "
			    "was removed",
			    r == -ECANCELED ? loop_abort_reason(vm->loop) : "its time ran out",
			    (unsigned long long)(done / MIB), (unsigned long long)(total / MIB));
			return r ? r : -ETIMEDOUT;
		}
	}
}

#define FLAT_HEADER_SIZE 4096
#define FLAT_SIGNATURE "makedumpfile"

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Copy n bytes from in to out at off. */
static int flat_copy(FILE *in, int out, uint64_t off, uint64_t n)
{
	char buf[65536];

	while (n) {
		size_t want = n < sizeof(buf) ? (size_t)n : sizeof(buf);
		size_t got = fread(buf, 1, want, in);

		if (got != want)
			return ferror(in) ? -EIO : -EPROTO;
		for (size_t done = 0; done < got;) {
			ssize_t w = pwrite(out, buf + done, got - done, (off_t)(off + done));

			if (w < 0)
				return -errno;
			done += (size_t)w;
		}
		off += got;
		n -= got;
	}
	return 0;
}

/* The kdump header: an 8-byte signature, a 32-bit version, then struct
 * new_utsname: six fields of 65 bytes (sysname, nodename, release,
 * version, machine, domainname). */
#define KDUMP_SIGNATURE "KDUMP   "
#define UTS_OFF 12
#define UTS_LEN 65
enum { UTS_SYSNAME, UTS_NODENAME, UTS_RELEASE, UTS_VERSION };

/* Fill the header's empty utsname fields. */
static int kdump_fill_uts(int fd, const struct vm_dump_uts *uts)
{
	char hdr[UTS_OFF + 4 * UTS_LEN];
	const char *fill[4] = { "Linux", NULL, uts->release, uts->version };

	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, KDUMP_SIGNATURE, strlen(KDUMP_SIGNATURE)))
		return 0; /* not a kdump header: nothing to fill */
	for (int i = 0; i < 4; i++) {
		char field[UTS_LEN] = { 0 };

		if (!fill[i] || !*fill[i] || hdr[UTS_OFF + i * UTS_LEN])
			continue;
		snprintf(field, sizeof(field), "%s", fill[i]);
		if (pwrite(fd, field, sizeof(field), UTS_OFF + i * UTS_LEN) !=
		    (ssize_t)sizeof(field))
			return -errno;
	}
	return 0;
}

int vm_dump_unflatten(const char *flat, const char *out, const struct vm_dump_uts *uts, char *why,
		      size_t whylen)
{
	unsigned char hdr[FLAT_HEADER_SIZE], rec[16];
	FILE *in = fopen(flat, "rb");
	int fd = -1, ret = 0;
	uint64_t n = 0;

	if (!in) {
		ret = -errno;
		snprintf(why, whylen, "cannot open %s: %s", flat, strerror(errno));
		return ret;
	}
	if (fread(hdr, 1, sizeof(hdr), in) != sizeof(hdr) ||
	    memcmp(hdr, FLAT_SIGNATURE, sizeof(FLAT_SIGNATURE))) {
		snprintf(why, whylen, "%s is not in makedumpfile's flattened form", flat);
		fclose(in);
		return -EPROTO;
	}
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, whylen, "cannot create %s: %s", out, strerror(errno));
		fclose(in);
		return ret;
	}
	for (;; n++) {
		uint64_t off, size;

		if (fread(rec, 1, sizeof(rec), in) != sizeof(rec)) {
			ret = -EPROTO;
			snprintf(why, whylen, "%s ends after record %llu without its end record",
				 flat, (unsigned long long)n);
			break;
		}
		off = be64(rec);
		size = be64(rec + 8);
		if (off == UINT64_MAX)
			break;
		/* offsets and sizes are signed in the format: past 2^62 is garbage */
		if (off >> 62 || size >> 62) {
			ret = -EPROTO;
			snprintf(why, whylen, "%s: record %llu has offset %llu size %llu", flat,
				 (unsigned long long)n, (unsigned long long)off,
				 (unsigned long long)size);
			break;
		}
		ret = flat_copy(in, fd, off, size);
		if (ret) {
			snprintf(why, whylen, "%s: record %llu: %s", flat, (unsigned long long)n,
				 ret == -EPROTO ? "the file ends inside it" : strerror(-ret));
			break;
		}
	}
	fclose(in);
	if (!ret && uts) {
		ret = kdump_fill_uts(fd, uts);
		if (ret)
			snprintf(why, whylen, "cannot write %s: %s", out, strerror(-ret));
	}
	if (close(fd) && !ret) {
		ret = -errno;
		snprintf(why, whylen, "cannot write %s: %s", out, strerror(errno));
	}
	if (ret)
		unlink(out);
	return ret;
}

static bool guest_running(struct vm *vm)
{
	json_t *ret = NULL;
	bool running = false;

	if (!vm_qmp(vm, "query-status", NULL, &ret, NULL, loop_now(vm->loop) + DUMP_CMD_MS))
		running = json_is_true(json_object_get(ret, "running"));
	json_decref(ret);
	return running;
}

void vm_dump_memory(struct vm *vm, const char *path, uint64_t guest_bytes, uint64_t limit,
		    const struct vm_dump_uts *uts, int64_t deadline, struct vm_dump *out)
{
	const char *why = loop_abort_reason(vm->loop);
	char *saved = why ? xstrdup(why) : NULL, *flat = xasprintf("%s.flat", path);
	char *part = xasprintf("%s.part", path), *proto = xasprintf("file:%s", flat);
	char *err = NULL, msg[512];
	/* QEMU's flattened file and the file it stands for exist at once */
	uint64_t room = dump_room(path), bound = 2 * vm_dump_bound(guest_bytes);
	int64_t t0 = loop_now(vm->loop);
	json_t *args;
	struct stat st;
	bool running;
	int ret;

	memset(out, 0, sizeof(*out));
	if (vm->qemu_gone || !vm->qmp) {
		dump_note(out, "no dump: QEMU had already ended");
		goto done;
	}
	if (room < bound) {
		dump_note(out,
			  "no dump: it may take up to %llu MiB while it is written and the "
			  "artifacts' file system has %llu MiB free",
			  (unsigned long long)(bound / MIB), (unsigned long long)(room / MIB));
		goto done;
	}
	loop_clear_abort(vm->loop);
	/* a running guest would change under the dump (a panicked one is
	 * paused already); one that ran goes on afterwards (--keep-on-fail) */
	running = guest_running(vm);
	vm_qmp(vm, "stop", NULL, NULL, NULL, loop_now(vm->loop) + DUMP_CMD_MS);
	if (vm->ops->dump) {
		/* the back end's own dump (libvirt's), written when it returns */
		ret = vm->ops->dump(vm, flat, msg, sizeof(msg));
		if (ret) {
			dump_note(out, "no dump: %s", msg);
			goto out;
		}
		if (limit && !stat(flat, &st) && (uint64_t)st.st_size > limit) {
			dump_note(out,
				  "no dump: it was %llu MiB, past the limit of %llu MiB "
				  "(--dump-limit); it was removed",
				  (unsigned long long)((uint64_t)st.st_size / MIB),
				  (unsigned long long)(limit / MIB));
			goto out;
		}
	} else {
		args = json_pack("{s:b, s:s, s:b, s:s}", "paging", 0, "protocol", proto, "detach",
				 1, "format", VM_DUMP_FORMAT);
		ret = vm_qmp(vm, "dump-guest-memory", args, NULL, &err,
			     loop_now(vm->loop) + DUMP_CMD_MS);
		json_decref(args);
		if (ret) {
			dump_note(out, "no dump: QEMU refused dump-guest-memory: %s",
				  err ? err : strerror(-ret));
			free(err);
			goto out;
		}
		ret = dump_wait(vm, flat, limit, deadline, out);
		/* QEMU cannot cancel a dump: end it, so nothing more is written */
		if (ret && ret != -EIO)
			vm_power_cut(vm);
		if (ret)
			goto out;
	}
	ret = vm_dump_unflatten(flat, part, uts, msg, sizeof(msg));
	if (ret) {
		dump_note(out, "no dump: %s", msg);
		goto out;
	}
	if (stat(part, &st) || rename(part, path)) {
		dump_note(out, "no dump: cannot keep %s: %s", path, strerror(errno));
		goto out;
	}
	out->file = xstrdup(path);
	out->bytes = (uint64_t)st.st_size;
	out->ms = loop_now(vm->loop) - t0;
	if (running)
		vm_qmp(vm, "cont", NULL, NULL, NULL, loop_now(vm->loop) + DUMP_CMD_MS);
out:
	unlink(flat);
	unlink(part);
done:
	if (saved) {
		loop_clear_abort(vm->loop);
		loop_abort(vm->loop, saved);
	}
	free(saved);
	free(flat);
	free(part);
	free(proto);
}
