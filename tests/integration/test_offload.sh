#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrxd's offload control and its exact restore, on a veth pair created
# with 4 RX/TX queues. The NIC's state is snapshotted with tools other
# than xrx's own (ethtool -k/-l/-g, ip -d link, and a raw rtnetlink dump
# in Python for the IPv4 GRO/GSO limits this iproute2 does not print);
# after every restore the snapshots must be byte-identical.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need

testbed_up numrxqueues 4 numtxqueues 4 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work offload	# $STATE is made by xrxd and must come out 0700

# IFLA_* sizes by raw rtnetlink: an oracle independent of xrx and iproute2.
cat >"$WORK/linkattrs.py" <<'PYEOF'
import socket, struct, sys
idx = socket.if_nametoindex(sys.argv[1])
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
s.bind((0, 0))
ifi = struct.pack("BxHiII", 0, 0, idx, 0, 0)
s.send(struct.pack("IHHII", 16 + len(ifi), 18, 1, 1, 0) + ifi)  # RTM_GETLINK
data = s.recv(65536)
length = struct.unpack_from("I", data, 0)[0]
names = {41: "gso_max_size", 58: "gro_max_size", 59: "tso_max_size",
         63: "gso_ipv4_max_size", 64: "gro_ipv4_max_size"}
found = {}
off = 32
while off + 4 <= length:
    alen, atype = struct.unpack_from("HH", data, off)
    if alen < 4:
        break
    if atype & 0x3fff in names:
        found[names[atype & 0x3fff]] = struct.unpack_from("I", data, off + 4)[0]
    off += (alen + 3) & ~3
for k in sorted(found):
    print(k, found[k])
PYEOF

snapshot_more() { in_dut $PY "$WORK/linkattrs.py" $IF_DUT; }
attr() { in_dut $PY "$WORK/linkattrs.py" $IF_DUT | awk -v k="$1" '$1 == k { print $2 }'; }
rx_channels() { in_dut ethtool -l $IF_DUT | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2 }'; }
gro_state() { in_dut ethtool -k $IF_DUT | awk '/^generic-receive-offload:/ { print $2 }'; }
xrxd() { in_dut "$XRXD" --state-dir "$STATE" "$@"; }
no_state() { [ ! -e "$SF" ]; }

snapshot "$WORK/orig"
diag "$(grep -E '^(generic-receive|large-receive)' "$WORK/orig" | tr '\n' ' ')"
check "testbed: veth starts with gro off, 4 RX channels, 64 KiB limits" \
	$([ "$(gro_state)" = off ] && [ "$(rx_channels)" = 4 ] &&
	  [ "$(attr gro_ipv4_max_size)" = 65536 ]; echo $?)

# --- a config error touches nothing --------------------------------------
cat >"$WORK/bad.conf" <<EOF
interface = $IF_DUT
[offload]
gro = on
channels = 2
gro_max_sise = 131072
EOF
xrxd -c "$WORK/bad.conf" --apply-only 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
check "config error: exit 2" $([ $rc = 2 ]; echo $?)
check "config error: one line FILE:LINE: what; what to write" \
	$([ "$(wc -l <"$WORK/err")" = 1 ] &&
	  grep -q "^$WORK/bad.conf:5: unknown key 'offload.gro_max_sise'; did you mean 'offload.gro_max_size'" "$WORK/err"; echo $?)
snapshot "$WORK/now"
ok "config error: NIC unchanged" same "$WORK/orig" "$WORK/now"
ok "config error: no state file written" no_state

# --- apply, check, restore ------------------------------------------------
cat >"$WORK/good.conf" <<EOF
interface = $IF_DUT
[offload]
gro = on
lro = on
channels = 2
gro_max_size = 131072
gso_max_size = 32768
gro_ipv4_max_size = 100000
EOF
xrxd -c "$WORK/good.conf" --apply-only 2>"$WORK/err"
rc=$?
sed 's/^/# /' "$WORK/err"
check "apply: exit 0" $([ $rc = 0 ]; echo $?)
check "apply: veth's fixed LRO is a warning naming the setting and why" \
	$(grep -q "warning: $IF_DUT: offload.lro = on not applied: rx-lro is fixed off" "$WORK/err"; echo $?)
check "apply: gro on" $([ "$(gro_state)" = on ]; echo $?)
check "apply: 2 RX channels" $([ "$(rx_channels)" = 2 ]; echo $?)
check "apply: gro_max_size 131072, gso_max_size 32768, gro_ipv4_max_size 100000" \
	$([ "$(attr gro_max_size)" = 131072 ] && [ "$(attr gso_max_size)" = 32768 ] &&
	  [ "$(attr gro_ipv4_max_size)" = 100000 ]; echo $?)
# The kernel moves gso_ipv4_max_size along with gso_max_size <= 64 KiB
# (netif_set_gso_max_size()); restore must undo that side effect too.
check "apply: gso_ipv4_max_size moved along (kernel side effect)" \
	$([ "$(attr gso_ipv4_max_size)" = 32768 ]; echo $?)
