# One scenario of the library as a CTest test (vm/scenario/NAME): ktb run
# passes on it and, in the sanitizer build, no process of the run (ktb, its
# guardian) left a sanitizer report -- lib.sh's exit check.
. "$(dirname "$0")/lib.sh"
"$KTB" run --artifacts "$(artifacts)" "$1" </dev/null || exit $?
