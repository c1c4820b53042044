#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Every benchmark file docs/bench/ keeps names its command, commit and
# time, and every figure docs/bench/figures.tsv lists is what README.md
# says on the line that names its JSON file (scripts/bench/figures.py).
# Then the same check on copies with one thing wrong each, which it must
# catch and name.
. "$(dirname "$0")/../lib.sh"

FIG=$TOP/scripts/bench/figures.py
WORK=$(mktemp -d /tmp/xrx-figures-test.XXXXXX)
at_exit rm -rf "$WORK"

# run ARGS...: figures.py's output in $WORK/out, shown as comments; rc.
run() {
	"$FIG" "$@" >"$WORK/out" 2>&1
	rc=$?
	sed 's/^/# /' "$WORK/out"
}

run
ok "docs/bench: every JSON names its run, every listed README figure is its row's" [ $rc = 0 ]

# A copy of docs/bench inside this checkout (commits resolve) to break.
copy() {
	rm -rf "$WORK/bench" && cp -r "$TOP/docs/bench" "$WORK/bench" &&
		cp "$TOP/README.md" "$WORK/README.md"
}

copy
$PY - "$WORK/bench/tun.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); del d["command"]
json.dump(d, open(sys.argv[1], "w"))
PYEOF
run --dir "$WORK/bench" --doc "$WORK/README.md"
ok "a file without its command fails, naming the file" \
	sh -c "[ $rc = 1 ] && grep -q '^tun.json: no \"command\"' '$WORK/out'"

copy
$PY - "$WORK/bench/xdp.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); d["commit"] = "0000000"
json.dump(d, open(sys.argv[1], "w"))
PYEOF
run --dir "$WORK/bench" --doc "$WORK/README.md"
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	ok "a commit not in the repository fails" \
		sh -c "[ $rc = 1 ] && grep -q '^xdp.json: commit 0000000 is not in this repository' '$WORK/out'"
else
	skip "a commit not in the repository fails" "not a git checkout: commits cannot be resolved"
fi

# The TUN row quoting tun.json's rate where the reference run's belongs.
copy
sed -i '/\*\*TCP into the stack\*\*/s/| 3\.25 Gbit\/s/| 6.13 Gbit\/s/' "$WORK/README.md"
run --dir "$WORK/bench" --doc "$WORK/README.md"
ok "a README figure that is not its row's fails, naming the row" \
	sh -c "[ $rc = 1 ] && grep -q 'reference.json benches.tun.tun_gbps is 3.25 Gbit/s' '$WORK/out'"

# A row that does not name the file its figure comes from.
copy
sed -i '/\*\*TCP into the stack\*\*/s/docs\/bench\/tun\.json/the later run/' "$WORK/README.md"
run --dir "$WORK/bench" --doc "$WORK/README.md"
ok "a README line that does not name the figure's file fails" \
	sh -c "[ $rc = 1 ] && grep -q 'does not name tun.json' '$WORK/out'"

# A figure of docs/benchmarks.md (the rows after "@doc") held the same way.
copy
cp "$TOP/docs/benchmarks.md" "$WORK/benchmarks.md"
sed -i '/\*\*capture to a file\*\*/s/| 4\.44 CPU-s\/GB/| 4.45 CPU-s\/GB/' "$WORK/benchmarks.md"
sed "s|^@doc .*|@doc $WORK/benchmarks.md|" "$TOP/docs/bench/figures.tsv" >"$WORK/figures.tsv"
run --dir "$WORK/bench" --doc "$WORK/README.md" --list "$WORK/figures.tsv"
ok "a docs/benchmarks.md figure that is not its row's fails, naming the row" \
	sh -c "[ $rc = 1 ] && grep -q 'benchmarks.md: \*\*capture to a file\*\*): capture.json rows\[name=xrx\].cpu_s_per_gb is 4.44' '$WORK/out'"

done_testing
