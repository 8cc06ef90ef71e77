#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "protocol.h"
#include "console.h"
#include "expect.h"
#include "findings_judge.h"
#include "kernel_check.h"
#include "kreport.h"
#include "loop.h"
#include "machine_step.h"
#include "proc.h"
#include "util.h"
#include "step_storage.h"
#include "step.h"
#include "step_table.h"
#include "vm.h"
#include "vm_cmdline.h"
#include "vm_dump.h"

#define DMESG_TIMEOUT_MS 5000
/* The kernel prints a report in one go, at most KREPORT_MAX_TEXT (64 KiB)
 * of it, well within a second at the emulated serial port's speed under
 * TCG; a console quiet for a second is not in the middle of one (a vCPU
 * thread the host does not run for that long is a host in trouble). */
#define REPORT_SETTLE_MS 5000
#define REPORT_QUIET_MS 1000
/* A dmesg taken while the kernel printed a report holds its head alone:
 * taken again this long after, at most this many times. */
#define DMESG_CUT_WAIT_MS 500
#define DMESG_TRIES 4
#define MACHINE_CHECK_TIMEOUT_MS 30000
/* After the console's "Kernel panic" line the kernel prints its stack and
 * stops the other CPUs before its panic notifiers run, pvpanic's among
 * them: milliseconds, seconds at most under TCG on a loaded host. */
#define DUMP_PANIC_WAIT_MS 5000
/* A step that ran out of time: does the guest agent still answer? */
#define DUMP_HANG_PROBE_MS 5000
/* QEMU writes a dump at disk speed after compressing each page: a minute,
 * plus 30 s per GiB of guest memory, is far more than it needs. */
#define DUMP_BASE_MS 60000
#define DUMP_MS_PER_GIB 30000

static void progress(const struct run_ctx *c, const char *what)
{
	if (c->o->progress)
		c->o->progress(c->o->progress_ctx, what);
}

/* A step that failed, errored or timed out ends the scenario with its
 * status. A skipped one (a ktap step whose tests all skipped) does not: the
 * steps after it still run, and the scenario is a skip, the first skip's
 * message its own, unless a later step fails. */
static bool step_ended(struct run_ctx *c, const struct step_result *sr, const char *which)
{
	if (sr->status == ST_PASS || (sr->status == ST_SKIP && c->r->status == ST_SKIP))
		return false;
	free(c->r->message);
	c->r->status = sr->status;
	c->r->message = strcmp(which, sr->name)
			    ? xasprintf("step %s (%s, line %d): %s", which, sr->name, sr->line,
					sr->message ? sr->message : "failed")
			    : xasprintf("step %s (line %d): %s", which, sr->line,
					sr->message ? sr->message : "failed");
	return sr->status != ST_SKIP;
}

static struct step_result *step_begin(struct run_ctx *c, const char *name, int line)
{
	struct step_result *sr = scenario_result_add_step(c->r);

	sr->name = xstrdup(name);
	sr->line = line;
	sr->exit_code = -1;
	sr->start_ms = loop_now(c->vm.loop) - c->t0;
	sr->console_from = vm_console_offset(&c->vm);
	progress(c, sr->name);
	return sr;
}

/* The machine step, once per time the machine came up. */
static bool run_machine_check(struct run_ctx *c)
{
	struct step_result *sr;
	int64_t t = loop_now(c->vm.loop), dl = t + MACHINE_CHECK_TIMEOUT_MS;

	if (c->boots == c->boots_checked)
		return false;
	c->boots_checked = c->boots;
	sr = step_begin(c, MACHINE_STEP_NAME, c->s->machine_line);
	step_machine(c, sr, dl < c->deadline ? dl : c->deadline);
	sr->duration_ms = loop_now(c->vm.loop) - t;
	return step_ended(c, sr, MACHINE_STEP_NAME);
}

