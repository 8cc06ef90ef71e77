# label: vm
# jobs: 2
# ktb run --dump: a guest that panics (sysrq c: pvpanic pauses it) and one
# that hangs (a step out of time while the guest agent, stopped, does not
# answer) each leave a whole kdump-compressed vmcore in their artifacts,
# which drgn opens with the kernel's debug vmlinux (ktb image build
# --debug): the kernel release, the task list, and the hung task's stack
# in file:line. --dump never leaves none (and no pvpanic: QEMU ends on the
# panic); a dump past --dump-limit, or one the artifacts' file system has
# no room for, is no file at all, and the result says why. No QEMU, no
# partial file is left.
. "$(dirname "$0")/lib.sh"

needs_drgn() {
	command -v drgn >/dev/null || fail "drgn is not installed (packages.txt: python3-drgn; ./bootstrap test installs it)"
}
needs_drgn

cat >"$work/panic.yaml" <<'YAML'
name: dump-panic
timeout: 120s
machine: {cpus: 1, memory: 512M}
steps:
  - run: echo c > /proc/sysrq-trigger
YAML
# the agent stopped, then a command that outlives its step: the step runs
# out of time and the agent does not answer the sync that follows
cat >"$work/hang.yaml" <<'YAML'
name: dump-hang
timeout: 120s
machine: {cpus: 1, memory: 512M}
steps:
  - run: kill -STOP $(pidof qemu-ga); exec sleep 1000
    timeout: 5s
YAML
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"

