/* The machine model rendered as a libvirt domain (XML), for the libvirt
 * backend. The same struct machine that machine_to_argv() turns into a QEMU
 * command line: CPUs, memory, NUMA cells, the sleep states the firmware
 * offers, disks. The harness's own monitor and guest-agent sockets travel as
 * <qemu:commandline> arguments, so libvirt neither claims nor proxies them.
 * What libvirt cannot present faithfully yet is refused, never approximated. */
#ifndef KTB_HW_LIBVIRT_XML_H
#define KTB_HW_LIBVIRT_XML_H

#include "model.h"

struct hw_domain {
	const char *name;	  /* domain name, unique on the host */
	const char *console_path; /* the serial console goes to this file */
};

/* Can the libvirt renderer present m? 0, or -EINVAL with err naming the field
 * (e.g. machine.disks[0].bus for nvme). m must be validated. */
int machine_libvirt_check(const struct machine *m, struct hw_error *err);

/* The whole <domain> document; *out is malloc'd (caller frees). 0, -EINVAL
 * (err filled: something libvirt cannot present) or -ENOMEM. */
int machine_to_domain_xml(const struct machine *m, const struct hw_launch *l,
			  const struct hw_domain *dom, char **out, struct hw_error *err);

#endif
