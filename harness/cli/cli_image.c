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
#include "image_debug.h"
#include "kvm.h"
#include "util.h"

static void image_usage(FILE *f)
{
	fprintf(f, "usage: ktb image build [RECIPE] [options]\n"
		   "Builds the guest image (kernel + initramfs) unless an identical one is cached\n"
		   "under $XDG_CACHE_HOME/ktb, and prints where it is. RECIPE: a name in images/\n"
		   "(default) or a path.\n"
		   "  --kernel K        Debian ABI (6.1.0-57), a path to a bzImage/vmlinux, or a\n"
		   "                    kernel build tree\n"
		   "  --modules DIR     modules for --kernel PATH (instead of a tree's)\n"
		   "  --debug           also fetch the Debian kernel's debug files (its -dbg\n"
		   "                    package: the vmlinux and the image's modules), for\n"
		   "                    findings in file:line\n"
		   "  --root debian     build the Debian root a guest can run on instead (cached\n"
		   "                    by its packages' versions), and print where it is\n"
		   "  --package P       a package in the Debian root (implies --root debian);\n"
		   "                    repeatable\n"
		   "  -v, --verbose     show the image builder's output\n");
}

static const struct option image_options[] = {
	{ "kernel", required_argument, 0, 'k' },
	{ "modules", required_argument, 0, 'm' },
	{ "debug", no_argument, 0, 'd' }, /* the kernel's debug files too */
	{ "root", required_argument, 0, 'R' },
	{ "package", required_argument, 0, 'P' },
	{ "verbose", no_argument, 0, 'v' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

/* --debug: the image's debug files, fetched unless they are there. A
 * user's own kernel has no debug package: a tree's vmlinux serves instead
 * (a note), a bare kernel file has nothing (a usage error). */
static int image_debug(const struct kernel_choice *k, struct image *img)
{
	char err[2048] = "", *pkg;
	int ret;

	if (img->debug_vmlinux)
		return 0;
	if (!img->kernel_deb && image_tree_is(k->kernel)) {
		cli_err("note: --debug: the kernel is the build tree %s, not a Debian package: "
			"there is no debug package to fetch; ktb run --kernel %s decodes findings "
			"with %s/vmlinux and the tree's modules (built with CONFIG_DEBUG_INFO)",
			k->kernel, k->kernel, k->kernel);
		return 0;
	}
	if (!img->kernel_deb) {
		cli_err("--debug: the kernel %s is your own, not a Debian package: there is no "
			"debug package to fetch; give ktb run --kernel the build tree it came "
			"from, whose vmlinux (CONFIG_DEBUG_INFO) decodes the findings",
			k->kernel);
		return KTB_EXIT_USAGE;
	}
	pkg = image_debug_package(img);
	cli_err("fetching the kernel's debug package %s and unpacking the vmlinux and the "
		"image's modules from it (a large download, then a minute or more)",
		pkg);
	free(pkg);
	ret = image_debug_ensure(img, k->verbose, err, sizeof(err));
	if (ret) {
		cli_err("--debug: %s", err);
		return KTB_EXIT_UNTESTED;
	}
	return 0;
}

/* ktb image build --root debian [--package P...]: the root, not the image. */
static int image_root(const char *root, char **packages, unsigned n)
{
	char *dir = NULL, *disk = NULL, why[1100];
	int ret;

	if (strcmp(root, GUEST_ROOT_DEBIAN)) {
		cli_err("--root %s: ktb image build makes the Debian root only (give --root "
			"debian); the host's root needs no build",
			root);
		return KTB_EXIT_USAGE;
	}
	ret = guest_root_prepare(root, packages, n, &dir, &disk, why, sizeof(why));
	if (ret)
		cli_err("%s", why);
	if (!ret)
		printf("root:     %s\ndisk:     %s\nmanifest: %.*s/manifest.json\n", dir, disk,
		       (int)(strrchr(dir, '/') - dir), dir);
	free(dir);
	free(disk);
	return ret;
}

static int cli_image(int argc, char **argv)
{
	struct kernel_choice k = { 0 };
	struct image img = { 0 };
	bool debug = false;
	const char *root = NULL;
	char **packages = NULL;
	unsigned npackages = 0;
	int ch, ret;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "vh", image_options, NULL)) != -1) {
		switch (ch) {
		case 'k':
			k.kernel = optarg;
			break;
		case 'm':
			k.modules = optarg;
			break;
		case 'd':
			debug = true;
			break;
		case 'v':
			k.verbose = true;
			break;
		case 'R':
			root = optarg;
			break;
		case 'P':
			packages = xrealloc(packages, (npackages + 1) * sizeof(*packages));
			packages[npackages++] = optarg;
			break;
		case 'h':
			image_usage(stdout);
			free(packages);
			return 0;
		default:
			cli_usage_hint();
			free(packages);
			return KTB_EXIT_USAGE;
		}
	}
	if (optind >= argc || strcmp(argv[optind], "build") || argc - optind > 2) {
		if (optind >= argc)
			fprintf(stderr, "ktb image: give what to do: ktb image build [RECIPE]\n");
		else if (strcmp(argv[optind], "build"))
			fprintf(stderr, "ktb image: unknown action '%s'; the one there is: build\n",
				argv[optind]);
		else
			fprintf(stderr, "ktb image: one RECIPE at a time, not '%s'\n",
				argv[optind + 2]);
		cli_usage_hint();
		free(packages);
		return KTB_EXIT_USAGE;
	}
	k.recipe = argc - optind == 2 ? argv[optind + 1] : NULL;
	if (root || npackages) {
		ret = image_root(root ? root : GUEST_ROOT_DEBIAN, packages, npackages);
		free(packages);
		return ret;
	}
	ret = image_prepare(&k, &img);
	if (!ret && debug)
		ret = image_debug(&k, &img);
	if (ret) {
		image_free(&img);
		return ret;
	}
	printf("image:   %s\nrelease: %s\nvmlinux: %s\nbzImage: %s\ninitrd:  %s\n", img.dir,
	       img.release, img.vmlinux ? img.vmlinux : "-", img.bzimage ? img.bzimage : "-",
	       img.initrd);
	/* once fetched, shown whether --debug was given or not */
	if (img.debug_vmlinux)
		printf("debug:   %s\nmodules: %s\n", img.debug_vmlinux, img.debug_modules);
	image_free(&img);
	return 0;
}

const struct cli_command cli_image_command = {
	.name = "image",
	.fn = cli_image,
	.summary = "build or refresh a guest image: ktb image build [RECIPE]",
	.usage = image_usage,
	.options = image_options,
	.shortopts = "vh",
};