static void run_steps(struct run_ctx *c)
{
	if (run_machine_check(c))
		return;
	for (unsigned i = 0; i < c->s->steps_count; i++) {
		const struct step *st = &c->s->steps[i];
		struct step_result *sr = step_begin(c, st->name, st->line);
		int64_t t = loop_now(c->vm.loop);
		int64_t dl = t + st->timeout_ms;
		char which[16];

		sr->src_step = (int)i;
		step_ops[st->kind]->run(c, st, sr, dl < c->deadline ? dl : c->deadline);
		sr->duration_ms = loop_now(c->vm.loop) - t;
		snprintf(which, sizeof(which), "%u", i + 1);
		/* a step that restarted the machine (S4, power loss): check it again */
		if (step_ended(c, sr, which) || run_machine_check(c))
			return;
	}
}

/* A step can end while the kernel prints a report (a CPU that spins for
 * good is reported again every few seconds): the findings would read its
 * head alone, a soft lockup without the function it spins in, and fail the
 * step that expected it. So the console is read on until that report is
 * whole, or quiet for REPORT_QUIET_MS, or REPORT_SETTLE_MS went by. */
static void settle_reports(struct run_ctx *c)
{
	struct vm *vm = &c->vm;
	int64_t t = loop_now(vm->loop), end = t + REPORT_SETTLE_MS, quiet_from = t;
	const char *why = loop_abort_reason(vm->loop);
	unsigned long long seen;
	char *saved;

	if (!vm->console || vm->qemu_gone || vm->guest_panicked || proc_interrupted() ||
	    !console_report_cut(vm->console))
		return;
	saved = why ? xstrdup(why) : NULL;
	loop_clear_abort(vm->loop);
	seen = console_bytes(vm->console);
	while (t < end && t - quiet_from < REPORT_QUIET_MS) {
		if (loop_run_until(vm->loop, NULL, NULL, t + 100 < end ? t + 100 : end))
			break; /* aborted: QEMU ended, a signal */
		t = loop_now(vm->loop);
		if (console_bytes(vm->console) == seen)
			continue;
		seen = console_bytes(vm->console);
		quiet_from = t;
		if (!console_report_cut(vm->console))
			break;
	}
	if (saved && !loop_abort_reason(vm->loop))
		loop_abort(vm->loop, saved);
	free(saved);
}

/* The console only shows what loglevel lets through: read the kernel log
 * too and keep it as dmesg.txt, where findings_judge.c looks for the reports the
 * console missed. One taken while the kernel printed a report is taken
 * again, as the console is settled above. */
static void collect_dmesg(struct run_ctx *c)
{
	struct vm_exec_result res = { 0 };
	int64_t dl = loop_now(c->vm.loop) + DMESG_TIMEOUT_MS, next;
	char *path;

	if (!c->vm.ready_ms || loop_abort_reason(c->vm.loop))
		return;
	for (int tries = 1;; tries++) {
		if (vm_exec(&c->vm, "dmesg", (const char *const *)c->env, &res, dl) || !res.out)
			break;
		next = loop_now(c->vm.loop) + DMESG_CUT_WAIT_MS;
		if (tries == DMESG_TRIES || next >= dl || !kreport_cut(res.out, res.out_len) ||
		    loop_run_until(c->vm.loop, NULL, NULL, next)) {
			path = xasprintf("%s/dmesg.txt", c->r->artifacts);
			write_file(path, res.out, res.out_len);
			free(path);
			break;
		}
		vm_exec_result_free(&res);
		res = (struct vm_exec_result){ 0 };
	}
	vm_exec_result_free(&res);
}

/* The kernel's reports as findings (findings_judge.c); one that fails a step
 * that had passed, or no step, fails a scenario that had passed. */
static void judge_findings(struct run_ctx *c)
{
	char which[16], *msg;

	findings_collect(c, c->o->debug_vmlinux, c->o->debug_modules);
	if (c->r->status != ST_PASS && c->r->status != ST_SKIP)
		return;
	for (size_t i = 0; i < c->r->steps_count; i++) {
		struct step_result *sr = &c->r->steps[i];

		if (sr->status != ST_FAIL)
			continue;
		snprintf(which, sizeof(which), "%d", sr->src_step + 1);
		step_ended(c, sr, sr->src_step < 0 ? MACHINE_STEP_NAME : which);
		return;
	}
	msg = findings_message(c->r);
	if (msg) {
		c->r->status = ST_FAIL;
		free(c->r->message);
		c->r->message = msg;
	}
}

