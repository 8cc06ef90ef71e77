# label: vm
# jobs: 2
# Each fail_path and restore_path step of the multipath scenarios fails, and
# says why, when the path does not do what the step expects of it (scenario,
# sed expression, what the failure must say; the step kinds' own checks are
# in harness/steps/step_storage_mp.c).
# fail_path: the path was already taken down in the guest (its SCSI device
# set offline, as a dead link would leave it) before the step: the step must
# refuse to act on a path that is not active, since "gone" after it could
# then not be its effect. restore_path: something in the guest keeps the
# path down (its SCSI device set offline again right after dm reinstates it,
# as a link that stays dead would): the step must never see it back and
# active, and say so when its 8 s are up. An NVMe path's controller is
# plugged back by QEMU; with the guest's hot-plug interrupt off it never
# sees it come back. The steps' other refusals (no multipath device, a path
# already gone) are in t_mp_checks_fail.sh.
. "$(dirname "$0")/lib.sh"
T=$'\t'

# the block device of path N of the disk: its SCSI target id is N
# shellcheck disable=SC2016 # the guest's shell expands these, in the steps
sd0='$(ls /sys/bus/scsi/devices/*:0:0:0/block)'
# shellcheck disable=SC2016 # the same
sd1='$(ls /sys/bus/scsi/devices/*:0:1:0/block)'
# a run step that takes path N down in the guest
down0="  - run: echo offline > /sys/block/$sd0/device/state"
down1="  - run: echo offline > /sys/block/$sd1/device/state"
# a run step that keeps path N down from now on: a dmsetup ahead of the
# real one in PATH (/usr/bin before /usr/sbin) that sets the path's SCSI
# device offline again after every call, so after restore_path's
# reinstate_path too, before any probe can see it running. (A loop that
# set it offline whenever it read otherwise raced the probes: at the
# lowest priority, beside the writer, it once lost, and the restore passed.)
# The `#` is escaped for mutate's sed, whose delimiter it is.
keep0="  - run: s=$sd0; echo '\\#!/bin/sh' > /usr/bin/dmsetup; echo '/usr/sbin/dmsetup \"\$@\"; r=\$?; echo offline > /sys/block/'\$s'/device/state; exit \$r' >> /usr/bin/dmsetup; chmod +x /usr/bin/dmsetup"
keep1="  - run: s=$sd1; echo '\\#!/bin/sh' > /usr/bin/dmsetup; echo '/usr/sbin/dmsetup \"\$@\"; r=\$?; echo offline > /sys/block/'\$s'/device/state; exit \$r' >> /usr/bin/dmsetup; chmod +x /usr/bin/dmsetup"
# the restore_path step given 8 s (its probes stop 2 s before)
r8='\n    timeout: 8s'

for s in mp-dm-bio-failover mp-dm-rq-failover; do
	mutations <<EOF_TABLE
$s${T}s#^  - fail_path: {disk: data, path: 0}\$#${down0}\n&#${T}step 5 .*before fail_path of path 0: the guest shows it not active
$s${T}s#^  - restore_path: {disk: data, path: 0}\$#${keep0}\n&${r8}#${T}step 7 .*the guest never showed path 0 of data back and active
$s${T}s#^  - fail_path: {disk: data, path: 1}\$#${down1}\n&#${T}step 8 .*before fail_path of path 1: the guest shows it not active
$s${T}s#^  - restore_path: {disk: data, path: 1}\$#${keep1}\n&${r8}#${T}step 10 .*the guest never showed path 1 of data back and active
EOF_TABLE
done

mutations <<EOF_TABLE
mp-all-paths-down${T}s#^  - fail_path: {disk: data, path: 0}\$#${down0}\n&#${T}step 5 .*before fail_path of path 0: the guest shows it not active
mp-all-paths-down${T}s#^  - fail_path: {disk: data, path: 1}\$#${down1}\n&#${T}step 6 .*before fail_path of path 1: the guest shows it not active
mp-all-paths-down${T}s#^  - restore_path: {disk: data, path: 1}\$#${keep1}\n&${r8}#${T}step 8 .*the guest never showed path 1 of data back and active
mp-all-paths-down${T}s#^  - restore_path: {disk: data, path: 0}\$#${keep0}\n&${r8}#${T}step 9 .*the guest never showed path 0 of data back and active
mp-all-paths-down-fail${T}s#^  - fail_path: {disk: data, path: 0}\$#${down0}\n&#${T}step 5 .*before fail_path of path 0: the guest shows it not active
mp-all-paths-down-fail${T}s#^  - fail_path: {disk: data, path: 1}\$#${down1}\n&#${T}step 6 .*before fail_path of path 1: the guest shows it not active
mp-all-paths-down-fail${T}s#^  - restore_path: {disk: data, path: 0}\$#${keep0}\n&${r8}#${T}step 8 .*the guest never showed path 0 of data back and active
mp-all-paths-down-fail${T}s#^  - restore_path: {disk: data, path: 1}\$#${keep1}\n&${r8}#${T}step 9 .*the guest never showed path 1 of data back and active
pm-freezer-fail${T}s#^  - fail_path: {disk: data, path: 0}\$#${down0}\n&#${T}step 5 .*before fail_path of path 0: the guest shows it not active
pm-freezer-fail${T}s#^  - fail_path: {disk: data, path: 1}\$#${down1}\n&#${T}step 6 .*before fail_path of path 1: the guest shows it not active
pm-freezer-fail${T}s#^  - restore_path: {disk: data, path: 1}\$#${keep1}\n&${r8}#${T}step 11 .*the guest never showed path 1 of data back and active
pm-freezer-fail${T}s#^  - restore_path: {disk: data, path: 0}\$#${keep0}\n&${r8}#${T}step 12 .*the guest never showed path 0 of data back and active
mp-nvme-failover${T}s#^  - restore_path: {disk: data, path: 1}\$#  - run: echo disable > /sys/firmware/acpi/interrupts/gpe01\n&${r8}#${T}step 9 .*the guest never showed path 1 of data back and active
EOF_TABLE
exit 0
