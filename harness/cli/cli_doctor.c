/* ktb doctor (what is installed, whether KVM really works) and ktb
 * --version. */
#include "cli_doctor.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_common.h"
#include "kvm.h"
#include "util.h"

#ifndef KTB_VERSION
#define KTB_VERSION "0"
#endif

const char *cli_version(void)
{
	return KTB_VERSION;
}

struct need {
	const char *what;
	const char *path; /* a file that shows it is there */
	const char *package;
};

static const struct need needs[] = {
	{ "QEMU (x86)", "/usr/bin/qemu-system-x86_64", "qemu-system-x86" },
	{ "qemu-img", "/usr/bin/qemu-img", "qemu-utils" },
	{ "SeaBIOS", "/usr/share/seabios/bios-256k.bin", "seabios" },
	{ "busybox (static)", "/bin/busybox", "busybox-static" },
	{ "apt-get download", "/usr/bin/apt-get", "apt" },
	{ "depmod/modprobe", "/sbin/depmod", "kmod" },
	{ "cpio", "/usr/bin/cpio", "cpio" },
	{ "xz", "/usr/bin/xz", "xz-utils" },
	{ "dmsetup (for the guest)", "/sbin/dmsetup", "dmsetup" },
	{ "glib (for qemu-ga)", "/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0", "libglib2.0-0" },
	{ "liburing (for qemu-ga)", "/usr/lib/x86_64-linux-gnu/liburing.so.2", "liburing2" },
	{ "libnuma (for qemu-ga)", "/usr/lib/x86_64-linux-gnu/libnuma.so.1", "libnuma1" },
};

static int doctor_packages(void)
{
	char missing[1024] = "";
	int n = 0;

	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
		bool ok = access(needs[i].path, F_OK) == 0;

		printf("  %-26s %s\n", needs[i].what, ok ? "ok" : "MISSING");
		if (!ok) {
			strncat(missing, " ", sizeof(missing) - strlen(missing) - 1);
			strncat(missing, needs[i].package, sizeof(missing) - strlen(missing) - 1);
			n++;
		}
	}
	if (n)
		printf("\nto install what is missing:\n  apt-get install -y%s\n", missing);
	return n;
}

static void doctor_kvm(bool probe)
{
	struct image img = { 0 };
	struct kernel_choice k = { 0 };
	enum kvm_verdict v = KVM_ABSENT;
	char why[512] = "";

	if (access("/dev/kvm", F_OK)) {
		printf("  %-26s %s\n", "KVM", "absent (no /dev/kvm): TCG");
		return;
	}
	if (image_prepare(&k, &img)) {
		printf("  %-26s %s\n", "KVM", "not probed: no guest image to probe with");
		return;
	}
	kvm_detect(img.vmlinux ? img.vmlinux : img.bzimage, img.initrd, probe, &v, why,
		   sizeof(why));
	printf("  %-26s %s (%s)%s\n", "KVM", kvm_verdict_name(v), why,
	       v == KVM_WORKS ? "" : ": scenarios run under TCG");
	image_free(&img);
}

int cli_doctor(int argc, char **argv)
{
	bool probe = argc > 1 && !strcmp(argv[1], "--probe");
	int missing;

	if (argc > 1 && !probe) {
		printf("usage: ktb doctor [--probe]   (--probe: test KVM again, ignoring the "
		       "cache)\n");
		return strcmp(argv[1], "--help") ? KTB_EXIT_USAGE : 0;
	}
	printf("ktb %s\n\nhost tools:\n", cli_version());
	missing = doctor_packages();
	printf("\nacceleration:\n");
	if (!missing)
		doctor_kvm(probe);
	else
		printf("  not probed until the tools above are installed\n");
	printf("\ncache: %s\nsources: %s\n", ktb_cache_dir(), ktb_source_dir());
	return missing ? KTB_EXIT_UNTESTED : 0;
}