static bool vm_panicked(void *ctx)
{
	const struct vm *vm = ctx;

	return vm->guest_panicked || vm->qemu_gone;
}

/* The console showed a panic: wait for pvpanic's GUEST_PANICKED (QEMU
 * paused the guest) or QEMU's end (no pvpanic driver: panic=-1 rebooted
 * and -no-reboot ended QEMU). The loop's abort reason is kept. */
static bool guest_panicked(struct run_ctx *c)
{
	const char *why = loop_abort_reason(c->vm.loop);
	char *saved;

	if (c->vm.guest_panicked)
		return true;
	if (!console_seen(c->vm.console, "Kernel panic - not syncing"))
		return false;
	saved = why ? xstrdup(why) : NULL;
	loop_clear_abort(c->vm.loop);
	loop_run_until(c->vm.loop, vm_panicked, &c->vm, loop_now(c->vm.loop) + DUMP_PANIC_WAIT_MS);
	if (saved)
		loop_abort(c->vm.loop, saved);
	free(saved);
	return true;
}

/* A step (or the boot) ran out of time and the guest agent does not
 * answer either: the guest hangs. */
static bool guest_hung(struct run_ctx *c)
{
	bool timed_out = c->r->status == ST_TIMEOUT;
	const char *why = loop_abort_reason(c->vm.loop);
	char *saved;
	int ret;

	for (size_t i = 0; i < c->r->steps_count && !timed_out; i++)
		timed_out = c->r->steps[i].status == ST_TIMEOUT;
	if (!timed_out || c->vm.qemu_gone)
		return false;
	if (!c->vm.qga)
		return true;
	saved = why ? xstrdup(why) : NULL;
	loop_clear_abort(c->vm.loop);
	ret = vm_guest_sync(&c->vm, 500, loop_now(c->vm.loop) + DUMP_HANG_PROBE_MS);
	if (saved)
		loop_abort(c->vm.loop, saved);
	free(saved);
	return ret != 0;
}

/* The guest's uname, as the machine step's probe read it (its
 * kernel.release and kernel.version), for the dump's header; the booted
 * release otherwise. The strings are copied into rel and ver. */
static struct vm_dump_uts guest_uts(const struct run_ctx *c, char rel[65], char ver[65])
{
	struct vm_dump_uts u = { c->r->kernel, NULL };

	for (size_t i = 0; i < c->r->steps_count; i++) {
		const struct step_result *sr = &c->r->steps[i];
		json_t *doc, *k;

		if (strcmp(sr->name, MACHINE_STEP_NAME) || !sr->out)
			continue;
		doc = json_loads(sr->out, 0, NULL);
		k = json_object_get(doc, "kernel");
		if (json_string_value(json_object_get(k, "release"))) {
			snprintf(rel, 65, "%s", json_string_value(json_object_get(k, "release")));
			u.release = rel;
		}
		if (json_string_value(json_object_get(k, "version"))) {
			snprintf(ver, 65, "%s", json_string_value(json_object_get(k, "version")));
			u.version = ver;
		}
		json_decref(doc);
		break;
	}
	return u;
}

/* --dump: guest memory into the artifacts as vmcore, when the guest
 * panicked or hung (and with always, at the end of every scenario); the
 * result's dump says what was written or why nothing was. */