check "apply: state file 0600 in a 0700 directory" \
	$([ "$(stat -c %a "$SF")" = 600 ] && [ "$(stat -c %a "$STATE")" = 700 ]; echo $?)
check "apply: state file records the originals" \
	$(grep -qx 'feature rx-gro off' "$SF" && grep -qx 'channels_rx 4' "$SF" &&
	  grep -qx 'gso_ipv4_max_size 65536' "$SF"; echo $?)

xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
check "restore: exit 0" $([ $rc = 0 ]; echo $?)
snapshot "$WORK/now"
ok "restore: ethtool -k/-l/-g and ip -d link identical to before" same "$WORK/orig" "$WORK/now"
ok "restore: state file removed" no_state
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
check "restore without a state file: exit 0 and says so" \
	$([ $rc = 0 ] && grep -q "nothing to restore: .*no state file" "$WORK/err"; echo $?)

# --- required settings ----------------------------------------------------
cat >"$WORK/req1.conf" <<EOF
interface = $IF_DUT
[offload]
gro = on
rx_ring = 512!
EOF
xrxd -c "$WORK/req1.conf" --apply-only 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
# A restart would fail the same way: exit 2 (RestartPreventExitStatus=2).
check "required, unsupported (veth has no rings): exit 2 naming setting and driver answer" \
	$([ $rc = 2 ] && grep -q "offload.rx_ring = 512! (.*req1.conf:4) cannot be applied: .*Operation not supported" "$WORK/err"; echo $?)
snapshot "$WORK/now"
ok "required, unsupported: NIC unchanged" same "$WORK/orig" "$WORK/now"
ok "required, unsupported: no state file" no_state

# veth refuses fewer RX queues than its peer has TX queues while a native
# XDP program is attached (veth_set_channels()): a refusal that only comes
# when the change is made, after other settings were already applied.
# A map-less XDP_PASS program: nothing pinned, nothing shared.
if xdp_pass_attach; then
	snapshot "$WORK/xdp"
	cat >"$WORK/req2.conf" <<EOF
interface = $IF_DUT
[offload]
gro_max_size = 131072
gso_max_size = 32768
channels = 2!
EOF
	xrxd -c "$WORK/req2.conf" --apply-only 2>"$WORK/err"
	rc=$?
	diag "$(cat "$WORK/err")"
	check "required, refused by the driver (EINVAL): exit 2 with the driver's answer" \
		$([ $rc = 2 ] && grep -q "offload.channels = 2! (.*req2.conf:5) was refused: Invalid argument" "$WORK/err"; echo $?)
	snapshot "$WORK/now"
	ok "required, refused: sizes applied before were rolled back" same "$WORK/xdp" "$WORK/now"
	ok "required, refused: no state file left" no_state

	sed -i 's/channels = 2!/channels = 2/' "$WORK/req2.conf"
	xrxd -c "$WORK/req2.conf" --apply-only 2>"$WORK/err"
	rc=$?
	check "not required, refused: exit 0, warning, the rest applied" \
		$([ $rc = 0 ] && grep -q "warning: .*offload.channels = 2 was refused: Invalid argument" "$WORK/err" &&
		  [ "$(attr gro_max_size)" = 131072 ]; echo $?)
	xrxctl restore $IF_DUT 2>/dev/null
	snapshot "$WORK/now"
	ok "not required, refused: restore identical" same "$WORK/xdp" "$WORK/now"
	in_dut ip link set dev $IF_DUT xdp off
else
	for n in 1 2 3 4 5; do skip "required refused by the driver ($n)" "cannot attach an XDP program to veth: $(head -1 "$WORK/err")"; done
fi
snapshot "$WORK/now"
ok "after XDP detach: back to the original snapshot" same "$WORK/orig" "$WORK/now"

# --- a dead xrxd's state file -------------------------------------------
# The daemon mode applies, then waits for a signal; SIGKILL leaves the NIC
# changed and the state file behind, as a crash would.
# nsenter execs xrxd in place, so $! is xrxd's own pid.
nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" -c "$WORK/good.conf" 2>"$WORK/daemon.err" &
pid=$!
at_exit kill -KILL $pid
wait_for 10 test -e "$SF"
wait_for 5 test "$(rx_channels)" = 2
kill -KILL $pid
wait $pid 2>/dev/null
check "SIGKILL: state file stays, NIC still changed" \
	$([ -e "$SF" ] && [ "$(rx_channels)" = 2 ]; echo $?)
grep -q "^pid $pid\$" "$SF"
check "SIGKILL: state file names the dead xrxd's pid" $?

# A new xrxd start restores the leftovers before recording anything.
xrxd -c "$WORK/good.conf" --apply-only 2>"$WORK/err"
rc=$?
check "restart after a crash: restores first (exit 0, says so)" \
	$([ $rc = 0 ] && grep -q "restored the settings a previous xrxd left changed" "$WORK/err"; echo $?)
