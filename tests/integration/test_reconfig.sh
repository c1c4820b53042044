#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Reconfiguration under traffic: TCP streams (tests/helpers/tcp_hash.c)
# run from the source namespace into the DUT through xrxd's TUN sink while
# xrxd gets 50 SIGHUPs that alternate the sink (tun:, null, pcap:), the
# copy and checksum modes and the engine limits (max_aggregate,
# max_segments, flows, flush_timeout_us), and the DUT's MTU changes 5
# times (1500 -> 3000 -> 9000 -> 1500 -> 9000 -> 1500).
#
# Proves: xrxd never exits or restarts (same pid and start time, no socket
# reopened), every reload is a swap in place, not one frame is passed to
# the kernel for want of a socket (pass_no_socket unchanged), every
# stream's hash matches end to end (what a null or pcap sink swallowed,
# TCP sent again once the TUN sink was back), every frame is accounted for
# (unaccounted 0 once idle), and SIGTERM restores the NIC exactly.
#
# Not timing-dependent: each SIGHUP and MTU change waits for xrxd to say it
# is done (bounded), and streams run back to back for as long as the
# reconfiguration lasts; TCP recovers what the non-TUN sinks took.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
H=$BUILD/tests/tcp_hash
need_built "$H"
need_tun

PORT=5201
TUN=xt$$
HUPS=50
STREAM_BYTES=$((24 << 20))

testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work reconfig
# Valid checksums on the wire (the engine verifies them); the TUN is the
# test's, multi-queue for xrxd's two workers, so it outlives every sink
# swap; rp_filter off because the source is routed through the veth.
in_src ethtool -K $IF_SRC tx off >/dev/null
in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
in_dut ip tuntap add dev $TUN mode tun vnet_hdr multi_queue || exit 1
in_dut sysctl -qw net.ipv4.conf.$TUN.rp_filter=0
in_dut ip link set $TUN up
snapshot "$WORK/orig"

log_count() { grep -c "$1" "$WORK/xrxd.err"; }

# Config number $1: even ones feed the TUN, odd ones a null or pcap sink;
# the engine settings cycle independently.
conf() {
	local i=$1 sink copy csum agg segs flows fto
	case $((i % 4)) in
	1) sink=null ;;
	3) sink=pcap:$WORK/rx.pcap ;;
	*) sink=tun:$TUN ;;
	esac
	case $((i % 3)) in
	0) copy=header ;; 1) copy=max-head ;; 2) copy=full ;;
	esac
	case $((i % 5)) in
	0) agg=65536 segs=64 ;; 1) agg=16384 segs=8 ;; 2) agg=131072 segs=128 ;;
	3) agg=32768 segs=32 ;; 4) agg=65536 segs=16 ;;
	esac
	[ $((i % 2)) = 0 ] && csum=verify || csum=trust
	[ $((i % 7)) -lt 4 ] && flows=4096 || flows=512
	case $((i % 3)) in 0) fto=0 ;; 1) fto=500 ;; 2) fto=2000 ;; esac
	cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/$PORT
sink = $sink
copy = $copy
csum = $csum
max_aggregate = $agg
max_segments = $segs
flows = $flows
flush_timeout_us = $fto
EOF
}

conf 0
nsenter --net=/run/netns/$NS_DUT "$XRXD" -v --state-dir "$STATE" \
	-c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
if ! wait_xrxd $pid eval 'xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"'; then
	sed 's/^/# /' "$WORK/xrxd.err"
	echo "not ok 1 - xrxd ready"
	exit 1
fi
check "xrxd up with the TUN sink on 2 queues" $(grep -q "2 workers on queues 0-1 .*sink tun:$TUN" "$WORK/xrxd.err"; echo $?)
started=$(jget user.started_ns)
nosock0=$(jget kernel.pass_no_socket.packets)

# Streams back to back until the reconfiguration is over (STOP appears);
# each bounded by tcp_hash's own -t. One line per stream in streams.log.
(
	n=0
	while [ ! -e "$WORK/STOP" ] && [ $n -lt 100 ]; do
		n=$((n + 1))
		bg_dut "$H" recv -b $IP4_DUT -p $PORT -t 40 >"$WORK/recv$n" 2>&1
		rp=$!
		wait_for 5 grep -q ready "$WORK/recv$n"
		in_src "$H" send -a $IP4_DUT -p $PORT -n $STREAM_BYTES -s $n -t 40 \
			>"$WORK/send$n" 2>&1
		src=$?
		wait $rp
		echo "$n $src $? $(awk '/hash/ { print $5 }' "$WORK/send$n") $(awk '/hash/ { print $5 }' "$WORK/recv$n")"
	done >"$WORK/streams.log"
) &
streams=$!
at_exit kill $streams