static void take_dump(struct run_ctx *c)
{
	const char *trigger = NULL;
	struct vm_dump d = { 0 };
	char rel[65], ver[65];
	struct vm_dump_uts uts = guest_uts(c, rel, ver);
	uint64_t mem = c->s->machine->memory_bytes;
	char *path;

	if (c->o->dump == RUN_DUMP_NEVER || !c->vm.loop || proc_interrupted())
		return;
	if (guest_panicked(c))
		trigger = "panic";
	else if (guest_hung(c))
		trigger = "hang";
	else if (c->o->dump == RUN_DUMP_ALWAYS && c->vm.ready_ms)
		trigger = "always";
	if (!trigger)
		return;
	path = xasprintf("%s/vmcore", c->r->artifacts);
	progress(c, "dumping guest memory");
	if (c->vm.qemu_gone && !strcmp(trigger, "panic"))
		d.note = xstrdup("no dump: QEMU had ended: the kernel's panic=-1 rebooted before a "
				 "pvpanic driver told QEMU of the panic (the kernel has none, or "
				 "it was not loaded yet)");
	else
		vm_dump_memory(&c->vm, path, mem, c->o->dump_limit, &uts,
			       loop_now(c->vm.loop) + DUMP_BASE_MS +
				   (int64_t)(mem >> 30) * DUMP_MS_PER_GIB + DUMP_MS_PER_GIB,
			       &d);
	c->r->dump = json_pack("{s:s, s:s?, s:s, s:I, s:I, s:s?}", "trigger", trigger, "file",
			       d.file, "format", VM_DUMP_FORMAT, "bytes", (json_int_t)d.bytes, "ms",
			       (json_int_t)d.ms, "note", d.note);
	vm_dump_free(&d);
	free(path);
}

/* --keep-on-fail keeps one VM: the first scenario of the run to claim the
 * run's .keep-on-fail file (O_EXCL: the -j workers race for it fairly). */
static bool keep_claim(const struct run_ctx *c)
{
	char *path = xasprintf("%s/%s/.keep-on-fail", c->o->artifacts_root, c->o->run_id);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	free(path);
	if (fd < 0)
		return false;
	dprintf(fd, "%s\n", c->r->name);
	close(fd);
	return true;
}

/* A scenario that did not pass, on a machine still up: kept for the user
 * (--keep-on-fail), with how to reach it, until its time passes, a signal
 * comes or QEMU ends; then stopped as any other. */
static void keep_vm(struct run_ctx *c)
{
	const char *why;

	if (!c->o->keep_ms || c->r->status == ST_PASS || c->r->status == ST_SKIP ||
	    !c->vm.ready_ms || c->vm.qemu_gone || proc_interrupted() || !keep_claim(c))
		return;
	fprintf(stderr,
		"ktb run: %s did not pass (%s); its VM is kept for %" PRId64
		" s (Ctrl-C ends it sooner, and the run with it):\n"
		"  console  %s/console.log (the guest's serial output goes on into it)\n"
		"  monitor  QMP on %s (ktb has let go; one client at a time)\n"
		"  agent    the guest agent on %s: ktb exec %s COMMAND\n",
		c->r->name, c->r->message ? c->r->message : "no message", c->o->keep_ms / 1000,
		c->r->artifacts, c->vm.qmp_path, c->vm.qga_path, c->vm.qga_path);
	if (c->o->gdb_port)
		fprintf(stderr, "  gdb      target remote 127.0.0.1:%u\n", c->o->gdb_port);
	why = vm_hold(&c->vm, c->o->keep_ms);
	fprintf(stderr, "ktb run: %s's VM: %s; stopping it\n", c->r->name, why);
}

static const char *pick_kernel(const struct scenario *s, struct image *img, char **why)
{
	const char *k = vm_pick_kernel(s->machine, img);

	if (!k && machine_needs_bios_boot(s->machine))
		*why = xstrdup("the machine offers S3, which needs a bzImage boot "
			       "through SeaBIOS, but the image has only a vmlinux");
	return k;
}

static void boot_failed(struct run_ctx *c, int ret)
{
	const char *fatal = console_fatal(c->vm.console);

	/* a kernel that dies on the way up is a verdict on the kernel; a VM that
	 * never came up for another reason means the test was not carried out */
	if (fatal) {
		c->r->status = ST_FAIL;
		c->r->message = xasprintf("kernel %s during boot: %s",
					  console_fatal_kind(c->vm.console), fatal);
	} else if (ret == -ETIMEDOUT && loop_now(c->vm.loop) >= c->deadline) {
		c->r->status = ST_TIMEOUT;
		c->r->message =
		    xasprintf("boot did not finish within the scenario timeout: %s", c->vm.err);
	} else {
		c->r->status = ST_ERROR;
		c->r->message = xasprintf("VM did not boot: %s", c->vm.err);
	}
}

