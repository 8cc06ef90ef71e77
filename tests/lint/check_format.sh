# The C sources are formatted as .clang-format says: clang-format --dry-run
# on every .c and .h under harness/ hw/ guest/ tests/ bench/ of
# SRC (default: this tree), or on the FILES given. Lists the files that
# differ with their count of differing spots; exit 1 when any does.
set -uo pipefail
src=${KTB_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang-format >/dev/null ||
	{ echo "FAIL: clang-format is not installed (./bootstrap installs it)" >&2; exit 1; }
cd "$src" || exit 1
if [ $# -eq 0 ]; then
	# the tree has no generated or fetched C; build folders live outside these
	mapfile -t files < <(find harness hw guest tests bench -name '*.[ch]' -type f | sort)
else
	files=("$@")
fi
# one clang-format for all of them (a start each was most of the time):
# its warnings and errors name FILE:LINE:COL; a file it cannot read at all
# makes it exit non-zero with a message naming it
report=$(clang-format --style=file --dry-run "${files[@]}" 2>&1)
st=$?
# the places per file, in the files' order
counts=$(printf '%s\n' "$report" |
	sed -nE 's/^(.*):[0-9]+:[0-9]+: (warning|error): .*/\1/p' | sort | uniq -c)
bad=0 spots=0
for f in "${files[@]}"; do
	n=$(awk -v f="$f" '{c = $1; sub(/^ *[0-9]+ /, "")} $0 == f {print c}' <<<"$counts")
	[ -n "$n" ] || continue
	echo "$f: $n places differ (clang-format -i $f)"
	bad=$((bad + 1)) spots=$((spots + n))
done
if [ "$st" -ne 0 ] && [ "$bad" -eq 0 ]; then
	echo "clang-format failed: $report"
	bad=1
fi
echo "clang-format: ${#files[@]} files, $bad differ ($spots places)"
[ "$bad" -eq 0 ]
