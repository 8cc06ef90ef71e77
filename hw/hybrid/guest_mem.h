/* The guest's memory as the front end shared it (vhost-user SET_MEM_TABLE):
 * a table of regions, each a guest-physical range, the front end's virtual
 * address for it and our own mapping. Every address the guest hands us is
 * checked against this table before it is touched. */
#ifndef KTB_HYBRID_GUEST_MEM_H
#define KTB_HYBRID_GUEST_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define GUEST_MEM_MAX_REGIONS 8

struct guest_region {
	uint64_t gpa; /* guest physical start */
	uint64_t size;
	uint64_t uva; /* the front end's virtual address of gpa */
	void *host;   /* our address of gpa */
	void *map;    /* what munmap() takes (NULL: not ours to unmap) */
	size_t map_len;
};

struct guest_mem {
	struct guest_region r[GUEST_MEM_MAX_REGIONS];
	unsigned n;
};

/* Host pointer for [gpa, gpa + len) when it lies in one region, else NULL. */
void *guest_mem_gpa(const struct guest_mem *m, uint64_t gpa, uint64_t len);
/* The same for a front-end virtual address (vring addresses are those). */
void *guest_mem_uva(const struct guest_mem *m, uint64_t uva, uint64_t len);
/* [gpa, gpa + len) as up to max iovecs (a range may span regions). Returns
 * the number used, -EFAULT when part of it is outside guest memory, -E2BIG
 * when it needs more than max. */
int guest_mem_iov(const struct guest_mem *m, uint64_t gpa, uint64_t len, struct iovec *iov,
		  unsigned max);
/* Unmap every region we mapped and empty the table. */
void guest_mem_clear(struct guest_mem *m);

#endif
