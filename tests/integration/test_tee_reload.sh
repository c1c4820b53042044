#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The tee added, removed and added again by SIGHUP, in place: xrxd runs
# sink = tun:NAME on a TUN without multi_queue (one opener at a time, so
# the sink must be kept, not reopened, for a reload to succeed), and a
# TCP stream (tests/helpers/tcp_hash.c) goes through after each reload.
#
# Proves: each reload is a swap in place (same pid and start time, no
# socket reopened, pass_no_socket unchanged, the workers switched
# live.swaps times); while a tee is there it is given exactly what the
# sink is, and its file holds that stream whole (hash equal to the
# sender's); without a tee its counters stand still; a tee added again
# counts on from where the first stopped, into its own file; every
# stream completes; every frame is accounted for (unaccounted 0).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

PORT=5201
BYTES=$((16 << 20))
xrxd_tun_testbed tee-reload

# conf [TEE]: the sink always the same TUN, the tee as given.
conf() {
	cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/$PORT
sink = tun:$TUN
${1:+tee = $1}
EOF
}
reloads() { grep -c "xrx.conf reloaded" "$WORK/xrxd.err"; }
# reload TEXT: SIGHUP, wait for it; the swap's log line must name TEXT.
reload() {
	local before
	before=$(reloads)
	kill -HUP $pid
	wait_for 10 eval '[ "$(reloads)" -gt $before ]' &&
		[ "$(grep "workers switched in place to" "$WORK/xrxd.err" | tail -1 | sed 's/.*switched in place to \(.*\) (sockets.*/\1/')" = "$1" ]
}
# tee_add FILE: SIGHUP to a pcap tee on FILE; one case that it came in
# place.
tee_add() {
	conf "pcap:$1"
	reload "sink tun:$TUN, tee pcap:$1"
	check "SIGHUP adds tee pcap:$1 in place" $?
}
# idle N: the counters once the traffic so far is accounted for.
idle() { stats_settled "$WORK/$1.json"; }
# stream N WHAT: TCP stream N to the DUT, one case that it completed
# whole, then its counters (idle N).
stream() {
	tcp_stream "$WORK/s$1" $IP4_DUT $PORT $BYTES
	check "stream $1, $2: completed, hash intact" $?
	idle $1
}
j() { jpath "$WORK/$1.json" "$2"; }
# pcap_holds FILE SEND: FILE holds the stream whose sender wrote SEND.
pcap_holds() {
	"$PY" "$TOP/tests/tools/xrxpcap.py" stream "$1" $PORT >"$1.stream" 2>&1
	sed 's/^/# /' "$1.stream"
	[ "$(wc -l <"$1.stream")" = 1 ] &&
		grep -q " stream $BYTES hash $(tcp_field hash "$2")\$" "$1.stream"
}

conf
xrxd_up || { check "xrxd up without a tee" 1; done_testing; exit 1; }
check "xrxd up without a tee" 0
started=$(jget user.started_ns)
nosock=$(jget kernel.pass_no_socket.packets)

stream 0 "no tee"
check "no tee, no tee counters" $([ "$(j 0 user.tee.pkts_in)" = 0 ]; echo $?)

# A FIFO's reader could hold every write up: refused, nothing changes.
mkfifo "$WORK/fifo"
conf "pcap:$WORK/fifo"
before=$(grep -c "reload failed" "$WORK/xrxd.err")
kill -HUP $pid
wait_for 10 eval '[ "$(grep -c "reload failed" "$WORK/xrxd.err")" -gt $before ]'
grep -E "FIFO|reload failed" "$WORK/xrxd.err" | sed 's/^/# /'
check "SIGHUP to a tee on a FIFO: refused, still running without a tee" \
	$(grep -q "tee = pcap:$WORK/fifo is a FIFO" "$WORK/xrxd.err" && kill -0 $pid &&
	  [ "$(jget user.live_swaps)" = 0 ]; echo $?)

tee_add "$WORK/a.pcap"
stream 1 "with the tee"
d_sink=$(( $(j 1 user.sink.pkts_in) - $(j 0 user.sink.pkts_in) ))
diag "stream 1: sink got $d_sink packets, the tee $(j 1 user.tee.pkts_in), wrote $(j 1 user.tee.pkts_out)"
check "the tee was given what the sink was ($d_sink) and wrote it all" \
	$([ "$d_sink" -gt 0 ] && [ "$(j 1 user.tee.pkts_in)" = $d_sink ] &&
	  [ "$(j 1 user.tee.pkts_out)" = $d_sink ]; echo $?)

conf
reload "sink tun:$TUN"
check "SIGHUP removes the tee in place" $?
pcap_holds "$WORK/a.pcap" "$WORK/s1.send"
check "a.pcap holds stream 1 whole" $?
stream 2 "no tee"
check "without the tee its counters stand still" \
	$([ "$(j 2 user.tee.pkts_in)" = "$(j 1 user.tee.pkts_in)" ] &&
	  [ "$(j 2 user.sink.pkts_in)" -gt "$(j 1 user.sink.pkts_in)" ]; echo $?)

tee_add "$WORK/b.pcap"
stream 3 "with the new tee"
d_sink=$(( $(j 3 user.sink.pkts_in) - $(j 2 user.sink.pkts_in) ))
check "the new tee counts on from the first one's $(j 2 user.tee.pkts_out) (+$d_sink)" \
	$([ "$(j 3 user.tee.pkts_in)" = $(( $(j 2 user.tee.pkts_in) + d_sink )) ] &&
	  [ "$(j 3 user.tee.pkts_out)" = $(( $(j 2 user.tee.pkts_out) + d_sink )) ]; echo $?)
kill -TERM $pid
wait $pid
check "SIGTERM: exit 0" $?
pcap_holds "$WORK/b.pcap" "$WORK/s3.send"
check "b.pcap holds stream 3 whole, and only it" $?

diag "reloads $(j 3 user.reloads), live_swaps $(j 3 user.live_swaps), worker_restarts $(j 3 user.worker_restarts), live.swaps $(j 3 user.live.swaps)"
check "three swaps in place: the workers switched 3 times, no socket reopened" \
	$([ "$(j 3 user.live_swaps)" = 3 ] && [ "$(j 3 user.live.swaps)" = 3 ] &&
	  [ "$(j 3 user.worker_restarts)" = 0 ]; echo $?)
check "xrxd never restarted, no frame passed for want of a socket" \
	$([ "$(j 3 user.started_ns)" = "$started" ] && [ "$(j 3 user.pid)" = $pid ] &&
	  [ "$(j 3 kernel.pass_no_socket.packets)" = "$nosock" ]; echo $?)
check "every frame accounted for: unaccounted 0 after each stream" \
	$(for n in 0 1 2 3; do [ "$(j $n user.unaccounted)" = 0 ] || exit 1; done; echo $?)
done_testing
