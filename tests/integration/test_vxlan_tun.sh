#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# VXLAN through xrxd into the DUT's own stack: TCP streams between two
# pairs of VXLAN devices over the veth pair, vx0 (VNI 42, outer IPv4, UDP
# checksum zero: SKB_GSO_UDP_TUNNEL) with inner 198.19.42.0/24 and
# 2001:db8:42::/64, and vx6 (VNI 43, outer IPv6, UDP checksum set:
# SKB_GSO_UDP_TUNNEL_CSUM) with inner 198.19.43.0/24, all on UDP 4789.
# On the DUT, xrxd accelerates udp/4789 with
# "vxlan_ports = 4789", aggregates the VXLAN frames, and its TUN or TAP sink
# writes the aggregates into a TUN/TAP device; the DUT's VXLAN socket takes
# them from there (rp_filter off: the outer source is routed through the
# veth) and its vx0 decapsulates them for the receiving socket. Three runs:
#
#   tun:NAME        L3: Linux takes GSO over a UDP tunnel from an L2 write
#                   only, so every aggregate is written as its segments;
#   tap:NAME        L2 (the TAP carries the veth's MAC): aggregates written
#                   whole, GSO over a UDP tunnel, where the kernel takes it
#                   (TUN_F_UDP_TUNNEL_GSO, Linux 6.17+; SKIP otherwise);
#   tap:NAME,nogso  the segment fallback forced.
#
# Each run proves: the three streams (IPv4 and IPv6 in vx0, IPv4 in vx6)
# complete with the
# receiver's hash of the byte stream equal to the sender's
# (tests/helpers/tcp_hash.c); VXLAN aggregates of two or more segments were
# made (segments per aggregate reported); the sink's tunnel counters say
# how every aggregate was written (whole, or as exactly its segments); the
# vx0 on the DUT received one packet per write (whole: fewer packets than
# segments); no write was refused (sink errors 0, TUN rx errors 0); the log
# says once why segments are written; and every frame is accounted for
# (xrxctl stats: unaccounted 0).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/tests/tcp_hash"
need_tun

BYTES=$((48 << 20))
PORT=5201
VX4_SRC=198.19.42.1
VX4_DUT=198.19.42.2
VX6_SRC=2001:db8:42::1
VX6_DUT=2001:db8:42::2
VX46_SRC=198.19.43.1
VX46_DUT=198.19.43.2

testbed_up || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work vxtun
# Valid checksums on the wire, segmented by the sender: the engine
# verifies them.
in_src ethtool -K $IF_SRC tso off gso off tx off >/dev/null 2>&1
in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0

# vx_up NS-RUNNER NAME "VXLAN OPTIONS" INNER4 [INNER6]
vx_up() {
	$1 ip link add $2 type vxlan dstport 4789 $3 &&
	$1 ip addr add $4/24 dev $2 &&
	{ [ -z "${5:-}" ] || $1 ip -6 addr add $5/64 dev $2 nodad; } &&
	$1 ip link set $2 up
}
# the outer UDP checksum: off over IPv4, on over IPv6 (the defaults, spelt out)
V4="id 42 noudpcsum"
V6="id 43 noudp6zerocsumtx noudp6zerocsumrx"
if ! vx_up in_src vx0 "$V4 local $IP4_SRC remote $IP4_DUT dev $IF_SRC" $VX4_SRC $VX6_SRC ||
   ! vx_up in_dut vx0 "$V4 local $IP4_DUT remote $IP4_SRC dev $IF_DUT" $VX4_DUT $VX6_DUT ||
   ! vx_up in_src vx6 "$V6 local $IP6_SRC remote $IP6_DUT dev $IF_SRC" $VX46_SRC ||
   ! vx_up in_dut vx6 "$V6 local $IP6_DUT remote $IP6_SRC dev $IF_DUT" $VX46_DUT; then
	skip_all "cannot create VXLAN devices (CONFIG_VXLAN)"
