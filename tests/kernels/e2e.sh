#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Guest: end to end on virtio-net, traffic sent by the host into its
# multi-queue tap. xrxd with the pcap sink, then SIGHUP swaps it for the
# TUN sink in place; each time the captured TCP payload is exactly what
# the host sent (tests/kernels/payload.py) and every frame is accounted
# for (unaccounted 0). Stopping xrxd restores every NIC setting it
# changed, exactly. Frame counts are small: TCG is slow.
. "$(dirname "$0")/lib.sh"
xrxd_need bpffs
need_tun
guest_dut_up || { check "eth0 into the DUT namespace" 1; done_testing; exit 1; }
xrxd_work e2e
keep_logs e2e
TUN=xt$$
dut_tun_guest() {
	in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 &&
		in_dut ip tuntap add dev $TUN mode tun vnet_hdr &&
		in_dut ip link set $TUN up
}
dut_tun_guest
check "TUN $TUN in the DUT" $?
snapshot "$WORK/before"
guest_conf "sink = pcap:$WORK/rx.pcap"
xrxd_up
check "xrxd up, pcap sink" $?
diag "up at ${SECONDS}s"
diag "$(grep -E 'AF_XDP|mode' "$WORK/xrxd.err" | head -3)"

# send N: 4 flows x 20 segments x 2 trains to tcp/5201, recorded by the
# host in the writable share.
send() {
	host_send --dport 5201 --flows 4 --segs 20 --trains 2 --gap-us 20000 \
		-r 2000 -w "@OUT@/sent$1.pcap"
}
send 1
check "host sent 160 frames into the tap" $?
stats_settled "$WORK/s1.json"
check "pcap sink: every frame accounted for (unaccounted $(jpath "$WORK/s1.json" user.unaccounted))" $?
in1=$(jpath "$WORK/s1.json" user.engine.frames_in)
check "pcap sink: the engine took all 160 frames ($in1)" $([ "$in1" = 160 ]; echo $?)

reloads() { grep -c "xrx.conf reloaded" "$WORK/xrxd.err"; }
before=$(reloads)
guest_conf "sink = tun:$TUN"
in_dut timeout 120 tcpdump -U -n -i $TUN -w "$WORK/tun.pcap" tcp port 5201 2>"$WORK/tcpdump.err" &
tdp=$!
at_exit kill $tdp
wait_for 60 grep -q "listening on" "$WORK/tcpdump.err"
kill -HUP $pid
wait_for 60 eval '[ "$(reloads)" -gt $before ]'
check "SIGHUP: reloaded, sink swapped to tun:$TUN" $?
diag "reload at ${SECONDS}s"
diag "$(grep -E 'switched in place|reloaded' "$WORK/xrxd.err" | tail -2)"
check "same xrxd process after the reload" $(kill -0 $pid; echo $?)

# The pcap sink closed at the swap: its file is complete.
"$PY" "$TOP/tests/kernels/payload.py" "$GUEST_OUT/sent1.pcap" "$WORK"/rx.pcap* >"$WORK/p1" 2>&1
rc=$?
sed 's/^/# /' "$WORK/p1"
check "pcap sink: the payload is exactly what the host sent" $rc

send 2
check "host sent 160 more frames" $?
stats_settled "$WORK/s2.json"
check "TUN sink: every frame accounted for" $?
wait_for 30 eval '[ "$(jpath "$WORK/s2.json" user.engine.frames_in)" -ge $((in1 + 160)) ] || stats_settled "$WORK/s2.json"'
in2=$(jpath "$WORK/s2.json" user.engine.frames_in)
check "TUN sink: the engine took 160 more frames ($in1 -> $in2)" $([ "$in2" = $((in1 + 160)) ]; echo $?)
sleep 1	# tcpdump -U writes each packet at once; the sink has delivered
kill -INT $tdp
wait $tdp
"$PY" "$TOP/tests/kernels/payload.py" "$GUEST_OUT/sent2.pcap" "$WORK/tun.pcap" >"$WORK/p2" 2>&1
rc=$?
sed 's/^/# /' "$WORK/p2"
check "TUN sink: the payload is exactly what the host sent" $rc

kill -TERM $pid
wait $pid
check "xrxd stops with status 0" $?
snapshot "$WORK/after"
same "$WORK/before" "$WORK/after"
check "every NIC setting restored exactly (ethtool -k/-l/-g, ip link)" $?
check "no XDP program left" $([ -z "$(prog_id)" ]; echo $?)
done_testing
