#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Turn the benchmarks' JSON into pictures: `make bench-plot`.
#
#   scripts/bench/plot.sh [DIR]     DIR/*.json -> DIR/*.png (build/bench)
#
# From DIR/gro.json (scripts/bench/gro_bench.c):
#   gro_flows.png  Mpps against concurrent flows, xrx and DPDK's rte_gro,
#                  one panel per arrival order and flush kind
#   gro_copy.png   Mpps and bytes copied per segment for each copy mode
#   gro_fair.png   the fair rows: ns per segment of xrx and rte_gro, one
#                  flow with both engines cold and both warm, and 16384
#                  flows (round robin, and in runs of 4 that merge) with
#                  rte_gro's timeout flush every 1, 8 and 64 batches (rows
#                  of older runs without them: skipped); the engine with
#                  its fast path on
# From DIR/xdp.json (scripts/bench/xdp_bench.c):
#   xdp.png        ns per frame of xrx_rx against a bare XSKMAP redirect
#
# The JSON is flattened into gnuplot data files by python3 (standard
# library only); scripts/bench/plot.gp draws them. A missing JSON file
# skips its pictures; no picture at all is an error.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-$TOP/build/bench}
PY=/usr/bin/python3
[ -x $PY ] || PY=python3

if ! command -v gnuplot >/dev/null; then
	echo "bench-plot: gnuplot missing; apt-get install gnuplot-nox (or scripts/deps.sh --bench)" >&2
	exit 1
fi
if [ ! -e "$DIR/gro.json" ] && [ ! -e "$DIR/xdp.json" ]; then
	echo "bench-plot: no gro.json or xdp.json in $DIR; run make bench first" >&2
	exit 1
fi

DAT=$(mktemp -d /tmp/xrx-plot.XXXXXX)
trap 'rm -rf "$DAT"' EXIT

# Tables for gnuplot, one file per picture, '?' where a row is missing.
$PY - "$DIR" "$DAT" <<'PYEOF'
import json, os, sys

src, dst = sys.argv[1:3]

def load(name):
    p = os.path.join(src, name)
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)

def num(v):
    return "?" if v is None else "%g" % v

