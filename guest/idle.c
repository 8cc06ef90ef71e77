#include "idle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sysfs.h"

int idle_parse(const char *stat, struct cpu_ticks *t)
{
	const char *p = strstr(stat, "cpu ");
	uint64_t v[10] = { 0 };
	char *end;

	/* the aggregate line comes first; "cpu0 " lines would not match "cpu " */
	if (!p || (p != stat && p[-1] != '\n'))
		return -EINVAL;
	p += 4;
	for (int i = 0; i < 10; i++) {
		v[i] = strtoull(p, &end, 10);
		if (end == p)
			break;
		p = end;
	}
	t->idle = v[3] + v[4];
	t->total = 0;
	/* guest and guest_nice are already counted in user and nice */
	for (int i = 0; i < 8; i++)
		t->total += v[i];
	return t->total ? 0 : -EINVAL;
}

double idle_pct(const struct cpu_ticks *a, const struct cpu_ticks *b)
{
	if (b->total <= a->total)
		return -1;
	return 100.0 * (double)(b->idle - a->idle) / (double)(b->total - a->total);
}

static int idle_sample(const char *root, struct cpu_ticks *t)
{
	char path[256], buf[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/proc/stat", root);
	ret = sysfs_read(path, buf, sizeof(buf));
	return ret < 0 ? ret : idle_parse(buf, t);
}

int facts_idle(const char *root, uint64_t interval_ms, struct json_out *j)
{
	struct cpu_ticks a, b;
	struct timespec ts = { (time_t)(interval_ms / 1000), (long)(interval_ms % 1000) * 1000000 };
	double pct;
	int ret = idle_sample(root, &a);

	if (ret)
		return ret;
	nanosleep(&ts, NULL);
	ret = idle_sample(root, &b);
	if (ret)
		return ret;
	pct = idle_pct(&a, &b);
	json_kv_u64(j, "interval_ms", interval_ms);
	/* no tick counted: nothing measured, null rather than a number that
	 * {idle_pct: {le: 10}} would take for a busy CPU */
	json_key(j, "idle_pct");
	if (pct < 0)
		json_null(j);
	else
		json_double(j, pct);
	json_key(j, "busy_pct");
	if (pct < 0)
		json_null(j);
	else
		json_double(j, 100 - pct);
	json_kv_u64(j, "ticks", b.total >= a.total ? b.total - a.total : 0);
	return pct < 0 ? -EAGAIN : 0;
}
