# label: vm
# jobs: 2
# The share checks fail, naming what they saw, when what they guard is
# broken. The machine step: a QEMU wrapper first in PATH rewrites the
# guest's share list on the kernel command line (ktb.shares) so that the
# guest mounts share-virtiofs's virtiofs share over 9p (a 9p export with
# its tag added) and its read-only share read-write: the transport and
# read-only facts name what the guest shows. The steps of share-9p and
# share-virtiofs, each under one change to the scenario file (scenario,
# sed expression, what the failure must say): a share of another folder,
# a read-only share declared writable, a writable one read-only, the
# virtiofs share declared 9p, the share remounted read-only in the guest.
# The mutants are made in the work folder, where a share's host path is
# taken relative to them: the scenarios and their folders are copied there.
# share-virtiofs needs a virtiofsd that can serve here, as t_machine_fail's
# share-virtiofs case does: where none can (a chroot), its cases are left
# out, named (virtiofs_here), and share-9p's run.
. "$(dirname "$0")/lib.sh"
S=$KTB_SRC/scenarios
T=$'\t'
real_qemu=$(command -v qemu-system-x86_64) || fail "qemu-system-x86_64 not found"

mkdir -p "$work/bin" "$work/ninep"
# (only the machine's QEMU, the one given ktb.shares, gets the 9p export)
cat >"$work/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
args=()
for a in "\$@"; do
	case \$a in
	*ktb.shares=*)
		a=\${a//ktb0:\/mnt\/rw:rw:virtiofs/ktb0:\/mnt\/rw:rw}
		a=\${a//ktb1:\/mnt\/scenarios:ro/ktb1:\/mnt\/scenarios:rw}
		extra=(-fsdev "local,id=fsdevx,path=$work/ninep,security_model=none"
			-device virtio-9p-pci,fsdev=fsdevx,mount_tag=ktb0) ;;
	esac
	args+=("\$a")
done
exec "$real_qemu" "\${args[@]}" "\${extra[@]}"
EOF
chmod +x "$work/bin/qemu-system-x86_64"
vfs=
virtiofs_here && vfs=1
if [ -n "$vfs" ]; then
	PATH=$work/bin:$PATH ktb_run run --artifacts "$(artifacts)" "$S/share-virtiofs.yaml"
	expect_rc 1
	expect_out 'step machine .*share ktb0 transport \(its fstype in /proc/mounts\): declared "virtiofs", the guest sees "9p"; share ktb1 read-only: declared true, the guest sees false'
fi

# share-9p: 1 reads this scenario file from the read-only share, 2 a write
# there fails, 3 the read-write share takes a file. share-virtiofs: 1 the
# mounts' types, 2 to 4 as share-9p's 1 to 3.
cp -r "$S/share-9p.yaml" "$S/share-9p.d" "$S/share-virtiofs.yaml" "$S/share-virtiofs.d" "$work/"
RO='{host: \., guest: /mnt/scenarios}'
mutations <<EOF_TABLE
share-9p${T}s|${RO}|{host: share-9p.d, guest: /mnt/scenarios}|${T}step 1 .*stdout did not match
share-9p${T}s|${RO}|{host: ., guest: /mnt/scenarios, readonly: false, transport: 9p}|${T}step 2 .*exit: expected 1, got 0; stdout did not match
share-9p${T}s|readonly: false, transport: 9p|transport: 9p|${T}step 3 .*stdout did not match
EOF_TABLE
[ -n "$vfs" ] || exit 0
mutations <<EOF_TABLE
share-virtiofs${T}s/transport: virtiofs/transport: 9p/${T}step 1 .*stdout did not match
share-virtiofs${T}s|${RO}|{host: share-virtiofs.d, guest: /mnt/scenarios}|${T}step 2 .*stdout did not match
share-virtiofs${T}s|${RO}|{host: ., guest: /mnt/scenarios, readonly: false, transport: 9p}|${T}step 3 .*exit: expected 1, got 0; stdout did not match
share-virtiofs${T}s|^  - name: a read-write share takes a file|  - run: mount -o remount,ro /mnt/rw\n&|${T}step 5 .*stdout did not match
EOF_TABLE
exit 0
