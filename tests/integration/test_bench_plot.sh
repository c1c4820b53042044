#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench-plot (scripts/bench/plot.sh) on small JSON files in the
# benchmarks' formats: the four PNGs are written, are PNG images of the
# intended size, and a folder without JSON is refused. Also: the committed
# architecture picture was rendered from the committed graphviz source.
. "$(dirname "$0")/../lib.sh"

WORK=$(mktemp -d /tmp/xrx-plot-test.XXXXXX)
at_exit rm -rf "$WORK"

# png_size FILE: "WxH" from the IHDR chunk, or "no" for anything else.
png_size() {
	$PY -c 'import struct, sys
d = open(sys.argv[1], "rb").read(24)
ok = d[:8] == b"\x89PNG\r\n\x1a\n" and d[12:16] == b"IHDR"
print("%dx%d" % struct.unpack(">II", d[16:24]) if ok else "no")' "$1" 2>/dev/null || echo no
}

# The SVG carries the sha256 of the .dot it was rendered from (make docs).
want=$(sha256sum "$TOP/docs/architecture.dot" | cut -d' ' -f1)
check "docs/architecture.svg is rendered from the current architecture.dot (make docs)" \
	$(grep -q "<!-- source: architecture.dot sha256 $want -->" "$TOP/docs/architecture.svg"; echo $?)
check "docs/architecture.png is a PNG" \
	$([ "$(png_size "$TOP/docs/architecture.png")" != no ]; echo $?)

if ! command -v gnuplot >/dev/null; then
	skip "bench-plot" "gnuplot missing (package gnuplot-nox; scripts/deps.sh --bench)"
	done_testing
	exit 0
fi

# Rows as gro_bench writes them: xrx header/verify and header/trust and
# rte_gro, for each order and flush kind, at two flow counts; the copy
# modes at both counts; the fair rows (warm rows, rte_gro's flush
# cadences at 16384 flows).
$PY - "$WORK/gro.json" "$WORK/xdp.json" <<'PYEOF'
import json, sys
rows = []
def row(engine, order, flush, flows, copy, csum, mpps, cache="cold", every=1):
    rows.append({"engine": engine, "label": "x", "proto": "tcp4", "mss": 1448,
                 "flows": flows, "order": order, "copy": copy, "csum": csum,
                 "flush": flush, "max_aggregate": 65536, "mpps": mpps,
                 "ns_per_seg": 1000.0 / mpps, "cache": cache, "flush_every": every,
                 "bytes_copied_per_seg": {"header": 2.06, "max-head": 256.0,
                                          "full": 1450.06}.get(copy, 0),
                 "payload_bytes_copied_per_seg": {"header": 0.0, "max-head": 190.0,
                                                  "full": 1448.0}.get(copy, 0)})
for order in ("burst", "rr"):
    for flush in ("batch", "timeout"):
        for flows in (1, 1024):
            for copy in ("header", "max-head", "full"):
                row("xrx", order, flush, flows, copy, "verify", 3.0)
                row("xrx", order, flush, flows, copy, "trust", 9.0)
            row("rte_gro", order, flush, flows, None, None, 12.0)
row("xrx", "burst", "batch", 1, "header", "trust", 30.0, "warm")
row("rte_gro", "burst", "batch", 1, None, None, 25.0, "warm")
for flush in ("batch", "timeout"):
    row("xrx", "rr", flush, 16384, "header", "trust", 18.0)
    for every in (1, 8, 64):
        row("rte_gro", "rr", flush, 16384, None, None, 1.0 / every, "cold", every)
json.dump({"bench": "gro", "quick": True, "rows": rows}, open(sys.argv[1], "w"))
json.dump({"bench": "xdp", "method": "test", "target_ratio": 3.0, "results": [
    {"frame": f, "len": 1514, "xrx_rx": 140.0, "xrx_rx_pass": 120.0,
     "xsk_redirect": 40.0, "ratio": 3.5} for f in ("tcp4", "tcp6", "udp4")]},
    open(sys.argv[2], "w"))
PYEOF

"$TOP/scripts/bench/plot.sh" "$WORK" >"$WORK/out" 2>&1
rc=$?
sed 's/^/# /' "$WORK/out"
check "plot.sh exits 0" $rc
for p in gro_flows gro_copy gro_fair xdp; do
	f=$WORK/$p.png
	check "$p.png is a 1400 x 900 PNG" \
		$([ "$(png_size "$f")" = 1400x900 ]; echo $?)
	# A blank canvas compresses to a few KiB; axes, bars and text do not.
	check "$p.png has content" $([ "$(stat -c %s "$f" 2>/dev/null || echo 0)" -gt 20000 ]; echo $?)
done

mkdir "$WORK/empty"
"$TOP/scripts/bench/plot.sh" "$WORK/empty" >"$WORK/out" 2>&1
rc=$?
check "a folder without benchmark JSON is refused, saying what to run" \
	$([ $rc != 0 ] && grep -q 'make bench' "$WORK/out"; echo $?)

done_testing
