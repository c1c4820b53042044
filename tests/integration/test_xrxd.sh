#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd end to end on a veth pair with 2 queues: start (offloads applied,
# xrx_rx attached, pins and state file with tight permissions, READY and
# STATUS on a NOTIFY_SOCKET we bind, a random flow hash key in xrx_cfg that
# reloads keep), TCP trains aggregated and counted in
# xrxctl stats --json and in bpftool's dump of xrx_ustats by field name, a
# second instance refused (also with another --state-dir: the lock is the
# device's), SIGHUP rule and sink change without detaching
# and without closing a socket (swapped in place), coalesce changed by
# a reload that reopens the sockets, link down/up and MTU
# changes survived with the sockets kept, WATCHDOG=1, and SIGTERM leaving
# the NIC exactly as before (ethtool -k/-l/-g, ip -d link), no pins, no
# state file.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs

testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work xrxd
TRAINS="$PY $TOP/tests/tools/tcp_trains.py"
MAC=$(dut_mac)
send() { in_src $TRAINS $IF_SRC $MAC $IP4_SRC $IP4_DUT "$@" >/dev/null; }
log_has() { grep -q "$1" "$WORK/xrxd.err"; }

in_src ethtool -K $IF_SRC tx off >/dev/null
snapshot "$WORK/orig"

cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
flush_timeout_us = 5000
[offload]
gro = on
gro_max_size = 131072
EOF

# NOTIFY_SOCKET listener: every datagram line by line until STOPPING=1;
# bounded to 600 s, far beyond what the test takes even on a busy machine
# (at_exit stops it sooner): a tighter bound lost STOPPING=1 when the
# machine was slow.
notify_listen 600

# nsenter execs xrxd in place: $! is xrxd's pid.
NOTIFY_SOCKET=$WORK/notify.sock WATCHDOG_USEC=1000000 \
	nsenter --net=/run/netns/$NS_DUT "$WORK/xrxd" -v --state-dir "$STATE" \
	-c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
ncount() { grep -cx "$1" "$WORK/notify.log" 2>/dev/null; }
wait_xrxd $pid grep -qx READY=1 "$WORK/notify.log"
check "READY=1 after attach and workers" $([ "$(ncount READY=1)" = 1 ]; echo $?)
check "STATUS= names the interface and the queues" \
	$(grep -q "^STATUS=$IF_DUT: 2 queues" "$WORK/notify.log"; echo $?)
check "offloads applied: gro on, gro_max_size 131072" \
	$(in_dut ethtool -k $IF_DUT | grep -qx 'generic-receive-offload: on' &&
	  in_dut ip -d link show $IF_DUT | grep -q 'gro_max_size 131072'; echo $?)
id0=$(prog_id)
check "xrx_rx attached natively (ip link shows xdp id $id0)" \
	$([ -n "$id0" ] && in_dut ip -d link show $IF_DUT | grep -q 'xdp '; echo $?)
check "pins: program, maps and xrx_ustats in $PIN" \
	$(for p in xrx_rx xrx_stats xrx_ustats xrx_rules xrx_ports xrx_cfg xrx_xsks; do
		[ -e "$PIN/$p" ] || { echo 1; exit; }; done; echo 0)
check "pin directory 0700, pins 0600" \
	$([ "$(stat -c %a "$PIN")" = 700 ] && [ "$(stat -c %a "$PIN/xrx_ustats")" = 600 ]; echo $?)
key0=$(cfg_key "$PIN")
diag "flow hash key ${key0:-unreadable}"
check "xrx_cfg holds a flow hash key chosen at attach (not zero)" \
	$([ -n "$key0" ] && [ "$key0" != "0 0" ]; echo $?)
LOCK=$(lock_file)
check "state file 0600 in a 0700 directory, lock file 0600 naming the pid" \
	$([ "$(stat -c %a "$SF")" = 600 ] && [ "$(stat -c %a "$STATE")" = 700 ] &&
	  [ "$(stat -c %a "$LOCK")" = 600 ] &&
	  [ "$(cat "$LOCK")" = "$pid $IF_DUT" ]; echo $?)
snapshot "$WORK/running"

# --- a second instance ------------------------------------------------------
in_dut "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/second.err"
rc=$?
diag "$(cat "$WORK/second.err")"
check "second instance: exit 1, says who runs and how to stop it" \
	$([ $rc = 1 ] && grep -q "xrxd is already running on $IF_DUT (pid $pid holds .*); stop it first" "$WORK/second.err"; echo $?)
snapshot "$WORK/now"
ok "second instance: NIC and program untouched" same "$WORK/running" "$WORK/now"
check "second instance: first one still serving" $(kill -0 $pid; echo $?)
# The lock is the device's, not the state directory's: another one
# must not let a second xrxd detach the first one's program as a leftover
# (bounded: one that got past the lock would run until stopped).
in_dut timeout -s KILL 30 "$WORK/xrxd" --state-dir "$WORK/other" -c "$WORK/xrx.conf" \
	2>"$WORK/second.err"
