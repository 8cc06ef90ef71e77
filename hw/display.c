#include "display.h"

#define DISPLAY_ROW(id, name, qemu, libvirt, pci) { qemu, libvirt, pci },
static const struct display_row {
	const char *qemu, *libvirt, *pci;
} display_rows[DISPLAY_COUNT] = { DISPLAY_TABLE(DISPLAY_ROW) };

static const struct display_row *display_row(const struct machine *m)
{
	return (unsigned)m->display < DISPLAY_COUNT ? &display_rows[m->display] : &display_rows[0];
}

int display_to_args(const struct machine *m, struct argv *a)
{
	const char *dev = display_row(m)->qemu;

	if (!dev)
		return 0;
	argv_add(a, "-device");
	return argv_add(a, dev);
}

const char *display_libvirt_model(const struct machine *m)
{
	return display_row(m)->libvirt;
}

const char *display_pci_fact(const struct machine *m)
{
	return display_row(m)->pci;
}
