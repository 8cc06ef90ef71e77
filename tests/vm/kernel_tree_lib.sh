# Shared by t_kernel_tree*.sh: a kernel build tree made of the Debian
# kernel the default image boots, laid out as `make` leaves one (x86's
# bzImage, .config, include/config/kernel.release, modules.order,
# modules.builtin and the .ko files at their source paths), so that
# --kernel DIR can be tried without compiling a kernel.
. "$(dirname "$0")/lib.sh"

# debian_parts: build the default image; IMG (its cache folder), REL (its
# release) and MODS (its lib/modules/REL, unpacked from the initramfs: the
# recipe's modules with their dependencies, and Debian's modules.builtin).
debian_parts() {
	ktb_run image build
	expect_rc 0
	IMG=$(sed -n 's/^image: *//p' "$out")
	REL=$(sed -n 's/^release: *//p' "$out")
	[ -f "$IMG/config" ] || fail "the image keeps no kernel config ($IMG/config)"
	mkdir -p "$work/unpack"
	(cd "$work/unpack" && cpio -id --quiet 'lib/modules/*' <"$IMG/initrd.img") ||
		fail "cannot unpack the modules of $REL"
	MODS=$work/unpack/lib/modules/$REL
	[ -f "$MODS/modules.builtin" ] || fail "no modules.builtin in the image"
}

# fake_tree DIR with|without: a tree of the Debian kernel; "with" its
# modules (the .ko files the image holds, listed in modules.order), else an
# empty modules.order as a tree with every option =y leaves. Its .config is
# the Debian one; the caller may change it.
fake_tree() {
	local dir=$1 ko
	mkdir -p "$dir/arch/x86/boot" "$dir/include/config"
	cp "$IMG/bzImage" "$dir/arch/x86/boot/bzImage"
	cp "$IMG/config" "$dir/.config"
	echo "$REL" >"$dir/include/config/kernel.release"
	echo "# a kernel tree's top Makefile" >"$dir/Makefile"
	# a tree's lists name paths from its top, without "kernel/"
	sed 's|^kernel/||' "$MODS/modules.builtin" >"$dir/modules.builtin"
	cp "$MODS/modules.builtin.modinfo" "$dir/"
	: >"$dir/modules.order"
	[ "$2" = with ] || return 0
	(cd "$MODS/kernel" && find . -name '*.ko' | sed 's|^\./||' | sort) >"$dir/modules.order"
	[ -s "$dir/modules.order" ] || fail "the image holds no modules"
	while read -r ko; do
		mkdir -p "$dir/$(dirname "$ko")"
		cp "$MODS/kernel/$ko" "$dir/$ko"
	done <"$dir/modules.order"
}
