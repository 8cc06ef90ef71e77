# label: cli
# The HTML report in a real headless Chromium, no VM: a run document with
# hostile names, messages, output, subtests and console (script tags, event-handler
# attributes, quotes, control bytes, bad UTF-8) and a timeline.svg carrying
# a script. The page loads without an error or a refused request, nothing
# from the results becomes markup or runs, the timeline shows as an image,
# the filter (text and status, from the address) hides what it should, and
# with JavaScript off every row shows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/html_lib.sh"
: "${HTML_PAGE:?set HTML_PAGE to the html_page helper}"
art=$work/art
mkdir -p "$art/hostile" "$art/smoke"
{
	printf 'line %s </pre></section><script>document.title="pwned"</script>\n' $(seq 1 40)
	printf 'nul\0here esc\033[31mred\033[0m bad\377\376 <img src=x onerror="document.title=1">\n'
} >"$art/hostile/console.log"
printf 'ktb: guest ready\n' >"$art/smoke/console.log"
cat >"$art/hostile/timeline.svg" <<'SVG'
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50" onload="document.title='svg'">
<script>document.title='svg script'</script>
<rect x="0" y="0" width="200" height="50" fill="#d73027"/>
<image href="http://127.0.0.1:9/leak.png" width="10" height="10"/>
</svg>
SVG
cat >"$work/run.json" <<'JSON'
{"run_id": "20261203-070000-1", "started": "2026-12-03T07:00:00Z", "duration_ms": 30000,
 "scenarios": [
  {"name": "smoke", "file": "scenarios/smoke.yaml", "summary": "Boots.", "tags": ["smoke"],
   "status": "pass", "message": null, "duration_ms": 9800, "kernel": "6.1.0-57-amd64",
   "accel": "tcg", "metrics": {"boot_ms": 7200}, "artifacts": "@ART@/smoke",
   "steps": [{"name": "run: ktb-probe cpus", "status": "pass", "message": null,
              "start_ms": 7300, "duration_ms": 400, "exit_code": 0,
              "stdout": "{\"online\":2}\n", "stderr": null, "data": {"online": 2}, "line": 12}],
   "console_tail": null, "attempt": null},
  {"name": "<svg onload=\"document.title='pwned'\">", "file": "x'\".yaml",
   "summary": "</script><script>document.title='pwned'</script>",
   "tags": ["<b onmouseover=\"x\">"], "status": "fail",
   "message": "\" onmouseover=\"document.title='pwned'\" x=\"",
   "duration_ms": 12000, "kernel": null, "accel": "tcg",
   "metrics": {"<i>k</i>": "<img src=x onerror=\"document.title='pwned'\">"},
   "artifacts": "@ART@/hostile",
   "steps": [{"name": "run: echo '</td></tr></table><h1>fake</h1>'", "status": "fail",
              "message": "exit: expected 0, got 1 <&>", "start_ms": 1, "duration_ms": 2,
              "exit_code": 1, "stdout": "</pre><script>document.title='pwned'</script>\u001b[1m\u0001",
              "stderr": "\ufffd <!-- -->", "data": null, "line": 3,
              "subtests": [{"name": "suite.<b>case</b>", "status": "fail", "reason": null,
                            "duration_ms": null,
                            "diag": "</pre><script>document.title='pwned'</script>"},
                           {"name": "suite.skipped", "status": "skip",
                            "reason": "<i onmouseover=\"x\">no</i>", "duration_ms": 1500,
                            "diag": null}]}],
   "console_tail": null, "attempt": null},
  {"name": "disk-4kn-nvme", "file": "scenarios/disk-4kn-nvme.yaml", "summary": null,
   "tags": ["storage", "4kn"], "status": "timeout", "message": "no match within 30s",
   "duration_ms": 60000, "kernel": null, "accel": "tcg", "metrics": {}, "artifacts": null,
   "steps": [], "console_tail": "ktb: guest ready\n", "attempt": null}
 ]}
JSON
sed -i "s|@ART@|$art|g" "$work/run.json"
"$HTML_PAGE" "$work/run.json" "$work/r.html" || fail "html_page could not write the page"
url="file://$work/r.html"
d=$work/dom.html

