/* The command runs in the guest with its output in files of /run; the host
 * polls them through the agent (guest-exec captures output only at the
 * end, and the command's output should show while it runs). */
#include "cli_boot_exec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "console.h"
#include "loop.h"
#include "util.h"

#define EXEC_DIR "/run/ktb-exec"
#define EXEC_CHUNK 65536      /* the most bytes of each stream one poll takes */
#define EXEC_POLL_MS 200      /* between polls */
#define EXEC_BOOT_MS 120000   /* boot and agent, as ktb run gives a scenario */
#define EXEC_SCRIPT_MAX 65536 /* the script travels inside the agent's request */
#define EXEC_EOF "KTB_SCRIPT_EOF_4b1d"

static char *script_read(const char *path, size_t *len)
{
	char *s = read_file(path, len);

	if (!s) {
		fprintf(stderr, "ktb boot: --script %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (*len > EXEC_SCRIPT_MAX || memchr(s, '\0', *len) || strstr(s, EXEC_EOF)) {
		fprintf(stderr,
			"ktb boot: --script %s: not a text script of at most %d bytes; put a "
			"larger one in the shared folder and --exec it\n",
			path, EXEC_SCRIPT_MAX);
		free(s);
		return NULL;
	}
	return s;
}

int boot_exec_check(const struct boot_exec *e)
{
	size_t len;
	char *s;

	if (e->cmd && !*e->cmd) {
		fprintf(stderr, "ktb boot: --exec needs a command, such as --exec 'make check'\n");
		return KTB_EXIT_USAGE;
	}
	if (!e->script)
		return 0;
	s = script_read(e->script, &len);
	free(s);
	return s ? 0 : KTB_EXIT_USAGE;
}

/* s in single quotes for /bin/sh: each ' becomes '\'' */
static char *sh_quote(const char *s)
{
	size_t n = 3;
	char *q, *o;

	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	q = o = xcalloc(1, n);
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

/* The guest's command line: the script written to the guest (a here
 * document), then the command in workdir with its streams in files, then
 * the marker that it ended; the shell exits with the command's status. */
static char *exec_wrapper(const struct boot_exec *e)
{
	char *script = NULL, *body, *w, *dir;
	size_t len = 0;

	if (e->script) {
		script = script_read(e->script, &len);
		if (!script)
			return NULL;
	}
	body = script ? xasprintf("cat >" EXEC_DIR "/script <<'" EXEC_EOF "'\n%s%s" EXEC_EOF
				  "\nchmod +x " EXEC_DIR "/script\n",
				  script, len && script[len - 1] == '\n' ? "" : "\n")
		      : xstrdup("");
	/* the newline before ')' ends a trailing comment in CMD */
	dir = sh_quote(e->workdir);
	/* the marker however the shell ends: the poll waits for nothing else */
	w = xasprintf("mkdir -p " EXEC_DIR "\ntrap ': >" EXEC_DIR "/done' EXIT\n%scd %s || exit "
		      "125\n(%s\n) >" EXEC_DIR "/out 2>" EXEC_DIR "/err </dev/null\n",
		      body, dir, script ? EXEC_DIR "/script" : e->cmd);
	free(dir);
	free(body);
	free(script);
	return w;
}

struct exec_stream {
	size_t out, err; /* bytes copied so far */
};

/* One poll: what each file gained (up to EXEC_CHUNK), copied here; *done
 * once the marker was there before the files were read, so they were
 * complete. */
static int exec_poll(struct vm *vm, struct exec_stream *s, bool *done, int64_t deadline)
{
	char *cmd = xasprintf("test -e " EXEC_DIR "/done; d=$?\n"
			      "tail -c +%zu " EXEC_DIR "/out 2>/dev/null | head -c %d\n"
			      "tail -c +%zu " EXEC_DIR "/err 2>/dev/null | head -c %d >&2\n"
			      "exit $d\n",
			      s->out + 1, EXEC_CHUNK, s->err + 1, EXEC_CHUNK);
	struct vm_exec_result r;
	int ret = vm_exec(vm, cmd, NULL, &r, deadline);

	free(cmd);
	if (!ret) {
		fwrite(r.out, 1, r.out_len, stdout);
		fflush(stdout);
		fwrite(r.err, 1, r.err_len, stderr);
		s->out += r.out_len;
		s->err += r.err_len;
		*done = r.exit_code == 0 && r.out_len < EXEC_CHUNK && r.err_len < EXEC_CHUNK;
	}
	vm_exec_result_free(&r);
	return ret;
}

static int exec_status(const struct vm_exec_result *r)
{
	return r->signal ? 128 + r->signal : r->exit_code;
}

static int exec_follow(struct vm *vm, const struct boot_exec *e)
{
	int64_t forever = INT64_MAX / 2;
	struct exec_stream s = { 0, 0 };
	struct vm_exec_result r;
	char *w = exec_wrapper(e), *err = NULL;
	long long pid;
	bool done = false;
	int ret;

	if (!w)
		return KTB_EXIT_USAGE;
	ret = vm_exec_start(vm, w, NULL, &pid, &err, forever);
	free(w);
	while (!ret && !done) {
		ret = exec_poll(vm, &s, &done, forever);
		if (!ret && !done)
			ret =
			    loop_run_until(vm->loop, NULL, NULL, loop_now(vm->loop) + EXEC_POLL_MS);
		if (ret == -ETIMEDOUT)
			ret = 0; /* the pause between polls ended */
	}
	memset(&r, 0, sizeof(r));
	if (!ret)
		ret = vm_exec_wait(vm, pid, &r, forever);
	if (ret) {
		const char *why = err ? err : r.err;

		if (!why)
			why = loop_abort_reason(vm->loop) ? loop_abort_reason(vm->loop)
							  : strerror(-ret);
		fprintf(stderr, "ktb boot: the guest agent could not run the command: %s\n", why);
		/* the loop also stops for a machine that ended or panicked */
		ret = ret == -ECANCELED && !vm->qemu_gone && !console_fatal(vm->console)
			  ? KTB_EXIT_INTERRUPTED
			  : KTB_EXIT_UNTESTED;
	} else {
		ret = exec_status(&r);
	}
	vm_exec_result_free(&r);
	free(err);
	return ret;
}

int boot_exec_run(const struct vm_config *vc, const struct boot_exec *e)
{
	struct vm vm;
	int ret;

	memset(&vm, 0, sizeof(vm));
	ret = vm_start(&vm, vc, now_ms() + EXEC_BOOT_MS);
	if (!ret)
		ret = vm_wait_debugger(&vm);
	if (!ret)
		ret = vm_wait_agent(&vm, loop_now(vm.loop) + EXEC_BOOT_MS);
	if (ret) {
		fprintf(stderr, "ktb boot: the machine did not come up: %s\n", vm.err);
		ret = vm.bad_config ? KTB_EXIT_USAGE : KTB_EXIT_UNTESTED;
	} else {
		ret = exec_follow(&vm, e);
	}
	vm_stop(&vm);
	return ret;
}
