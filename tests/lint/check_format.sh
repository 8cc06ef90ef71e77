# The C sources are formatted as .clang-format says: clang-format --dry-run
# --Werror on every .c and .h under harness/ hw/ guest/ tests/ bench/ of
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
bad=0 spots=0
for f in "${files[@]}"; do
	n=$(clang-format --style=file --dry-run "$f" 2>&1 | grep -c ': warning: ')
	[ "$n" -eq 0 ] && clang-format --style=file --dry-run --Werror "$f" >/dev/null 2>&1 && continue
	echo "$f: $n places differ (clang-format -i $f)"
	bad=$((bad + 1)) spots=$((spots + n))
done
echo "clang-format: ${#files[@]} files, $bad differ ($spots places)"
[ "$bad" -eq 0 ]
