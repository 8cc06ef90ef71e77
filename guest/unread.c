#include "unread.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define UNREAD_MAX 16

static struct {
	char part[16];
	char note[320];
} unread[UNREAD_MAX];
static unsigned unread_n;

bool unread_absent(const char *root, int err)
{
	char path[PATH_MAX];
	DIR *d;

	if (err != -ENOENT)
		return false;
	snprintf(path, sizeof(path), "%s/sys/kernel", root);
	d = opendir(path);
	if (!d)
		return false; /* no sysfs there: nothing can be told absent */
	closedir(d);
	return true;
}

void unread_note(const char *part, const char *root, const char *path, int err)
{
	size_t rl = strlen(root);

	if (unread_get(part) || unread_n >= UNREAD_MAX)
		return;
	if (!strncmp(path, root, rl))
		path += rl;
	snprintf(unread[unread_n].part, sizeof(unread[0].part), "%s", part);
	snprintf(unread[unread_n].note, sizeof(unread[0].note), "%s: %s", path,
		 strerror(err < 0 ? -err : err));
	unread_n++;
}

const char *unread_get(const char *part)
{
	for (unsigned i = 0; i < unread_n; i++)
		if (!strcmp(unread[i].part, part))
			return unread[i].note;
	return NULL;
}

bool unread_any(void)
{
	return unread_n > 0;
}

void unread_write(struct json_out *j)
{
	json_key(j, "unread");
	json_obj_begin(j);
	for (unsigned i = 0; i < unread_n; i++)
		json_kv_str(j, unread[i].part, unread[i].note);
	json_obj_end(j);
	unread_clear();
}

void unread_clear(void)
{
	unread_n = 0;
}
