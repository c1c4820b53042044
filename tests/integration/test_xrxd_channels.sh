#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd follows a change of the RX queue count (ethtool -L) while it runs.
# It listens on ethtool's netlink "monitor" group; with queues = all the
# workers are reopened for the new count: a socket is bound on the new
# queue, and the old ones go on carrying traffic. The other direction the
# kernel refuses by itself: ethtool -L cannot remove a queue an AF_XDP
# socket is bound to (ethnl_set_channels()), and xrxd carries on. A TX-only
# change reopens nothing.
#
# veth, unlike a NIC driver, does not give an RX queue it adds under XDP
# the program (veth_set_channels() enables the queue's NAPI but only
# veth_enable_xdp() sets rq->xdp_prog), so frames on the new queue bypass
# XDP here: the test checks the sockets and the old queue's traffic, and
# reads the new queue's behaviour only as a diagnostic.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/xrx-send"

xrxd_send_testbed channels numrxqueues 2 numtxqueues 2
log_has() { grep -q "$1" "$WORK/xrxd.err"; }
ok "one RX queue on the DUT, one TX queue on the source" \
	eval 'in_dut ethtool -L $IF_DUT rx 1 tx 1 && in_src ethtool -L $IF_SRC rx 1 tx 1'

bg_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.err"
pid=$!
at_exit kill -KILL $pid
wait_for 15 eval '[ "$(jget user.queues)" = 1 ]'
check "xrxd runs with queues = all: 1 worker" $([ "$(jget user.queues)" = 1 ]; echo $?)
r0=$(jget user.worker_restarts)

in_dut ethtool -L $IF_DUT rx 2
check "ethtool -L rx 2 on the DUT under xrx_rx" $?
wait_for 15 eval '[ "$(jget user.queues)" = 2 ]'
check "xrxd followed: 2 workers, reopened once, logged" \
	$([ "$(jget user.queues)" = 2 ] && [ "$(jget user.worker_restarts)" = $((r0 + 1)) ] &&
	  log_has "RX queues 1 -> 2 (channels changed); reopening the AF_XDP workers"; echo $?)

xrxctl status $IF_DUT >"$WORK/status" 2>&1
grep queues "$WORK/status" | sed 's/^/# /'
check "xrxctl status: queues 2 (0-1)" $(grep -q "queues    2 (0-1)" "$WORK/status"; echo $?)

ns0=$(jget kernel.pass_no_socket.packets)
red0=$(jget kernel.redirect.packets)
# From CPU 0: AF_PACKET's TX queue is its CPU, and veth's RX queue that.
in_src taskset -c 0 "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 \
	--flows 8 --segs 20 --trains 2 >/dev/null 2>&1
check "320 frames sent on queue 0" $?
wait_for 10 eval '[ "$(jget user.engine.frames_in)" -ge 320 ]'
red=$(($(jget kernel.redirect.packets) - red0))
check "after the reopen, queue 0's 320 frames redirected and in the engine, none without a socket" \
	$([ "$red" = 320 ] && [ "$(jget user.engine.frames_in)" = 320 ] &&
	  [ "$(jget kernel.pass_no_socket.packets)" = "$ns0" ]; echo $?)
unaccounted_zero

# A change that leaves the RX count as it is reopens nothing.
r1=$(jget user.worker_restarts)
in_dut ethtool -L $IF_DUT tx 2
check "ethtool -L tx 2 on the DUT" $?
sleep 1
check "a TX-only change: no reopen" $([ "$(jget user.worker_restarts)" = "$r1" ] && kill -0 $pid; echo $?)

# Fewer queues than sockets: the kernel says no, and nothing changes.
in_dut ethtool -L $IF_DUT rx 1 2>"$WORK/shrink.err"
rc=$?
sed 's/^/# /' "$WORK/shrink.err"
check "ethtool -L rx 1 under bound sockets: refused by the kernel; xrxd runs on with 2 queues" \
	$([ $rc != 0 ] && [ "$(jget user.queues)" = 2 ] &&
	  [ "$(jget user.worker_restarts)" = "$r1" ] && kill -0 $pid; echo $?)

kill -TERM $pid
wait $pid
rc=$?
diag "xrxd exit status $rc"
sed "s|^|# |" "$WORK/xrxd.err" | tail -20
check "SIGTERM: exit 0" $([ $rc = 0 ]; echo $?)
ok "no pins, no state file left" eval '[ ! -e "$PIN" ] && [ ! -e "$SF" ]'
done_testing
