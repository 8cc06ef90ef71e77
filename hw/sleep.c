#include "internal.h"

/* q35's power management lives in the ICH9 LPC bridge; its properties decide
 * which sleep states the firmware's ACPI tables offer the guest. */
static const struct sleep_state {
	unsigned flag;
	const char *prop;
} sleep_states[] = {
	{ SLEEP_S3, "disable_s3" },
	{ SLEEP_S4, "disable_s4" },
};

int sleep_validate(const struct machine *m, struct hw_error *err)
{
	if (m->sleep & ~(unsigned)(SLEEP_S3 | SLEEP_S4))
		return hw_fail(err, "machine.sleep", "unknown sleep state; use s3 and/or s4");
	return 0;
}

int sleep_to_args(const struct machine *m, struct argv *a)
{
	int ret;

	for (unsigned i = 0; i < sizeof(sleep_states) / sizeof(sleep_states[0]); i++) {
		ret = argv_add(a, "-global") ?:
		      argv_addf(a, "ICH9-LPC.%s=%d", sleep_states[i].prop,
				!(m->sleep & sleep_states[i].flag));
		if (ret < 0)
			return ret;
	}
	return 0;
}

bool machine_needs_bios_boot(const struct machine *m)
{
	return m->sleep & SLEEP_S3;
}
