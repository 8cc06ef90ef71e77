# label: vm
# jobs: 2
# Remote libvirt hosts (qemu+ssh://): this machine's daemon reached through
# the ssh server of tests/vm/sshd.sh, as a remote host is. smoke and s3-basic
# give the same verdicts as on the qemu backend; the domain really used the
# host's run directory and the kernel cache there (uploaded once, then
# cached); a pool of an unreachable ssh host, the ssh host and qemu:///system
# takes the bad one out and retries; a host libvirt reaches but ktb's own ssh
# does not is taken out too, and so is one whose ssh forwarding breaks
# mid-run; a panic comes over the ssh console; SIGTERM mid-run and every
# normal end leave no domain, ssh or tail process, or run directory on the
# host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libvirt_lib.sh"
"$KTB_SRC/tests/vm/sshd.sh" || fail "could not start sshd"
ssh_uri=qemu+ssh://root@ktb-sshd:2222/system
closed_uri=qemu+ssh://root@ktb-sshd:2223/system
cache=/var/tmp/ktb-cache
# this test is the cache's only user: start it empty to see the uploads
rm -rf "$cache"
scen=("$KTB_SRC/scenarios/smoke.yaml" "$KTB_SRC/scenarios/s3-basic.yaml")

# txts DIR: every libvirt.txt of DIR's artifacts, one after the other
txts() {
	find "$1" -name libvirt.txt -exec cat {} + 2>/dev/null
	return 0
}
# remote_dirs DIR: the run directories on the host named in DIR's artifacts
remote_dirs() {
	txts "$1" | sed -n 's/^remote_dir: //p' | sort -u
}
# nothing_left DIR: no run directory, domain, ssh or tail of DIR's runs
nothing_left() {
	local d name
	for d in $(remote_dirs "$1"); do
		[ -e "$d" ] && fail "the run directory $d is left on the host"
		name=${d##*/}
		virsh -c qemu:///system domstate "$name" >/dev/null 2>&1 && fail "domain $name left"
		# the host's tail ends within a second of its ssh session
		for _ in $(seq 1 50); do
			pgrep -f -- "$d" >/dev/null || break
			sleep 0.1
		done
		pgrep -f -- "$d" >/dev/null && fail "processes left: $(pgrep -af -- "$d")"
	done
	[ -z "$(find "$work/tmp" -mindepth 1 | head -3)" ] ||
		fail "left in TMPDIR: $(find "$work/tmp" -mindepth 1 | head -3)"
	return 0
}

verdicts() {
	python3 - "$1" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["scenarios"]:
    print(s["name"], s["status"], sorted(s.get("metrics", {})))
    for st in s.get("steps", []):
        print(" ", st["name"], st["status"], st.get("exit_code"))
PY
}

# 1. the same verdicts as the qemu backend
ktb_run run -j 2 --artifacts "$work/a-qemu" --json "$work/qemu.json" "${scen[@]}"
expect_rc 0
ktb_run run --connect "$ssh_uri,slots=2" --artifacts "$work/a-ssh" --json "$work/ssh.json" \
	"${scen[@]}"
expect_rc 0
verdicts "$work/qemu.json" >"$work/v-qemu.txt"
verdicts "$work/ssh.json" >"$work/v-ssh.txt"
diff -u "$work/v-qemu.txt" "$work/v-ssh.txt" >&2 || fail "qemu+ssh and qemu disagree"
grep -q "suspend_ms" "$work/v-ssh.txt" || fail "s3-basic measured no suspend over ssh"
# the host's paths, not this machine's: the run directory and the cache
for s in smoke s3-basic; do
	dir=$(dirname "$(find "$work/a-ssh" -path "*/$s/result.json")")
	rdir=$(sed -n 's/^remote_dir: //p' "$dir/libvirt.txt")
	[ -n "$rdir" ] || fail "$s: libvirt.txt names no remote run directory"
	grep -q "<source path='$rdir/console.raw'/>" "$dir/domain.xml" ||
		fail "$s: the console is not in the host's run directory"
	grep -q "unix:$rdir/qmp.sock" "$dir/domain.xml" || fail "$s: QMP not on the host's socket"
	grep -Eq "<kernel>$cache/[0-9a-f]{64}</kernel>" "$dir/domain.xml" ||
		fail "$s: the kernel is not from the host's cache"
	grep -q "$work" "$dir/domain.xml" && fail "$s: domain.xml names this machine's paths"
	grep -q "starting up libvirt" "$dir/qemu.log" || fail "$s: no libvirt QEMU log brought home"
	grep -q "ktb: guest ready" "$dir/console.log" || fail "$s: the console did not come over ssh"
done
# uploaded once (two scenarios at once may both upload; the copy is atomic)
grep -q "^uploaded: kernel initrd" <<<"$(txts "$work/a-ssh")" ||
	fail "nothing was uploaded to an empty cache"
# each file there is named by its content's SHA-256, no upload is left half done
for f in "$cache"/* "$cache"/.[!.]*; do
	[ -e "$f" ] || continue
	[ "$(sha256sum <"$f" | cut -d' ' -f1)" = "${f##*/}" ] || fail "$f is not named by its hash"
done
nothing_left "$work/a-ssh"

# 2. a pool: an unreachable ssh host (taken out, its scenario retried), the
# ssh host (cached now: nothing uploaded) and this machine's daemon
ktb_run run --connect "$closed_uri" --connect "$ssh_uri" --connect qemu:///system \
	--repeat 3 --json "$work/pool.json" --artifacts "$work/a-pool" \
	"$KTB_SRC/scenarios/smoke.yaml"