fi

ready() { xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"; }
vx_rx() {	# packets the DUT's VXLAN devices received
	in_dut ip -s -j link show type vxlan | $PY -c 'import json,sys; print(sum(d["stats64"]["rx"]["packets"] for d in json.load(sys.stdin)))'
}
dev_rx_errors() { in_dut ip -s -j link show $1 | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["errors"])'; }

# run KIND OPTS: one xrxd with sink = KIND:DEV[OPTS], the two streams,
# the counters. Sets $whole, $segmented, $seg_writes, $aggs, $segs, $why.
run() {
	local kind=$1 opts=$2 v dst
	local dev=x$kind$$ label="$kind:DEV$opts"
	in_dut ip tuntap add dev $dev mode $kind vnet_hdr || return 1
	at_exit in_dut ip link del $dev
	[ $kind = tap ] && in_dut ip link set dev $dev address "$(dut_mac)"
	in_dut sysctl -qw net.ipv4.conf.$dev.rp_filter=0
	in_dut ip link set $dev up
	printf '%s\n' "interface = $IF_DUT" "accelerate = udp/4789" \
		"vxlan_ports = 4789" "sink = $kind:$dev$opts" >"$WORK/xrx.conf"
	bg_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" \
		2>"$WORK/xrxd.$kind$opts.err"
	pid=$!
	at_exit kill -KILL $pid
	if ! wait_xrxd $pid ready; then
		sed 's/^/# /' "$WORK/xrxd.$kind$opts.err"
		check "$label: xrxd ready with vxlan_ports = 4789" 1
		kill -KILL $pid
		return 1
	fi
	check "$label: xrxd ready with vxlan_ports = 4789" 0
	local vx0=$(vx_rx)
	for v in 4o4 6o4 4o6; do
		case $v in
		4o4) dst=$VX4_DUT ;;
		6o4) dst=$VX6_DUT ;;
		4o6) dst=$VX46_DUT ;;
		esac
		tcp_stream "$WORK/tcp$v" $dst $PORT $BYTES
		check "$label: TCPv${v%o*} in VXLAN over IPv${v#*o}, $((BYTES >> 20)) MiB through xrxd: completed, hash intact" $?
	done
	# Idle: everything delivered and counted (the counters refresh once a
	# second). What the VXLAN devices received by now was written before
	# (vxa); the snapshot is taken once the counters show those writes,
	# and vxb read after it.
	wait_for 10 eval '[ "$(jget user.unaccounted)" = 0 ]'
	local vxa=$(( $(vx_rx) - vx0 ))
	wait_for 10 eval '[ "$(jget user.sink.pkts_out)" -ge $vxa ]'
	xrxctl stats $IF_DUT --json >"$WORK/stats.json"
	local vxb=$(( $(vx_rx) - vx0 ))
	js() { jpath "$WORK/stats.json" "$1"; }
	aggs=$(js user.engine.vxlan_aggs_out)
	segs=$(( $(js user.engine.segs_merged) + $(js user.engine.aggs_out) ))
	whole=$(js user.sink.tunnel_whole)
	segmented=$(js user.sink.tunnel_segmented)
	seg_writes=$(js user.sink.tunnel_segment_writes)
	local out=$(js user.sink.pkts_out)
	diag "$label: vxlan_frames_in $(js user.engine.vxlan_frames_in), vxlan_aggs_out $aggs of $(js user.engine.aggs_out) aggregates, $segs segments in them ($(js derived.segments_per_aggregate) per aggregate), sink pkts_out $out, tunnel_whole $whole, tunnel_segmented $segmented, tunnel_segment_writes $seg_writes; DUT vx0 + vx6 rx $vxb packets"
	check "$label: VXLAN aggregates of >= 2 segments ($aggs aggregates, $segs segments)" \
		"$([ "$aggs" -gt 1 ] && [ "$aggs" = "$(js user.engine.aggs_out)" ] &&
		   [ "$segs" -ge $((2 * aggs)) ]; echo $?)"
	check "$label: every aggregate written, whole or as segments ($whole + $segmented = $aggs)" \
		"$([ $((whole + segmented)) = "$aggs" ]; echo $?)"
	check "$label: sink wrote every packet: no errors, no drops" \
		"$([ "$(js user.sink.errors)" = 0 ] && [ "$(js user.sink.dropped)" = 0 ] &&
		   [ "$out" = "$(js user.sink.pkts_in)" ] &&
		   [ "$(js user.engine.drop_no_buffer)" = 0 ]; echo $?)"
	check "$label: the kernel refused no write ($kind rx errors $(dev_rx_errors $dev))" \
		"$([ "$(dev_rx_errors $dev)" = 0 ]; echo $?)"
	check "$label: xrxctl stats: unaccounted 0" "$([ "$(js user.unaccounted)" = 0 ]; echo $?)"
	if [ "$segmented" -gt 0 ]; then
		# each segmented aggregate became exactly its segments, and each
		# reached vx0/vx6 as a packet of its own
		check "$label: segmented aggregates written as exactly their segments ($seg_writes)" \
			"$([ "$whole" != 0 ] || [ "$seg_writes" = "$segs" ]; echo $?)"
		check "$label: DUT vx0 + vx6 got a packet per segment ($vxb >= $seg_writes)" \
			"$([ "$vxb" -ge "$seg_writes" ]; echo $?)"
	else
		# whole: one skb per aggregate reached vx0/vx6, far fewer than
		# the segments
		check "$label: DUT vx0 + vx6 got one GSO packet per write ($vxa <= $out, < $segs segments)" \
			"$([ "$vxa" -le "$out" ] && [ "$vxa" -lt "$segs" ]; echo $?)"
	fi
	why=$(grep -o 'VXLAN aggregates are written as their segments: .*' "$WORK/xrxd.$kind$opts.err")
	[ -n "$why" ] && diag "$label: xrxd: $why"
	kill -TERM $pid
	wait $pid
	check "$label: SIGTERM: exit 0" $?
	in_dut ip link del $dev
}