rc=$?
diag "$(cat "$WORK/second.err")"
snapshot "$WORK/now"
check "second instance with another --state-dir: exit 1, refused by the device's lock" \
	$([ $rc = 1 ] && grep -q "xrxd is already running on $IF_DUT (pid $pid holds $LOCK" "$WORK/second.err"; echo $?)
ok "... NIC and program untouched (same xrx_rx id $id0)" \
	eval 'same "$WORK/running" "$WORK/now" && [ "$(prog_id)" = "$id0" ]'

# --- traffic ----------------------------------------------------------------
send 5201 --flows 4 --segs 16 --trains 10
wait_for 5 eval '[ "$(jget user.engine.frames_in)" = 640 ]'
frames=$(jget user.engine.frames_in)
aggs=$(jget user.engine.aggs_out)
spa=$(jget derived.segments_per_aggregate)
diag "frames_in $frames, aggs_out $aggs, segments per aggregate $spa"
check "xrxctl stats --json: 640 frames in" $([ "$frames" = 640 ]; echo $?)
check "xrxctl stats --json: kernel redirected 640" \
	$([ "$(jget kernel.redirect.packets)" = 640 ]; echo $?)
nometa=$(jget user.engine.frames_no_meta 2>/dev/null)
check "every frame carried xrx_meta: engine parsed none itself (frames_no_meta ${nometa:-missing})" \
	$([ "$nometa" = 0 ] && [ "$(jget kernel.no_meta_room.packets)" = 0 ]; echo $?)
check "aggregated: segments per aggregate > 1" \
	$(awk -v s="$spa" -v a="$aggs" 'BEGIN { exit !(a > 0 && s > 1) }'; echo $?)
bpftool map dump pinned "$PIN/xrx_ustats" >"$WORK/dump" 2>&1
check "bpftool dump of xrx_ustats shows counters by name" \
	$(grep -q '"frames_in": 640' "$WORK/dump" && grep -q '"segs_merged": [1-9]' "$WORK/dump" &&
	  grep -q '"rx_frames": 640' "$WORK/dump" && grep -q '"pkts_in": ' "$WORK/dump" &&
	  grep -q "\"pid\": $pid" "$WORK/dump"; echo $?)
check "xrxctl rules: tcp/5201" $(xrxctl rules $IF_DUT | grep -qE '^ +1 +accel +tcp/5201$'; echo $?)
check "xrx_ports: tcp/5201 decided without the trie, tcp/6000 by the default" \
	$(port_verdict 5201 tcp | grep -qx XRX_PORT_ACCEL &&
	  port_verdict 6000 tcp | grep -qx XRX_PORT_DEFAULT; echo $?)
wait_for 3 grep -q "^STATUS=.*segments per aggregate" "$WORK/notify.log"
check "STATUS= carries rates and the aggregation ratio" \
	$(grep -qE "^STATUS=$IF_DUT: 2 queues, [0-9]+ frames/s, .* Mbit/s in; .* frames per packet, [0-9.]+ segments per aggregate" "$WORK/notify.log"; echo $?)
# Every 0.5 s: two within 5 s whatever the load.
wait_for 5 eval '[ "$(ncount WATCHDOG=1)" -ge 2 ]'
check "WATCHDOG=1 every WATCHDOG_USEC/2" $([ "$(ncount WATCHDOG=1)" -ge 2 ]; echo $?)

# --- SIGHUP: a new rule and a new sink, program stays -------------------------
sed -i 's|^accelerate = .*|accelerate = tcp/5201, tcp/6000\nsink = pcap:'"$WORK"'/rx.pcap,perqueue|' "$WORK/xrx.conf"
red0=$(jget kernel.redirect.packets)
nosock0=$(jget kernel.pass_no_socket.packets)
kill -HUP $pid
wait_for 5 eval '[ "$(ncount READY=1)" = 2 ]'
check "SIGHUP: RELOADING=1 then READY=1" \
	$([ "$(ncount RELOADING=1)" = 1 ] && [ "$(ncount READY=1)" = 2 ]; echo $?)
check "SIGHUP: same xrx_rx (id $id0), never detached" $([ "$(prog_id)" = "$id0" ]; echo $?)
check "SIGHUP: the rules rewrote xrx_cfg, the flow hash key stayed" \
	$([ "$(cfg_key "$PIN")" = "$key0" ]; echo $?)
check "SIGHUP: xrxctl rules shows the new rule" \
	$(xrxctl rules $IF_DUT | grep -qE '^ +2 +accel +tcp/6000$'; echo $?)
