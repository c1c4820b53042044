#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# TCP end to end through xrx: 1 GiB over IPv4 and over IPv6 from the
# source namespace to the DUT, where xrx_rx redirects the flow to AF_XDP,
# libxrx aggregates it and the TUN sink hands the aggregates to the DUT's
# own stack as GSO packets (tests/helpers/live_rx.c -s tun:DEV).
#
# Topology: the DUT's addresses stay on its veth, so its replies (ACKs)
# leave through the veth by plain routing; the TUN has no address: the
# stack takes what arrives on it as its own because the destination is a
# local address (weak host model), with rp_filter off for IPv4 (the
# source is routed through the veth, not the TUN).
#
# Proves: both transfers complete, the receiver's hash of the byte stream
# equals the sender's (tests/helpers/tcp_hash.c), the engine built
# aggregates of many segments, the sink wrote them all with no error, the
# TUN counted no rx errors, and the frame-ownership check passes.
#
# XRX_TUN_KIND=tap (tests/integration/test_tap_tcp.sh) runs the same
# through the L2 sink: a TAP carrying the DUT veth's MAC address, so the
# stack takes the frames written to it, Ethernet header and all.
. "$(dirname "$0")/../lib.sh"
need_root
KIND=${XRX_TUN_KIND:-tun}

LIVE=$BUILD/tests/live_rx
H=$BUILD/tests/tcp_hash
BYTES=$((1 << 30))
PORT=5201
TUN=xt$$
for b in "$LIVE" "$H"; do
	if [ ! -x "$b" ]; then
		skip "tcp through $KIND" "$b not built (make)"
		done_testing
		exit 0
	fi
done
if [ ! -c /dev/net/tun ]; then
	skip "tcp through $KIND" "no /dev/net/tun (modprobe tun)"
	done_testing
	exit 0
fi

testbed_up || exit 1
OUT=$(mktemp -d)
at_exit rm -rf "$OUT"
# valid checksums on the wire: the engine verifies them
in_src ethtool -K $IF_SRC tx off >/dev/null
in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
in_dut ip tuntap add dev $TUN mode $KIND vnet_hdr || exit 1
[ $KIND = tap ] && in_dut ip link set dev $TUN address "$(dut_mac)"
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0
in_dut ip link set $TUN up

# nsenter execs live_rx: $! is its pid, for the SIGINT that stops it
nsenter --net=/run/netns/$NS_DUT "$LIVE" -i $IF_DUT -p $PORT \
	-s "$KIND:$TUN,gso" -t 150 >"$OUT/live" 2>&1 &
LP=$!
at_exit kill $LP
if ! wait_xrxd $LP grep -q '^ready' "$OUT/live"; then
	sed 's/^/# /' "$OUT/live"
	check "live path up with the $KIND sink" 1
	done_testing
	exit 1
fi
check "live path up with the $KIND sink" 0

for dst in $IP4_DUT $IP6_DUT; do
	v=4; [ "$dst" = "$IP6_DUT" ] && v=6
	tcp_stream "$OUT/tcp$v" $dst $PORT $BYTES
	check "TCPv$v: $((BYTES >> 20)) MiB through XDP -> AF_XDP -> GRO -> $KIND, completed, stream hash intact" $?
done

kill -INT $LP
wait $LP
grep -E '^(engine|sink|check|live (rx_frames|xsk_rx_dropped))' "$OUT/live" | sed 's/^/# /'
stat() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }' "$OUT/live"; }
frames=$(stat engine frames_in); merged=$(stat engine segs_merged)
aggs=$(stat engine aggs_out)
check "engine aggregated: $aggs aggregates, $((merged + aggs)) of $frames frames in them" \
	"$([ "${aggs:-0}" -gt 0 ] && [ $(( (merged + aggs) * 100 / (frames ? frames : 1) )) -ge 80 ]; echo $?)"
check "aggregates of many segments (mean $(( (merged + aggs) / (aggs ? aggs : 1) )), need >= 8)" \
	"$([ $(( (merged + aggs) / (aggs ? aggs : 1) )) -ge 8 ]; echo $?)"
check "sink: every packet injected, no errors or drops" \
	"$([ "$(stat sink errors)" = 0 ] && [ "$(stat sink dropped)" = 0 ] && [ "$(stat sink pkts_out)" = "$(stat sink pkts_in)" ]; echo $?)"
rxerr=$(in_dut ip -s -j link show $TUN | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["errors"])' 2>/dev/null)
check "$KIND: kernel refused no write (rx errors ${rxerr:-?})" "$([ "${rxerr:-1}" = 0 ]; echo $?)"
check "frame ownership check after the run" "$(grep -q '^check ok' "$OUT/live"; echo $?)"
done_testing