expect_rc 0
expect_out "ktb run: libvirt host qemu\+ssh://root@ktb-sshd:2223/system taken out: .*Connection refused"
expect_out "ktb run: smoke#1 will run on another host"
python3 - "$work/pool.json" <<'PY' || fail "not every run passed"
import json, sys
s = json.load(open(sys.argv[1]))["scenarios"]
assert [x["status"] for x in s] == ["pass"] * 3, [x["status"] for x in s]
PY
uris=$(txts "$work/a-pool" | sed -n 's/^uri: //p' | sort | uniq -c)
echo "$uris" | grep -q " $ssh_uri\$" || fail "no run on the ssh host: $uris"
echo "$uris" | grep -q " qemu:///system\$" || fail "no run on qemu:///system: $uris"
grep -q "^uploaded: none (cached)" <<<"$(txts "$work/a-pool")" ||
	fail "the cached kernel was uploaded again"
nothing_left "$work/a-pool"

# 3. libvirt reaches the host but ktb's own ssh does not (KTB_SSH_OPTS sends
# it to an address nothing listens on): taken out, retried on the other
KTB_SSH_OPTS="-o HostName=127.0.0.2" ktb_run run --connect "$ssh_uri" \
	--connect qemu:///system --artifacts "$work/a-opts" "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 0
expect_out "taken out: .*remote libvirt host qemu\+ssh://root@ktb-sshd:2222/system: ssh root@ktb-sshd:2222: .*refused"
expect_out "ktb run: smoke will run on another host"
grep -qx "uri: qemu:///system" <<<"$(txts "$work/a-opts")" ||
	fail "smoke did not end on qemu:///system"

# a kernel panic is seen on the console that comes over ssh, at once
panic_scenario "$work/panic.yaml"
start=$(date +%s)
ktb_run run --connect "$ssh_uri" --artifacts "$work/a-panic" "$work/panic.yaml"
expect_rc 1
expect_out "step 1 .*kernel panic on the console: .*Kernel panic - not syncing"
[ $(($(date +%s) - start)) -lt 90 ] || fail "the panic was not noticed at once"
nothing_left "$work/a-panic"

# the way to the host breaks mid-run (its socket forwarding ends): the host
# is taken out, the scenario runs again on the other
"$KTB" run --connect "$ssh_uri" --connect qemu:///system,slots=1 --json "$work/lost.json" \
	--artifacts "$work/a-lost" "$KTB_SRC/scenarios/smoke.yaml" >"$out" 2>&1 &
ktb_pid=$!
for _ in $(seq 1 300); do
	rdir=$(remote_dirs "$work/a-lost")
	[ -n "$rdir" ] && break
	sleep 0.1
done
[ -n "$rdir" ] || fail "no run directory on the host"
wait_qemus 1 "$rdir" || fail "QEMU never started under libvirt over ssh"
fwd=
for _ in $(seq 1 100); do
	fwd=$(pgrep -f -- "ssh .*-L .*:$rdir/qmp.sock" || true)
	[ -n "$fwd" ] && break
	sleep 0.1
done
[ -n "$fwd" ] || fail "no ssh forwards the monitor"
for p in $fwd; do kill -KILL "$p"; done
rc=0
wait "$ktb_pid" || rc=$?
expect_rc 0
expect_out "taken out: .*lost the libvirt host qemu\+ssh://.*ssh forwarding the monitor and agent killed by signal 9"
expect_out "ktb run: smoke will run on another host"
grep -qx "uri: qemu:///system" <<<"$(txts "$work/a-lost")" ||
	fail "smoke did not end on qemu:///system"
# the retry wrote the artifacts afresh: the ssh run's directory by name
[ -e "$rdir" ] && fail "the run directory $rdir of the lost host is left"
pgrep -f -- "$rdir" >/dev/null && fail "processes left: $(pgrep -af -- "$rdir")"
virsh -c qemu:///system domstate "${rdir##*/}" >/dev/null 2>&1 && fail "domain ${rdir##*/} left"
nothing_left "$work/a-lost"

# 4. bad remote URIs are usage errors
ktb_run run --connect "qemu+tcp://h/system" "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 2
expect_out "only qemu\+ssh:// remote hosts are supported"
ktb_run run --connect "qemu+ssh://h:0/system" "$KTB_SRC/scenarios/smoke.yaml"
expect_rc 2
expect_out "give qemu\+ssh://\[user@\]host\[:port\]/system"

# 5. SIGTERM in the middle: the domain, the ssh processes and the run
# directory on the host are gone
"$KTB" run --connect "$ssh_uri" --artifacts "$work/a-term" \
	"$KTB_SRC/scenarios/smoke.yaml" >"$out" 2>&1 &
ktb_pid=$!
trap 'st=$?; kill -TERM "$ktb_pid" 2>/dev/null; wait; lib_exit "$st"' EXIT
for _ in $(seq 1 300); do
	rdir=$(remote_dirs "$work/a-term")
	[ -n "$rdir" ] && break
	sleep 0.1
done
[ -n "$rdir" ] || fail "no run directory on the host"
wait_qemus 1 "$rdir" || fail "QEMU never started under libvirt over ssh"
pgrep -f -- "tail -c \+1 -F --pid=.* $rdir/console.raw" >/dev/null ||
	fail "no tail follows the console on the host"
sleep 1
stop_clean "$ktb_pid" "$rdir"
trap lib_exit EXIT
nothing_left "$work/a-term"
exit 0
