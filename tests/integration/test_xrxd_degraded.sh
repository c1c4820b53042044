#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd when it cannot have its sockets, and when a worker is stuck.
#
# Degraded: another AF_XDP socket holds queue 1 (tests/helpers/xsk_hold.c),
# so xrxd's bind gets EBUSY. xrxd must not exit: READY=1, xrx_rx attached,
# STATUS=, xrxctl status and the Prometheus gauge say DEGRADED, and the
# accelerated traffic goes to the kernel counted in pass_no_socket, also
# while a retry binds queue 0 and waits out queue 1's EBUSY: no socket is
# redirected to until every queue has one (else its frames would be lost
# with the socket, counted nowhere: unaccounted for good). Once
# the other socket is gone xrxd's own retries bind and the traffic is
# redirected again. A reload that asks for more queues than it can bind
# goes back to the running ones.
#
# Stuck: the sink is a pair of FIFOs whose readers are stopped (SIGSTOP),
# so the workers block in write(). Their heartbeats stop: STATUS= and
# xrxctl status say STUCK, WATCHDOG=1 is withheld; when the readers go on
# (SIGCONT), everything comes back.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
HOLD=$BUILD/tests/xsk_hold
need_built "$HOLD" "$BUILD/xrx-send"

xrxd_send_testbed degraded numrxqueues 2 numtxqueues 2
log_has() { grep -q "$1" "$WORK/xrxd.err"; }
ncount() { grep -cx "$1" "$WORK/notify.log" 2>/dev/null; }
# Both queues: 8 flows spread over the veth's two TX queues.
send() {
	in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 8 \
		--segs 8 "$@" >/dev/null 2>&1
}
snapshot "$WORK/orig"

# --- degraded ---------------------------------------------------------------
# nsenter execs the helper in place: $! is its pid.
nsenter --net=/run/netns/$NS_DUT "$HOLD" -i $IF_DUT -q 1 -t 120 >"$WORK/hold" 2>&1 &
hold=$!
at_exit kill $hold
wait_for 5 grep -q bound "$WORK/hold"
check "another AF_XDP socket holds queue 1" $(grep -q bound "$WORK/hold"; echo $?)

notify_listen 600
NOTIFY_SOCKET=$WORK/notify.sock WATCHDOG_USEC=1000000 \
	nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" \
	-c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
wait_xrxd $pid grep -qx READY=1 "$WORK/notify.log"
wait_for 5 grep -q "^STATUS=.*DEGRADED" "$WORK/notify.log"
check "bind EBUSY at start: xrxd stays up, READY=1, STATUS= says DEGRADED" \
	$(kill -0 $pid && [ "$(ncount READY=1)" = 1 ] &&
	  grep -q "^STATUS=$IF_DUT: .*DEGRADED: no AF_XDP sockets (Device or resource busy)" "$WORK/notify.log"; echo $?)
check "the log names the queue, the reason and the fallback" \
	$(log_has "queue 1: cannot bind an AF_XDP socket: Device or resource busy (another AF_XDP socket holds the queue" &&
	  log_has "DEGRADED: cannot open the AF_XDP sockets (Device or resource busy); xrx_rx stays attached"; echo $?)
check "xrx_rx attached while degraded" $([ -n "$(prog_id)" ]; echo $?)
xrxctl status $IF_DUT >"$WORK/status" 2>&1
sed 's/^/# /' "$WORK/status" | grep -E "state|queues"
check "xrxctl status: state DEGRADED" $(grep -q "state     DEGRADED: no AF_XDP sockets" "$WORK/status"; echo $?)
check "Prometheus: xrx_degraded 1" \
	$(xrxctl stats $IF_DUT --prom | grep -qx "xrx_degraded{interface=\"$IF_DUT\"} 1"; echo $?)
ns0=$(jget kernel.pass_no_socket.packets)
send --trains 10 -c 640
wait_for 5 eval '[ "$(jget kernel.pass_no_socket.packets)" -ge $((ns0 + 640)) ]'
check "degraded: the accelerated traffic goes to the kernel, counted in pass_no_socket" \
	$([ "$(jget kernel.pass_no_socket.packets)" -ge $((ns0 + 640)) ] &&
	  [ "$(jget kernel.redirect.packets)" = 0 ]; echo $?)
# Traffic across a whole retry: queue 0 binds, queue 1 is tried again for
# up to 1 s (bind_busy_ms), then both close. 1000 frames/s for at most
# 20 s, stopped once the log has a retry more (they come within 8 s).
n=$(grep -c "still degraded" "$WORK/xrxd.err")
bg_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 8 \
	--segs 8 --trains 2500 -c 20000 -r 1000 >/dev/null 2>&1
snd=$!
at_exit kill $snd
wait_for 20 eval '[ "$(grep -c "still degraded" "$WORK/xrxd.err")" -gt $n ]'
r=$?
kill $snd 2>/dev/null
wait $snd
diag "retries during the traffic: $(($(grep -c "still degraded" "$WORK/xrxd.err") - n)), redirected $(jget kernel.redirect.packets), pass_no_socket $(jget kernel.pass_no_socket.packets)"
check "degraded, traffic during a retry that binds queue 0 but not 1: nothing redirected to its socket" \
	$([ $r = 0 ] && [ "$(jget kernel.redirect.packets)" = 0 ] &&
	  [ "$(jget kernel.pass_no_socket.packets)" -gt $((ns0 + 640)) ]; echo $?)
unaccounted_zero "degraded"

