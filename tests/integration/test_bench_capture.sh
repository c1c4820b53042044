#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# scripts/bench/bench_capture.sh, run small (one round of 20000 frames):
# it writes capture.json with a row per capture tool installed (xrx
# and xrx_nap20 always), each with positive CPU per GB and Gbit/s, bytes captured of
# those sent, records and the drops the tool counted; xrx and tcpdump
# write aggregates (fewer records than segments), xdpdump one record per
# frame, every frame recorded or counted as dropped; the
# configuration names snaplen, GRO, NAPI setting and the xrx row's csum
# mode; xrxd's counters are read after its next write (its naps cover
# every frame), and a file sink's naps hold more frames than a stack's
# 20 us naps. A bad setting is refused with one line and exit 2. The figures
# themselves are the benchmark's (make bench), not judged here.
. "$(dirname "$0")/../lib.sh"
need_root
need_bpffs
need_built "$BUILD/xrxd" "$BUILD/xrx-send"

WORK=$(mktemp -d /tmp/xrx-bench-capture-test.XXXXXX)
at_exit rm -rf "$WORK"
B=$TOP/scripts/bench/bench_capture.sh

BENCH_NAPI=sometimes "$B" >"$WORK/out" 2>&1
rc=$?
check "BENCH_NAPI=sometimes: exit 2 with one line naming it ($(head -1 "$WORK/out"))" \
	$([ $rc = 2 ] && [ "$(wc -l <"$WORK/out")" = 1 ] && grep -q 'BENCH_NAPI=sometimes' "$WORK/out"; echo $?)

BENCH_OUT=$WORK BENCH_ROUNDS=1 BENCH_FRAMES=20000 "$B" >"$WORK/out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/out"
check "bench_capture.sh ran (exit 0)" $rc
tools="xrx xrx_nap20"
for t in tcpdump xdpdump; do
	command -v $t >/dev/null && tools="$tools $t"
done
$PY - "$WORK/capture.json" $tools >"$WORK/verdict" 2>&1 <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in d["rows"]}
bad = []
if sorted(rows) != sorted(sys.argv[2:]):
    bad.append("rows %s, tools %s" % (sorted(rows), sorted(sys.argv[2:])))
for n, r in rows.items():
    for k in ("cpu_s_per_gb", "gbit_s", "captured_bytes", "sent_bytes", "records",
              "parties_cpu_s_per_gb"):
        if not isinstance(r.get(k), (int, float)) or r[k] <= 0:
            bad.append("%s: %s = %r" % (n, k, r.get(k)))
    if r["sent_bytes"] != 20000 * 1448:
        bad.append("%s: sent_bytes %r, not 20000 x 1448" % (n, r["sent_bytes"]))
    if r["captured_bytes"] > r["sent_bytes"]:
        bad.append("%s: captured more than sent" % n)
    if n in ("xrx", "xrx_nap20", "tcpdump") and not r["records_per_segment"] < 1:
        bad.append("%s: %r records per segment: no aggregation" % (n, r["records_per_segment"]))
    if n == "xdpdump" and abs(r["records_per_segment"] - 1) > 1e-9:
        bad.append("xdpdump: %r records per segment, not one per frame" % r["records_per_segment"])
    if not isinstance(r.get("dropped_frames"), int) or r["dropped_frames"] < 0:
        bad.append("%s: dropped_frames %r" % (n, r.get("dropped_frames")))
    if n == "xdpdump" and r["records"] + r["dropped_frames"] != 20000:
        bad.append("xdpdump: %d records + %d dropped, not the 20000 frames sent" % (
            r["records"], r["dropped_frames"]))
    if len(r["rounds"]) != 1 or not r["rounds"][0]["per_cpu"]:
        bad.append("%s: rounds or per-CPU split missing" % n)
    if n.startswith("xrx"):
        # xrxd's counters read after its next write, not before: the
        # naps cover every frame
        p = r["rounds"][0]
        if not p.get("naps") or abs(p["naps"] * p["frames_per_nap"] - 20000) > 200:
            bad.append("%s: %r naps x %r frames per nap, not the 20000 frames" % (
                n, p.get("naps"), p.get("frames_per_nap")))
if "xrx" in rows and "xrx_nap20" in rows:
    a, b = rows["xrx"]["frames_per_nap"], rows["xrx_nap20"]["frames_per_nap"]
    # a file sink's naps grow past a stack's 20 us
    if not (a and b and a > 2 * b):
        bad.append("frames per nap: xrx %r, xrx_nap20 %r: the file's nap is not longer" % (a, b))
c = d["config"]
if c.get("snaplen") != 262144 or c.get("gro") != "on" or c.get("napi") != "defer" \
        or c.get("csum", {}).get("xrx") != "trust":
    bad.append("config %r" % c)
if "xrx/tcpdump_cpu_per_gb" not in d["ratios"] and "tcpdump" in rows:
    bad.append("no xrx/tcpdump ratio")
print("\n".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PYEOF
rc=$?
sed 's/^/# /' "$WORK/verdict"
check "capture.json: a row per tool ($tools) with positive figures, aggregates where expected, the configuration" $rc
done_testing
