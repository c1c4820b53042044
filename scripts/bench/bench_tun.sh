#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# TCP throughput into the DUT's stack over one veth pair, in one run:
#   kernel  iperf3 to a socket on the DUT, no xrx (the kernel's own path)
#   tun     the same, with xrx_rx redirecting the flow to AF_XDP, libxrx
#           aggregating it and the TUN sink injecting the aggregates
#           (tests/helpers/live_rx.c -s tun:DEV,gso)
# Both with TX checksum offload off on the sender, which the xrx path
# needs (valid checksums on the wire), so both see MTU-sized segments.
# Prints a table and writes $BENCH_OUT/bench_tun.json:
#   {"kernel_gbps": G, "tun_gbps": G, "ratio": R, "secs": S, ...}
#   BENCH_SECS=N   seconds per iperf3 run (default 5)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
SECS=${BENCH_SECS:-5}
LIVE=$BUILD/tests/live_rx
PORT=5201
TUN=xt$$
mkdir -p "$BENCH_OUT"
if [ "$(id -u)" != 0 ] || [ ! -x "$LIVE" ] || ! command -v iperf3 >/dev/null; then
	echo "bench_tun: needs root, iperf3 and $LIVE (make)" >&2
	exit 1
fi
OUT=$(mktemp -d)
at_exit rm -rf "$OUT"
testbed_up || exit 1
in_src ethtool -K $IF_SRC tx off >/dev/null

# run NAME: one iperf3 transfer to the DUT; prints receiver Gbit/s
run() {
	in_dut iperf3 -s -1 -B $IP4_DUT -p $PORT >/dev/null 2>&1 &
	local sp=$!
	sleep 0.3
	in_src timeout $((SECS + 20)) iperf3 -c $IP4_DUT -p $PORT -t $SECS -J >"$OUT/$1.json" 2>&1
	wait $sp
	$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.3f" % (d["end"]["sum_received"]["bits_per_second"] / 1e9))' "$OUT/$1.json" 2>/dev/null || echo 0
}

kernel=$(run kernel)

in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
in_dut ip tuntap add dev $TUN mode tun vnet_hdr || exit 1
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0
in_dut ip link set $TUN up
nsenter --net=/run/netns/$NS_DUT "$LIVE" -i $IF_DUT -p $PORT -s "tun:$TUN,gso" \
	-t $((SECS + 60)) >"$OUT/live" 2>&1 &
LP=$!
at_exit kill $LP
wait_for 10 grep -q '^ready' "$OUT/live" || { cat "$OUT/live" >&2; exit 1; }
tun=$(run tun)
kill -INT $LP
wait $LP
st() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }' "$OUT/live"; }
frames=$(st engine frames_in); aggs=$(st engine aggs_out); merged=$(st engine segs_merged)
segs=$(( aggs ? (merged + aggs) / aggs : 0 ))
ratio=$($PY -c "print('%.3f' % ($tun / $kernel if $kernel > 0 else 0))")

printf '%-8s %10s\n' path Gbit/s
printf '%-8s %10s\n' kernel "$kernel" tun "$tun"
printf 'tun/kernel %.1f%%   (frames %s, aggregates %s, %s segments each on average)\n' \
	"$($PY -c "print($ratio * 100)")" "$frames" "$aggs" "$segs"
cat >"$BENCH_OUT/bench_tun.json" <<JSON
{"bench": "tun", "secs": $SECS, "kernel_gbps": $kernel, "tun_gbps": $tun, "ratio": $ratio,
 "frames": ${frames:-0}, "aggregates": ${aggs:-0}, "mean_segments": $segs}
JSON