# --- tun: L3, segments ------------------------------------------------------
if run tun ""; then
	check "tun: every VXLAN aggregate written as its segments (tunnel_whole 0)" \
		"$([ "$whole" = 0 ] && [ "$segmented" = "$aggs" ]; echo $?)"
	check "tun: logged once why: L2 writes only, or a kernel without tunnel GSO" \
		"$([ "$(grep -c 'VXLAN aggregates are written as their segments' "$WORK/xrxd.tun.err")" = 1 ] &&
		   grep -qE 'from an L2 write only|does not take GSO over a UDP tunnel' "$WORK/xrxd.tun.err"; echo $?)"
fi

# --- tap: whole, GSO over a UDP tunnel ---------------------------------------
if run tap ""; then
	if grep -q 'does not take GSO over a UDP tunnel' "$WORK/xrxd.tap.err"; then
		skip "tap: VXLAN aggregates written whole" \
			"this kernel's TUN refuses TUN_F_UDP_TUNNEL_GSO (Linux 6.17+): $why"
	else
		check "tap: every VXLAN aggregate written whole ($whole of $aggs), GSO over a UDP tunnel" \
			"$([ "$whole" = "$aggs" ] && [ "$segmented" = 0 ] && [ -z "$why" ]; echo $?)"
	fi
fi

# --- tap,nogso: the segment fallback, forced ---------------------------------
if run tap ",nogso"; then
	check "tap,nogso: every VXLAN aggregate written as its segments, and the log says why" \
		"$([ "$whole" = 0 ] && [ "$segmented" = "$aggs" ] &&
		   grep -qE 'written as their segments: (GSO is off for this sink|this kernel.s TUN does not take)' \
			"$WORK/xrxd.tap,nogso.err"; echo $?)"
fi
done_testing
