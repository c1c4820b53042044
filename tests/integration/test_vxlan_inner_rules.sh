#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Rules on the frame inside VXLAN, through a running xrxd: with
# "accelerate = vxlan:tcp/5201" and "vxlan_ports = 4789", xrxd loads the
# inner rule (scope inner) and the VXLAN port into xrx_rules/xrx_cfg, and
# xrx_rx takes exactly the VXLAN frames whose inner TCP goes to port 5201
# (inside outer IPv4 and IPv6): the pcap sink holds those and nothing
# else, while the tunnel's other frames and plain TCP to port 5201 go to
# the kernel. The counters vxlan, vxlan_inner_rule and redirect match the
# frames sent. A reload without the inner rule clears the flag, and the
# same frames then all go to the kernel.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
if ! $PY -c 'import scapy' 2>/dev/null; then
	skip_all "python3-scapy missing (scripts/deps.sh installs it)"
fi

testbed_up || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work vxinner
MAC=$(dut_mac)
SMAC=$(in_src ip -br link show $IF_SRC | awk '{ print $3 }')

# Frames, written by the sender below: N4 VXLAN (outer IPv4) and N6 VXLAN
# (outer IPv6) frames with inner TCP to 5201, NO VXLAN frames with inner
# TCP to 80, NP plain TCP frames to 5201; every inner frame a flow of its
# own (source port), so the engine delivers each one as it came.
N4=20 N6=10 NO=15 NP=5
send() {
	timeout 60 nsenter --net=/run/netns/$NS_SRC $PY - "$TOP/tests/tools" \
		$IF_SRC "$SMAC" "$MAC" $IP4_SRC $IP4_DUT $N4 $N6 $NO $NP <<'PYEOF'
# The frame builders of the VXLAN oracle (tests/tools/vxlan_trains.py):
# its outer addresses are the testbed's; each frame goes to the DUT's MAC.
import socket, sys
sys.path.insert(0, sys.argv[1])
import vxlan_trains as vt

ifname = sys.argv[2]
smac, dmac = (bytes(int(x, 16) for x in m.split(":")) for m in sys.argv[3:5])
s4, d4 = sys.argv[5:7]
n4, n6, no, np = (int(x) for x in sys.argv[7:11])
to_dut = lambda f: dmac + smac + f[12:]


def vxlan(outer6, inner_dport, sport):
    """One 100-byte inner TCP segment, its own flow (@sport), in VXLAN
    over IPv4 (outer UDP checksum 0) or IPv6 (mandatory there)."""
    f, = vt.train(1, plens=[100], sport=sport, dport=inner_dport,
                  okw=dict(v6=outer6, udp_csum=outer6, sport=50000))
    return to_dut(f)


frames = [vxlan(False, 5201, 41000 + i) for i in range(n4)]
frames += [vxlan(True, 5201, 42000 + i) for i in range(n6)]
frames += [vxlan(False, 80, 43000 + i) for i in range(no)]
# Plain TCP to 5201 between the testbed's own addresses.
vt.gf.IP4 = (s4, d4)
frames += [to_dut(vt.gf.Seg(sport=44000 + i, dport=5201, plen=100).build()[0])
           for i in range(np)]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
for f in frames:
    s.send(f)
PYEOF
}

printf '%s\n' "interface = $IF_DUT" "accelerate = vxlan:tcp/5201" \
	"vxlan_ports = 4789" "sink = pcap:$WORK/rx.pcap" >"$WORK/xrx.conf"
