# Shared by the t_bisect*.sh tests: a ladder of real Debian kernels and a
# scenario with a regression planted at a known rung. The scenario checks,
# inside the guest, the ABI of the kernel that really booted, so a bisect
# that boots the wrong candidate gets the wrong verdict.
. "$(dirname "$0")/lib.sh"

# planted_regression FILE RUNG [FLAKY]: a scenario that passes on kernels
# before 6.1.0-RUNG and fails from RUNG on; with FLAKY it fails there only
# on the second of repeated runs (KTB_ATTEMPT=2), so one run passes.
planted_regression() {
	local check="test \"\$abi\" -lt $2"
	[ -z "${3:-}" ] || check="$check || test \"\$KTB_ATTEMPT\" != 2"
	cat >"$1" <<YAML
name: planted-regression
summary: "passes on the 6.1.0 kernels before ABI $2, fails from $2 on${3:+ (flaky, on the second run only)}"
timeout: 120s
machine: {cpus: 1, memory: 512M}
steps:
  - name: the guest runs a kernel without the planted regression
    run: 'abi=\$(uname -r | cut -d- -f2); echo "ABI \$abi attempt \$KTB_ATTEMPT"; $check'
YAML
}

# planted_history REPO IGNORE KERNEL:SUBJECT...: a git repository made at
# REPO (IGNORE its .gitignore, printf's format) with one commit per
# argument, tagged c1, c2, ...: its file "kernel" says which kernel the
# commit's build lays down, its subject is SUBJECT ("" for "change N:
# kernel KERNEL")
planted_history() {
	local repo=$1 ignore=$2 i=0 k msg
	shift 2
	git init -q "$repo"
	git -C "$repo" config user.email test@ktestbed.invalid
	git -C "$repo" config user.name ktestbed
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$ignore" >"$repo/.gitignore"
	for c in "$@"; do
		i=$((i + 1))
		k=${c%%:*} msg=${c#*:}
		echo "$k" >"$repo/kernel"
		echo "$i" >"$repo/change"
		git -C "$repo" add kernel change .gitignore
		git -C "$repo" commit -qm "${msg:-change $i: kernel $k}"
		git -C "$repo" tag "c$i"
	done
}

# boots_used: the N of the "boots: N" line
boots_used() {
	sed -n 's/^boots: \([0-9]*\) .*/\1/p' "$out"
}

# expect_boots_at_most N
expect_boots_at_most() {
	local b
	b=$(boots_used)
	if [ -z "$b" ] || [ "$b" -gt "$1" ]; then
		fail "expected at most $1 boots, used ${b:-?}"
	fi
}

# verdict_of CANDIDATE: the verdict of its step ("good", "bad", "skip")
verdict_of() {
	awk -v c="$1" '$1 == "step" && $5 == c { print $6 }' "$out"
}

# flat JSON (no blanks, no newlines), for grep
json_flat() {
	tr -d ' \n' <"$1"
}