check "restart after a crash: state records the true originals" \
	$(grep -qx 'channels_rx 4' "$SF" && grep -qx 'feature rx-gro off' "$SF"; echo $?)
xrxctl restore $IF_DUT 2>/dev/null
rc=$?
snapshot "$WORK/now"
check "xrxctl restore of a dead xrxd's state: exit 0" $([ $rc = 0 ]; echo $?)
ok "xrxctl restore of a dead xrxd's state: identical to before" same "$WORK/orig" "$WORK/now"
ok "xrxctl restore of a dead xrxd's state: file removed" no_state

# SIGTERM: the daemon restores by itself.
nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" -c "$WORK/good.conf" 2>"$WORK/daemon.err" &
pid=$!
at_exit kill -KILL $pid
wait_for 10 test -e "$SF"
wait_for 5 test "$(rx_channels)" = 2
kill -TERM $pid
wait $pid
rc=$?
snapshot "$WORK/now"
check "SIGTERM: xrxd exits 0" $([ $rc = 0 ]; echo $?)
ok "SIGTERM: NIC identical to before, state file removed" \
	eval 'same "$WORK/orig" "$WORK/now" && no_state'

# --- broken state files are refused, NIC untouched --------------------------
xrxd -c "$WORK/good.conf" --apply-only 2>/dev/null
snapshot "$WORK/applied"
cp "$SF" "$WORK/saved.state"
head -c 60 "$WORK/saved.state" >"$SF"
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
diag "$(cat "$WORK/err")"
snapshot "$WORK/now"
check "truncated state file: exit 1, names the file" \
	$([ $rc = 1 ] && grep -q "$SF: truncated" "$WORK/err"; echo $?)
ok "truncated state file: NIC untouched" same "$WORK/applied" "$WORK/now"
sed 's/channels_rx 4/channels_rx 1/' "$WORK/saved.state" >"$SF"
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
check "edited state file: exit 1 (checksum)" \
	$([ $rc = 1 ] && grep -q "$SF: corrupted: checksum" "$WORK/err"; echo $?)
cp "$WORK/saved.state" "$SF"
chmod 0666 "$SF"
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
check "world-writable state file: exit 1, refused" \
	$([ $rc = 1 ] && grep -q "$SF: refused" "$WORK/err"; echo $?)
rm -f "$SF"
ln -s "$WORK/saved.state" "$SF"
xrxctl restore $IF_DUT 2>"$WORK/err"
rc=$?
check "symlinked state file: exit 1, refused" \
	$([ $rc = 1 ] && grep -q "$SF: is a symlink" "$WORK/err"; echo $?)
rm -f "$SF"
cp "$WORK/saved.state" "$SF"
chmod 0600 "$SF"
xrxctl restore $IF_DUT 2>/dev/null
snapshot "$WORK/now"
ok "intact state file: restored identical to before" same "$WORK/orig" "$WORK/now"

# --- usage ------------------------------------------------------------------
xrxctl restore 2>/dev/null
check "xrxctl restore without IFACE: exit 2" $([ $? = 2 ]; echo $?)
xrxctl frobnicate 2>/dev/null
check "xrxctl unknown command: exit 2" $([ $? = 2 ]; echo $?)
in_dut "$XRXD" --bogus 2>/dev/null
check "xrxd unknown option: exit 2" $([ $? = 2 ]; echo $?)
xrxd -i other0 -c "$WORK/good.conf" --check-config >/dev/null 2>"$WORK/err"
rc=$?
check "xrxd -i not matching the config's interface: exit 2, FILE:LINE" \
	$([ $rc = 2 ] && grep -q "good.conf:1: interface = $IF_DUT, but xrxd was started for other0" "$WORK/err"; echo $?)
# Trusted checksums into the kernel stack: refused unless acknowledged.
printf 'interface = %s\nsink = tun:xt%s\ncsum = trust\n' $IF_DUT $$ >"$WORK/trust.conf"
snapshot "$WORK/before-trust"
xrxd -c "$WORK/trust.conf" 2>"$WORK/err"
rc=$?
snapshot "$WORK/after-trust"
[ $rc = 2 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
	grep -q "trust.conf:3: csum = trust with sink = tun:xt$$ .*write csum = verify, or add csum_trust_may_deliver_corrupt_data = on" "$WORK/err" &&
	same "$WORK/before-trust" "$WORK/after-trust"
check "csum = trust with a TUN sink: exit 2, FILE:LINE, what to write; NIC untouched" $?
echo 'csum_trust_may_deliver_corrupt_data = on' >>"$WORK/trust.conf"
xrxd -c "$WORK/trust.conf" --check-config >/dev/null 2>"$WORK/err"
check "the same, acknowledged: accepted by --check-config" $?

done_testing
