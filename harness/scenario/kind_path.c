/* fail_path and restore_path: {disk: ID, path: N}, a path of a multipath
 * disk taken away and brought back; the steps before say whether the path
 * is up. Run in harness/steps/step_storage_mp.c. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "schema.h"
#include "step_kind.h"
#include "util.h"

static const cyaml_schema_field_t path_ref_fields[] = {
	STR("disk", 0, struct path_ref, disk), CYAML_FIELD_UINT("path", 0, struct path_ref, path),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t fail_path_fields[] = {
	CYAML_FIELD_MAPPING_PTR("fail_path", PTR | OPT, struct step, fail_path, path_ref_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t restore_path_fields[] = {
	CYAML_FIELD_MAPPING_PTR("restore_path", PTR | OPT, struct step, restore_path,
				path_ref_fields),
	CYAML_FIELD_END,
};

/* What the steps before st left path `path` of disk `disk` in: failed by a
 * fail_path, back by a restore_path or a power_loss (the machine starts
 * again with every path), unknown after a hibernation (the restored kernel
 * remembers the path failed, the new QEMU has it). *by: the step that set
 * it, -1 when no step did. */
enum path_state { PATH_UP, PATH_DOWN, PATH_UNKNOWN };

static enum path_state path_state_before(const struct scenario *s, const struct step *st,
					 const char *disk, unsigned path, int *by)
{
	enum path_state state = PATH_UP;

	*by = -1;
	for (const struct step *p = s->steps; p < st; p++) {
		const struct step_kind_row *row = step_kinds[p->kind];
		enum step_vm vm = row->vm_after ? row->vm_after(p) : VM_SAME;
		bool fails = false;
		const struct path_ref *r = row->path_ref ? row->path_ref(p, &fails) : NULL;

		if (vm == VM_RESTARTED) {
			state = PATH_UP;
			*by = (int)(p - s->steps);
		} else if (vm == VM_RESTORED) {
			state = PATH_UNKNOWN;
		} else if (r && r->disk && !strcmp(r->disk, disk) && r->path == path) {
			state = fails ? PATH_DOWN : PATH_UP;
			*by = (int)(p - s->steps);
		}
	}
	return state;
}

/* fail_path takes an active path away (the step checks first that the
 * guest shows it active); restore_path brings back a path a fail_path
 * took: restoring an active one would pass on nothing (dm-multipath
 * reinstates it at once) or be refused by QEMU (an NVMe path's id is in
 * use). */
static int step_check_path_state(struct load_ctx *c, const struct step *st, bool fails,
				 const char *key, const struct path_ref *p, const char *f)
{
	int by;
	enum path_state state = path_state_before(c->s, st, p->disk, p->path, &by);

	if (fails && state == PATH_DOWN)
		return fail(c, f,
			    "steps[%d] already failed path %u of %s and no restore_path brought "
			    "it back; restore it first",
			    by, p->path, p->disk);
	if (!fails && state == PATH_UP && by < 0)
		return fail(c, f,
			    "no earlier fail_path took path %u of %s away: %s of an active path "
			    "checks nothing; fail it first",
			    p->path, p->disk, key);
	if (!fails && state == PATH_UP)
		return fail(c, f,
			    "path %u of %s is active again after steps[%d]: %s of an active "
			    "path checks nothing; fail it first",
			    p->path, p->disk, by, key);
	return 0;
}

/* fail_path / restore_path name a multipath disk of this machine and one of
 * its paths; the step's default name says which. */
static int step_check_path(struct load_ctx *c, struct step *st, const char *path, bool fails)
{
	const char *key = st->fail_path ? "fail_path" : "restore_path";
	struct path_ref *p = st->fail_path ? st->fail_path : st->restore_path;
	const struct machine *m = c->s->machine;
	char f[64];
	unsigned i;

	snprintf(f, sizeof(f), "%s.%s.disk", path, key);
	for (i = 0; i < m->disks_count && strcmp(m->disks[i].id, p->disk); i++)
		;
	if (i == m->disks_count)
		return fail(c, f, "\"%s\" is not one of the machine's disks", p->disk);
	if (m->disks[i].paths < 2)
		return fail(c, f, "disk %s has one path; give it paths: 2 or more", p->disk);
	snprintf(f, sizeof(f), "%s.%s.path", path, key);
	if (p->path >= m->disks[i].paths)
		return fail(c, f, "disk %s has paths 0 to %u; there is no path %u", p->disk,
			    m->disks[i].paths - 1, p->path);
	snprintf(f, sizeof(f), "%s.%s", path, key);
	if (step_check_path_state(c, st, fails, key, p, f))
		return -EINVAL;
	p->disk_index = i;
	if (!st->name)
		st->name = xasprintf("%s: %s path %u", key, p->disk, p->path);
	return 0;
}

static int step_check_fail_path(struct load_ctx *c, struct step *st, const char *path)
{
	return step_check_path(c, st, path, true);
}

static int step_check_restore_path(struct load_ctx *c, struct step *st, const char *path)
{
	return step_check_path(c, st, path, false);
}

static const struct path_ref *fail_path_ref(const struct step *st, bool *fails)
{
	*fails = true;
	return st->fail_path;
}

static const struct path_ref *restore_path_ref(const struct step *st, bool *fails)
{
	*fails = false;
	return st->restore_path;
}

const struct step_kind_row kind_fail_path = {
	.keyword = "fail_path",
	.kind = STEP_FAIL_PATH,
	.field = offsetof(struct step, fail_path),
	.expects = EXPECT_JSON,
	.needs = NEEDS_MULTIPATH_DISK,
	.keys = "",
	.fields = fail_path_fields,
	.check = step_check_fail_path,
	.guest_key = step_in_guest,
	.path_ref = fail_path_ref,
};

const struct step_kind_row kind_restore_path = {
	.keyword = "restore_path",
	.kind = STEP_RESTORE_PATH,
	.field = offsetof(struct step, restore_path),
	.expects = EXPECT_JSON,
	.needs = NEEDS_MULTIPATH_DISK,
	.keys = "",
	.fields = restore_path_fields,
	.check = step_check_restore_path,
	.guest_key = step_in_guest,
	.path_ref = restore_path_ref,
};