gro = load("gro.json")
if gro:
    rows = gro["rows"]
    # TCPv4 at MSS 1448: the only trains rte_gro also runs.
    def pick(engine, order, flush, flows, copy=None, csum=None,
             proto="tcp4", mss=1448, cache="cold", every=1):
        for r in rows:
            if (r["engine"] == engine and r["proto"] == proto and
                    r["mss"] == mss and r["order"] == order and
                    r["flush"] == flush and r["flows"] == flows and
                    r.get("max_aggregate", 65536) <= 65536 and
                    r.get("cache", "cold") == cache and
                    r.get("flush_every", 1) == every and
                    r.get("fast_path") is not False and
                    (copy is None or r.get("copy") == copy) and
                    (csum is None or r.get("csum") == csum)):
                return r
        return None

    flows = sorted({r["flows"] for r in rows})
    with open(os.path.join(dst, "gro_flows.dat"), "w") as f:
        for order in ("burst", "rr"):
            for flush in ("batch", "timeout"):
                f.write("# %s %s\n# flows xrx/verify xrx/trust rte_gro\n"
                        % (order, flush))
                for n in flows:
                    v = pick("xrx", order, flush, n, "header", "verify")
                    t = pick("xrx", order, flush, n, "header", "trust")
                    d = pick("rte_gro", order, flush, n)
                    f.write("%d %s %s %s\n" % (n,
                            num(v and v["mpps"]), num(t and t["mpps"]),
                            num(d and d["mpps"])))
                f.write("\n\n")

    # Copy modes at the flow counts that have them all.
    cflows = [n for n in flows
              if all(pick("xrx", "burst", "batch", n, c, "trust")
                     for c in ("header", "max-head", "full"))]
    with open(os.path.join(dst, "gro_copy.dat"), "w") as f:
        f.write("# copy " + " ".join("mpps_f%d" % n for n in cflows) +
                " bytes_copied_per_seg payload_bytes_copied_per_seg\n")
        for copy in ("header", "max-head", "full"):
            mp = [pick("xrx", "burst", "batch", n, copy, "trust")
                  for n in cflows]
            one = next((r for r in mp if r), None)
            f.write('"%s" %s %s %s\n' % (copy,
                    " ".join(num(r and r["mpps"]) for r in mp),
                    num(one and one["bytes_copied_per_seg"]),
                    num(one and one["payload_bytes_copied_per_seg"])))
    # The fair rows: header copy, checksums trusted as rte_gro does (it
    # checks none), same cache state on both sides.
    fair = []
    for label, nflows, order, flush, cache, every in (
            ("1 flow, cold", 1, "burst", "batch", "cold", 1),
            ("1 flow, warm", 1, "burst", "batch", "warm", 1),
            ("16384 flows\\nround robin\\nflush every batch", 16384, "rr", "timeout", "cold", 1),
            ("16384 flows\\nround robin\\nflush every 8", 16384, "rr", "timeout", "cold", 8),
            ("16384 flows\\nround robin\\nflush every 64", 16384, "rr", "timeout", "cold", 64),
            ("16384 flows\\nin runs of 4\\nflush every batch", 16384, "run4", "timeout", "cold", 1),
            ("16384 flows\\nin runs of 4\\nflush every 8", 16384, "run4", "timeout", "cold", 8),
            ("16384 flows\\nin runs of 4\\nflush every 64", 16384, "run4", "timeout", "cold", 64)):
        x = pick("xrx", order, flush, nflows, "header", "trust", cache=cache)
        d = pick("rte_gro", order, flush, nflows, cache=cache, every=every)
        if x and d and x.get("ns_per_seg") and d.get("ns_per_seg"):
            fair.append('"%s" %g %g %g\n' % (label, x["ns_per_seg"],
                        d["ns_per_seg"], d["ns_per_seg"] / x["ns_per_seg"]))
    if fair:
        with open(os.path.join(dst, "gro_fair.dat"), "w") as f:
            f.write("# row xrx_ns rte_gro_ns rte_gro_over_xrx\n")
            f.writelines(fair)

    with open(os.path.join(dst, "gro_meta"), "w") as f:
        f.write("%s\n" % " ".join(str(n) for n in flows))
        f.write("%s\n" % ("quick" if gro.get("quick") else "full"))
        f.write("%s\n" % " ".join(str(n) for n in cflows))

xdp = load("xdp.json")
if xdp:
    with open(os.path.join(dst, "xdp.dat"), "w") as f:
        f.write("# frame xrx_rx xrx_rx_pass xsk_redirect ratio\n")
        for r in xdp["results"]:
            f.write('"%s" %s %s %s %s\n' % (r["frame"], num(r["xrx_rx"]),
                    num(r.get("xrx_rx_pass")), num(r["xsk_redirect"]),
                    num(r.get("ratio"))))
    with open(os.path.join(dst, "xdp_meta"), "w") as f:
        f.write("%s\n%s\n" % (xdp.get("method", ""), xdp.get("target_ratio", 0)))
PYEOF

made=()
if [ -e "$DAT/gro_flows.dat" ]; then
	flows=$(sed -n 1p "$DAT/gro_meta")
	kind=$(sed -n 2p "$DAT/gro_meta")
	cflows=$(sed -n 3p "$DAT/gro_meta")
	gnuplot -e "dat='$DAT'; out='$DIR'; flows='$flows'; cflows='$cflows'; kind='$kind'; what='gro'" \
		"$TOP/scripts/bench/plot.gp"
	made+=("$DIR/gro_flows.png" "$DIR/gro_copy.png")
	if [ -e "$DAT/gro_fair.dat" ]; then
		gnuplot -e "dat='$DAT'; out='$DIR'; kind='$kind'; what='gro_fair'" \
			"$TOP/scripts/bench/plot.gp"
		made+=("$DIR/gro_fair.png")
	fi
fi
if [ -e "$DAT/xdp.dat" ]; then
	method=$(sed -n 1p "$DAT/xdp_meta")
	target=$(sed -n 2p "$DAT/xdp_meta")
	gnuplot -e "dat='$DAT'; out='$DIR'; method='$method'; target=$target; what='xdp'" \
		"$TOP/scripts/bench/plot.gp"
	made+=("$DIR/xdp.png")
fi
for p in "${made[@]}"; do
	[ -s "$p" ] || { echo "bench-plot: $p was not written" >&2; exit 1; }
	echo "bench-plot: $p"
done
