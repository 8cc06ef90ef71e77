/* fail_path and restore_path: take one path of a multipath disk away and
 * bring it back, then wait until the guest shows the effect (the path gone or
 * failed, then back and active), as ktb-probe reports it. NVMe paths are
 * controllers unplugged and plugged with QMP device_del / device_add; SCSI
 * paths under dm-multipath are set offline in the guest and failed in dm, the
 * way multipathd would on a dead link (see docs/storage.md for why). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk_bus.h"
#include "loop.h"
#include "step_storage_mp.h"
#include "util.h"

#define MP_POLL_MS 200
#define MP_CMD_MS 15000
/* the last probe's time: polling stops this long before the step's deadline,
 * so that a missing effect fails as such rather than as a timeout */
#define MP_PROBE_RESERVE_MS 2000

struct mp_op {
	struct run_ctx *c;
	const struct path_ref *ref;
	const struct disk *d;
	bool up; /* restore_path */
	struct step_result *sr;
	int64_t deadline;
};

static void mp_fail(struct step_result *sr, enum status st, char *msg)
{
	sr->status = st;
	free(sr->message);
	sr->message = msg;
}

static int64_t mp_min(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* `ktb-probe disk ID` parsed; NULL (step failed) when the agent cannot run
 * it, or when it printed no JSON object. A disk that is gone is an object
 * too ({"error": "no disk with id ID"}, exit 1): the guest's state to judge. */
static json_t *mp_probe(struct mp_op *op)
{
	struct vm_exec_result res = { 0 };
	char *cmd = xasprintf("ktb-probe disk %s", op->d->id);
	int64_t dl = mp_min(op->deadline, loop_now(op->c->vm.loop) + MP_CMD_MS);
	int ret = vm_exec(&op->c->vm, cmd, (const char *const *)op->c->env, &res, dl);
	json_t *j = NULL;

	if (ret)
		step_wait_failed(op->c, op->sr, ret, NULL);
	else if (!(j = json_loads(res.out ? res.out : "", 0, NULL)) || !json_is_object(j)) {
		mp_fail(op->sr, ST_ERROR,
			xasprintf("%s: exit %d, output: %.200s", cmd, res.exit_code,
				  res.out && *res.out ? res.out : "(none)"));
		json_decref(j);
		j = NULL;
	}
	free(cmd);
	vm_exec_result_free(&res);
	return j;
}

/* The probe's entry for path p (borrowed), or NULL when the guest has none. */
static json_t *mp_path_entry(json_t *mp, unsigned p)
{
	json_t *list = json_object_get(mp, "list"), *e;
	size_t i;

	json_array_foreach (list, i, e)
		if (json_integer_value(json_object_get(e, "path")) == (json_int_t)p)
			return e;
	return NULL;
}

/* The multipath object of a probe, or NULL when the disk is not multipath
 * (null, or no kind: two controllers the kernel did not join show up as
 * two plain disks). */
static json_t *mp_device(json_t *probe)
{
	json_t *mp = json_object_get(probe, "multipath");
	const char *kind = json_string_value(json_object_get(mp, "kind"));

	return json_is_object(mp) && kind && *kind ? mp : NULL;
}

/* What the probe showed of the device: its multipath object, or why it
 * has none (the disk is gone). */
static char *mp_show(json_t *probe)
{
	json_t *mp = json_object_get(probe, "multipath");
	const char *err = json_string_value(json_object_get(probe, "error"));
	char *s = mp ? json_dumps(mp, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	if (!s && err)
		return xasprintf("none: %s", err);
	return s ? s : xstrdup("no multipath key");
}

int mp_judge(json_t *probe, unsigned path, bool up, bool before, char **why)
{
	json_t *mp = mp_device(probe), *e = mp_path_entry(mp, path);
	bool active = e && json_is_true(json_object_get(e, "active"));
	const char *miss = NULL;
	char *seen;

	*why = NULL;
	if (!mp)
		miss = "no multipath device";
	else if (before && !up && !e)
		miss = "no such path";
	else if (before && !up && !active)
		miss = "it not active";
	if (miss) {
		seen = mp_show(probe);
		*why = xasprintf("%s %s of path %u: the guest shows %s (multipath: %s)",
				 before ? "before" : "after", up ? "restore_path" : "fail_path",
				 path, miss, seen);
		free(seen);
		return -ENOENT;
	}
	if (before)
		return 0;
	return (up ? active : !active) ? 0 : 1;
}

/* Run a guest shell command that must succeed. */
static int mp_guest(struct mp_op *op, const char *cmd)
{
	struct vm_exec_result res = { 0 };
	int64_t dl = mp_min(op->deadline, loop_now(op->c->vm.loop) + MP_CMD_MS);
	int ret = vm_exec(&op->c->vm, cmd, (const char *const *)op->c->env, &res, dl);

	if (ret)
		step_wait_failed(op->c, op->sr, ret, NULL);
	else if (res.exit_code)
		mp_fail(op->sr, ST_ERROR,
			xasprintf("guest command failed (exit %d): %s: %s", res.exit_code, cmd,
				  res.err && *res.err ? res.err : ""));
	vm_exec_result_free(&res);
	return ret ? ret : res.exit_code ? -EIO : 0;
}

/* dm over SCSI: the path's SCSI device refuses commands (offline) and dm
 * marks it failed; restoring reverses both. */
static int mp_dm_act(struct mp_op *op)
{
	json_t *probe = mp_probe(op), *e;
	const char *name, *majmin, *dm;
	char *cmd;
	int ret;

	if (!probe)
		return -EIO;
	e = mp_path_entry(mp_device(probe), op->ref->path);
	dm = json_string_value(json_object_get(mp_device(probe), "name"));
	name = json_string_value(json_object_get(e, "name"));
	majmin = json_string_value(json_object_get(e, "majmin"));
	if (!dm || !name || !majmin) {
		mp_fail(op->sr, ST_ERROR,
			xasprintf("the guest shows no dm-multipath path %u "
				  "for disk %s",
				  op->ref->path, op->d->id));
		json_decref(probe);
		return -ENOENT;
	}
	cmd = xasprintf("echo %s > /sys/block/%s/device/state && dmsetup message %s 0 %s %s",
			op->up ? "running" : "offline", name, dm,
			op->up ? "reinstate_path" : "fail_path", majmin);
	ret = mp_guest(op, cmd);
	free(cmd);
	json_decref(probe);
	return ret;
}

/* "driver,k=v,k=v" (the -device string) as device_add arguments. */
static json_t *mp_device_args(const char *opts)
{
	char *copy = xstrdup(opts), *save = NULL, *tok;
	json_t *args = json_object();

	tok = strtok_r(copy, ",", &save);
	json_object_set_new(args, "driver", json_string(tok));
	while ((tok = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = '\0';
		json_object_set_new(args, tok, json_string(eq + 1));
	}
	free(copy);
	return args;
}

static int mp_qmp(struct mp_op *op, const char *cmd, json_t *args, char **err)
{
	return vm_qmp(&op->c->vm, cmd, args, NULL, err, op->deadline);
}

/* QEMU's answers while the old controller is not yet gone: its id is still
 * taken, or its slot on the root port still in use. */
static bool mp_still_unplugging(const char *err)
{
	return err &&
	       (strstr(err, "uplicate") || strstr(err, "not available") || strstr(err, "in use"));
}

/* NVMe: unplug the path's controller, or plug it back with the arguments
 * the command line had. A re-add races the previous unplug's completion:
 * QEMU refuses the id until DEVICE_DELETED, so retry while it does. */
static int mp_nvme_act(struct mp_op *op)
{
	char dev[256], *err = NULL, *id;
	json_t *args;
	int ret;

	if (machine_path_device(op->c->s->machine, op->ref->disk_index, op->ref->path, dev,
				sizeof(dev)) ||
	    !(id = strstr(dev, ",id="))) {
		mp_fail(op->sr, ST_ERROR,
			xasprintf("disk %s has no path %u", op->d->id, op->ref->path));
		return -EINVAL;
	}
	id += 4;
	args = op->up ? mp_device_args(dev) : json_pack("{s:s%}", "id", id, strcspn(id, ","));
	for (;;) {
		free(err);
		err = NULL;
		ret = mp_qmp(op, op->up ? "device_add" : "device_del", args, &err);
		if (ret != -EREMOTEIO || !op->up || !mp_still_unplugging(err) ||
		    loop_now(op->c->vm.loop) + MP_POLL_MS >= op->deadline)
			break;
		loop_run_until(op->c->vm.loop, NULL, NULL, loop_now(op->c->vm.loop) + MP_POLL_MS);
	}
	json_decref(args);
	if (ret == -EREMOTEIO)
		mp_fail(op->sr, ST_FAIL,
			xasprintf("%s refused: %s", op->up ? "device_add" : "device_del", err));
	else if (ret)
		step_wait_failed(op->c, op->sr, ret, NULL);
	free(err);
	return ret;
}

/* Poll the guest until it shows the effect; the last probe is returned. */
static json_t *mp_wait_effect(struct mp_op *op, int64_t *seen_ms)
{
	int64_t t0 = loop_now(op->c->vm.loop), until = op->deadline - MP_PROBE_RESERVE_MS;
	json_t *probe;
	char *why;
	int ret;

	if (until < t0 + MP_POLL_MS)
		until = op->deadline;
	for (;;) {
		probe = mp_probe(op);
		ret = probe ? mp_judge(probe, op->ref->path, op->up, false, &why) : 0;
		if (!ret) {
			*seen_ms = loop_now(op->c->vm.loop) - t0;
			return probe;
		}
		if (ret < 0) {
			/* the multipath device itself went: no "path down" to wait for */
			mp_fail(op->sr, ST_FAIL, xasprintf("disk %s: %s", op->d->id, why));
			free(why);
			json_decref(probe);
			return NULL;
		}
		if (loop_now(op->c->vm.loop) + MP_POLL_MS >= until) {
			char *last = mp_show(probe);

			mp_fail(op->sr, ST_FAIL,
				xasprintf(
				    "the guest never showed path %u of %s %s (last: %s)",
				    op->ref->path, op->d->id,
				    op->up ? "back and active"
					   : "gone or failed beside a multipath device still there",
				    last));
			free(last);
			json_decref(probe);
			return NULL;
		}
		json_decref(probe);
		ret = loop_run_until(op->c->vm.loop, NULL, NULL,
				     loop_now(op->c->vm.loop) + MP_POLL_MS);
		if (ret && ret != -ETIMEDOUT) {
			step_wait_failed(op->c, op->sr, ret, NULL);
			return NULL;
		}
	}
}

/* Before acting: the multipath device, and for fail_path the path present
 * and active, as the guest shows them; else fail naming what it showed, so
 * that "gone" after the action can only mean the action's effect. */
static int mp_precheck(struct mp_op *op)
{
	json_t *probe = mp_probe(op);
	char *why;
	int ret;

	if (!probe)
		return -EIO;
	ret = mp_judge(probe, op->ref->path, op->up, true, &why);
	if (ret)
		mp_fail(op->sr, ST_FAIL, xasprintf("disk %s: %s", op->d->id, why));
	free(why);
	json_decref(probe);
	return ret;
}

static void mp_step(struct run_ctx *c, const struct step *st, const struct path_ref *ref, bool up,
		    struct step_result *sr, int64_t deadline)
{
	struct mp_op op = { c, ref, &c->s->machine->disks[ref->disk_index], up, sr, deadline };
	bool nvme = disk_bus_info(op.d->bus)->multipath == DISK_MP_NVME;
	json_t *probe, *mp;
	int64_t seen_ms;

	if (mp_precheck(&op) || (nvme ? mp_nvme_act(&op) : mp_dm_act(&op)))
		return;
	probe = mp_wait_effect(&op, &seen_ms);
	if (!probe)
		return;
	mp = json_object_get(probe, "multipath");
	sr->data = json_pack("{s:s, s:i, s:s, s:s, s:I, s:O?, s:O?}", "disk", op.d->id, "path",
			     (int)ref->path, "action", up ? "restore" : "fail", "mechanism",
			     nvme ? (up ? "device_add" : "device_del")
				  : (up ? "running+reinstate_path" : "offline+fail_path"),
			     "effect_ms", (json_int_t)seen_ms, "paths",
			     json_object_get(mp, "paths"), "active", json_object_get(mp, "active"));
	sr->out = json_dumps(sr->data, JSON_COMPACT);
	sr->exit_code = 0;
	json_decref(probe);
	step_judge(sr, st->expect);
}

static void step_fail_path(struct run_ctx *c, const struct step *st, struct step_result *sr,
			   int64_t deadline)
{
	mp_step(c, st, st->fail_path, false, sr, deadline);
}

static void step_restore_path(struct run_ctx *c, const struct step *st, struct step_result *sr,
			      int64_t deadline)
{
	mp_step(c, st, st->restore_path, true, sr, deadline);
}

const struct step_ops step_fail_path_ops = { STEP_FAIL_PATH, step_fail_path };
const struct step_ops step_restore_path_ops = { STEP_RESTORE_PATH, step_restore_path };
