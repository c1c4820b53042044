#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd when things go wrong: config errors only the NIC can reveal (exit 2,
# NIC untouched), a foreign XDP program (refused, left alone), SIGKILL in
# the middle of traffic (the next start detaches the dead one's program,
# restores the NIC, then runs; or xrxctl restore does it, as the unit's
# ExecStopPost), xrxctl restore refused while xrxd runs, and the interface
# deleted under a running xrxd (clean exit with a log line saying why).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs

testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work crash
TRAINS="$PY $TOP/tests/tools/tcp_trains.py"
MAC=$(dut_mac)
# Ready: xrx_ustats written by this very xrxd (a dead one's pins linger).
# Waited for up to 60 s: loading xrx_rx (and falling back to skb mode, as
# veth does here with channels = 1) takes seconds on a busy machine.
ready() { xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"; }
start() {
	nsenter --net=/run/netns/$NS_DUT "$WORK/xrxd" --state-dir "$STATE" \
		-c "$1" 2>"$2" &
	pid=$!
	at_exit kill -KILL $pid
}

in_src ethtool -K $IF_SRC tx off >/dev/null
snapshot "$WORK/orig"

cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
flush_timeout_us = 2000
[offload]
gro = on
channels = 1
EOF

# --- config errors the NIC reveals: exit 2, nothing touched ----------------
cat >"$WORK/q.conf" <<EOF
interface = $IF_DUT
queues = 8
[offload]
gro = on
EOF
in_dut "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/q.conf" 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
check "queues beyond the interface's: exit 2, names file, count and fix" \
	$([ $rc = 2 ] && grep -q "q.conf: queues = 8, but $IF_DUT has 2 RX queues (ethtool -l $IF_DUT); write queues = 2 or all" "$WORK/err"; echo $?)
cat >"$WORK/p.conf" <<EOF
interface = $IF_DUT
sink = pcap:$WORK/nowhere/rx.pcap
[offload]
gro = on
EOF
in_dut "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/p.conf" 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
check "pcap sink in a missing directory: exit 2, names the directory" \
	$([ $rc = 2 ] && grep -q "directory $WORK/nowhere does not exist" "$WORK/err"; echo $?)
"$WORK/xrxd" -c "$WORK/p.conf" --check-config -q 2>"$WORK/err"
rc=$?
check "--check-config: the same missing directory, exit 2, named" \
	$([ $rc = 2 ] && grep -q "directory $WORK/nowhere does not exist" "$WORK/err"; echo $?)
# A directory on a read-only mount (what ProtectSystem=strict makes of
# everything but /run/xrx): a restart cannot mend it either.
mkdir "$WORK/ro"
if mount -t tmpfs -o ro,mode=0700 xrx-ro "$WORK/ro"; then
	at_exit umount "$WORK/ro"
	sed "s|^sink = .*|sink = pcap:$WORK/ro/rx.pcap|" "$WORK/p.conf" >"$WORK/ro.conf"
	"$WORK/xrxd" -c "$WORK/ro.conf" --check-config -q 2>"$WORK/err"
	rc=$?
	diag "$(cat "$WORK/err")"
	check "--check-config: a pcap directory xrxd cannot write, exit 2, says why" \
		$([ $rc = 2 ] && grep -q "cannot write in $WORK/ro: Read-only file system" "$WORK/err"; echo $?)
	in_dut "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/ro.conf" 2>"$WORK/err"
	rc=$?
	check "start with that pcap directory: exit 2 before anything changes" \
		$([ $rc = 2 ] && grep -q "cannot write in $WORK/ro: Read-only file system" "$WORK/err" &&
		  [ -z "$(prog_id)" ]; echo $?)
else
	skip "a read-only pcap directory" "cannot mount a read-only tmpfs"
	skip "a read-only pcap directory at start" "cannot mount a read-only tmpfs"
fi
# A TUN sink naming a device that exists and is no TUN (lo: no driver
# answers ETHTOOL_GDRVINFO): TUNSETIFF's bare EINVAL would come only
# after the offloads and xrx_rx, as exit 1, which the unit retries.
sed "s|^sink = .*|sink = tun:lo|" "$WORK/p.conf" >"$WORK/t.conf"
in_dut "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/t.conf" 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
check "tun:lo, an existing device that is no TUN: exit 2 before anything changes, names it" \
	$([ $rc = 2 ] && grep -q "sink = tun:lo, but lo exists and is not a tun device" "$WORK/err" &&
	  [ -z "$(prog_id)" ]; echo $?)
sed "s/^interface = .*/interface = nosuch0/" "$WORK/xrx.conf" >"$WORK/n.conf"
in_dut "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/n.conf" 2>"$WORK/err"
rc=$?
# Not worth a restart (the unit's RestartPreventExitStatus=2).
check "missing interface: exit 2, says so" \
	$([ $rc = 2 ] && grep -q "nosuch0: no such interface in this network namespace" "$WORK/err"; echo $?)
snapshot "$WORK/now"
ok "config errors: NIC unchanged" same "$WORK/orig" "$WORK/now"
check "config errors: no state file, no pins" $([ ! -e "$SF" ] && [ ! -e "$PIN" ]; echo $?)

# --- someone else's XDP program ---------------------------------------------
if xdp_pass_attach; then
	foreign=$(prog_id)
	snapshot "$WORK/xdp"
	in_dut "$WORK/xrxd" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/err"
	rc=$?
	diag "$(cat "$WORK/err")"
	check "foreign XDP program: exit 2 (not retried), names it and the fix" \
		$([ $rc = 2 ] && grep -q "an XDP program (id $foreign) that xrxd did not attach.*detach it" "$WORK/err"; echo $?)
	snapshot "$WORK/now"
	ok "foreign XDP program: left attached, NIC untouched" same "$WORK/xdp" "$WORK/now"
	in_dut ip link set dev $IF_DUT xdp off
else
	skip "foreign XDP program" "cannot attach a test program: $(head -1 "$WORK/err")"
	skip "foreign XDP program untouched" "see above"
fi

# --- SIGKILL during traffic, the next start restores first -------------------
start "$WORK/xrx.conf" "$WORK/d1.err"
wait_xrxd $pid ready
id1=$(prog_id)
bg_src $TRAINS $IF_SRC $MAC $IP4_SRC $IP4_DUT 5201 --flows 4 --segs 16 --trains 200 >/dev/null
tpid=$!
at_exit kill $tpid
frames_in() { xrxctl stats $IF_DUT --json | grep -o '"frames_in":[0-9]*' | cut -d: -f2; }
wait_for 5 eval '[ "$(frames_in)" -gt 100 ]'
kill -KILL $pid
wait $pid 2>/dev/null
wait $tpid
check "SIGKILL: program, pins and state file are left behind" \
	$([ "$(prog_id)" = "$id1" ] && [ -e "$PIN/xrx_rx" ] && [ -e "$SF" ]; echo $?)
xrxctl status $IF_DUT >"$WORK/status" 2>&1
check "SIGKILL: xrxctl status says xrxd is not running" \
	$(grep -q "xrxd      not running" "$WORK/status"; echo $?)
start "$WORK/xrx.conf" "$WORK/d2.err"
wait_xrxd $pid ready
sed 's/^/# /' "$WORK/d2.err"
check "restart: detached the dead xrxd's program and restored its settings first" \
	$(grep -q "detached the xrx_rx (id $id1) a previous xrxd left attached" "$WORK/d2.err" &&
	  grep -q "restored the settings a previous xrxd left changed" "$WORK/d2.err"; echo $?)
id2=$(prog_id)
diag "program before the crash $id1, after the restart $id2"
check "restart: runs with a new program" $([ -n "$id2" ] && [ "$id2" != "$id1" ] && kill -0 $pid; echo $?)
in_src $TRAINS $IF_SRC $MAC $IP4_SRC $IP4_DUT 5201 --flows 4 --segs 16 --trains 5 >/dev/null
wait_for 10 eval '[ "$(frames_in)" -ge 320 ]'
check "restart: traffic reaches the new xrxd's engine ($(frames_in) frames)" \
	$([ "$(frames_in)" -ge 320 ]; echo $?)
unaccounted_zero "restart"
check "restart: state file records the true originals" \
	$(grep -qx 'feature rx-gro off' "$SF" && grep -qx 'channels_rx 2' "$SF"; echo $?)
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
check "xrxctl restore while xrxd runs: refused (exit 1)" \
	$([ $rc = 1 ] && grep -q "xrxd is running on $IF_DUT (pid $pid): stop it instead" "$WORK/err" && kill -0 $pid; echo $?)
kill -TERM $pid
wait $pid
rc=$?
snapshot "$WORK/now"
check "restart then SIGTERM: exit 0" $([ $rc = 0 ]; echo $?)
ok "restart then SIGTERM: NIC identical to before" same "$WORK/orig" "$WORK/now"

# The unit's ExecStopPost after a crash: xrxctl restore alone cleans up.
start "$WORK/xrx.conf" "$WORK/d3.err"
wait_xrxd $pid ready
kill -KILL $pid
wait $pid 2>/dev/null
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
snapshot "$WORK/now"
check "SIGKILL then xrxctl restore: exit 0, program detached" \
	$([ $rc = 0 ] && grep -q "detached the xrx_rx" "$WORK/err" && [ -z "$(prog_id)" ]; echo $?)
ok "SIGKILL then xrxctl restore: NIC identical, no pins, no state" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ]'

# --- the interface goes away --------------------------------------------------
start "$WORK/xrx.conf" "$WORK/d4.err"
wait_xrxd $pid ready
LOCK=$(lock_file)
in_dut ip link del $IF_DUT
wait_for 10 eval '! kill -0 $pid 2>/dev/null'
wait $pid
rc=$?
sed 's/^/# /' "$WORK/d4.err" | tail -5
check "interface deleted: xrxd exits 0 by itself" $([ $rc = 0 ]; echo $?)
check "interface deleted: a log line says why" \
	$(grep -qE "$IF_DUT: the interface (was removed|no longer exists)" "$WORK/d4.err"; echo $?)
check "interface deleted: no pins, no state file, no lock" \
	$([ -n "$LOCK" ] && [ ! -e "$PIN" ] && [ ! -e "$SF" ] && [ ! -e "$LOCK" ]; echo $?)

done_testing
