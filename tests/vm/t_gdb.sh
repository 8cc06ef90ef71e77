# label: vm
# ktb boot --gdb: gdb, in batch mode, attaches to a running guest through
# QEMU's gdb server, reads a kernel symbol's value (linux_banner, at the
# address the guest's /proc/kallsyms gave: nokaslr keeps it) and finds the
# kernel function the instruction pointer is in (from the same kallsyms);
# then --gdb-wait holds a guest's CPUs (the instruction pointer still at the
# reset vector) until gdb detaches, and the command runs after.
. "$(dirname "$0")/lib.sh"
command -v gdb >/dev/null || fail "gdb is not installed (packages.txt lists it; ./bootstrap installs it)"

# gdb_attach PORT CMD...: gdb in batch mode against 127.0.0.1:PORT, each CMD
# an -ex; output in $work/gdb.txt. Retries while QEMU is not listening yet.
gdb_attach() {
	local port=$1
	shift
	local ex=()
	for c in "$@"; do ex+=(-ex "$c"); done
	for _ in $(seq 1 30); do
		if timeout 60 gdb -q -nx -batch -ex "target remote 127.0.0.1:$port" "${ex[@]}" \
			>"$work/gdb.txt" 2>&1 && ! grep -q 'Connection refused' "$work/gdb.txt"; then
			return 0
		fi
		sleep 1
	done
	cat "$work/gdb.txt" >&2
	fail "gdb could not attach to 127.0.0.1:$port"
}

# gdb_port: the port ktb printed ("gdb server on 127.0.0.1:PORT"), once it has
gdb_port() {
	local p
	for _ in $(seq 1 120); do
		p=$(sed -n 's/.*gdb server on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$out" | head -1)
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.5
	done
	return 1
}

# 1. A running guest. It writes its text symbols and linux_banner's line
#    into the shared folder, then idles while gdb looks.
mkdir -p "$work/w"
rc=0
"$KTB" boot --gdb --share "$work/w:/w,rw" --exec \
	"grep -E ' [Tt] ' /proc/kallsyms > /w/syms; grep -w linux_banner /proc/kallsyms > /w/banner.tmp && mv /w/banner.tmp /w/banner; uname -r > /w/release; sleep 30" \
	>"$out" 2>&1 </dev/null &
kpid=$!
port=$(gdb_port) || { kill "$kpid"; fail "ktb boot --gdb did not print its gdb server's port"; }
grep -q "attach with:" "$out" || fail "ktb boot --gdb did not print how to attach"
grep -q "target remote 127.0.0.1:$port" "$out" || fail "the printed gdb line does not name port $port"
grep -q "no symbol table" "$out" || fail "the note on the distribution vmlinux's missing symbols is missing"
for _ in $(seq 1 180); do
	[ -s "$work/w/banner" ] && break
	kill -0 "$kpid" 2>/dev/null || break
	sleep 1
done
[ -s "$work/w/banner" ] || { kill "$kpid"; fail "the guest did not write linux_banner's address"; }
addr=0x$(awk '{print $1}' "$work/w/banner")
release=$(cat "$work/w/release")
gdb_attach "$port" "x/s $addr" "p/x \$pc" detach
grep -q "Linux version $release" "$work/gdb.txt" ||
	{ cat "$work/gdb.txt" >&2; kill "$kpid"; fail "gdb read no 'Linux version $release' at linux_banner ($addr)"; }
pc=$(sed -n "s/^\\\$1 = \\(0x[0-9a-f]*\\)\$/\\1/p" "$work/gdb.txt" | head -1)
[ -n "$pc" ] || { cat "$work/gdb.txt" >&2; kill "$kpid"; fail "gdb printed no instruction pointer"; }
func=$(python3 - "$pc" "$work/w/syms" <<'PY'
import sys
pc = int(sys.argv[1], 16)
best = None
for line in open(sys.argv[2]):
    a, _, name = line.split()[:3]
    a = int(a, 16)
    if a <= pc and (best is None or a > best[0]):
        best = (a, name)
# the kernel's text: a user-space pc (the guest's sleep) has no kernel function
print(best[1] if best and pc >= 0xffffffff80000000 else "")
PY
)
[ -n "$func" ] || { kill "$kpid"; fail "the instruction pointer $pc is in no kernel function of /proc/kallsyms"; }
echo "gdb: linux_banner at $addr reads 'Linux version $release', pc $pc is in $func"
wait "$kpid" || rc=$?
expect_rc 0

# 2. --gdb-wait: the CPUs wait at the reset vector for the debugger, the
#    command runs once gdb detaches.
"$KTB" boot --gdb --gdb-wait --exec "echo up-after-gdb" >"$out" 2>&1 </dev/null &
kpid=$!
port=$(gdb_port) || { kill "$kpid"; fail "ktb boot --gdb --gdb-wait did not print its port"; }
grep -q "CPUs held" "$out" || fail "ktb boot --gdb-wait did not say the CPUs are held"
sleep 3
grep -q up-after-gdb "$out" && fail "the command ran before a debugger let the CPUs go"
gdb_attach "$port" "p/x \$pc" detach
grep -Eq "^\\\$1 = 0xfff0\$" "$work/gdb.txt" ||
	{ cat "$work/gdb.txt" >&2; kill "$kpid"; fail "the held CPU is not at the reset vector (0xfff0)"; }
rc=0
wait "$kpid" || rc=$?
expect_rc 0
expect_out '^up-after-gdb'
echo "gdb: --gdb-wait held the CPU at 0xfff0 until gdb detached; the command ran after"
