#include "guest_mem.h"

#include <errno.h>
#include <sys/mman.h>

/* Is [a, a + len) inside [start, start + size)? Written so that no sum can
 * wrap: the guest chooses a and len. */
static int range_in(uint64_t a, uint64_t len, uint64_t start, uint64_t size)
{
	return a >= start && a - start <= size && len <= size - (a - start);
}

void *guest_mem_gpa(const struct guest_mem *m, uint64_t gpa, uint64_t len)
{
	for (unsigned i = 0; i < m->n; i++) {
		const struct guest_region *r = &m->r[i];

		if (range_in(gpa, len, r->gpa, r->size))
			return (char *)r->host + (gpa - r->gpa);
	}
	return NULL;
}

void *guest_mem_uva(const struct guest_mem *m, uint64_t uva, uint64_t len)
{
	for (unsigned i = 0; i < m->n; i++) {
		const struct guest_region *r = &m->r[i];

		if (range_in(uva, len, r->uva, r->size))
			return (char *)r->host + (uva - r->uva);
	}
	return NULL;
}

static const struct guest_region *region_of(const struct guest_mem *m, uint64_t gpa)
{
	for (unsigned i = 0; i < m->n; i++)
		if (gpa >= m->r[i].gpa && gpa - m->r[i].gpa < m->r[i].size)
			return &m->r[i];
	return NULL;
}

int guest_mem_iov(const struct guest_mem *m, uint64_t gpa, uint64_t len, struct iovec *iov,
		  unsigned max)
{
	unsigned n = 0;

	if (len > UINT64_MAX - gpa)
		return -EFAULT;
	while (len) {
		const struct guest_region *r = region_of(m, gpa);
		uint64_t off, piece;

		if (!r)
			return -EFAULT;
		if (n == max)
			return -E2BIG;
		off = gpa - r->gpa;
		piece = r->size - off < len ? r->size - off : len;
		iov[n].iov_base = (char *)r->host + off;
		iov[n].iov_len = (size_t)piece;
		n++;
		gpa += piece;
		len -= piece;
	}
	return (int)n;
}

void guest_mem_clear(struct guest_mem *m)
{
	for (unsigned i = 0; i < m->n; i++)
		if (m->r[i].map)
			munmap(m->r[i].map, m->r[i].map_len);
	m->n = 0;
}
