# label: vm
# jobs: 2
# ktb run --html from a real run: the smoke scenario, twice (-j 2 --repeat 2),
# with one step added that fails on the second run only. The page, opened in
# headless Chromium, shows both rows, the steps, metrics and console of each,
# the pass rate marked flaky, and its filter hides the passing run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/html_lib.sh"
sed -e 's/^name: smoke$/name: smoke-html/' "$KTB_SRC/scenarios/smoke.yaml" >"$work/smoke-html.yaml"
cat >>"$work/smoke-html.yaml" <<'YAML'
  - name: fails on the second run only
    run: test "$KTB_ATTEMPT" != 2
YAML
ktb_run run -j 2 --repeat 2 --html "$work/r.html" --json "$work/r.json" \
	--artifacts "$(artifacts)" "$work/smoke-html.yaml"
expect_rc 1
expect_out '^FAIL +smoke-html#2 '
[ -s "$work/r.html" ] || fail "no page written"

d=$work/dom.html
dom "file://$work/r.html" "$d"
page_ok "$d"
dom_has "$d" '<tr id="row-1" data-section="s-1" data-status="pass" data-name="smoke-html#1">' \
	"the passing run has no row"
dom_has "$d" '<tr id="row-2" data-section="s-2" data-status="fail" data-name="smoke-html#2">' \
	"the failing run has no row"
dom_lacks "$d" 'id="row-3"' "a third row"
dom_has "$d" '<tr id="rate-1" class="flaky" data-name="smoke-html"><td>smoke-html</td><td class="num">1/2</td><td class="num">50%</td><td>flaky</td>' \
	"the pass rate is not 1/2 flaky"
dom_has "$d" 'id="shown">2 of 2 shown<' "the filter did not count the rows"
# each run's steps, metrics and console
for s in 1 2; do
	dom_has "$d" "<section id=\"s-$s\" class=\"scenario\"" "no section $s"
	dom_has "$d" "<details id=\"s-$s-step-1-stdout\"" "run $s: no stdout of the machine step (ktb-probe machine)"
	dom_has "$d" "<pre id=\"s-$s-console\" class=\"console\">" "run $s: no console"
done
dom_has "$d" '<td>the guest runs the kernel the harness booted</td>' "no step label"
dom_has "$d" '<td>fails on the second run only</td><td class="num">[0-9]+</td>' "no step line"
dom_has "$d" '<tr><th>boot_ms</th><td class="num">[0-9]+</td></tr>' "no boot_ms metric"
dom_has "$d" '<dt>attempt</dt><dd>2</dd>' "no attempt"
dom_has "$d" '<h3>Console <small>\(last 30 lines of console.log\)</small></h3>' \
	"the passing run shows no end of console.log"

# the filter, as a link would set it: only what did not pass
dom "file://$work/r.html#status=problem" "$d"
page_ok "$d"
dom_has "$d" 'data-name="smoke-html#1" hidden=""' "the passing run is not filtered out"
dom_lacks "$d" 'data-name="smoke-html#2" hidden' "the failing run is filtered out"
dom_has "$d" '<section id="s-1" class="scenario" data-status="pass" data-name="smoke-html#1" hidden="">' \
	"the passing run's section stays"
dom_has "$d" 'id="shown">1 of 2 shown<' "the filter's count is wrong"
exit 0