bg_dut "$XRXD" -v --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.err"
pid=$!
at_exit kill -KILL $pid
ready() { xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"; }
if ! wait_xrxd $pid ready; then
	sed 's/^/# /' "$WORK/xrxd.err"
	check "xrxd ready with accelerate = vxlan:tcp/5201" 1
	done_testing
	exit
fi
check "xrxd ready with accelerate = vxlan:tcp/5201" 0

check "xrxctl rules lists vxlan:tcp/5201" \
	$(xrxctl rules $IF_DUT | grep -q ' accel  vxlan:tcp/5201$'; echo $?)
# xrx_cfg as xrxd wrote it: the port and the inner-rules flag. The ports
# are in an anonymous union (a row per tunnel kind, and by name).
cfgv() {
	bpftool -j map dump pinned "$PIN/xrx_cfg" | $PY -c '
import json, sys
v = json.load(sys.stdin)[0]
v = v.get("formatted", v)["value"]
def find(d, k):
    if isinstance(d, dict):
        if k in d:
            return d[k]
        d = list(d.values())
    for x in d if isinstance(d, list) else []:
        r = find(x, k)
        if r is not None:
            return r
print(v["flags"], ",".join(str(p) for p in find(v, "vxlan_ports")))'
}
cfg=$(cfgv)
check "xrx_cfg: flags 1 (inner rules), vxlan_ports 4789 ($cfg)" \
	$([ "$cfg" = "1 4789,0,0,0,0,0,0,0" ]; echo $?)
check "xrxd logs the rule inside VXLAN" \
	$(grep -q "1 of the rules match the frame inside VXLAN" "$WORK/xrxd.err"; echo $?)

send
check "sent $((N4 + N6 + NO)) VXLAN frames and $NP plain ones" $?
want_red=$((N4 + N6))
wait_for 10 eval '[ "$(jget kernel.redirect.packets)" -ge $want_red ]'
wait_for 5 eval '[ "$(jget user.engine.frames_in)" -ge $want_red ]'
red=$(jget kernel.redirect.packets)
vx=$(jget kernel.vxlan.packets)
inner=$(jget kernel.vxlan_inner_rule.packets)
norule=$(jget kernel.pass_no_rule.packets)
diag "xrx_rx: redirect $red, vxlan $vx, vxlan_inner_rule $inner, pass_no_rule $norule"
check "vxlan counts every VXLAN frame ($vx of $((N4 + N6 + NO)))" \
	$([ "$vx" = $((N4 + N6 + NO)) ]; echo $?)
check "vxlan_inner_rule counts the inner tcp/5201 frames ($inner of $want_red)" \
	$([ "$inner" = $want_red ]; echo $?)
check "exactly those were redirected ($red)" $([ "$red" = $want_red ]; echo $?)
check "the tunnel's other frames and plain tcp/5201 went to the kernel ($norule >= $((NO + NP)))" \
	$([ "$norule" -ge $((NO + NP)) ]; echo $?)

kill -TERM $pid
timeout 20 tail --pid=$pid -f /dev/null
wait $pid
check "SIGTERM: exit 0" $?

# The capture: the inner tcp/5201 frames, each once, and nothing else.
out=$($PY - "$TOP/tests/tools" "$WORK"/rx.pcap* <<'PYEOF'
import struct, sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
v4 = v6 = 0
ports = set()
bad = []
for path in sys.argv[2:]:
    for f, _ in xrxpcap.read_pcap(path):
        et = struct.unpack("!H", f[12:14])[0]
        l4 = 34 if et == 0x0800 else 54
        if et not in (0x0800, 0x86dd) or f[l4 - 11 if et == 0x0800 else 20] != 17:
            bad.append("not UDP: %d bytes" % len(f))
            continue
        udport = struct.unpack("!H", f[l4 + 2:l4 + 4])[0]
        inner = f[l4 + 16:]
        dport = struct.unpack("!H", inner[14 + 22:14 + 24])[0]
        sport = struct.unpack("!H", inner[14 + 20:14 + 22])[0]
        if udport != 4789 or dport != 5201:
            bad.append("udp %d, inner port %d" % (udport, dport))
        if sport in ports:
            bad.append("inner flow %d twice" % sport)
        ports.add(sport)
        if et == 0x0800:
            v4 += 1
        else:
            v6 += 1
print(v4, v6, "; ".join(bad[:5]))
PYEOF
)
diag "capture: outer IPv4, outer IPv6, problems: $out"
check "the capture holds the $N4 + $N6 inner tcp/5201 frames and nothing else" \
	$([ "$out" = "$N4 $N6 " ]; echo $?)

# The same configuration without the inner rule: nothing is taken.
printf '%s\n' "interface = $IF_DUT" "accelerate = none" "vxlan_ports = 4789" \
	"sink = pcap:$WORK/rx2.pcap" >"$WORK/xrx.conf"
bg_dut "$XRXD" --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd2.err"
pid=$!
at_exit kill -KILL $pid
if wait_xrxd $pid ready; then
	cfg=$(cfgv)
	check "without vxlan: rules, xrx_cfg flags 0 ($cfg)" \
		$([ "$cfg" = "0 4789,0,0,0,0,0,0,0" ]; echo $?)
	send
	wait_for 10 eval '[ "$(jget kernel.vxlan.packets)" -ge $((N4 + N6 + NO)) ]'
	check "VXLAN frames counted ($(jget kernel.vxlan.packets)), none redirected ($(jget kernel.redirect.packets)), no inner rule used" \
		$([ "$(jget kernel.vxlan.packets)" = $((N4 + N6 + NO)) ] &&
		  [ "$(jget kernel.redirect.packets)" = 0 ] &&
		  [ "$(jget kernel.vxlan_inner_rule.packets)" = 0 ]; echo $?)
	kill -TERM $pid
	timeout 20 tail --pid=$pid -f /dev/null
	wait $pid
	check "SIGTERM: exit 0" $?
else
	sed 's/^/# /' "$WORK/xrxd2.err"
	check "xrxd ready without inner rules" 1
fi
done_testing
