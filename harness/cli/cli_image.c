/* ktb image build. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_image.h"
#include "cli.h"
#include "cli_common.h"
#include "kvm.h"
#include "util.h"

static void image_usage(FILE *f)
{
	fprintf(f, "usage: ktb image build [RECIPE] [--kernel ABI|PATH|DIR] [--modules DIR] [-v]\n"
		   "Builds the guest image (kernel + initramfs) unless an identical one is cached\n"
		   "under $XDG_CACHE_HOME/ktb, and prints where it is.\n");
}

int cli_image(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, 0, 'k' },
		{ "modules", required_argument, 0, 'm' },
		{ "verbose", no_argument, 0, 'v' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct kernel_choice k = { 0 };
	struct image img = { 0 };
	int ch, ret;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			k.kernel = optarg;
			break;
		case 'm':
			k.modules = optarg;
			break;
		case 'v':
			k.verbose = true;
			break;
		case 'h':
			image_usage(stdout);
			return 0;
		default:
			image_usage(stderr);
			return KTB_EXIT_USAGE;
		}
	}
	if (optind >= argc || strcmp(argv[optind], "build") || argc - optind > 2) {
		image_usage(stderr);
		return KTB_EXIT_USAGE;
	}
	k.recipe = argc - optind == 2 ? argv[optind + 1] : NULL;
	ret = image_prepare(&k, &img);
	if (ret)
		return ret;
	printf("image:   %s\nrelease: %s\nvmlinux: %s\nbzImage: %s\ninitrd:  %s\n", img.dir,
	       img.release, img.vmlinux ? img.vmlinux : "-", img.bzimage ? img.bzimage : "-",
	       img.initrd);
	image_free(&img);
	return 0;
}
