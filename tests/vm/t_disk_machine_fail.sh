# label: vm
# The machine step's disk facts fail, naming what was declared and what the
# guest sees, when the guest's disks differ from the declaration where no
# kernel argument reaches: a wrapper named like QEMU, first in PATH, changes
# one thing on QEMU's command line and starts the real QEMU. The guest's own
# dm-multipath devices follow the kernel command line's ktb.mp= (guest/init.c,
# the first one counts, so ktb run --append cannot change it): the wrapper
# edits it there.
. "$(dirname "$0")/lib.sh"
S=$KTB_SRC/scenarios
real_qemu=$(command -v qemu-system-x86_64) || fail "qemu-system-x86_64 not found"

# wrapper NAME: a QEMU wrapper in $work/NAME whose loop body (stdin) edits
# each argument $a (prev: the argument before it) or drops it (continue)
wrapper() {
	mkdir -p "$work/$1"
	{
		printf '#!/bin/bash\nargs=()\nprev=\nfor a in "$@"; do\n'
		cat
		# shellcheck disable=SC2016 # the wrapper's own expansions
		printf '\targs+=("$a")\n\tprev=$a\ndone\nexec "%s" "${args[@]}"\n' "$real_qemu"
	} >"$work/$1/qemu-system-x86_64"
	chmod +x "$work/$1/qemu-system-x86_64"
}

# cut_fails WRAPPER SCENARIO PATTERN: the library scenario run through the
# wrapper fails its machine step with PATTERN
cut_fails() {
	PATH=$work/$1:$PATH ktb_run run --artifacts "$(artifacts)" "$S/$2.yaml"
	[ "$rc" -eq 1 ] || fail "$2 through the $1 wrapper: expected exit 1, got $rc"
	expect_out "$3"
}

# the guest builds a request-based dm device that fails I/O with no path
# left where a bio-based one that queues it is declared
wrapper mode <<'W'
	a=${a//ktb.mp=data:bio:2:queue/ktb.mp=data:rq:2:fail}
W
cut_fails mode mp-dm-bio-failover \
	'step machine .*disk data multipath mode: declared "bio", the guest sees "rq"; disk data multipath no_path: declared "queue", the guest sees "fail"'

# the guest joins a single-path SCSI disk into a dm-multipath device (init
# waits its 10 s for a second path, then builds it over the one there is)
wrapper onepath <<'W'
	[ "$prev" = -append ] && a="$a ktb.mp=data:rq:2:queue"
W
cut_fails onepath disk-4kn-scsi \
	'step machine .*disk data multipath device \(one path: none\): declared null, the guest sees \{'

# the second controller of a two-path NVMe namespace left out: the guest's
# head has one path, live
wrapper onectrl <<'W'
	case $a in
	nvme,*,id=d0c1,*)
		unset 'args[${#args[@]}-1]'
		continue ;;
	esac
W
cut_fails onectrl mp-nvme-failover \
	'step machine .*disk data paths: declared 2, the guest sees 1; disk data paths live: declared 2, the guest sees 1'

# an NVMe disk moved to virtio-blk, same serial and geometry; the guest
# loads only the declared machine's drivers (ktb.nomod=), so the wrapper
# lets virtio_blk load too, as a guest with every driver would: the disk
# is there, on the wrong bus (without it the guest has no such disk at all)
wrapper nvme2virtio <<'W'
	[ "$prev" = -append ] && a=${a/ktb.nomod=virtio_blk,/ktb.nomod=}
	case $a in
	nvme,serial=*)
		serial=${a#nvme,serial=}; serial=${serial%%,*}
		unset 'args[${#args[@]}-1]'
		continue ;;
	nvme-ns,*)
		a=virtio-blk-pci,serial=$serial,${a#nvme-ns,bus=*,}
		a=${a/,nsid=1/} ;;
	esac
W
cut_fails nvme2virtio disk-4kn-nvme \
	'step machine .*disk data bus: declared "nvme", the guest sees "virtio"'
exit 0
