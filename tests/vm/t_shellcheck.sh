# label: cli
# The project's shell scripts pass shellcheck (docs/contributing.md).
set -uo pipefail
: "${KTB_SRC:?set KTB_SRC to the source tree}"
command -v shellcheck >/dev/null || { echo "FAIL: shellcheck is not installed (./bootstrap installs it)" >&2; exit 1; }
cd "$KTB_SRC" || exit 1
shellcheck -x bootstrap .ci/run bench/boot bench/memory bench/multipath bench/pm bench/suite bench/storage bench/storage-qsd images/build-image.sh images/debug-files.sh images/needs.sh images/mkroot.sh &&
	shellcheck -s bash -e SC1091,SC2154,SC2034 tests/vm/*.sh &&
	shellcheck -s bash tests/lint/*.sh
