# label: vm
# A machine that offers S3 boots the image's direct bzImage (docs/guest.md,
# "How the kernel starts"): `ktb boot -v` names bzImage.direct, made beside
# the image's bzImage; the guest's kernel was entered through its PVH entry
# (boot_params' protocol version is 2.12, what the PVH entry writes, where
# the bzImage's setup passes its own, 2.15 in 6.1) at its link address (no
# KASLR: only the decompressor randomises). KTB_DIRECT_BOOT=0 boots the
# bzImage itself: the setup's version and a randomised base. (The library's
# S3 scenarios suspend and wake on the direct bzImage.)
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2016 # the guest's shell reads them
probe='od -An -tx1 -j 518 -N 2 /sys/kernel/boot_params/data; grep " _text$" /proc/kallsyms'

ktb_run boot --sleep s3 -v --exec "$probe"
expect_rc 0
expect_out 'booting [^ ]+ \(bzImage\.direct, '
expect_out '^ 0c 02$'
expect_out '^ffffffff81000000 T _text$'
ktb_run image build
expect_rc 0
dir=$(dirname "$(awk '/^initrd:/ {print $2}' "$out")")
[ -s "$dir/bzImage.direct" ] || fail "no bzImage.direct beside the image's bzImage in $dir"

export KTB_DIRECT_BOOT=0
ktb_run boot --sleep s3 -v --exec "$probe"
expect_rc 0
expect_out 'booting [^ ]+ \(bzImage, '
expect_out '^ 0f 02$'
grep -q '^ffffffff81000000 T _text$' "$out" && fail "the bzImage's kernel runs at its link address: not randomised, as a decompressed one is"
unset KTB_DIRECT_BOOT

# a machine without S3 boots the vmlinux, as before
ktb_run boot -v --exec true
expect_rc 0
expect_out 'booting [^ ]+ \(vmlinux, '
exit 0