static void write_result(const struct scenario_result *r)
{
	json_t *doc = scenario_result_to_json(r);
	char *path = xasprintf("%s/result.json", r->artifacts);

	json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	free(path);
}

static void result_init(struct scenario_result *r, const struct scenario *s,
			const struct run_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->name = xstrdup(s->name);
	r->file = xstrdup(s->file);
	r->summary = xstrdup(s->summary);
	r->tags_count = s->tags_count;
	r->tags = xcalloc(s->tags_count + 1, sizeof(char *));
	for (unsigned i = 0; i < s->tags_count; i++)
		r->tags[i] = xstrdup(s->tags[i]);
	r->metrics = json_object();
	r->artifacts = runner_artifacts_dir(o, s);
	r->attempt = o->attempt;
	if (o->attempt) {
		free(r->name);
		r->name = xasprintf("%s#%u", s->name, o->attempt);
	}
	r->kernel = xstrdup(o->image->release);
	r->accel = xstrdup(o->kvm ? "kvm" : "tcg");
	r->status = ST_PASS;
}

/* Does the scenario expect or tolerate any kernel report? Then a report's
 * first line on the console does not end it (findings_judge.c judges it). */
static bool scenario_expects_reports(const struct scenario *s)
{
	if (s->tolerate_count)
		return true;
	for (unsigned i = 0; i < s->steps_count; i++)
		if (s->steps[i].expect && s->steps[i].expect->finding)
			return true;
	return false;
}

static int boot(struct run_ctx *c, const char *kernel, char *append, const char *workdir)
{
	struct vm_config vc = {
		.machine = c->s->machine,
		.kernel = kernel,
		.initrd = c->o->image->initrd,
		.append = append,
		.kvm = c->o->kvm,
		.workdir = workdir,
		.artifacts = c->r->artifacts,
		.sig_fd = c->o->sig_fd,
		.libvirt_uri = c->o->libvirt_uri,
		.backend = c->o->backend,
		.reports_expected = scenario_expects_reports(c->s),
		.dump_ready = c->o->dump != RUN_DUMP_NEVER,
		.gdb_port = c->o->gdb_port,
		.gdb_wait = c->o->gdb_wait,
	};
	int64_t held;
	int ret;

	progress(c, "booting");
	c->kernel = kernel;
	c->append = append;
	c->workdir = workdir;
	ret = vm_start(&c->vm, &vc, c->deadline);
	/* the scenario's time starts when the debugger lets the CPUs go */
	if (!ret) {
		held = loop_now(c->vm.loop);
		ret = vm_wait_debugger(&c->vm);
		c->deadline += loop_now(c->vm.loop) - held;
	}
	if (!ret)
		ret = vm_wait_agent(&c->vm, c->deadline);
	if (ret)
		return ret;
	c->boots++;
	json_object_set_new(c->r->metrics, "boot_ms",
			    json_integer(c->vm.ready_ms - c->vm.start_ms));
	return 0;
}

/* A kernel without an option the scenario needs would only fail it for a
 * reason that is not the scenario's: skip it before anything boots, naming
 * every missing option. True when skipped (r written). */
static bool kernel_lacks(const struct scenario *s, const struct run_opts *o,
			 struct scenario_result *r)
{
	struct kernel_check kc;

	if (!o->kconfig || kernel_check(s, o->kconfig, &kc) || !kc.count)
		return false;
	r->status = ST_SKIP;
	r->message = xasprintf("the kernel lacks what the scenario needs: %s (kernel config: %s)",
			       kc.message, kconfig_source(o->kconfig));
	r->missing_config = kc.missing;
	r->missing_config_count = kc.count;
	kc.missing = NULL;
	kc.count = 0;
	kernel_check_free(&kc);
	if (!mkdir_p(r->artifacts, 0755))
		write_result(r);
	return true;
}

/* A share that asks for virtiofs where virtiofsd cannot serve (its
 * preflight failed, hw/share.c) would only fail the boot: this host cannot
 * carry the scenario out, a skip before anything boots (exit 125), naming
 * virtiofsd's own error. True when refused. */