check "SIGHUP: xrx_ports follows (tcp/6000 accel)" \
	$(port_verdict 6000 tcp | grep -qx XRX_PORT_ACCEL; echo $?)
wait_for 5 eval '[ "$(jget user.live_swaps)" = 1 ]'
check "SIGHUP: sink swapped in place (live_swaps 1), no socket reopened (worker_restarts 0)" \
	$([ "$(jget user.live_swaps)" = 1 ] && [ "$(jget user.worker_restarts)" = 0 ] &&
	  [ "$(jget user.reloads)" = 1 ]; echo $?)
send 6000 --flows 2 --segs 8 --trains 4
wait_for 5 eval '[ "$(jget user.engine.frames_in)" = 704 ]'
check "SIGHUP: the new rule's traffic is redirected and counted, none passed for want of a socket" \
	$([ "$(jget kernel.redirect.packets)" = $((red0 + 64)) ] &&
	  [ "$(jget user.engine.frames_in)" = 704 ] &&
	  [ "$(jget kernel.pass_no_socket.packets)" = "$nosock0" ]; echo $?)
wait_for 5 eval '[ "$(jget user.sink.pkts_in)" = "$(jget user.engine.pkts_out)" ]'
check "no packet lost across the sink swap: sink pkts_in = engine pkts_out" \
	$([ "$(jget user.sink.pkts_in)" = "$(jget user.engine.pkts_out)" ]; echo $?)
# Two queues: the pcap sink writes PATH.q0 and PATH.q1.
check "new sink: the pcap files hold the new traffic (64 segments)" \
	$([ "$(cat "$WORK"/rx.pcap.q* | wc -c)" -gt $((64 * 1448)) ]; echo $?)

# A broken config on SIGHUP keeps the running one.
cp "$WORK/xrx.conf" "$WORK/good.conf"
sed -i '1a max_segments = 0' "$WORK/xrx.conf"
kill -HUP $pid
wait_for 5 eval '[ "$(ncount READY=1)" = 3 ]'
check "SIGHUP with a config error: logged, still serving the old config" \
	$(log_has "xrx.conf:2: max_segments = 0 is out of range" && log_has "reload failed; still running the previous configuration" &&
	  kill -0 $pid && xrxctl rules $IF_DUT | grep -q tcp/6000; echo $?)

# A config that parses but whose sink cannot open (no such directory): the
# workers go back to the running sink, the rules go back too, and the log
# says the reload failed instead of "reloaded".
sed -e 's|^accelerate = .*|accelerate = tcp/5201, tcp/6000, tcp/7000|' \
	-e 's|^sink = .*|sink = pcap:'"$WORK"'/no-such-dir/rx.pcap|' "$WORK/good.conf" >"$WORK/xrx.conf"
kill -HUP $pid
wait_for 10 test "$(ncount READY=1)" = 4
wait_for 5 test "$(jget user.worker_restarts)" = 2
check "SIGHUP with a sink that cannot open: reload failed, old sink and rules kept" \
	$(log_has "reload failed: .*xrx.conf: sink = pcap:.*no-such-dir/rx.pcap, but directory .* does not exist" &&
	  [ "$(grep -c "xrx.conf reloaded" "$WORK/xrxd.err")" = 1 ] && kill -0 $pid &&
	  ! xrxctl rules $IF_DUT | grep -q tcp/7000 && xrxctl rules $IF_DUT | grep -q tcp/6000; echo $?)
cp "$WORK/good.conf" "$WORK/xrx.conf"

# --- link events ------------------------------------------------------------
in_dut ip link set $IF_DUT down
wait_for 5 log_has "$IF_DUT: link down"
in_dut ip link set $IF_DUT up
wait_for 5 log_has "$IF_DUT: link up"
check "link down/up: logged, xrxd still running, same program" \
	$(log_has "link down" && log_has "link up" && kill -0 $pid && [ "$(prog_id)" = "$id0" ]; echo $?)
sleep 1
send 5201 --flows 1 --segs 8 --trains 2
wait_for 5 eval '[ "$(jget user.engine.frames_in)" = 720 ]'
check "link down/up: traffic still accelerated" $([ "$(jget user.engine.frames_in)" = 720 ]; echo $?)
if in_dut ip link set $IF_DUT mtu 3000 2>"$WORK/mtu.err"; then
	wait_for 5 log_has "MTU 3000: the AF_XDP sockets hold frames of it"
	check "MTU change: logged, sockets kept (worker_restarts 0), still running" \
		$(log_has "MTU 1500 -> 3000" && log_has "MTU 3000: the AF_XDP sockets hold frames of it" &&
		  [ "$(jget user.worker_restarts)" = 0 ] && kill -0 $pid; echo $?)
	send 5201 --flows 1 --segs 8 --trains 2
	wait_for 5 eval '[ "$(jget user.engine.frames_in)" = 736 ]'
	check "MTU change: traffic still accelerated" $([ "$(jget user.engine.frames_in)" = 736 ]; echo $?)
	in_dut ip link set $IF_DUT mtu 1500
	wait_for 5 log_has "MTU 3000 -> 1500"
