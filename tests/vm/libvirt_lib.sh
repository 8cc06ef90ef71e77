# Shared by the libvirt backend tests (t_libvirt*.sh): a running libvirtd,
# this test's VM files under $work (its domains are told apart from others'
# by that path), and what is left of them. Needs lib.sh first.
"$KTB_SRC/tests/vm/libvirtd.sh" || fail "could not start libvirtd"
mkdir "$work/tmp"
export TMPDIR=$work/tmp

# libvirt_left: the ktb- domains of this test (their XML names $work)
libvirt_left() {
	local d xml
	for d in $(virsh -c qemu:///system list --all --name | grep '^ktb-'); do
		# the whole XML first: grep -q would cut virsh off (SIGPIPE, pipefail)
		xml=$(virsh -c qemu:///system dumpxml "$d" 2>/dev/null || true)
		case $xml in *"$work"*) echo "$d" ;; esac
	done
	return 0
}

# panic_scenario FILE: a scenario whose one step crashes the kernel
panic_scenario() {
	cat >"$1" <<'YAML'
name: panic
summary: crashes the kernel through sysrq
timeout: 300s
machine: {cpus: 1, memory: 512M}
steps:
  - run: echo c > /proc/sysrq-trigger
    timeout: 250s
YAML
}
