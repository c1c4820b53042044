#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd under faults, each ending with the NIC exactly as before (ethtool
# -k/-l/-g, ip -d link): SIGKILL right after SIGHUP (mid-reload) and
# right after SIGTERM (mid-restore, at several delays), then the next
# start or xrxctl restore; a truncated or corrupted state file (xrxd
# applies nothing, names the file and the safe path, xrxctl restore
# explains; after the safe path it runs again); no bpffs at the pin root;
# the interface renamed while running (clean stop restores it under its
# new name; after SIGKILL, xrxctl restore OLDNAME still works); UMEM
# registration failing for lack of locked memory.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs

testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work faults
# Ready: waited for up to 60 s (two refused attaches before skb mode take
# seconds on a busy machine).
ready() { xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"; }
start() {
	nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" \
		-c "${2:-$WORK/xrx.conf}" 2>"$1" &
	pid=$!
	at_exit kill -KILL $pid
}
stopped() { timeout 20 tail --pid=$pid -f /dev/null; wait $pid; }
# The NIC settings only (no XDP program line): what a refused start must
# leave alone after a crash left them changed.
nic_only() { snapshot "$1"; sed -i -E -e '/prog\/xdp/d' -e 's/ xdp(generic|drv|offload)? / /' "$1"; }
snapshot "$WORK/orig"

cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
[offload]
gro = on
gro_max_size = 131072
rx_checksum = off
channels = 1
EOF
sed 's/^accelerate = .*/accelerate = tcp\/5201, udp\/4789\nsink = pcap:'"${WORK//\//\\/}"'\/rx.pcap\nflush_timeout_us = 1000/' \
	"$WORK/xrx.conf" >"$WORK/reload.conf"

# --- SIGKILL mid-reload -------------------------------------------------------
start "$WORK/k1.err"
wait_xrxd $pid ready
cp "$WORK/reload.conf" "$WORK/xrx.conf.new"
cp "$WORK/xrx.conf" "$WORK/xrx.conf.old"
cp "$WORK/reload.conf" "$WORK/xrx.conf"
kill -HUP $pid
kill -KILL $pid
wait $pid 2>/dev/null
cp "$WORK/xrx.conf.old" "$WORK/xrx.conf"
start "$WORK/k2.err"
wait_xrxd $pid ready
check "SIGKILL after SIGHUP: the next start detaches, restores, runs" \
	$(grep -q "detached the xrx_rx" "$WORK/k2.err" &&
	  grep -q "restored the settings a previous xrxd left changed" "$WORK/k2.err" &&
	  kill -0 $pid; echo $?)
check "  ... and its state file holds the true originals" \
	$(grep -qx 'feature rx-gro off' "$SF" && grep -qx 'channels_rx 2' "$SF"; echo $?)
kill -TERM $pid
stopped
rc=$?
snapshot "$WORK/now"
check "  ... then SIGTERM: exit 0" $([ $rc = 0 ]; echo $?)
ok "  ... NIC identical to before" same "$WORK/orig" "$WORK/now"

start "$WORK/k3.err" "$WORK/reload.conf"
wait_xrxd $pid ready
kill -HUP $pid
kill -KILL $pid
wait $pid 2>/dev/null
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
snapshot "$WORK/now"
check "SIGKILL after SIGHUP, then xrxctl restore: exit 0" $([ $rc = 0 ]; echo $?)
ok "  ... NIC identical, no pins, no state file" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ]'

# --- SIGKILL mid-restore ------------------------------------------------------
mid=0
for d in 0 0.002 0.01 0.03 0.1; do
	start "$WORK/t.err"
	wait_xrxd $pid ready
	kill -TERM $pid
	sleep $d
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	left=$( [ -e "$SF" ] && echo "state file left" || echo "state file gone")
	xrxctl restore $IF_DUT 2>"$WORK/err"
	rc=$?
	snapshot "$WORK/now"
	diag "SIGKILL $d s after SIGTERM: $left; $(grep -c . "$WORK/t.err") log lines; restore: $(tail -1 "$WORK/err")"
	[ "$left" = "state file left" ] && mid=$((mid + 1))
	ok "SIGKILL $d s after SIGTERM, then xrxctl restore: exit 0, NIC identical, nothing left" \
		eval '[ $rc = 0 ] && same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ] && [ -z "$(prog_id)" ]'
done
check "at least one SIGKILL landed before the restore finished ($mid of 5)" $([ $mid -gt 0 ]; echo $?)

