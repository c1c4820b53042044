#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# scripts/bench/compare.py on small JSON files in the benchmarks' formats:
# it compares rows by their in-run ratios, in the direction that is
# better for xrx, marks the rows that got worse beyond the threshold and
# says so in its exit status, reads run.sh's combined file, and refuses
# what it cannot read with one line and exit 2.
. "$(dirname "$0")/../lib.sh"

WORK=$(mktemp -d /tmp/xrx-compare-test.XXXXXX)
at_exit rm -rf "$WORK"
CMP=$TOP/scripts/bench/compare.py

# compare OLD NEW [ARGS...]: compare.py's output in $WORK/out, shown as
# comments, and its exit status in rc.
compare() {
	"$CMP" "$@" >"$WORK/out" 2>&1
	rc=$?
	sed 's/^/# /' "$WORK/out"
}

# gen FILE GRO_RATIO XDP_RATIO: a gro row (higher is better) and an xdp
# row (lower is better) with those ratios, as the benchmarks write them.
gen() {
	$PY - "$@" <<'PYEOF'
import json, sys
path, gro, xdp = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
json.dump({"bench": "gro", "rows": [
    {"engine": "xrx", "label": "xrx tcp4/1448/f1/burst header/trust/batch",
     "ratio_vs_dpdk": gro},
    {"engine": "rte_gro", "label": "rte_gro tcp4/1448/f1/burst -/-/batch",
     "ratio_vs_dpdk": 0}]}, open(path + ".gro", "w"))
json.dump({"bench": "xdp", "results": [
    {"frame": "tcp4", "path": "linear", "ratio": xdp}]}, open(path + ".xdp", "w"))
json.dump({"machine": {"cpu": "test"}, "benches": {
    "gro": json.load(open(path + ".gro")),
    "xdp": json.load(open(path + ".xdp"))}}, open(path, "w"))
PYEOF
}

gen "$WORK/old" 2.0 1.5
gen "$WORK/same" 2.0 1.5
gen "$WORK/gro_worse" 1.5 1.5		# xrx/rte_gro fell: 25% worse
gen "$WORK/xdp_better" 2.0 1.2		# xrx_rx cost ratio fell: better

compare "$WORK/old" "$WORK/same"
check "identical runs: exit 0" $rc
check "identical runs: both rows compared, no change" \
	$([ "$(grep -c '+0.0%' "$WORK/out")" = 2 ] && ! grep -q WORSE "$WORK/out"; echo $?)

compare "$WORK/old" "$WORK/gro_worse"
check "a ratio 25% worse: exit 1" $([ $rc = 1 ]; echo $?)
check "the worse row is marked, with its change" \
	$(grep 'header/trust/batch' "$WORK/out" | grep -q -- '-25.0%  WORSE'; echo $?)
check "the unchanged row is not marked" \
	$(grep 'xrx_rx tcp4' "$WORK/out" | grep -vq WORSE; echo $?)

compare "$WORK/old" "$WORK/gro_worse" --threshold 30
check "--threshold 30 lets a 25% change pass" $rc

compare "$WORK/old" "$WORK/xdp_better"
check "a lower cost ratio counts as better, not worse" \
	$([ $rc = 0 ] && grep 'xrx_rx tcp4' "$WORK/out" | grep -q -- '+25.0%'; echo $?)

compare "$WORK/old.gro" "$WORK/gro_worse.gro"
check "single benchmark files compare too" $([ $rc = 1 ]; echo $?)

# The live xrx_rx benchmark (bench_xdp_meta.sh): its median ratios are
# cost ratios; the NIC's hash costing 20% more than xrx's own is worse.
for r in 0.9 1.08; do
	$PY -c 'import json, sys
json.dump({"bench": "xdp_meta", "ratios": {
    "hw/hw_sw": {"what": "NIC hash vs software hash", "median": float(sys.argv[2])},
    "hw_dissect/hw_sw": {"what": "veth", "median": 1.6}}}, open(sys.argv[1], "w"))' \
		"$WORK/meta$r" $r
done
compare "$WORK/meta0.9" "$WORK/meta1.08"
check "xdp_meta: the NIC-hash row compared as a cost (0.90 -> 1.08: worse), veth's own row left out" \
	$([ $rc = 1 ] && grep 'hw/hw_sw' "$WORK/out" | grep -q -- '-16.7%  WORSE' &&
	  ! grep -q hw_dissect "$WORK/out"; echo $?)

# The flow-table flooding benchmark (flood_bench): crafted flows against
# ordinary ones, a cost ratio; the ordinary baseline and the cap-off row
# (the engine without its bucket bound) are not compared.
for r in 1.1 1.4; do
	$PY -c 'import json, sys
r = float(sys.argv[2])
json.dump({"bench": "flood", "rows": [
    {"config": {"flows": "ordinary"}, "label": "ordinary rr/timeout", "ratio_vs_ordinary": 1.0},
    {"config": {"flows": "crafted"}, "label": "crafted rr/timeout", "ratio_vs_ordinary": r},
    {"config": {"flows": "crafted/cap-off"}, "label": "crafted/cap-off rr/timeout", "ratio_vs_ordinary": 100 * r}]},
    open(sys.argv[1], "w"))' "$WORK/flood$r" $r
