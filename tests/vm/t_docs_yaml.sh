# label: cli
# Every YAML example in docs/ and README.md loads: a whole scenario as it
# stands; a top-level part (machine:, kernel:) with a step added; a list of
# steps (or a step's expect:, a machine's disk entry) placed in a scenario,
# under the last machine: the same page showed before it. Blocks of other
# files (CI jobs, image recipes) are told apart by their keys and left out.
. "$(dirname "$0")/lib.sh"
python3 - "$KTB_SRC" "$work" >"$work/blocks.txt" <<'EOF_PY' || fail "cannot read the docs"
import glob, os, re, sys
src, work = sys.argv[1], sys.argv[2]
top = {"name", "summary", "tags", "timeout", "kernel", "machine", "steps"}
n = 0
for doc in sorted(glob.glob(src + "/docs/*.md")) + [src + "/README.md"]:
    text, machine = open(doc).read(), ""
    for m in re.finditer(r"^```yaml\n(.*?)^```", text, re.S | re.M):
        block, line = m.group(1), text[:m.start()].count("\n") + 2
        first = next(l for l in block.splitlines() if l.strip() and not l.lstrip().startswith("#"))
        keys = set(re.findall(r"^([A-Za-z_$][\w-]*):", block, re.M))
        if first.startswith("    expect:"):
            y = "steps:\n  - run: x\n" + block
        elif first.startswith("    - "):
            y = "machine:\n  disks:\n" + block + "steps:\n  - run: x\n"
        elif re.match(r"(  )?- ", first):
            y = machine + "steps:\n" + ("" if first.startswith("  ") else "  ") + \
                block.replace("\n", "\n" + ("" if first.startswith("  ") else "  ")).rstrip(" ")
        elif keys and keys <= top:
            y = block if "steps" in keys else block + "steps:\n  - run: x\n"
            mm = re.search(r"^machine:\n(?:[ #].*\n|\n)*", block, re.M)
            machine = mm.group(0) if mm else machine
        else:
            continue
        n += 1
        path = "%s/doc-%d.yaml" % (work, n)
        open(path, "w").write(y)
        print("%s\t%s:%d" % (path, os.path.relpath(doc, src), line))
EOF_PY
# the folders the shares example names, next to the example files
mkdir -p "$work/out" "$work/big"
count=0
while IFS=$'\t' read -r file where; do
	count=$((count + 1))
	ktb_run list "$file"
	[ "$rc" -eq 0 ] || fail "the example at $where does not load (as $file)"
done <"$work/blocks.txt"
# 30 today: far fewer means the extraction broke, not that the docs lost them
[ "$count" -ge 20 ] || fail "only $count examples found in the docs; the extraction is broken"
echo "$count examples load"
exit 0