dom "$url" "$d"
page_ok "$d"
dom_has "$d" '<title>ktestbed run 20261203-070000-1</title>' "the title changed"
for i in 1 2 3; do
	dom_has "$d" "<tr id=\"row-$i\" data-section=\"s-$i\"" "no row $i"
done
dom_lacks "$d" 'id="row-4"' "a fourth row"
dom_has "$d" 'id="shown">3 of 3 shown<' "the filter did not count the rows"
dom_has "$d" 'data-status="timeout" data-name="disk-4kn-nvme"><td><span class="st st-timeout">' \
	"the timeout row"
# every hostile string is text: no element or attribute came from it
only_own_markup "$d"
dom_has "$d" '<a href="#s-2">&lt;svg onload="document.title=.pwned."&gt;</a>' \
	"the hostile name is not shown as text"
dom_has "$d" '&lt;/script&gt;&lt;script&gt;document.title=.pwned.&lt;/script&gt;' \
	"the hostile summary is not shown as text"
dom_has "$d" '<td>run: echo .&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;h1&gt;fake&lt;/h1&gt;.</td>' \
	"the hostile step label is not shown as text"
# a step's subtests: a table of their own, open under the failed step, text only
dom_has "$d" '<details id="s-2-step-1-subtests" open=""><summary>step 1 subtests \(2\)</summary>' \
	"the failed step's subtests are not shown open"
dom_has "$d" '<td>suite.&lt;b&gt;case&lt;/b&gt;</td>' "the hostile subtest name is not text"
dom_has "$d" '<pre>&lt;/pre&gt;&lt;script&gt;document.title=.pwned.&lt;/script&gt;</pre>' \
	"the hostile diagnostics are not text"
dom_has "$d" '<td>&lt;i onmouseover="x"&gt;no&lt;/i&gt;</td>' "the hostile skip reason is not text"
dom_has "$d" 'line 40 &lt;/pre&gt;&lt;/section&gt;&lt;script&gt;' "the console tail"
dom_lacks "$d" 'line 10 ' "more than 30 console lines"
dom_has "$d" 'nulhere esc\[?red bad' "the console's control bytes"
# the timeline is an image, its own script inert
dom_has "$d" '<img id="s-2-timeline" class="timeline" alt="suspend/resume timeline" src="data:image/svg\+xml;base64,' \
	"the timeline is not embedded"
[ "$(grep -c '<script' "$d")" -eq 1 ] || fail "more than the page's own script"

# the filter, set from the address
dom "$url#status=problem" "$d"
page_ok "$d"
dom_has "$d" 'id="row-1" [^>]*data-name="smoke" hidden=""' "status=problem keeps the passing row"
dom_lacks "$d" 'id="row-[23]" [^>]* hidden=""' "status=problem hides a failing row"
dom_has "$d" 'id="shown">2 of 3 shown<' "the count after status=problem"
dom "$url#q=4KN" "$d"
page_ok "$d"
dom_has "$d" 'id="row-[12]" [^>]* hidden=""' "q=4KN keeps another row"
dom_lacks "$d" 'id="row-3" [^>]* hidden' "q=4KN hides the tagged row"
dom_has "$d" '<section id="s-1" [^>]* hidden=""' "q=4KN keeps another section"
dom "$url#q=%3Csvg%20onload&status=fail" "$d"
page_ok "$d"
dom_has "$d" 'id="shown">1 of 3 shown<' "text and status together"
dom_lacks "$d" 'id="row-2" [^>]* hidden' "the hostile row does not match its own text"
dom "$url#q=%E0%A4%A&status=bogus" "$d"
page_ok "$d"
dom_has "$d" 'id="shown">0 of 3 shown<' "a malformed filter"

# without JavaScript (the page less its one script, since headless Chromium
# dumps no DOM with scripting off): every row, no filter box
grep -c '<script>' "$work/r.html" | grep -qx 1 || fail "not one script line in the page"
sed '/^<script>/d' "$work/r.html" >"$work/nojs.html"
dom "file://$work/nojs.html#status=problem" "$d"
dom_lacks "$d" 'data-ktb-js' "the script ran with JavaScript off"
dom_lacks "$d" '<tr [^>]*hidden' "a row hidden with JavaScript off"
dom_has "$d" '<div id="filters" hidden' "the filter box shows with JavaScript off"
dom_has "$d" 'id="row-3"' "a row missing with JavaScript off"
exit 0