done
compare "$WORK/flood1.1" "$WORK/flood1.4"
check "flood: crafted flows 1.1x -> 1.4x ordinary compared as a cost (worse); baseline and cap-off left out" \
	$([ $rc = 1 ] && grep 'crafted rr/timeout vs ordinary' "$WORK/out" | grep -q -- '-21.4%  WORSE' &&
	  ! grep -q 'cap-off\|ordinary rr' "$WORK/out"; echo $?)

# Capture (bench_capture.sh) and TUN (bench_tun.sh): CPU per GB against
# tcpdump and the kernel path is a cost, lower is better; the TUN rate
# ratio is a gain.
for r in 1.2 0.9; do
	$PY -c 'import json, sys
r = float(sys.argv[2])
json.dump({"machine": {}, "benches": {
    "capture": {"bench": "capture", "ratios": {"xrx/tcpdump_cpu_per_gb": r,
                                              "xrx/xdpdump_cpu_per_gb": r / 2}},
    "tun": {"bench": "tun", "baseline": "kernel_gro_on", "ratio": 1 / r,
            "ratio_gro_on": 1 / r, "cpu_per_gb_ratio": r}}}, open(sys.argv[1], "w"))' \
		"$WORK/live$r" $r
done
compare "$WORK/live1.2" "$WORK/live0.9"
check "capture and TUN: CPU per GB falling 1.2 -> 0.9 and the rate ratio rising count as better" \
	$([ $rc = 0 ] && grep 'capture xrx CPU per GB vs tcpdump' "$WORK/out" | grep -q -- '+33.3%' &&
	  grep 'capture xrx CPU per GB vs xdpdump' "$WORK/out" | grep -q -- '+33.3%' &&
	  grep 'tun CPU per GB vs the faster GRO-on kernel path' "$WORK/out" | grep -q -- '+33.3%' &&
	  grep 'tun vs the faster GRO-on kernel path' "$WORK/out" | grep -q -- '+33.3%'; echo $?)
compare "$WORK/live0.9" "$WORK/live1.2"
check "capture: CPU per GB rising 0.9 -> 1.2 is WORSE, exit 1" \
	$([ $rc = 1 ] && grep 'capture xrx CPU per GB vs tcpdump' "$WORK/out" | grep -q WORSE; echo $?)

# The tee (bench_tee.sh): the TUN sink with a pcap tee against it alone,
# xrxd's CPU per frame and the whole machine's CPU per GB, both costs.
for r in 1.5 1.2; do
	$PY -c 'import json, sys
r = float(sys.argv[2])
json.dump({"bench": "tee", "cpu_ns_per_frame_ratio": 1.6, "cpu_per_gb_ratio": r,
           "gbps_ratio": 0.9}, open(sys.argv[1], "w"))' "$WORK/tee$r" $r
done
compare "$WORK/tee1.2" "$WORK/tee1.5"
check "tee: machine CPU per GB rising 1.2x -> 1.5x the TUN sink alone is WORSE, exit 1; CPU per frame unchanged" \
	$([ $rc = 1 ] && grep 'tun + pcap tee vs tun alone, machine CPU per GB' "$WORK/out" | grep -q -- '-20.0%  WORSE' &&
	  grep 'tun + pcap tee vs tun alone, CPU per frame' "$WORK/out" | grep -q -- '+0.0%$'; echo $?)
compare "$WORK/tee1.5" "$WORK/tee1.2"
check "tee: machine CPU per GB falling 1.5x -> 1.2x counts as better" \
	$([ $rc = 0 ] && grep 'tun + pcap tee vs tun alone, machine CPU per GB' "$WORK/out" | grep -q -- '+25.0%'; echo $?)

# The L4 sum against reading the same bytes (gro_bench's csum and read
# rows, same train and cache state): the sum falling from 0.93 to 0.65
# of the read speed is worse; a read row of another cache state is not
# its baseline.
for c in 140 200; do
	$PY -c 'import json, sys
def row(engine, cache, ns):
    return {"engine": engine, "proto": "tcp4", "mss": 1448, "flows": 1,
            "order": "burst", "cache": cache, "ns_per_seg": ns,
            "label": "%s tcp4/1448/f1/burst %s/batch%s" % (engine,
                "-/verify" if engine == "csum" else "-/-",
                "/warm" if cache == "warm" else "")}
json.dump({"bench": "gro", "rows": [row("read", "cold", 50.0),
    row("csum", "warm", float(sys.argv[2])), row("read", "warm", 130.0)]},
    open(sys.argv[1], "w"))' "$WORK/sum$c" $c
done
compare "$WORK/sum140" "$WORK/sum200"
check "csum vs read: the sum at 0.93 -> 0.65 of the read speed is WORSE, exit 1" \
	$([ $rc = 1 ] && grep -q 'csum tcp4/1448/f1/burst -/verify/batch/warm vs read  *0.93  *0.65  *-30.0%  WORSE' "$WORK/out"; echo $?)

compare "$WORK/old" "$WORK/missing.json"
check "an unreadable file: exit 2, one line naming it" \
	$([ $rc = 2 ] && [ "$(wc -l <"$WORK/out")" = 1 ] && grep -q missing.json "$WORK/out"; echo $?)

done_testing