# the kernel's debug vmlinux, fetched beside the image
ktb_run image build --debug
expect_rc 0
vmlinux=$(sed -n 's/^debug: *//p' "$out" | tail -1)
mods=$(sed -n 's/^modules: *//p' "$out" | tail -1)
[ -f "$vmlinux" ] || fail "ktb image build --debug named no debug vmlinux (got '$vmlinux')"
[ -f "$mods/pvpanic.ko" ] || fail "ktb image build --debug gave no pvpanic.ko in '$mods'"
# drgn takes the vmlinux and each module's debug file
syms=(-s "$vmlinux")
for k in "$mods"/*.ko; do syms+=(-s "$k"); done

leftovers() {
	find "$1" \( -name '*.flat' -o -name '*.part' \) | grep . && fail "a partial dump was left in $1"
	pgrep -f "qemu-system.*$work" >/dev/null && fail "a QEMU was left running"
	return 0
}

# 1. on-failure (the default): a panic and a hang, two at a time
ktb_run run -j 2 --artifacts "$work/a" "$work/panic.yaml" "$work/hang.yaml"
expect_rc 1
expect_out 'dump \(panic\): .*/dump-panic/vmcore, [0-9.]+ MB in [0-9.]+ s'
expect_out 'dump \(hang\): .*/dump-hang/vmcore, [0-9.]+ MB in [0-9.]+ s'
leftovers "$work/a"
for n in panic hang; do
	res=$(echo "$work"/a/*/dump-$n/result.json)
	[ "$(jq -r .dump.trigger "$res")" = "$n" ] || fail "dump-$n: dump.trigger is not $n: $(jq -c .dump "$res")"
	core=$(jq -r .dump.file "$res")
	[ -f "$core" ] || fail "dump-$n: no file at dump.file ($core)"
	[ "$(stat -c %s "$core")" -eq "$(jq .dump.bytes "$res")" ] || fail "dump-$n: dump.bytes is not the file's size"
	[ "$(head -c 8 "$core")" = "KDUMP   " ] || fail "dump-$n: $core is not a kdump file"
done

# 2. drgn reads each: the release, the tasks, the hung task's stack, and
# the stack the panicking CPU was on (QEMU's notes carry the CPU's number
# plus one where a pid would be, so drgn's crashed_thread() says pid 1;
# its stack is the right one)
cat >"$work/read.py" <<'PY'
import sys
from drgn.helpers.linux.pid import for_each_task
from drgn.helpers.linux.sched import task_state_to_char
print("release", prog["UTS_RELEASE"].string_().decode())
tasks = list(for_each_task(prog))
print("tasks", len(tasks))
for t in tasks:
    comm = t.comm.string_().decode()
    if comm in ("sleep", "qemu-ga", "sh"):
        print("task", t.pid.value_(), comm, task_state_to_char(t))
        if comm == "sleep":
            print(prog.stack_trace(t))
if sys.argv[1] == "panic":
    print(prog.stack_trace(prog.crashed_thread().tid))
PY
release=$(jq -r .kernel "$work"/a/*/dump-hang/result.json)
for n in panic hang; do
	core=$(jq -r .dump.file "$work"/a/*/dump-$n/result.json)
	drgn -q -c "$core" "${syms[@]}" "$work/read.py" "$n" >"$work/drgn-$n.txt" 2>&1 ||
		fail "drgn could not read the $n dump: $(cat "$work/drgn-$n.txt")"
	grep -qx "release $release" "$work/drgn-$n.txt" ||
		fail "drgn read another release from the $n dump than $release: $(head -3 "$work/drgn-$n.txt")"
	tasks=$(sed -n 's/^tasks //p' "$work/drgn-$n.txt")
	[ "${tasks:-0}" -ge 20 ] || fail "drgn found ${tasks:-no} tasks in the $n dump"
done
grep -Eq '^task [0-9]+ sh R$' "$work/drgn-panic.txt" ||
	fail "the panic dump has no running sh (the task that wrote c to sysrq-trigger): $(cat "$work/drgn-panic.txt")"
grep -Eq '^task [0-9]+ qemu-ga T$' "$work/drgn-hang.txt" ||
	fail "the hang dump has no stopped qemu-ga: $(cat "$work/drgn-hang.txt")"
grep -Eq 'sysrq_handle_crash \(drivers/tty/sysrq\.c:[0-9]+' "$work/drgn-panic.txt" ||
	fail "drgn did not give the panicking CPU's stack through sysrq_handle_crash: $(cat "$work/drgn-panic.txt")"
grep -Eq 'do_nanosleep \(kernel/time/hrtimer\.c:[0-9]+' "$work/drgn-hang.txt" ||
	fail "drgn did not give the hung sleep's stack in file:line: $(cat "$work/drgn-hang.txt")"

# 3. at once: never (no dump; no pvpanic, so QEMU ends on the panic), a
# limit of 1M (the dump is stopped and removed), and artifacts on a file
# system with no room for the dump; the result says why in each
mkdir -p "$work/small"
mount -t tmpfs -o size=64M tmpfs "$work/small" || fail "cannot mount a 64M tmpfs (the test needs root)"
bg() { # bg NAME ARGS...: ktb in the background, output in $work/NAME.out
	local name=$1
	shift
	"$KTB" "$@" >"$work/$name.out" 2>&1 </dev/null &
}
bg never run --dump never --artifacts "$work/n" "$work/panic.yaml"
p_never=$!
bg limit run --dump-limit 1M --artifacts "$work/l" "$work/hang.yaml"
p_limit=$!
bg small run --artifacts "$work/small" "$work/hang.yaml"
p_small=$!
for p in never limit small; do
	pid_var=p_$p
	rc=0
	wait "${!pid_var}" || rc=$?
	out=$work/$p.out
	expect_rc 1
done
cp -r "$work/small" "$work/small-copy"
umount "$work/small"

out=$work/never.out
[ "$(jq -c .dump "$work"/n/*/dump-panic/result.json)" = null ] || fail "--dump never wrote a dump entry"
find "$work/n" -name vmcore | grep . && fail "--dump never left a vmcore"
expect_out 'Kernel panic - not syncing'

out=$work/limit.out
expect_out 'dump \(hang\): no dump: it grew past the limit of 1 MiB \(--dump-limit\)'
[ "$(jq -r .dump.file "$work"/l/*/dump-hang/result.json)" = null ] || fail "--dump-limit 1M kept a file"
find "$work/l" -name vmcore | grep . && fail "--dump-limit 1M left a vmcore"
leftovers "$work/l"

out=$work/small.out
expect_out 'dump \(hang\): no dump: it may take up to [0-9]+ MiB while it is written and the artifacts. file system has [0-9]+ MiB free'
find "$work/small-copy" -name vmcore | grep . && fail "a vmcore was written without room for it"
leftovers "$work/small-copy"
exit 0
