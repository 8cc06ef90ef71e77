# Shared by the HTML report tests (t_html*.sh): open a page in a real
# headless Chromium and assert on the DOM it holds after the page's script
# ran, and on what the browser logged. Needs lib.sh first.

# dom URL OUT [CHROMIUM-FLAGS...]: the DOM in OUT, the browser's log in OUT.log
dom() {
	local url=$1 out=$2
	shift 2
	local profile
	command -v chromium >/dev/null ||
		fail "chromium is not installed (./bootstrap installs it)"
	# a fresh profile each time: a profile still locked by the last browser
	# would hand the page to it and dump nothing
	profile=$(mktemp -d "$work/chromium-XXXXXX")
	timeout 120 chromium --headless --disable-gpu --no-sandbox --no-first-run \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 "$@" \
		--dump-dom "$url" >"$out" 2>"$out.log" ||
		{ tail -20 "$out.log" >&2; fail "chromium could not open $url"; }
	grep -q '</html>' "$out" || { tail -20 "$out.log" >&2; fail "chromium gave no DOM for $url"; }
}

# page_ok DOM: the page's script ran to its end, nothing threw, nothing was
# refused by the page's Content-Security-Policy (an injected script, a
# request for anything outside the page).
page_ok() {
	grep -q '^<html lang="en" data-ktb-js="ok">' "$1" ||
		fail "the page's script did not run to its end ($1)"
	if grep -E 'Uncaught|Content Security Policy|Refused to' "$1.log"; then
		fail "the browser logged an error for the page ($1.log)"
	fi
}

# dom_has DOM REGEX WHAT / dom_lacks DOM REGEX WHAT
dom_has() {
	grep -Eq -- "$2" "$1" || fail "$3 (no /$2/ in $1)"
}
dom_lacks() {
	if grep -Eq -- "$2" "$1"; then fail "$3 (/$2/ in $1)"; fi
}

# start_tags DOM: every start tag but the page's script, attribute values
# emptied (the browser writes < > " inside them as references)
start_tags() {
	sed 's|<script>.*</script>||' "$1" | grep -o '<[a-zA-Z][^<>]*>' | sed 's/="[^"]*"/=""/g'
}

# only_own_markup DOM: every element and every attribute is one the reporter
# writes (so no event handler either): nothing from the results became markup.
only_own_markup() {
	local own=" html head meta title style body h1 h2 h3 p small table thead tbody tr th td"
	own+=" span a div label input select option section dl dt dd details summary pre img "
	local t
	for t in $(start_tags "$1" | sed -E 's/^<([a-zA-Z0-9]+).*/\1/' | sort -u); do
		[[ $own == *" $t "* ]] || fail "element <$t> in the page is not the reporter's ($1)"
	done
	local attrs=" lang charset http-equiv content name id class hidden type placeholder"
	attrs+=" autocomplete value href data-section data-status data-name data-ktb-js open alt src "
	for t in $(start_tags "$1" | sed -E 's/^<[a-zA-Z0-9]+//; s/>$//; s/=""//g' | tr ' ' '\n' |
		sort -u); do
		[[ $attrs == *" $t "* ]] || fail "attribute $t in the page is not the reporter's ($1)"
	done
}
