/* The memory devices of a machine beyond its RAM: the virtio balloon. */
#include "memory.h"

int balloon_to_args(const struct machine *m, struct argv *a)
{
	if (!m->balloon)
		return 0;
	/* id=balloon0: the QMP balloon command finds the device itself */
	argv_add(a, "-device");
	return argv_addf(a, "virtio-balloon-pci,id=balloon0,free-page-reporting=%s",
			 m->balloon->free_page_reporting ? "on" : "off");
}