kill $hold
wait $hold
# Retries back off from 0.25 s to 8 s: one comes within 16 s of the release.
wait_for 30 log_has "no longer degraded"
wait_for 3 eval '[ "$(jget user.degraded)" = 0 ]'
check "the other socket gone: xrxd binds on its own retry, no longer degraded" \
	$(log_has "AF_XDP sockets open again; no longer degraded" && [ "$(jget user.degraded)" = 0 ] &&
	  [ "$(jget user.queues)" = 2 ] && kill -0 $pid; echo $?)
red0=$(jget kernel.redirect.packets)
send --trains 10 -c 640
wait_for 5 eval '[ "$(jget user.engine.frames_in)" -ge 640 ]'
check "traffic redirected and received again" \
	$([ "$(jget kernel.redirect.packets)" -ge $((red0 + 640)) ] &&
	  [ "$(jget user.engine.frames_in)" -ge 640 ]; echo $?)

# A reload that asks for a queue it cannot bind keeps the running ones.
sed -i 's/^accelerate.*/&\nqueues = 1/' "$WORK/xrx.conf"
kill -HUP $pid
wait_for 10 log_has "xrx.conf reloaded"
nsenter --net=/run/netns/$NS_DUT "$HOLD" -i $IF_DUT -q 1 -t 120 >"$WORK/hold2" 2>&1 &
hold=$!
at_exit kill $hold
wait_for 10 grep -q bound "$WORK/hold2"
sed -i '/^queues = 1/d' "$WORK/xrx.conf"
kill -HUP $pid
wait_for 15 log_has "reload failed: the new queues did not start; still running the previous configuration"
# The stats file is written about once a second: wait for the new one.
wait_for 5 eval '[ "$(jget user.queues)" = 1 ] && [ "$(jget user.degraded)" = 0 ]'
check "reload to 2 queues with queue 1 held: refused, 1 queue still served, not degraded" \
	$(log_has "going back to the running sink, engine and queue settings" &&
	  [ "$(jget user.queues)" = 1 ] && [ "$(jget user.degraded)" = 0 ] && kill -0 $pid; echo $?)
kill $hold
wait $hold
n=$(grep -c "xrx.conf reloaded" "$WORK/xrxd.err")
kill -HUP $pid
wait_for 10 eval '[ "$(grep -c "xrx.conf reloaded" "$WORK/xrxd.err")" -gt $n ]'
diag "failed socket opens $(jget user.bind_failures), binds retried on EBUSY $(jget user.live.bind_busy_retries), reopens $(jget user.worker_restarts)"
check "the queue free again: the same reload now opens 2 queues" \
	$([ "$(jget user.queues)" = 2 ] && [ "$(jget user.degraded)" = 0 ]; echo $?)

# --- stuck ------------------------------------------------------------------
mkfifo "$WORK/fifo.q0" "$WORK/fifo.q1"
cat "$WORK/fifo.q0" >/dev/null &
r0=$!
at_exit kill -CONT $r0
at_exit kill $r0
cat "$WORK/fifo.q1" >/dev/null &
r1=$!
at_exit kill -CONT $r1
at_exit kill $r1
sed -i "s|^accelerate.*|&\nsink = pcap:$WORK/fifo,perqueue|" "$WORK/xrx.conf"
n=$(grep -c "xrx.conf reloaded" "$WORK/xrxd.err")
kill -HUP $pid
wait_for 10 eval '[ "$(grep -c "xrx.conf reloaded" "$WORK/xrxd.err")" -gt $n ]'
check "sink switched to the FIFOs in place" $(log_has "workers switched in place to sink pcap:$WORK/fifo"; echo $?)
kill -STOP $r0 $r1
# More than two pipe buffers: the workers block in write().
send --trains 400 -c 25600
wait_for 10 eval 'xrxctl status $IF_DUT | grep -q "state     STUCK"'
xrxctl status $IF_DUT >"$WORK/status" 2>&1
grep state "$WORK/status" | sed 's/^/# /'
check "readers stopped: xrxctl status says STUCK" $(grep -q "state     STUCK: [12] worker" "$WORK/status"; echo $?)
wait_for 5 grep -q "^STATUS=.*STUCK" "$WORK/notify.log"
check "STATUS= names the stuck worker" \
	$(grep -qE "^STATUS=.*; STUCK: [12] workers? \(queue [01] for [0-9.]+ s\)" "$WORK/notify.log"; echo $?)
check "the log says WATCHDOG=1 is withheld" $(log_has "has not come round its loop for .*WATCHDOG=1 withheld"; echo $?)
w0=$(ncount WATCHDOG=1)
sleep 2
w1=$(ncount WATCHDOG=1)
check "no WATCHDOG=1 while stuck ($w0 -> $w1 in 2 s)" $([ "$w0" = "$w1" ]; echo $?)
kill -CONT $r0 $r1
wait_for 10 log_has "every worker runs again"
w0=$(ncount WATCHDOG=1)
wait_for 5 eval '[ "$(ncount WATCHDOG=1)" -gt $w0 ]'
check "readers go on: workers run again, WATCHDOG=1 again, state ok" \
	$(log_has "every worker runs again" && [ "$(ncount WATCHDOG=1)" -gt "$w0" ] &&
	  xrxctl status $IF_DUT | grep -q "state     ok"; echo $?)

unaccounted_zero
kill -TERM $pid
wait $pid
rc=$?
sed "s|^|# |" "$WORK/xrxd.err" | tail -40
check "SIGTERM: exit 0" $([ $rc = 0 ]; echo $?)
snapshot "$WORK/now"
ok "SIGTERM: NIC identical to before, no pins, no state file" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ]'

done_testing