# 50 SIGHUPs, each waited for ("reloaded"), and 5 MTU changes in between.
mtus=(3000 9000 1500 9000 1500)
hup_ok=0 mtu_ok=0 mtu_i=0 prev=1500
for i in $(seq 1 $HUPS); do
	conf $i
	before=$(log_count "xrx.conf reloaded")
	kill -HUP $pid
	wait_for 10 eval '[ "$(log_count "xrx.conf reloaded")" -gt $before ]' &&
		hup_ok=$((hup_ok + 1))
	# Give each sink some stream to carry before the next change.
	sleep 0.3
	if [ $((i % 10)) = 5 ] && [ $mtu_i -lt ${#mtus[@]} ]; then
		m=${mtus[$mtu_i]}
		mtu_i=$((mtu_i + 1))
		if in_dut ip link set $IF_DUT mtu $m 2>"$WORK/mtu.err" &&
		   wait_for 10 grep -q "MTU $prev -> $m" "$WORK/xrxd.err"; then
			wait_for 10 grep -q "MTU $m: the AF_XDP sockets hold frames of it" "$WORK/xrxd.err" &&
				mtu_ok=$((mtu_ok + 1))
		else
			diag "MTU $m: $(cat "$WORK/mtu.err")"
		fi
		prev=$m
	fi
done
# The last config feeds the TUN, so the stream in flight can finish.
conf 0
kill -HUP $pid
wait_for 10 eval '[ "$(log_count "xrx.conf reloaded")" -gt $HUPS ]'
touch "$WORK/STOP"
timeout 60 tail --pid=$streams -f /dev/null
wait $streams

check "50 SIGHUPs, each reloaded" $([ $hup_ok = $HUPS ]; echo $?)
check "5 MTU changes (1500/3000/9000), each with the sockets kept" $([ $mtu_ok = 5 ]; echo $?)
check "xrxd still running, never restarted (same pid, same start time)" \
	$(kill -0 $pid && [ "$(jget user.started_ns)" = "$started" ] &&
	  [ "$(jget user.pid)" = $pid ]; echo $?)
sed 's/^/# stream /' "$WORK/streams.log"
nstreams=$(wc -l <"$WORK/streams.log")
check "TCP streams through the swaps: $nstreams, each completed with the receiver's hash equal to the sender's" \
	$([ "$nstreams" -ge 1 ] && awk '$2 != 0 || $3 != 0 || $4 == "" || $4 != $5 { bad = 1 } END { exit bad }' "$WORK/streams.log"; echo $?)
diag "reloads $(jget user.reloads), swaps in place $(jget user.live_swaps), socket reopens $(jget user.worker_restarts), swaps seen by the workers $(jget user.live.swaps)"
check "every reload a swap in place: live_swaps 51, no socket reopened" \
	$([ "$(jget user.live_swaps)" = $((HUPS + 1)) ] && [ "$(jget user.worker_restarts)" = 0 ]; echo $?)
check "no frame passed to the kernel for want of a socket (pass_no_socket $nosock0 -> $(jget kernel.pass_no_socket.packets))" \
	$([ "$(jget kernel.pass_no_socket.packets)" = "$nosock0" ]; echo $?)
check "the TCP streams went through the TUN sink as aggregates" \
	$([ "$(jget user.engine.aggs_out)" -gt 0 ] && [ "$(jget user.sink.pkts_out)" -gt 0 ]; echo $?)
unaccounted_zero
diag "redirect $(jget kernel.redirect.packets), rx_frames $(jget user.live.rx_frames), xsk_rx_dropped $(jget user.live.xsk_rx_dropped), sink pkts_out $(jget user.sink.pkts_out)"
check "frame ownership: ownership_errors 0, umem_engine 0 when idle" \
	$([ "$(jget user.live.ownership_errors)" = 0 ] && [ "$(jget user.live.umem_engine)" = 0 ]; echo $?)

kill -TERM $pid
wait $pid
rc=$?
grep -E "error|warn" "$WORK/xrxd.err" | head -5 | sed 's/^/# /'
check "SIGTERM: exit 0" $([ $rc = 0 ]; echo $?)
snapshot "$WORK/now"
ok "SIGTERM: NIC identical to before, no pins, no state file" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ]'

done_testing
