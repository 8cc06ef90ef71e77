#!/bin/bash
# Start the libvirt daemon the libvirt backend's tests use, without systemd:
# configure qemu.conf once (idempotent), start libvirtd if it is not running,
# and wait until it answers. Needs root and the packages ./bootstrap installs
# (libvirt-daemon-system, libvirt-daemon-system-sysv, libvirt-clients).
#   tests/vm/libvirtd.sh         start (or find running) and wait
#   tests/vm/libvirtd.sh stop    destroy every ktb- domain, stop the daemon
set -euo pipefail

conf=/etc/libvirt/qemu.conf
pidfile=/run/ktb-libvirtd.pid
uri=qemu:///system
begin='# ktestbed: begin'
end='# ktestbed: end'

configure() {
	[ -f "$conf" ] || { echo "libvirtd.sh: $conf missing; install libvirt-daemon-system" >&2; exit 1; }
	grep -qx "$begin" "$conf" && return 0
	# a setting of the same key made earlier in the file is commented out,
	# so there is one value for each
	sed -i -E 's/^[[:space:]]*(user|group|stdio_handler|security_driver|namespaces)[[:space:]]*=/# ktestbed (was): &/' "$conf"
	# root QEMU (else the root-only /dev/kvm makes libvirt re-probe QEMU on
	# every call), QEMU's output in plain files (no virtlogd), no security
	# driver (no AppArmor/SELinux labels on the harness's files), no private
	# mount namespace (the harness's sockets live under its temporary dir).
	cat >>"$conf" <<EOC
$begin
user = "root"
group = "root"
stdio_handler = "file"
security_driver = "none"
namespaces = []
$end
EOC
}

running() {
	virsh -c "$uri" list >/dev/null 2>&1
}

start() {
	command -v libvirtd >/dev/null || { echo "libvirtd.sh: libvirtd not installed; run ./bootstrap" >&2; exit 1; }
	configure
	running && return 0
	mkdir -p /run/libvirt
	libvirtd --daemon --pid-file="$pidfile"
	for _ in $(seq 1 300); do
		running && return 0
		sleep 0.1
	done
	echo "libvirtd.sh: libvirtd did not answer on $uri within 30 s" >&2
	exit 1
}

stop() {
	local d
	if running; then
		for d in $(virsh -c "$uri" list --name | grep '^ktb-' || true); do
			virsh -c "$uri" destroy "$d" >/dev/null 2>&1 || true
		done
	fi
	if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
}

case ${1:-start} in
start) start ;;
stop) stop ;;
*) echo "usage: $0 [start|stop]" >&2; exit 2 ;;
esac
