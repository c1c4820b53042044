#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# jpath (xrxd_lib.sh), which every live test reads xrxctl's JSON with,
# against Python's json module: its awk flattening (the kernel guests'
# fast path) must give, for every leaf it keeps, the value Python gives,
# and leave to Python what it cannot say the same way (floats, escaped
# strings, arrays). Proves:
#   - every leaf of the documents below, looked up by jpath, prints what
#     Python's str() of json.load() prints (the ones awk keeps and the
#     ones it leaves out alike);
#   - what awk keeps is a subset of Python's leaves, value for value;
#   - a file rewritten with other bytes of the same size within the same
#     second is read again (the cache is keyed by content, not time);
#   - a document that is not JSON is an error, not a value;
#   - "-" reads one record from stdin.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

WORK=$(mktemp -d /tmp/xrx-jpath.XXXXXX)
at_exit rm -rf "$WORK"

# Python's leaves, as jpath's Python path prints them.
pyleaves() {
	"$PY" -c '
import json, sys
def walk(p, v):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(p + [str(k)], x)
    elif not isinstance(v, list):
        s = str(v)
        if "\t" not in s and "\n" not in s:
            print(".".join(p) + "\t" + s)
walk([], json.load(open(sys.argv[1])))' "$1"
}

cat >"$WORK/edge.json" <<'EOF'
{"interface": "eth0", "running": true, "stopped": false, "none": null,
 "n": {"zero": 0, "negzero": -0, "neg": -5, "big": 18446744073709551615,
       "ns": 1796572473532330210, "f": 1.50, "e": 1e-5, "E": 2E+3},
 "s": {"plain": "a b c", "quote": "q\"z", "slash": "a\\b", "uni": "\u00e9",
       "colon": "x: y, z", "braces": "{[]}"},
 "esc\"key": {"inner": 3},
 "arr": [1, {"x": 2}, [3, 4]], "after_arr": {"k": 7},
 "empty": {}, "deep": {"a": {"b": {"c": {"d": 42}}}}}
EOF
cp "$TOP/docs/bench/capture_2q.json" "$WORK/bench.json"
# the shape of xrxctl stats --json: one line
"$PY" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")))' \
	"$WORK/bench.json" >"$WORK/oneline.json"

for doc in edge bench oneline; do
	f=$WORK/$doc.json
	pyleaves "$f" >"$WORK/$doc.py"
	n=0 bad=0
	while IFS=$'\t' read -r path want; do
		n=$((n + 1))
		got=$(jpath "$f" "$path" 2>&1)
		[ "$got" = "$want" ] || {
			bad=$((bad + 1))
			[ $bad -le 3 ] && diag "$doc: $path: jpath '$got', Python '$want'"
		}
	done <"$WORK/$doc.py"
	check "$doc: jpath prints Python's value for all $n leaves" \
		$([ $n -gt 0 ] && [ $bad = 0 ]; echo $?)
	_jpath_flatten "$f" | sort >"$WORK/$doc.awk"
	sort "$WORK/$doc.py" >"$WORK/$doc.pys"
	extra=$(comm -13 "$WORK/$doc.pys" "$WORK/$doc.awk" | head -3)
	[ -z "$extra" ] || diag "$doc: awk's leaf not Python's: $extra"
	check "$doc: awk keeps $(wc -l <"$WORK/$doc.awk") of $n leaves, each as Python has it" \
		$([ -s "$WORK/$doc.awk" ] && [ -z "$extra" ]; echo $?)
done
grep -qE '^n\.f|^s\.quote|^arr' "$WORK/edge.awk"
check "edge: floats, escaped strings and arrays left to Python" $([ $? = 1 ]; echo $?)
check "edge: a key after an array is kept (after_arr.k = $(jpath "$WORK/edge.json" after_arr.k))" \
	$(grep -q "^after_arr.k	7$" "$WORK/edge.awk"; echo $?)

# the same size, other bytes, the same second
echo '{"user": {"unaccounted": 5}}' >"$WORK/s.json"
a=$(jpath "$WORK/s.json" user.unaccounted)
echo '{"user": {"unaccounted": 0}}' >"$WORK/s.json"
touch -r "$WORK/s.json.leaves" "$WORK/s.json"
b=$(jpath "$WORK/s.json" user.unaccounted)
check "a rewrite of the same size and time is read again ($a then $b)" \
	$([ "$a" = 5 ] && [ "$b" = 0 ]; echo $?)

head -c 40 "$WORK/oneline.json" >"$WORK/cut.json"
v=$(jpath "$WORK/cut.json" tool 2>/dev/null)
rc=$?
check "a document cut short is an error (exit $rc), not a value ('$v')" \
	$([ $rc != 0 ] && [ -z "$v" ]; echo $?)
v=$(echo '{"user": {"pid": 42}}' | jpath - user.pid)
check "- reads one record from stdin ($v)" $([ "$v" = 42 ]; echo $?)
done_testing
