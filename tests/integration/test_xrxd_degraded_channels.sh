#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A degraded xrxd (another AF_XDP socket holds queue 0, tests/helpers/
# xsk_hold.c, so xrxd's bind gets EBUSY) whose interface changes its RX
# queue count (ethtool -L) before the queue comes free. Each retry reads
# the count again:
#   shrink 2 -> 1: the retry must not go on binding queue 1, which no
#                  longer exists (it would fail forever); it recovers
#                  with 1 worker.
#   grow 1 -> 2:   it recovers with 2 workers, not the 1 of before.
# (veth binds a queue id below its TX count too, xsk_bind(): both counts
# change.) In both, the traffic is received afterwards and every frame is
# accounted for.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
HOLD=$BUILD/tests/xsk_hold
need_built "$HOLD" "$BUILD/xrx-send"

xrxd_send_testbed degraded-channels numrxqueues 2 numtxqueues 2
in_src ethtool -L $IF_SRC tx 1 >/dev/null

# run_case NAME RX_BEFORE RX_AFTER
run_case() {
	local name=$1 before=$2 after=$3 hold pid log=$WORK/$1.err
	in_dut ethtool -L $IF_DUT rx $before tx $before 2>/dev/null
	check "$name: the DUT starts with $before RX queue(s)" \
		$(in_dut ethtool -l $IF_DUT | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2 }' | grep -qx $before; echo $?)
	nsenter --net=/run/netns/$NS_DUT "$HOLD" -i $IF_DUT -q 0 -t 120 >"$WORK/$name.hold" 2>&1 &
	hold=$!
	at_exit kill $hold
	wait_for 15 grep -q bound "$WORK/$name.hold"
	check "$name: another AF_XDP socket holds queue 0" \
		$(grep -q bound "$WORK/$name.hold"; echo $?)
	bg_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$log"
	pid=$!
	at_exit kill -KILL $pid
	wait_for 15 eval '[ "$(jget user.degraded)" = 1 ]'
	[ "$(jget user.degraded)" = 1 ] || sed 's/^/# /' "$log" "$WORK/$name.hold"
	check "$name: queue 0 held: xrxd degraded" \
		$([ "$(jget user.degraded)" = 1 ] && kill -0 $pid; echo $?)
	in_dut ethtool -L $IF_DUT rx $after tx $after
	check "$name: ethtool -L rx $after tx $after while degraded" $?
	# A retry that read the old count before ethtool -L may still be
	# trying queue 0 again (EBUSY, for up to bind_busy_ms): freed now,
	# it would recover with the old count. Free the queue once a retry
	# has read the new one.
	wait_for 30 grep -q "RX queues $before -> $after while degraded" "$log"
	kill $hold
	wait $hold
	# Retries back off from 0.25 s to 8 s: one comes within 16 s.
	wait_for 30 grep -q "no longer degraded" "$log"
	wait_for 3 eval '[ "$(jget user.degraded)" = 0 ]'
	sed 's/^/# /' "$log" | grep -E "degraded|RX queues|workers? on"
	check "$name: recovers with $after worker(s) for the $after queue(s) there are now" \
		$([ "$(jget user.degraded)" = 0 ] && [ "$(jget user.queues)" = $after ]; echo $?)
	check "$name: the log says the retry follows the new count" \
		$(grep -q "RX queues $before -> $after while degraded; retrying with $after" "$log"; echo $?)
	redirected "$name: traffic again"
	unaccounted_zero "$name"
	kill -TERM $pid
	wait $pid
	check "$name: SIGTERM: exit 0" $?
}

run_case shrink 2 1
run_case grow 1 2

done_testing
