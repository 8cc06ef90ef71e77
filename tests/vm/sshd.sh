#!/bin/bash
# An ssh server on this machine for the remote-host tests of the libvirt
# backend (qemu+ssh://), without systemd: a test-owned key pair authorized
# for root, sshd on a loopback port, and an ssh config that ktb
# (KTB_SSH_OPTS="-F FILE") and libvirt's own ssh (it reads the system-wide
# config: an include file for the host alias only) both use. Idempotent.
# Needs root and openssh-server/openssh-client (./bootstrap installs them).
#   tests/vm/sshd.sh         start (or find running); prints nothing
#   tests/vm/sshd.sh stop    stop the sshd it started
# The tests then connect to qemu+ssh://root@ktb-sshd:2222/system.
set -euo pipefail

port=${KTB_SSHD_PORT:-2222}
dir=/var/lib/ktestbed/ssh          # key pair, known_hosts, pid file
alias=ktb-sshd                     # the host name the tests use
conf=/etc/ssh/ssh_config.d/ktestbed.conf
pidfile=$dir/sshd.pid
begin='# ktestbed: begin'

setup() {
	command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] ||
		{ echo "sshd.sh: sshd not installed; run ./bootstrap" >&2; exit 1; }
	mkdir -p "$dir" /run/sshd /root/.ssh
	chmod 700 "$dir" /root/.ssh
	[ -f "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C ktestbed-tests -f "$dir/id_ed25519"
	ssh-keygen -A >/dev/null
	local pub
	pub=$(cat "$dir/id_ed25519.pub")
	touch /root/.ssh/authorized_keys
	chmod 600 /root/.ssh/authorized_keys
	grep -qxF "$pub" /root/.ssh/authorized_keys || echo "$pub" >>/root/.ssh/authorized_keys
	# the alias only: no other host's settings change
	if ! grep -qx "$begin" "$conf" 2>/dev/null; then
		mkdir -p "$(dirname "$conf")"
		cat >"$conf" <<EOC
$begin (tests/vm/sshd.sh)
Host $alias
	HostName 127.0.0.1
	IdentityFile $dir/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $dir/known_hosts
	StrictHostKeyChecking accept-new
	BatchMode yes
EOC
	fi
}

running() {
	[ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

answers() {
	ssh -o ConnectTimeout=5 -p "$port" root@"$alias" true </dev/null >/dev/null 2>&1
}

start() {
	setup
	if ! running; then
		/usr/sbin/sshd -p "$port" -o ListenAddress=127.0.0.1 -o PidFile="$pidfile" \
			-o PermitRootLogin=prohibit-password -o PasswordAuthentication=no \
			-o AllowStreamLocalForwarding=yes -o MaxStartups=100 -o MaxSessions=100
	fi
	for _ in $(seq 1 100); do
		answers && return 0
		sleep 0.1
	done
	echo "sshd.sh: ssh root@$alias -p $port does not answer" >&2
	exit 1
}

stop() {
	if running; then kill "$(cat "$pidfile")"; fi
	rm -f "$pidfile"
}

case ${1:-start} in
start) start ;;
stop) stop ;;
*) echo "usage: $0 [start|stop]" >&2; exit 2 ;;
esac