# --- a damaged state file -----------------------------------------------------
for how in truncated corrupted; do
	start "$WORK/s.err"
	wait_xrxd $pid ready
	kill -KILL $pid
	wait $pid 2>/dev/null
	if [ $how = truncated ]; then
		truncate -s $(($(stat -c %s "$SF") / 2)) "$SF"
	else
		sed -i 's/^feature rx-gro off$/feature rx-gro on/' "$SF"
	fi
	nic_only "$WORK/crashed"
	start "$WORK/s2.err"
	stopped
	rc=$?
	diag "$(grep -v 'detached' "$WORK/s2.err" | head -2)"
	nic_only "$WORK/now"
	check "$how state file: xrxd exits 1 naming the file and the safe path" \
		$([ $rc = 1 ] && grep -q "$SF: .*check $IF_DUT's .*by hand.*delete" "$WORK/s2.err"; echo $?)
	ok "$how state file: xrxd applied nothing (settings as the crash left them)" \
		same "$WORK/crashed" "$WORK/now"
	check "$how state file: file kept, no program, no pins" \
		$([ -e "$SF" ] && [ -z "$(prog_id)" ] && [ ! -e "$PIN/xrx_rx" ]; echo $?)
	xrxctl restore $IF_DUT 2>"$WORK/err"
	rc=$?
	check "$how state file: xrxctl restore exits 1 and explains" \
		$([ $rc = 1 ] && grep -q "$SF: .*delete" "$WORK/err"; echo $?)
	# The documented safe path: see what xrxd manages, set it by hand,
	# delete the file. (channels = 1 leaves veth's peer more TX queues
	# than it has RX queues: native XDP is refused, xrx_rx runs in skb
	# mode, cannot read the VLAN tags veth strips, and xrxd turned
	# rx-vlan-hw-parse off too.)
	xrxctl offloads $IF_DUT >"$WORK/offloads" 2>&1
	in_dut ethtool -K $IF_DUT gro off rx on rxvlan on >/dev/null 2>&1
	in_dut ip link set dev $IF_DUT gro_max_size 65536
	in_dut ethtool -L $IF_DUT rx 2 tx 2 2>/dev/null
	rm -f "$SF"
	snapshot "$WORK/now"
	ok "$how state file: the safe path (xrxctl offloads, set by hand, delete) restores the NIC" \
		same "$WORK/orig" "$WORK/now"
done
start "$WORK/s3.err"
wait_xrxd $pid ready
check "after the safe path: xrxd starts" $(kill -0 $pid; echo $?)
kill -TERM $pid
stopped
snapshot "$WORK/now"
ok "  ... and stops with the NIC as before" same "$WORK/orig" "$WORK/now"

# --- no bpffs -------------------------------------------------------------------
nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" --pin-root "$WORK/nobpf/xrx" \
	-c "$WORK/xrx.conf" 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
snapshot "$WORK/now"
check "pin root without bpffs: exit 2 (not retried), names it and how to mount bpffs" \
	$([ $rc = 2 ] && grep -q "$WORK/nobpf/xrx: cannot use it as the pin root.*mount -t bpf bpf /sys/fs/bpf" "$WORK/err"; echo $?)
ok "  ... NIC untouched, no state file" eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$SF" ]'

# --- renamed while running ------------------------------------------------------
NEW=xn$$
rename() { in_dut ip link set $1 down && in_dut ip link set $1 name $2 && in_dut ip link set $2 up; }
start "$WORK/r.err"
wait_xrxd $pid ready
rename $IF_DUT $NEW
at_exit rename $NEW $IF_DUT
sleep 1.5
check "renamed while running: xrxd runs on and logs the new name" \
	$(kill -0 $pid && grep -q "$IF_DUT: renamed to $NEW" "$WORK/r.err"; echo $?)
kill -TERM $pid
stopped
rc=$?
sed 's/^/# /' "$WORK/r.err" | tail -4
check "  ... SIGTERM: exit 0, restored under the new name, pins and state gone" \
	$([ $rc = 0 ] && grep -q "$IF_DUT: renamed to $NEW (ifindex" "$WORK/r.err" &&
	  [ ! -e "$PIN" ] && [ ! -e "$SF" ]; echo $?)
rename $NEW $IF_DUT
snapshot "$WORK/now"
ok "  ... NIC identical to before (renamed back)" same "$WORK/orig" "$WORK/now"

start "$WORK/r2.err"
wait_xrxd $pid ready
rename $IF_DUT $NEW
kill -KILL $pid
wait $pid 2>/dev/null
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
sed 's/^/# /' "$WORK/err"
check "renamed, then SIGKILL: xrxctl restore OLDNAME detaches and restores" \
	$([ $rc = 0 ] && grep -q "detached the xrx_rx" "$WORK/err" &&
	  [ ! -e "$SF" ] && [ ! -e "$PIN" ]; echo $?)
rename $NEW $IF_DUT
snapshot "$WORK/now"
ok "  ... NIC identical to before (renamed back)" same "$WORK/orig" "$WORK/now"

# --- UMEM allocation fails --------------------------------------------------------
( ulimit -l 64
  exec nsenter --net=/run/netns/$NS_DUT setpriv --inh-caps=-ipc_lock \
	--bounding-set=-ipc_lock "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" ) 2>"$WORK/err"
rc=$?
diag "$(tail -1 "$WORK/err")"
snapshot "$WORK/now"
check "UMEM beyond a 64 KiB memlock limit, no CAP_IPC_LOCK: exit 1, says why and the fix" \
	$([ $rc = 1 ] && grep -q "locked-memory limit: give xrxd CAP_IPC_LOCK or LimitMEMLOCK=infinity" "$WORK/err"; echo $?)
ok "  ... NIC restored, no program, pins or state file" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ]'

done_testing
