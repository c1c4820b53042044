#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# scripts/bench/bench_capture.sh, run small (one round of 20000 frames):
# it writes capture.json with a row per capture tool installed (xrx,
# xrx_verify and xrx_nap20 always), each with positive CPU per GB and Gbit/s, bytes
# captured of those sent, records and the drops the tool counted; xrx and
# tcpdump write aggregates (fewer records than segments), xdpdump one
# record per frame; with xrx every frame is received or counted as
# dropped, by xrx or by the source veth (which drops what a busy
# receiving CPU cannot take: no tool sees those), xrxd's counters read
# once it has taken every frame that reached the DUT; xdpdump counts no
# more than were sent. The configuration names
# snaplen, GRO, NAPI setting and each xrx row's csum mode (trust,
# verify), and both xrx rows have their ratio against tcpdump. xrx chose the
# file sink's longest nap (1000 us, bounded by what the default
# 2048-entry rings hold at veth's 10 Gbit/s: 110 us) where xrx_nap20 has
# the 20 us it is set to: the policy, not how many frames a nap held,
# which a busy scheduler decides. A bad setting is refused with one line
# and exit 2. The figures themselves are the benchmark's (make bench),
# not judged here.
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

BENCH_QUEUES=3 "$B" >"$WORK/out" 2>&1
rc=$?
check "BENCH_QUEUES=3: exit 2 with one line naming it ($(head -1 "$WORK/out"))" \
	$([ $rc = 2 ] && [ "$(wc -l <"$WORK/out")" = 1 ] && grep -q 'BENCH_QUEUES=3' "$WORK/out"; echo $?)
BENCH_TOOLS=xrx_perqueue BENCH_QUEUES=3 "$B" >"$WORK/out" 2>&1
rc=$?
check "xrx_perqueue is a known row (only BENCH_QUEUES is refused: $(head -1 "$WORK/out"))" \
	$([ $rc = 2 ] && grep -q 'BENCH_QUEUES=3' "$WORK/out"; echo $?)

BENCH_OUT=$WORK BENCH_ROUNDS=1 BENCH_FRAMES=20000 "$B" >"$WORK/out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/out"
check "bench_capture.sh ran (exit 0)" $rc
tools="xrx xrx_verify xrx_nap20"
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
    if n in ("xrx", "xrx_verify", "xrx_nap20", "tcpdump") and not r["records_per_segment"] < 1:
        bad.append("%s: %r records per segment: no aggregation" % (n, r["records_per_segment"]))
    if n == "xdpdump" and abs(r["records_per_segment"] - 1) > 1e-9:
        bad.append("xdpdump: %r records per segment, not one per frame" % r["records_per_segment"])
    if not isinstance(r.get("dropped_frames"), int) or r["dropped_frames"] < 0:
        bad.append("%s: dropped_frames %r" % (n, r.get("dropped_frames")))
    # xdpdump's own count is exact only while its CPU keeps up: beside a
    # CPU hog, frames were seen in neither its records nor its perf ring
    # drops (783 of 20000), so only "no more than sent" holds
    if n == "xdpdump" and r["records"] + r["dropped_frames"] + r["veth_dropped"] > 20000:
        bad.append("xdpdump: %d records + %d dropped + %d dropped by the veth, more than the 20000 frames sent" % (
            r["records"], r["dropped_frames"], r["veth_dropped"]))
    if len(r["rounds"]) != 1 or not r["rounds"][0]["per_cpu"]:
        bad.append("%s: rounds or per-CPU split missing" % n)
    if n.startswith("xrx"):
        # xrxd's counters read once it had taken every frame that
        # reached the DUT: each one received or counted dropped
        p = r["rounds"][0]
        if p.get("rx_frames") is None or \
                p["rx_frames"] + p["dropped_frames"] + p["veth_dropped"] != 20000:
            bad.append("%s: %r frames received + %r dropped + %r dropped by the veth, not the 20000 sent" % (
                n, p.get("rx_frames"), p["dropped_frames"], p.get("veth_dropped")))
# the nap chosen: 4/5 of 2048 frames of 84 bytes at 10 Gbit/s for a file
# (its 1000 us is longer), coalesce_us = 20 for xrx_nap20
file_nap = 2048 * 672 * 1000 // 10000 * 4 // 5 // 1000
want = {"xrx": file_nap, "xrx_verify": file_nap, "xrx_nap20": 20}
for n, w in want.items():
    if n in rows and rows[n].get("nap_max_us") != w:
        bad.append("%s: nap_max_us %r, not %d" % (n, rows[n].get("nap_max_us"), w))
c = d["config"]
if c.get("snaplen") != 262144 or c.get("gro") != "on" or c.get("napi") != "defer" \
        or c.get("csum", {}).get("xrx") != "trust" \
        or c.get("csum", {}).get("xrx_verify") != "verify":
    bad.append("config %r" % c)
for a in ("xrx", "xrx_verify"):
    if "%s/tcpdump_cpu_per_gb" % a not in d["ratios"] and "tcpdump" in rows:
        bad.append("no %s/tcpdump ratio" % a)
print("\n".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PYEOF
rc=$?
sed 's/^/# /' "$WORK/verdict"
check "capture.json: a row per tool ($tools) with positive figures, aggregates where expected, the configuration" $rc
done_testing
