#include "numa.h"

#include "hmat.h"
#include "hybrid_disk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ACPI SLIT: 10 is a node's distance to itself, 255 means unreachable. */
#define NUMA_LOCAL 10
#define NUMA_DIST_MAX 255
#define NUMA_MAX_CPUS 64

static int numa_check_node_cpus(const struct machine *m, unsigned n, int *owner,
				struct hw_error *err)
{
	const struct numa_node *node = &m->numa->nodes[n];
	char f[64];

	for (unsigned k = 0; k < node->cpus_count; k++) {
		unsigned cpu = node->cpus[k];

		snprintf(f, sizeof(f), "machine.numa.nodes[%u].cpus[%u]", n, k);
		if (cpu >= m->cpus)
			return hw_fail(err, f,
				       "cpu %u does not exist: the machine has %u cpu%s "
				       "(0..%u); raise machine.cpus or drop it",
				       cpu, m->cpus, m->cpus == 1 ? "" : "s", m->cpus - 1);
		if (owner[cpu] >= 0)
			return hw_fail(err, f,
				       "cpu %u is already in node %d; put each cpu in "
				       "exactly one node",
				       cpu, owner[cpu]);
		owner[cpu] = (int)n;
	}
	return 0;
}

static int numa_check_cpus(const struct machine *m, struct hw_error *err)
{
	int owner[NUMA_MAX_CPUS];
	int ret;

	for (unsigned c = 0; c < NUMA_MAX_CPUS; c++)
		owner[c] = -1;
	for (unsigned n = 0; n < m->numa->nodes_count; n++) {
		ret = numa_check_node_cpus(m, n, owner, err);
		if (ret < 0)
			return ret;
	}
	for (unsigned c = 0; c < m->cpus; c++) {
		if (owner[c] < 0)
			return hw_fail(err, "machine.numa.nodes",
				       "cpu %u is in no node; list "
				       "every cpu 0..%u in exactly one node",
				       c, m->cpus - 1);
	}
	return 0;
}

static int numa_check_memory(const struct machine *m, struct hw_error *err)
{
	uint64_t sum = 0;
	char f[64], a[32], b[32];
	int ret;

	for (unsigned n = 0; n < m->numa->nodes_count; n++) {
		struct numa_node *node = &m->numa->nodes[n];

		snprintf(f, sizeof(f), "machine.numa.nodes[%u].memory", n);
		ret = hw_size_field(node->memory, &node->memory_bytes, f, err);
		if (ret < 0)
			return ret;
		if (node->memory_bytes % HW_MIB)
			return hw_fail(err, f, "%s is not a whole number of megabytes",
				       node->memory);
		sum += node->memory_bytes;
	}
	if (sum != m->memory_bytes)
		return hw_fail(err, "machine.numa.nodes",
			       "node memories add up to %s but "
			       "machine.memory is %s; make them equal",
			       hw_size_str(sum, a, sizeof(a)),
			       hw_size_str(m->memory_bytes, b, sizeof(b)));
	return 0;
}

static int numa_check_cell(const struct numa *nu, unsigned i, unsigned j, struct hw_error *err)
{
	unsigned v = nu->distances[i * nu->nodes_count + j];
	unsigned t = nu->distances[j * nu->nodes_count + i];
	char f[64];

	snprintf(f, sizeof(f), "machine.numa.distances[%u][%u]", i, j);
	if (i == j && v != NUMA_LOCAL)
		return hw_fail(err, f, "%u on the diagonal; a node's distance to itself is %d", v,
			       NUMA_LOCAL);
	if (i != j && (v <= NUMA_LOCAL || v > NUMA_DIST_MAX))
		return hw_fail(err, f,
			       "%u is out of range; a distance between two nodes is "
			       "%d..%d",
			       v, NUMA_LOCAL + 1, NUMA_DIST_MAX);
	if (v != t)
		return hw_fail(err, f,
			       "%u but distances[%u][%u] is %u; distances must be "
			       "symmetric",
			       v, j, i, t);
	return 0;
}

