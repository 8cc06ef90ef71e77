/* HMAT: the latency/bandwidth entries and memory-side caches of a NUMA
 * machine, checked and turned into -numa hmat-lb / hmat-cache arguments. */
#include "hmat.h"

#include <stdio.h>
#include <string.h>

static bool numa_has_cpus(const struct numa *nu, unsigned n)
{
	return n < nu->nodes_count && nu->nodes[n].cpus_count;
}

static int hmat_check_lb(const struct numa *nu, unsigned k, struct hw_error *err)
{
	struct hmat_lb *lb = &nu->hmat[k];
	char f[64];
	int ret;

	snprintf(f, sizeof(f), "machine.numa.hmat[%u]", k);
	if (!numa_has_cpus(nu, lb->initiator))
		return hw_fail(err, f,
			       "initiator %u is not a node with cpus; an initiator "
			       "is a node whose cpus access memory",
			       lb->initiator);
	if (lb->target >= nu->nodes_count)
		return hw_fail(err, f, "target %u is not a node (0..%u)", lb->target,
			       nu->nodes_count - 1);
	if (!lb->latency && !lb->bandwidth)
		return hw_fail(err, f,
			       "give latency (ns), bandwidth (per second, e.g. 4G) "
			       "or both");
	for (unsigned j = 0; j < k; j++)
		if (nu->hmat[j].initiator == lb->initiator && nu->hmat[j].target == lb->target)
			return hw_fail(err, f,
				       "initiator %u -> target %u is already given "
				       "in hmat[%u]",
				       lb->initiator, lb->target, j);
	snprintf(f, sizeof(f), "machine.numa.hmat[%u].bandwidth", k);
	if (lb->bandwidth) {
		ret = hw_size_field(lb->bandwidth, &lb->bandwidth_bytes, f, err);
		if (ret < 0)
			return ret;
		if (lb->bandwidth_bytes < HW_MIB)
			return hw_fail(err, f,
				       "%s per second is below 1M; the guest counts "
				       "bandwidth in MB/s",
				       lb->bandwidth);
	}
	return 0;
}

static int word_ok(const char *w, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(w, *words))
			return 1;
	return 0;
}

static int hmat_check_cache_kind(struct hmat_cache *hc, const char *f, struct hw_error *err)
{
	static const char *const assoc[] = { HMAT_ASSOC_TABLE(HW_NAMES_STR) NULL };
	static const char *const policy[] = { HMAT_POLICY_TABLE(HW_NAMES_STR) NULL };

	if (hc->associativity && !word_ok(hc->associativity, assoc))
		return hw_fail(err, f, "associativity \"%s\" is not one of %s", hc->associativity,
			       HW_NAMES_LIST(HMAT_ASSOC_TABLE));
	if (hc->policy && !word_ok(hc->policy, policy))
		return hw_fail(err, f, "policy \"%s\" is not one of %s", hc->policy,
			       HW_NAMES_LIST(HMAT_POLICY_TABLE));
	if (hc->line && (hc->line & (hc->line - 1)))
		return hw_fail(err, f, "line %u is not a power of two", hc->line);
	return 0;
}

static bool hmat_has_cache(const struct numa *nu, unsigned k, unsigned node, unsigned level)
{
	for (unsigned j = 0; j < k; j++)
		if (nu->caches[j].node == node && nu->caches[j].level == level)
			return true;
	return false;
}

static int hmat_check_cache(const struct numa *nu, unsigned k, struct hw_error *err)
{
	struct hmat_cache *hc = &nu->caches[k];
	char f[64], fs[80];
	int ret;

	snprintf(f, sizeof(f), "machine.numa.caches[%u]", k);
	if (!hc->level)
		hc->level = 1;
	if (!hc->line)
		hc->line = 64;
	if (hc->node >= nu->nodes_count)
		return hw_fail(err, f, "node %u is not a node (0..%u)", hc->node,
			       nu->nodes_count - 1);
	if (hc->level > 3)
		return hw_fail(err, f, "level %u; memory-side caches have levels 1 to 3",
			       hc->level);
	if (hmat_has_cache(nu, k, hc->node, hc->level))
		return hw_fail(err, f, "node %u has a level %u cache already", hc->node, hc->level);
	if (hc->level > 1 && !hmat_has_cache(nu, k, hc->node, hc->level - 1))
		return hw_fail(err, f, "a level %u cache needs level %u on node %u first",
			       hc->level, hc->level - 1, hc->node);
	snprintf(fs, sizeof(fs), "%s.size", f);
	ret = hw_size_field(hc->size, &hc->size_bytes, fs, err);
	if (ret < 0)
		return ret;
	return hmat_check_cache_kind(hc, f, err);
}

int hmat_validate(const struct numa *nu, struct hw_error *err)
{
	int ret;

	if (nu->caches_count && !nu->hmat_count)
		return hw_fail(err, "machine.numa.caches",
			       "memory-side caches live in the "
			       "HMAT: give machine.numa.hmat latency/bandwidth entries too");
	for (unsigned k = 0; k < nu->hmat_count; k++) {
		ret = hmat_check_lb(nu, k, err);
		if (ret < 0)
			return ret;
	}
	for (unsigned k = 0; k < nu->caches_count; k++) {
		ret = hmat_check_cache(nu, k, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

const char *machine_type_arg(const struct machine *m)
{
	return m->numa && m->numa->hmat_count ? "q35,hmat=on" : "q35";
}

static int hmat_lb_to_args(const struct hmat_lb *lb, struct argv *a)
{
	if (lb->latency) {
		argv_add(a, "-numa");
		argv_addf(a,
			  "hmat-lb,initiator=%u,target=%u,hierarchy=memory,"
			  "data-type=access-latency,latency=%u",
			  lb->initiator, lb->target, lb->latency);
	}
	if (lb->bandwidth) {
		argv_add(a, "-numa");
		argv_addf(a,
			  "hmat-lb,initiator=%u,target=%u,hierarchy=memory,"
			  "data-type=access-bandwidth,bandwidth=%lluM",
			  lb->initiator, lb->target,
			  (unsigned long long)(lb->bandwidth_bytes / HW_MIB));
	}
	return a->err;
}

int hmat_to_args(const struct numa *nu, struct argv *a)
{
	int ret = 0;

	for (unsigned k = 0; k < nu->hmat_count && !ret; k++)
		ret = hmat_lb_to_args(&nu->hmat[k], a);
	for (unsigned k = 0; k < nu->caches_count && !ret; k++) {
		const struct hmat_cache *hc = &nu->caches[k];

		argv_add(a, "-numa");
		ret = argv_addf(a,
				"hmat-cache,node-id=%u,size=%llu,level=%u,associativity=%s,"
				"policy=%s,line=%u",
				hc->node, (unsigned long long)hc->size_bytes, hc->level,
				hc->associativity ? hc->associativity : "direct",
				hc->policy ? hc->policy : "write-back", hc->line);
	}
	return ret;
}
