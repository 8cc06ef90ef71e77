/* qmp: a QMP command by name with arguments:, or a JSON command; never
 * one that reaches the host, nor one that ends QEMU before the last step.
 * stop and cont pause and resume the VM for the steps after it. Runs in
 * harness/steps/step_basic.c. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "schema.h"
#include "step_kind.h"

static const cyaml_schema_field_t qmp_fields[] = {
	STR("qmp", OPT, struct step, qmp),
	CYAML_FIELD_IGNORE("arguments", OPT),
	CYAML_FIELD_END,
};

/* QMP commands that read or write files on the host, run host programs or
 * plug in devices behind the machine model's back (migrate "exec:", a
 * memory dump to a host path, a loader device reading a host file): a
 * scenario drives the guest, never the host. */
static const char *const qmp_host_commands[] = {
	"add-fd",
	"block-commit",
	"block-stream",
	"blockdev-add",
	"blockdev-backup",
	"blockdev-change-medium",
	"blockdev-create",
	"blockdev-mirror",
	"blockdev-snapshot-sync",
	"change-backing-file",
	"chardev-add",
	"chardev-change",
	"device_add",
	"drive-backup",
	"drive-mirror",
	"dump-guest-memory",
	"getfd",
	"memsave",
	"migrate",
	"migrate-incoming",
	"netdev_add",
	"object-add",
	"pmemsave",
	"qom-set",
	"screendump",
	"snapshot-load",
	"snapshot-save",
	"xen-load-devices-state",
	"xen-save-devices-state",
};

/* quit ends QEMU, and so does system_reset: QEMU runs with -no-reboot
 * (hw/argv.c), which turns a reset into an exit. A step after either
 * cannot run. */
static int qmp_check_ends(struct load_ctx *c, const char *f, const char *cmd, const struct step *st)
{
	size_t i = (size_t)(st - c->s->steps);

	if (strcmp(cmd, "quit") && strcmp(cmd, "system_reset"))
		return 0;
	if (i + 1 >= c->s->steps_count)
		return 0;
	return fail(c, f,
		    "%s ends QEMU (it runs with -no-reboot, so a reset ends it too): "
		    "steps[%zu] and the steps after it could not run; end the scenario with "
		    "it, or drop it",
		    cmd, i + 1);
}

/* Does qmp step st send cmd (by name or as a JSON command)? */
static bool qmp_sends(const struct step *st, const char *cmd)
{
	json_t *j;
	bool is;

	if (!st->qmp)
		return false;
	if (st->qmp[0] != '{')
		return !strcmp(st->qmp, cmd);
	j = json_loads(st->qmp, 0, NULL);
	is = j && json_string_value(json_object_get(j, "execute")) &&
	     !strcmp(json_string_value(json_object_get(j, "execute")), cmd);
	json_decref(j);
	return is;
}

/* 0, or the step refused: cmd may touch the host (human-monitor-command
 * only for "info ..."). */
static int qmp_check_host(struct load_ctx *c, const char *f, const char *cmd, json_t *args)
{
	const char *hmp = json_string_value(json_object_get(args, "command-line"));

	for (size_t i = 0; i < sizeof(qmp_host_commands) / sizeof(qmp_host_commands[0]); i++)
		if (!strcmp(cmd, qmp_host_commands[i]))
			return fail(c, f,
				    "%s reaches past the guest to the host's files, programs "
				    "or devices; a scenario may not use it",
				    cmd);
	if (!strcmp(cmd, "human-monitor-command") &&
	    (!hmp || strncmp(hmp, "info ", 5) || strpbrk(hmp, ";\n")))
		return fail(c, f,
			    "human-monitor-command takes only \"info ...\" here: other "
			    "monitor commands reach the host");
	return 0;
}

static int step_check_qmp_json(struct load_ctx *c, struct step *st, const char *f)
{
	json_error_t jerr;
	json_t *j = json_loads(st->qmp, 0, &jerr);
	int ret = 0;

	if (!j)
		ret = fail(c, f, "not valid JSON: %s (column %d)", jerr.text, jerr.column);
	else if (!json_is_string(json_object_get(j, "execute")))
		ret = fail(c, f, "a JSON command needs \"execute\": \"COMMAND\"");
	else if (st->arguments)
		ret = fail(c, f,
			   "give the arguments inside the JSON command or as arguments:, "
			   "not both");
	else
		ret = qmp_check_host(c, f, json_string_value(json_object_get(j, "execute")),
				     json_object_get(j, "arguments"));
	if (!ret)
		ret = qmp_check_ends(c, f, json_string_value(json_object_get(j, "execute")), st);
	json_decref(j);
	return ret;
}

static int step_check_qmp(struct load_ctx *c, struct step *st, const char *path)
{
	char f[64];
	int ret;

	snprintf(f, sizeof(f), "%s.arguments", path);
	ret = mapping_field_json(c, f, &st->arguments);
	if (ret < 0)
		return ret;
	snprintf(f, sizeof(f), "%s.qmp", path);
	if (st->qmp[0] == '{')
		return step_check_qmp_json(c, st, f);
	if (!st->qmp[0] || strpbrk(st->qmp, " \t\n"))
		return fail(c, f,
			    "\"%s\" is not a QMP command name; write e.g. query-status, "
			    "or a JSON object {\"execute\": ...}",
			    st->qmp);
	return qmp_check_host(c, f, st->qmp, st->arguments) || qmp_check_ends(c, f, st->qmp, st);
}

static enum step_vm qmp_vm_after(const struct step *st)
{
	return qmp_sends(st, "stop") ? VM_PAUSED : qmp_sends(st, "cont") ? VM_RESUMED : VM_SAME;
}

/* arguments: read from the document (a free-form mapping) */
static void qmp_release(struct step *st)
{
	json_decref(st->arguments);
}

const struct step_kind_row kind_qmp = {
	.keyword = "qmp",
	.kind = STEP_QMP,
	.field = offsetof(struct step, qmp),
	.expects = EXPECT_JSON,
	.needs = NEEDS_NOTHING,
	.keys = "arguments",
	.fields = qmp_fields,
	.check = step_check_qmp,
	.release = qmp_release,
	.vm_after = qmp_vm_after,
};