static int numa_check_distances(const struct numa *nu, struct hw_error *err)
{
	unsigned n = nu->nodes_count;
	int ret;

	if (!nu->distances)
		return 0;
	if (nu->distances_count != n * n)
		return hw_fail(err, "machine.numa.distances",
			       "%u values for %u nodes; give a "
			       "%u x %u matrix, one row per node",
			       nu->distances_count, n, n, n);
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; j < n; j++) {
			ret = numa_check_cell(nu, i, j, err);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* The guest numbers nodes in the order SRAT names them, CPU entries first:
 * a memory-only node before a node with CPUs would change numbers. */
static int numa_check_order(const struct numa *nu, struct hw_error *err)
{
	char f[64];

	for (unsigned n = 1; n < nu->nodes_count; n++) {
		if (nu->nodes[n].cpus_count && !nu->nodes[n - 1].cpus_count) {
			snprintf(f, sizeof(f), "machine.numa.nodes[%u]", n - 1);
			return hw_fail(err, f,
				       "a memory-only node before a node with cpus; "
				       "the guest numbers nodes with cpus first, so list "
				       "memory-only nodes last");
		}
	}
	return 0;
}

int numa_validate(struct machine *m, struct hw_error *err)
{
	const struct numa *nu = m->numa;
	int ret;

	if (!nu)
		return 0;
	if (!nu->nodes_count || nu->nodes_count > MACHINE_MAX_NODES)
		return hw_fail(err, "machine.numa.nodes", "%u nodes; give 1 to %d", nu->nodes_count,
			       MACHINE_MAX_NODES);
	ret = numa_check_cpus(m, err);
	if (!ret)
		ret = numa_check_memory(m, err);
	if (!ret)
		ret = numa_check_distances(nu, err);
	if (!ret)
		ret = numa_check_order(nu, err);
	if (!ret)
		ret = hmat_validate(nu, err);
	return ret;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* With HMAT every node names its initiator: itself when it has CPUs, else
 * the first node with CPUs. */
static unsigned numa_initiator(const struct numa *nu, unsigned n)
{
	for (unsigned i = 0; !nu->nodes[n].cpus_count && i < nu->nodes_count; i++)
		if (nu->nodes[i].cpus_count)
			return i;
	return n;
}

/* "nodeid=N,cpus=0-1,cpus=4,memdev=mN": one cpus= per contiguous run. */
static char *numa_node_opt(const struct numa *nu, unsigned n)
{
	const struct numa_node *node = &nu->nodes[n];
	unsigned cpus[NUMA_MAX_CPUS];
	char buf[1024];
	size_t len;

	if (node->cpus_count > NUMA_MAX_CPUS)
		return NULL;
	len = (size_t)snprintf(buf, sizeof(buf), "node,nodeid=%u", n);
	if (node->cpus_count)
		memcpy(cpus, node->cpus, node->cpus_count * sizeof(*cpus));
	qsort(cpus, node->cpus_count, sizeof(*cpus), cmp_unsigned);
	for (unsigned k = 0; k < node->cpus_count; k++) {
		unsigned first = cpus[k];

		while (k + 1 < node->cpus_count && cpus[k + 1] == cpus[k] + 1)
			k++;
		if (cpus[k] == first)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, ",cpus=%u", first);
		else
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, ",cpus=%u-%u", first,
						cpus[k]);
	}
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, ",memdev=m%u", n);
	if (nu->hmat_count)
		snprintf(buf + len, sizeof(buf) - len, ",initiator=%u", numa_initiator(nu, n));
	return strdup(buf);
}

static int numa_node_to_args(const struct numa *nu, unsigned n, bool shared, struct argv *a)
{
	const struct numa_node *node = &nu->nodes[n];
	char *opt = numa_node_opt(nu, n);

	if (!opt)
		return -ENOMEM;
	argv_add(a, "-object");
	argv_addf(a, "%s,size=%llu,id=m%u",
		  shared ? "memory-backend-memfd,share=on" : "memory-backend-ram",
		  (unsigned long long)node->memory_bytes, n);
	argv_add(a, "-numa");
	argv_take(a, opt);
	return a->err;
}

int numa_to_args(const struct machine *m, struct argv *a)
{
	const struct numa *nu = m->numa;
	unsigned n;
	int ret;

	if (!nu)
		return 0;
	n = nu->nodes_count;
	for (unsigned i = 0; i < n; i++) {
		/* a vhost-user back end maps guest RAM: it must be shareable */
		ret = numa_node_to_args(nu, i, machine_shared_ram(m), a);
		if (ret < 0)
			return ret;
	}
	for (unsigned i = 0; nu->distances && i < n; i++) {
		for (unsigned j = 0; j < n; j++) {
			if (i == j)
				continue;
			argv_add(a, "-numa");
			ret = argv_addf(a, "dist,src=%u,dst=%u,val=%u", i, j,
					nu->distances[i * n + j]);
			if (ret < 0)
				return ret;
		}
	}
	return hmat_to_args(nu, a);
}
