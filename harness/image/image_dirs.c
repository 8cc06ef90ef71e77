/* Where the testbed's sources, guest binaries and cache are. */
#include "image_dirs.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

const char *ktb_source_dir(void)
{
	const char *s = getenv("KTB_SOURCE_DIR");

	return s && *s ? s : KTB_SOURCE_DIR_DEFAULT;
}

const char *ktb_guest_dir(void)
{
	const char *s = getenv("KTB_GUEST_DIR");

	return s && *s ? s : KTB_GUEST_DIR_DEFAULT;
}

const char *ktb_cache_dir(void)
{
	static char path[4096];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct passwd *pw;

	/* the XDG spec says a relative XDG_CACHE_HOME is to be ignored */
	if (xdg && xdg[0] == '/') {
		snprintf(path, sizeof(path), "%s/ktb", xdg);
	} else {
		if (!home || !*home) {
			pw = getpwuid(getuid());
			home = pw ? pw->pw_dir : "/tmp";
		}
		snprintf(path, sizeof(path), "%s/.cache/ktb", home);
	}
	if (mkdir_p(path, 0755))
		return NULL;
	return path;
}
