# label: vm
# ktb boot --share and --exec end to end, over both transports (9p and
# virtiofs, forced with ,9p and ,virtiofs; the guest's /proc/mounts shows
# which): a file written on the host is read in the guest; with rw a file
# the guest writes is on the host after the run, with ro the guest's write
# fails (EROFS) and nothing reaches the host (ro is 9p only: ,ro,virtiofs
# is refused); no virtiofsd is left after a virtiofs run;
# a bare --exec shares the current folder read-only at its own path and runs
# there; the command's exit status comes back, its output arrives while it
# runs, --script runs a host script; bad arguments are exit 2, a panic while
# the command runs and a machine that never comes up are 125.
. "$(dirname "$0")/lib.sh"

h=$work/host
mkdir -p "$h/sub"
token="host-token-$$"
echo "$token" >"$h/in.txt"
echo "sub-$token" >"$h/sub/sub.txt"

transports=9p
vfs=
if virtiofs_here; then
	transports="9p virtiofs"
	vfs=1
fi
for t in $transports; do
	# the host's file in the guest, at the path given, over transport t
	rm -f "$h/out.txt"
	ktb_run boot -v --share "$h:/mnt/h,rw,$t" --exec 'cat /mnt/h/in.txt; grep " /mnt/h " /proc/mounts'
	expect_rc 0
	expect_out "sharing $h at /mnt/h \\(rw, $t\\)"
	expect_out "^$token\$"
	expect_out "^ktb0 /mnt/h $t rw"

	# rw: the guest's file is on the host afterwards
	# shellcheck disable=SC2016 # expanded in the guest
	ktb_run boot --share "$h:/mnt/h,rw,$t" --exec 'echo "guest-wrote-$(uname -r)" >/mnt/h/out.txt'
	expect_rc 0
	grep -q '^guest-wrote-' "$h/out.txt" || fail "$t: the guest's file is not on the host"
done
# virtiofsd is reaped with the machine (a process of this test's workdir)
if pgrep -af "virtiofsd.*$work"; then fail "a virtiofsd outlived its machine"; fi

# SIGTERM to ktb while the guest runs: QEMU and the virtiofsd both go
if [ -n "$vfs" ]; then
	(cd "$h" && exec "$KTB" boot --share "$h:/mnt/h,rw,virtiofs" --exec 'sleep 60' >"$out" 2>&1 </dev/null) &
	pid=$!
	for _ in $(seq 1 300); do
		pgrep -f "virtiofsd.*$h" >/dev/null && break
		sleep 0.1
	done
	pgrep -f "virtiofsd.*$h" >/dev/null || fail "no virtiofsd while the machine runs"
	sleep 1
	kill -TERM "$pid"
	wait "$pid" || true
	for _ in $(seq 1 50); do
		pgrep -f "virtiofsd.*$h" >/dev/null || break
		sleep 0.1
	done
	if pgrep -af "virtiofsd.*$h"; then fail "a virtiofsd outlived ktb's SIGTERM"; fi
fi

# ro over virtiofs: refused, virtiofsd cannot refuse writes
ktb_run boot --share "$h:/mnt/h,ro,virtiofs" --exec true
expect_rc 2
expect_out 'machine.shares\[0\].transport: a read-only share stays on 9p'

# ro (the default): the write fails in the guest and nothing is on the host
ktb_run boot --share "$h:/mnt/h" --exec 'echo x >/mnt/h/ro.txt'
[ "$rc" -ne 0 ] || fail "a write to a read-only share succeeded"
expect_out 'Read-only file system'
[ ! -e "$h/ro.txt" ] || fail "a write to a read-only share reached the host"

# a bare --exec: the current folder, read-only, at its own path, and the
# command runs there; the exit status passes through
(cd "$h/sub" && "$KTB" boot --exec 'pwd; cat sub.txt; ls ..; exit 3' >"$out" 2>&1 </dev/null) || rc=$?
expect_rc 3
expect_out "^$h/sub\$"
expect_out "^sub-$token\$"
grep -q in.txt "$out" && fail "the folder above the current one is in the guest too"

# stderr arrives on stderr, stdout on stdout
rc=0
(cd "$h" && "$KTB" boot --exec 'echo to-out; echo to-err >&2' >"$work/o" 2>"$work/e" </dev/null) || rc=$?
expect_rc 0
grep -qx to-out "$work/o" || fail "stdout: $(cat "$work/o")"
grep -qx to-err "$work/e" || fail "stderr: $(cat "$work/e")"

# output arrives while the command runs, not at its end
(cd "$h" && exec "$KTB" boot --exec 'echo first; sleep 8; echo second' >"$work/stream" 2>&1 </dev/null) &
pid=$!
seen=
for _ in $(seq 1 600); do
	grep -qx first "$work/stream" && { seen=1; break; }
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
[ -n "$seen" ] || fail "the first line did not arrive"
grep -qx second "$work/stream" && fail "the first line arrived only at the end"
rc=0
wait "$pid" || rc=$?
expect_rc 0
grep -qx second "$work/stream" || fail "the second line never arrived"

# --script: a host script copied into the guest, run in the shared folder
# shellcheck disable=SC2016 # expanded in the guest
printf '#!/bin/sh\necho "script in $(pwd)"\nexit 4\n' >"$work/s.sh"
rc=0
(cd "$h" && "$KTB" boot --script "$work/s.sh" >"$out" 2>&1 </dev/null) || rc=$?
expect_rc 4
expect_out "^script in $h\$"

# usage errors: exit 2, saying what is wrong
ktb_run boot --exec ''
expect_rc 2
expect_out 'exec needs a command'
ktb_run boot --exec
expect_rc 2
ktb_run boot --share "$work/nope" --exec true
expect_rc 2
expect_out "\-\-share $work/nope: $work/nope is not a folder"
ktb_run boot --share "$h:mnt" --exec true
expect_rc 2
expect_out 'machine.shares\[0\].guest: "mnt" is not an absolute guest path'

# a kernel panic while the command runs: 125, with the reason
rc=0
(cd "$h" && "$KTB" boot --exec 'echo c >/proc/sysrq-trigger; sleep 30' >"$out" 2>&1 </dev/null) || rc=$?
expect_rc 125
expect_out 'kernel panic on the console'

# a machine that never comes up: 125
mkdir -p "$work/bin"
# shellcheck disable=SC2016 # expanded in the guest
printf '#!/bin/sh\necho "no qemu today" >&2\nexit 1\n' >"$work/bin/qemu-system-x86_64"
chmod +x "$work/bin/qemu-system-x86_64"
rc=0
(cd "$h" && PATH=$work/bin:$PATH "$KTB" boot --exec true >"$out" 2>&1 </dev/null) || rc=$?
expect_rc 125
expect_out 'the machine did not come up'
# ... with a virtiofs share: the virtiofsd QEMU never reached goes too
# (where virtiofsd cannot serve, ktb refuses before starting either: 125)
rc=0
(cd "$h" && PATH=$work/bin:$PATH "$KTB" boot --share "$h:/mnt/h,rw,virtiofs" --exec true >"$out" 2>&1 </dev/null) || rc=$?
expect_rc 125
if pgrep -af "virtiofsd.*$h"; then fail "a virtiofsd outlived a QEMU that did not start"; fi
