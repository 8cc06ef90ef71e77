/* Everything the harness derives from a scenario file, as text, for the
 * before/after comparison of a refactor that must change no behaviour
 * (docs/contributing.md, "Moving code"): for each file given, its load
 * errors (all of them), or its QEMU arguments, libvirt domain XML and
 * refusal, hybrid back ends' arguments, the expected machine facts, the
 * derived kernel requirements and the kernel command line. Fixed paths
 * stand in for the run's (/w, /k, /i): nothing is created or started.
 *
 *   house_dump FILE...   (one section per file, on stdout) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expected.h"
#include "hybrid_disk.h"
#include "kreq.h"
#include "libvirt_xml.h"
#include "machine.h"
#include "scenario.h"
#include "scenario_error.h"
#include "vm_cmdline.h"

static const struct hw_launch launch = {
	.kernel = "/k/vmlinux",
	.initrd = "/k/initrd.img",
	.append = "console=ttyS0",
	.qmp_path = "/w/qmp.sock",
	.qga_path = "/w/qga.sock",
	.disk_dir = "/w",
};

static void dump_errors(const struct scenario_error *e)
{
	char msg[2048];
	unsigned n = e->count ? e->count : 1;

	for (unsigned i = 0; i < n; i++) {
		scenario_error_format_nth(e, i, msg, sizeof(msg));
		printf("error: %s\n", msg);
	}
}

static void dump_machine(const struct scenario *s)
{
	const struct hw_domain dom = { .name = "ktb-house" };
	const struct machine *m = s->machine;
	struct machine_facts facts = { 0 };
	struct hw_error err = { { 0 }, { 0 } };
	struct argv a;
	char *xml = NULL, *line;

	if (!machine_to_argv(m, &launch, &a, &err))
		for (size_t i = 0; a.v[i]; i++)
			printf("argv: %s\n", a.v[i]);
	else
		printf("argv refused: %s: %s\n", err.field, err.msg);
	argv_free(&a);
	memset(&err, 0, sizeof(err));
	if (machine_libvirt_check(m, &err))
		printf("libvirt refused: %s: %s\n", err.field, err.msg);
	else if (!machine_to_domain_xml(m, &launch, &dom, &xml, &err))
		printf("xml:\n%s", xml);
	else
		printf("xml refused: %s: %s\n", err.field, err.msg);
	free(xml);
	for (unsigned i = 0; i < m->disks_count; i++) {
		if (hybrid_backend_argv(&m->disks[i], &launch, "ktb-hybrid", &a) < 0)
			continue;
		for (size_t k = 0; a.v[k]; k++)
			printf("hybrid %s: %s\n", m->disks[i].id, a.v[k]);
		argv_free(&a);
	}
	if (!machine_expected_facts(m, &facts))
		for (size_t i = 0; i < facts.n; i++)
			printf("fact: %s | %s | %s | %lld..%lld%s\n", facts.v[i].what,
			       facts.v[i].path, facts.v[i].want, (long long)facts.v[i].min,
			       (long long)facts.v[i].max, facts.v[i].presence ? " presence" : "");
	machine_facts_free(&facts);
	line = vm_kernel_cmdline(m, s->kernel ? s->kernel->cmdline : NULL, NULL);
	printf("cmdline: %s\n", line);
	free(line);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct scenario_error e;
		struct scenario *s = NULL;
		struct kreq_list l = { 0 };

		printf("== %s\n", argv[i]);
		memset(&e, 0, sizeof(e));
		if (scenario_load(argv[i], &s, &e)) {
			dump_errors(&e);
			continue;
		}
		if (s->machine)
			dump_machine(s);
		if (!kreq_for_scenario(s, &l))
			for (size_t k = 0; k < l.n; k++)
				printf("kreq: %s %s | %s\n", l.v[k].option,
				       l.v[k].module ? l.v[k].module : "=y", l.v[k].why);
		kreq_list_free(&l);
		scenario_free(s);
	}
	return 0;
}
