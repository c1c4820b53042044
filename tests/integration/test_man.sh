#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The man pages (man/): each renders without a groff or man warning, each
# program installed has one, and they cannot drift from the programs:
# every option and command a program's --help lists appears in its page,
# and every key `xrxd --check-config` prints appears in xrx.conf(5) with
# the default xrxd uses.
. "$(dirname "$0")/../lib.sh"

MAN=$TOP/man
WORK=$(mktemp -d /tmp/xrx-man.XXXXXX)
at_exit rm -rf "$WORK"

if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	skip "man pages" "man or groff missing (packages man-db, groff-base; scripts/deps.sh)"
	done_testing
	exit 0
fi

# render FILE [WIDTH]: the page as plain text.
render() {
	MANWIDTH=${2:-80} man -l "$1" 2>/dev/null | col -b
}

for page in "$MAN"/*.[0-9]; do
	name=$(basename "$page")
	MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>"$WORK/warn"
	rc=$?
	sed 's/^/# /' "$WORK/warn"
	check "$name renders without warnings" $([ $rc = 0 ] && [ ! -s "$WORK/warn" ]; echo $?)
done

# The check above must see a mistake: an unknown request.
sed '0,/^\.SH DESCRIPTION/s//.SH DESCRIPTION\n.XQ broken/' "$MAN/xrx-replay.1" >"$WORK/bad.1"
MANWIDTH=80 man --warnings -l "$WORK/bad.1" >/dev/null 2>"$WORK/warn"
check "a page with an unknown request is reported (control)" $([ -s "$WORK/warn" ]; echo $?)

# Every program make install puts in bin or sbin has a page.
progs="xrxd:8 xrxctl:8"
for t in "$TOP"/user/tools/*.c; do
	progs="$progs $(basename "$t" .c):1"
done
for p in $progs; do
	ok "${p%:*} has a man page (${p%:*}.${p#*:})" test -f "$MAN/${p%:*}.${p#*:}"
done

# help_words BINARY: options (-x, --long) and commands its --help lists.
help_words() {
	"$1" --help 2>&1 | $PY -c '
import re, sys
text = sys.stdin.read()
words = set()
for line in text.splitlines():
    # option lines: "  -i, --interface IFACE  text", "      --state-dir DIR",
    # "      --src ADDR --dst ADDR   text": the short option before the
    # comma and every long option on the line
    if not re.match(r"\s+-", line):
        continue
    m = re.match(r"\s+(-[A-Za-z0-9]),", line)
    if m:
        words.add(m.group(1))
    words.update(re.findall(r"(?<![-\w])--[A-Za-z0-9][-A-Za-z0-9]*", line))
# commands: the lines under "Commands:" up to the next blank line
block = re.search(r"^Commands:\n((?:[ \t]+\S.*\n)+)", text, re.M)
if block:
    for line in block.group(1).splitlines():
        words.add(line.split()[0])
print("\n".join(sorted(words)))
'
}

for p in $progs; do
	prog=${p%:*}
	page=$MAN/$prog.${p#*:}
	bin=$BUILD/$prog
	[ -f "$page" ] || continue
	if [ ! -x "$bin" ]; then
		skip "$prog: --help and man page agree" "$bin missing; run make"
		continue
	fi
	render "$page" 200 >"$WORK/$prog.txt"
	words=$(help_words "$bin")
	missing=""
	for w in $words; do
		# whole word: -c must not match inside --copy
		grep -qE -- "(^|[^-A-Za-z0-9])$w([^-A-Za-z0-9]|\$)" "$WORK/$prog.txt" ||
			missing="$missing $w"
	done
	[ -n "$missing" ] && diag "$prog: in --help, not in $(basename "$page"):$missing"
	check "$prog: every option and command of --help is in $(basename "$page") ($(echo $words | wc -w) words)" \
		$([ -n "$words" ] && [ -z "$missing" ]; echo $?)
done

# xrx.conf(5): every key, and its default as xrxd prints it.
if [ ! -x "$BUILD/xrxd" ]; then
	skip "xrx.conf(5) keys" "$BUILD/xrxd missing; run make"
else
	printf 'interface = lo\n' >"$WORK/lo.conf"
	"$BUILD/xrxd" -c "$WORK/lo.conf" --check-config >"$WORK/defaults" 2>&1
	render "$MAN/xrx.conf.5" 1000 >"$WORK/conf.txt"
	# A key's entry is a tag line starting with the key, then its text,
	# which says "Default VALUE" (interface has none: it is required).
	$PY - "$WORK/defaults" "$WORK/conf.txt" >"$WORK/conf.out" <<'PYEOF'
import re, sys
defaults = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*([a-z_0-9]+)\s*=\s*(\S+)", line)
    if m:
        defaults.append(m.groups())
lines = [l.strip() for l in open(sys.argv[2])]
for key, val in defaults:
    entry = None
    for i, l in enumerate(lines):
        if re.match(re.escape(key) + r"( =|$)", l):
            entry = " ".join(lines[i + 1:i + 4])
            break
    if entry is None:
        print("missing %s" % key)
    elif key != "interface" and not re.search(r"Default " + re.escape(val) + r"\b", entry):
        print("default %s = %s" % (key, val))
    else:
        print("ok %s" % key)
PYEOF
	n=$(grep -c '^ok ' "$WORK/conf.out")
	grep -v '^ok ' "$WORK/conf.out" | sed 's/^/# xrx.conf.5: /'
	check "xrx.conf(5) documents every key of --check-config ($n keys)" \
		$([ "$n" -gt 10 ] && ! grep -q '^missing' "$WORK/conf.out"; echo $?)
	check "xrx.conf(5) gives each key the default xrxd uses" \
		$([ "$n" -gt 10 ] && ! grep -q '^default' "$WORK/conf.out"; echo $?)
fi

done_testing
