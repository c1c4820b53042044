#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The man pages (man/): each renders without a groff or man warning, each
# program installed has one, and they cannot drift from the programs:
# every option and command a program's --help lists appears in its page,
# and every row of its option table (util/cli.h),
# every key `xrxd --check-config` prints appears in xrx.conf(5) with the
# default xrxd uses, and every option of libxrx's options table has its
# bounds, words and default in xrx.conf(5), docs/xrx.conf.md and
# xrx-replay(1).
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

# Every row of each command's option table (util/cli.h; the hidden
# --list-options prints them), its subcommands' too, is in its page:
# the tables hold options --help shows only in passing (xrx-send --dst).
for cmd in "xrxd:8" "xrxctl:8" "xrxctl stats:8" "xrxctl reload:8" \
	   "xrxctl rules:8" "xrxctl status:8" "xrxctl restore:8" \
	   "xrxctl offloads:8" "xrx-send:1" "xrx-replay:1"; do
	name=${cmd%:*}
	prog=${name%% *}
	page=$MAN/$prog.${cmd#*:}
	if [ ! -x "$BUILD/$prog" ]; then
		skip "$name: its option table is in its page" "$BUILD/$prog missing; run make"
		continue
	fi
	render "$page" 200 >"$WORK/page.txt"
	# shellcheck disable=SC2086 # "xrxctl stats": the program and its command
	rows=$("$BUILD"/$name --list-options | awk '{ print $1 }')
	missing=""
	for w in $rows; do
		grep -qE -- "(^|[^-A-Za-z0-9])$w([^-A-Za-z0-9]|\$)" "$WORK/page.txt" ||
			missing="$missing $w"
	done
	[ -n "$missing" ] && diag "$name: in its option table, not in $(basename "$page"):$missing"
	check "$name: every row of its option table is in $(basename "$page") ($(echo $rows | wc -w) rows)" \
		$([ -n "$rows" ] && [ -z "$missing" ]; echo $?)
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

# The options table (include/xrx/options.h): each option's bounds, words
# and default, as libxrx has them, in xrx.conf(5), docs/xrx.conf.md and
# xrx-replay(1), wherever the option is a key or a flag.
if [ ! -x "$BUILD/tests/opt_table" ]; then
	skip "options table in the pages" "$BUILD/tests/opt_table missing; run make"
else
	"$BUILD/tests/opt_table" >"$WORK/table"
	cat >"$WORK/table.py" <<'PYEOF'
import re, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
conf = [l.strip() for l in open(sys.argv[2])]
replay = [l.strip() for l in open(sys.argv[3])]
md = open(sys.argv[4]).read().splitlines()

def bounds(lo, hi):
    return re.compile(r"\b%s\s*(?:\u2013|-|to)\s*%s\b" % (lo, hi))

def entry(lines, tag):
    for i, l in enumerate(lines):
        if re.match(tag, l):
            return lines[i], " ".join(lines[i:i + 5])
    return None, None

def says(where, key, text, typ, dflt, lo, hi, count, words, head=None):
    """What a page must say of one option, as 'ok'/'bad' lines."""
    if text is None:
        print("bad %s: no entry for %s" % (where, key))
        return
    need = []
    if typ == "u32":
        need.append(("%s\u2013%s" % (lo, hi), bounds(lo, hi).search(text)))
    elif typ == "ports":
        need.append(("up to / at most %s" % count,
                     re.search(r"(up to|at most) %s\b" % count, text)))
        if where != "xrx.conf.5":
            need.append(("%s\u2013%s" % (lo, hi), bounds(lo, hi).search(text)))
    else:
        for w in words.split(","):
            need.append((w, re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(w),
                                      head if head is not None else text)))
    for what, found in need:
        print("%s %s: %s %s" % ("ok" if found else "bad", where, key, what))

for key, flag, set_, typ, dflt, lo, hi, count, words in rows:
    if key != "-":
        head, text = entry(conf, re.escape(key) + r"( =|$)")
        says("xrx.conf.5", key, text, typ, dflt, lo, hi, count, words, head)
        row = [l for l in md if l.startswith("| `%s` |" % key)]
        if not row:
            print("bad xrx.conf.md: no row for %s" % key)
        else:
            cols = [c.strip() for c in row[0].split("|")]
            says("xrx.conf.md", key, cols[2], typ, dflt, lo, hi, count,
                 words.replace(",", "`,`").join("``") if words else words)
            want = dflt if typ in ("u32",) else "`%s`" % dflt
            print("%s xrx.conf.md: %s default %s" %
                  ("ok" if cols[3] == want else "bad", key, want))
    elif flag != "-" and set_ == "sink":
        # a sink option without a key is an option of the pcap sink spec:
        # FLAG=N, or a bool's FLAG=on (FLAG alone turns it on)
        form = "%s=on" % flag if typ == "bool" else "%s=N" % flag
        m = [l for l in conf if form in l or form.replace("=", "= ") in l]
        says("xrx.conf.5", flag + "=", " ".join(m) or None, typ, dflt, lo,
             hi, count, words)
        m = [l for l in md if "`%s`" % form in l]
        says("xrx.conf.md", flag + "=", " ".join(m) or None, typ, dflt, lo,
             hi, count, words)
    if flag != "-" and typ != "bool":	# a bool's flag takes no value
        head, text = entry(replay, r"(-\w, )?--%s\b" % re.escape(flag))
        says("xrx-replay.1", "--" + flag, text, typ, dflt, lo, hi, count,
             words)
PYEOF
	# table_says CONF.5: what the pages say of each option, 'ok' or 'bad'.
	table_says() {
		render "$1" 1000 >"$WORK/conf1000.txt"
		render "$MAN/xrx-replay.1" 1000 >"$WORK/replay1000.txt"
		$PY "$WORK/table.py" "$WORK/table" "$WORK/conf1000.txt" \
			"$WORK/replay1000.txt" "$TOP/docs/xrx.conf.md"
	}
	table_says "$MAN/xrx.conf.5" >"$WORK/table.out"
	n=$(grep -c '^ok ' "$WORK/table.out")
	grep -v '^ok ' "$WORK/table.out" | sed 's/^/# /'
	check "the pages give every option of the table its bounds, words and default ($n facts)" \
		$([ "$n" -gt 20 ] && ! grep -q '^bad' "$WORK/table.out"; echo $?)
	# The check above must see a page whose bound is not the table's.
	sed 's/1\\(en16777216/1\\(en1048576/' "$MAN/xrx.conf.5" >"$WORK/old.5"
	table_says "$WORK/old.5" >"$WORK/old.out"
	check "a page with another bound than the table is reported (control)" \
		$(grep -q '^bad xrx.conf.5: flows' "$WORK/old.out"; echo $?)
fi

done_testing