else
	skip "MTU change" "veth refused MTU 3000 under XDP: $(cat "$WORK/mtu.err")"
	skip "MTU change traffic" "see above"
fi

# --- coalesce: naps by default; a reload to off reopens the sockets ---------
naps=$(jget user.live.naps)
check "coalesce on (default): the workers slept after batches that emptied the ring (live.naps $naps)" \
	$([ "${naps:-0}" -gt 0 ]; echo $?)
restarts=$(jget user.worker_restarts)
sed -i '1a coalesce = off' "$WORK/xrx.conf"
kill -HUP $pid
wait_for 10 eval '[ "$(jget user.worker_restarts)" = $((restarts + 1)) ]'
naps=$(jget user.live.naps)
polls=$(jget user.live.polls)
f0=$(jget user.engine.frames_in)
send 5201 --flows 1 --segs 8 --trains 4
wait_for 5 eval '[ "$(jget user.engine.frames_in)" = $((f0 + 32)) ]'
check "reload to coalesce = off: sockets reopened, traffic received waiting in poll() (polls $polls -> $(jget user.live.polls)), no nap (naps $naps -> $(jget user.live.naps))" \
	$([ "$(jget user.worker_restarts)" = $((restarts + 1)) ] &&
	  [ "$(jget user.engine.frames_in)" = $((f0 + 32)) ] &&
	  [ "$(jget user.live.naps)" = "$naps" ] && [ "$(jget user.live.polls)" -gt "$polls" ]; echo $?)

unaccounted_zero

# --- SIGTERM ----------------------------------------------------------------
kill -TERM $pid
wait $pid
rc=$?
wait_for 5 grep -qx STOPPING=1 "$WORK/notify.log"
sed 's/^/# /' "$WORK/xrxd.err" | tail -20
check "SIGTERM: STOPPING=1 and exit 0" $([ $rc = 0 ] && [ "$(ncount STOPPING=1)" = 1 ]; echo $?)
snapshot "$WORK/now"
ok "SIGTERM: ethtool -k/-l/-g and ip -d link identical to before" same "$WORK/orig" "$WORK/now"
check "SIGTERM: no pins, no state file, no lock file" \
	$([ ! -e "$PIN" ] && [ ! -e "$SF" ] && [ ! -e "$LOCK" ]; echo $?)
xrxctl stats $IF_DUT 2>"$WORK/err" >/dev/null
rc=$?
check "xrxctl stats after stop: exit 1, 'no xrxd on IFACE: start it with ...'" \
	$([ $rc = 1 ] && grep -q "no xrxd on $IF_DUT.*start it with systemctl start xrxd@$IF_DUT" "$WORK/err"; echo $?)

# --- attach = auto falling back to skb mode says why ----------------------
# veth refuses native XDP when its peer has more TX queues than it has RX
# queues; the kernel says so in an extack, which xrxd must pass on.
XA=xa$$
veth_no_native $XA
printf 'attach = auto\n' >"$WORK/$XA.conf"
chmod 600 "$WORK/$XA.conf"
: >"$WORK/xa.err"
# nsenter itself, so that $! is xrxd (nsenter execs it)
nsenter --net=/run/netns/$NS_DUT "$XRXD" -i $XA -c "$WORK/$XA.conf" \
	--state-dir "$STATE" 2>"$WORK/xa.err" &
xpid=$!
at_exit kill -KILL $xpid
# Two loads of xrx_rx (device-bound, then plain) take a while on a busy
# machine: wait for ready, bounded.
wait_xrxd $xpid grep -q "ready:" "$WORK/xa.err"
keyx=$(cfg_key "/sys/fs/bpf/xrx/$XA")
check "another attach draws another flow hash key" \
	$(grep -q "ready:" "$WORK/xa.err" && [ -n "$keyx" ] &&
	  [ "$keyx" != "0 0" ] && [ "$keyx" != "$key0" ]; echo $?)
kill -TERM $xpid
wait $xpid
rc=$?
sed 's/^/# /' "$WORK/xa.err"
check "attach = auto: skb mode, with a warning (not an error) carrying the kernel's reason" \
	$([ $rc = 0 ] && grep -q "in skb mode" "$WORK/xa.err" &&
	  grep -q "warning: $XA: native XDP refused: .*rx queues not less than peer tx queues; falling back to skb" "$WORK/xa.err"; echo $?)
rm -rf "/sys/fs/bpf/xrx/$XA"

done_testing