static bool share_refused(const struct scenario *s, struct scenario_result *r)
{
	const struct share *sh = shares_refused(s->machine, NULL);

	if (!sh)
		return false;
	r->status = ST_SKIP;
	r->message = xstrdup(sh->note);
	if (!mkdir_p(r->artifacts, 0755))
		write_result(r);
	return true;
}

/* A root this host could not build (guest.root debian, not as root, no
 * network): the scenario cannot be carried out here, a skip before
 * anything boots, naming why. True when refused. */
static bool root_refused(const struct scenario *s, struct scenario_result *r)
{
	if (!s->guest || !s->guest->root_why)
		return false;
	r->status = ST_SKIP;
	r->message = xstrdup(s->guest->root_why);
	if (!mkdir_p(r->artifacts, 0755))
		write_result(r);
	return true;
}

/* the wall clock, for the result's "started" (KCIDB's start_time) */
static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int runner_run_scenario(const struct scenario *s, const struct run_opts *o,
			struct scenario_result *r)
{
	struct run_ctx c = { .s = s, .o = o, .r = r, .t0 = now_ms() };
	char *workdir = tmp_template("ktb");
	char *why = NULL, *append = NULL;
	const char *kernel;
	int64_t t0 = now_ms();
	int ret;

	result_init(r, s, o);
	r->started_unix_ms = wall_ms();
	if (share_refused(s, r) || root_refused(s, r) || kernel_lacks(s, o, r)) {
		free(workdir);
		return 0;
	}
	kernel = pick_kernel(s, o->image, &why);
	if (!kernel || mkdir_p(r->artifacts, 0755) || !mkdtemp(workdir)) {
		r->status = ST_ERROR;
		r->message = why ? why
				 : xasprintf("cannot create %s or a temporary directory: %s",
					     r->artifacts, strerror(errno));
		r->duration_ms = now_ms() - t0;
		free(workdir);
		if (!mkdir_p(r->artifacts, 0755))
			write_result(r);
		return 0;
	}
	c.deadline = t0 + s->timeout_ms;
	c.env[0] = xasprintf("KTB_SCENARIO=%s", s->name);
	c.env[1] = xasprintf("KTB_KERNEL_RELEASE=%s", o->image->release ? o->image->release : "");
	c.env[2] = xstrdup("PATH=/usr/bin:/bin:/usr/sbin:/sbin");
	c.env[3] = xstrdup("HOME=/root");
	c.env[4] = xasprintf("KTB_ATTEMPT=%u", o->attempt);
	append = vm_kernel_cmdline(s->machine, s->kernel ? s->kernel->cmdline : NULL, o->append);
	ret = boot(&c, kernel, append, workdir);
	if (ret)
		boot_failed(&c, ret);
	else
		run_steps(&c);
	collect_dmesg(&c);
	vm_metrics(&c.vm, c.r->metrics);
	take_dump(&c);
	if (proc_interrupted())
		scenario_result_interrupt(r, proc_interrupted());
	vm_drain_console(&c.vm);
	settle_reports(&c); /* the last console read before the findings */
	judge_findings(&c);
	if (r->status != ST_PASS && c.vm.console)
		r->console_tail = console_tail(c.vm.console, 30);
	keep_vm(&c);
	vm_stop(&c.vm);
	rm_rf(workdir);
	free(workdir);
	free(append);
	free(c.restart_append);
	for (int i = 0; i < 5; i++)
		free(c.env[i]);
	r->duration_ms = now_ms() - t0;
	write_result(r);
	return proc_interrupted() ? -EINTR : c.vm.host_failed ? -EHOSTDOWN : 0;
}

char *runner_artifacts_dir(const struct run_opts *o, const struct scenario *s)
{
	if (o->attempt)
		return xasprintf("%s/%s/%s-%u", o->artifacts_root, o->run_id, s->name, o->attempt);
	return xasprintf("%s/%s/%s", o->artifacts_root, o->run_id, s->name);
}

char *runner_new_run_id(void)
{
	time_t t = time(NULL);
	struct tm tm;
	char buf[32];

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
	return xasprintf("%s-%d", buf, (int)getpid());
}
