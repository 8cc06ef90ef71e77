#include "sleep.h"

/* q35's power management lives in the ICH9 LPC bridge; its properties
 * disable_s3 and disable_s4 decide which sleep states the firmware's ACPI
 * tables offer the guest. */
#define SLEEP_PROP(id, name) { SLEEP_##id, "disable_" name },
static const struct sleep_prop {
	unsigned flag;
	const char *prop;
} sleep_props[] = { SLEEP_TABLE(SLEEP_PROP) };

int sleep_validate(const struct machine *m, struct hw_error *err)
{
	if (m->sleep & ~(unsigned)SLEEP_ALL)
		return hw_fail(err, "machine.sleep", "unknown sleep state; use s3 and/or s4");
	return 0;
}

int sleep_to_args(const struct machine *m, struct argv *a)
{
	int ret;

	for (unsigned i = 0; i < sizeof(sleep_props) / sizeof(sleep_props[0]); i++) {
		argv_add(a, "-global");
		ret = argv_addf(a, "ICH9-LPC.%s=%d", sleep_props[i].prop,
				!(m->sleep & sleep_props[i].flag));
		if (ret < 0)
			return ret;
	}
	return 0;
}

bool machine_needs_bios_boot(const struct machine *m)
{
	return m->sleep & SLEEP_S3;
}
