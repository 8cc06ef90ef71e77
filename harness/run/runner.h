/* Runs one scenario: boots its machine, carries out its steps in order
 * (each a row of {kind, run} with a deadline), watches the console for
 * kernel failures throughout, and fills a scenario_result plus the
 * artifacts directory. */
#ifndef KTB_RUNNER_H
#define KTB_RUNNER_H

#include <stdbool.h>

#include "image.h"
#include "kconfig.h"
#include "result.h"
#include "scenario.h"

struct vm_backend_ops;

/* --dump: when a scenario's guest memory is dumped (docs/debugging.md) */
enum run_dump {
	RUN_DUMP_NEVER,	     /* the zero value: tests' own run_opts take none */
	RUN_DUMP_ON_FAILURE, /* ktb run's default: the guest panicked or hung */
	RUN_DUMP_ALWAYS,     /* those, and at the end of every scenario */
};

struct run_opts {
	struct image *image; /* its direct bzImage is made on first use */
	/* the config of the kernel the image boots; NULL: not known (every
	 * scenario boots); else a scenario it lacks options for is skipped */
	const struct kconfig *kconfig;
	const char *append;	    /* --append: added to every scenario's kernel arguments */
	const char *artifacts_root; /* artifacts/<run_id>/<scenario>/ */
	const char *run_id;
	bool kvm;
	int sig_fd; /* proc_signals_install() */
	bool verbose;
	unsigned attempt;	   /* --repeat: 1..N (0: not repeated) */
	const char *libvirt_uri;   /* --backend libvirt: this worker's host; NULL: qemu */
	unsigned gdb_port;	   /* --gdb: QEMU's gdb server on 127.0.0.1:PORT; 0: none */
	bool gdb_wait;		   /* --gdb-wait: each VM's CPUs wait for the debugger */
	const char *debug_vmlinux; /* a vmlinux with DWARF the findings' frames are
				      decoded with (a --kernel tree's, or the image's
				      debug/vmlinux); NULL: none */
	const char *debug_modules; /* where the modules' .ko files with DWARF are (the
				      tree, or the image's debug/modules); NULL: none */
	int64_t keep_ms;	   /* --keep-on-fail: how long the first scenario that did
				      not pass keeps its VM; 0: not kept */
	enum run_dump dump;	   /* --dump */
	uint64_t dump_limit;	   /* --dump-limit in bytes; 0: none */
	const struct vm_backend_ops *backend; /* tests: their own back end; NULL: by libvirt_uri */
	void (*progress)(void *ctx, const char *what); /* may be NULL */
	void *progress_ctx;
};

/* Always fills r (status, steps, metrics, artifacts). Returns 0, -EINTR
 * when a signal asked ktb to stop, or -EHOSTDOWN when the libvirt host failed
 * (r says how far it got; the scenario may run again on another host). */
int runner_run_scenario(const struct scenario *s, const struct run_opts *o,
			struct scenario_result *r);

/* artifacts/<run>/<scenario>[-<attempt>]: where a scenario's files go. */
char *runner_artifacts_dir(const struct run_opts *o, const struct scenario *s);

/* A fresh run id: UTC date and time plus the pid, "20261203-031500-1234". */
char *runner_new_run_id(void);

#endif
