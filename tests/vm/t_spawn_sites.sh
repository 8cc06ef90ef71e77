# label: cli
# One file starts child processes: harness/base/spawn.c, under the one
# death-signal and process-group policy (docs/architecture.md). Anything else
# in harness/ or hw/ that calls fork, exec*, popen, system, clone or
# posix_spawn bypasses that policy and fails this check. Exempt: guest/ (the
# guest's own programs: init is PID 1 of a VM that the host powers off, where
# no ktb can die first), bench/ and tests/ (tools around ktb, not ktb).
set -uo pipefail
: "${KTB_SRC:?set KTB_SRC to the source tree}"
cd "$KTB_SRC" || exit 1
spawner=harness/base/spawn.c
calls='(^|[^A-Za-z0-9_.>])(fork|vfork|clone|clone3|posix_spawnp?|exec(l|lp|le|v|vp|vpe|ve)|fexecve|popen|system)[[:space:]]*\('
# comment lines (" * ...", "/* ...", "// ...") are not calls
found=$(grep -rnE --include='*.c' --include='*.h' "$calls" harness hw |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' | grep -v "^$spawner:")
if [ -n "$found" ]; then
	echo "FAIL: child processes started outside $spawner (use spawn.h):" >&2
	echo "$found" >&2
	exit 1
fi
# the spawner itself must still be found, or the pattern above has rotted
grep -qE "$calls" "$spawner" || { echo "FAIL: no fork or exec found in $spawner" >&2; exit 1; }
echo "ok: only $spawner starts child processes"
