#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Rules on the frame inside GENEVE, through a running xrxd, as
# test_vxlan_inner_rules.sh does for VXLAN: with "accelerate =
# geneve:tcp/5202, vxlan:tcp/5201", "geneve_ports = 6081" and
# "vxlan_ports = 4789", xrxd writes both ports and the inner-rules flag
# into xrx_cfg, and xrx_rx takes exactly the GENEVE frames whose inner
# TCP goes to port 5202: with options over outer IPv4, and IPv4 carried
# without an inner Ethernet header (protocol type 0x0800) over outer
# IPv6. GENEVE frames with inner TCP to 5201 (the VXLAN rule's port) go
# to the kernel: a scope is its tunnel kind's. The counters geneve,
# geneve_inner_rule and redirect match the frames sent, and the pcap sink
# holds the taken frames and nothing else. Crafted frames: no geneve
# module needed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
if ! $PY -c 'import scapy' 2>/dev/null; then
	skip_all "python3-scapy missing (scripts/deps.sh installs it)"
fi

testbed_up || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work gninner
MAC=$(dut_mac)
SMAC=$(in_src ip -br link show $IF_SRC | awk '{ print $3 }')

# G4 GENEVE frames (outer IPv4, two option words) and G6 (outer IPv6, IPv4
# without inner Ethernet) with inner TCP to 5202, GO GENEVE frames with
# inner TCP to 5201; every inner frame a flow of its own (source port).
G4=12 G6=8 GO=10
send() {
	timeout 60 nsenter --net=/run/netns/$NS_SRC $PY - "$TOP/tests/tools" \
		$IF_SRC "$SMAC" "$MAC" $G4 $G6 $GO <<'PYEOF'
# The frame builders of the GENEVE oracle (tests/tools/geneve_trains.py).
import socket, sys
sys.path.insert(0, sys.argv[1])
import geneve_trains as gt

ifname = sys.argv[2]
smac, dmac = (bytes(int(x, 16) for x in m.split(":")) for m in sys.argv[3:5])
g4, g6, go = (int(x) for x in sys.argv[5:8])
to_dut = lambda f: dmac + smac + f[12:]


def geneve(outer6, inner_dport, sport, ip):
    """One 100-byte inner TCP segment, its own flow (@sport), in GENEVE
    with options over IPv4, or IPv4 without Ethernet over IPv6."""
    gkw = dict(proto=0x0800) if ip else dict(opts=gt.OPT * 2)
    f, = gt.train(1, plens=[100], sport=sport, dport=inner_dport,
                  okw=dict(v6=outer6, sport=50000), gkw=gkw, no_eth=ip)
    return to_dut(f)


frames = [geneve(False, 5202, 41000 + i, False) for i in range(g4)]
frames += [geneve(True, 5202, 42000 + i, True) for i in range(g6)]
frames += [geneve(False, 5201, 43000 + i, False) for i in range(go)]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
for f in frames:
    s.send(f)
PYEOF
}

printf '%s\n' "interface = $IF_DUT" "accelerate = geneve:tcp/5202, vxlan:tcp/5201" \
	"geneve_ports = 6081" "vxlan_ports = 4789" "sink = pcap:$WORK/rx.pcap" \
	>"$WORK/xrx.conf"
bg_dut "$XRXD" -v --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.err"
pid=$!
at_exit kill -KILL $pid
ready() { xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"; }
if ! wait_xrxd $pid ready; then
	sed 's/^/# /' "$WORK/xrxd.err"
	check "xrxd ready with accelerate = geneve:tcp/5202" 1
	done_testing
	exit
fi
check "xrxd ready with accelerate = geneve:tcp/5202" 0

check "xrxctl rules lists geneve:tcp/5202 and vxlan:tcp/5201" \
	$(xrxctl rules $IF_DUT | grep -q ' accel  geneve:tcp/5202$' &&
	  xrxctl rules $IF_DUT | grep -q ' accel  vxlan:tcp/5201$'; echo $?)
# The ports are in an anonymous union of xrx_cfg (a row per kind).
cfg=$(bpftool -j map dump pinned "$PIN/xrx_cfg" | $PY -c '
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
print(v["flags"], ",".join(str(p) for p in find(v, "vxlan_ports")),
      ",".join(str(p) for p in find(v, "geneve_ports")))')
check "xrx_cfg: flags 1, vxlan_ports 4789, geneve_ports 6081 ($cfg)" \
	$([ "$cfg" = "1 4789,0,0,0,0,0,0,0 6081,0,0,0,0,0,0,0" ]; echo $?)
check "xrxd logs the rule inside GENEVE" \
	$(grep -q "1 of the rules match the frame inside GENEVE" "$WORK/xrxd.err"; echo $?)

send
check "sent $((G4 + G6 + GO)) GENEVE frames" $?
want_red=$((G4 + G6))
wait_for 10 eval '[ "$(jget kernel.geneve.packets)" -ge $((G4 + G6 + GO)) ]'
wait_for 5 eval '[ "$(jget user.engine.frames_in)" -ge $want_red ]'
red=$(jget kernel.redirect.packets)
gn=$(jget kernel.geneve.packets)
vx=$(jget kernel.vxlan.packets)
inner=$(jget kernel.geneve_inner_rule.packets)
vinner=$(jget kernel.vxlan_inner_rule.packets)
norule=$(jget kernel.pass_no_rule.packets)
diag "xrx_rx: redirect $red, geneve $gn, geneve_inner_rule $inner, vxlan $vx, pass_no_rule $norule"
check "geneve counts every GENEVE frame ($gn of $((G4 + G6 + GO))), vxlan none ($vx)" \
	$([ "$gn" = $((G4 + G6 + GO)) ] && [ "$vx" = 0 ]; echo $?)
check "geneve_inner_rule counts the inner tcp/5202 frames ($inner of $want_red)" \
	$([ "$inner" = $want_red ] && [ "$vinner" = 0 ]; echo $?)
check "exactly those were redirected ($red)" $([ "$red" = $want_red ]; echo $?)
check "inner tcp/5201 in GENEVE went to the kernel ($norule >= $GO)" \
	$([ "$norule" -ge $GO ]; echo $?)

kill -TERM $pid
timeout 20 tail --pid=$pid -f /dev/null
wait $pid
check "SIGTERM: exit 0" $?

# The capture: the inner tcp/5202 frames, each once, and nothing else.
out=$($PY - "$TOP/tests/tools" "$WORK"/rx.pcap* <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
xrxpcap.GENEVE_PORTS.add(6081)
v4 = v6 = 0
flows = set()
bad = []
for path in sys.argv[2:]:
    for f, _ in xrxpcap.read_pcap(path):
        p = xrxpcap.parse(f)
        k = p["key"]
        # outer (ver, vlans, src, dst, proto, "udp", sport, dport, csum,
        # "vxlan", header) + the inner key (..., "tcp", sport, dport)
        if "vxlan" not in k or k[-3] != "tcp" or k[-1] != 5202:
            bad.append("not GENEVE with inner tcp/5202: %r" % (k,))
            continue
        if k[-2] in flows:
            bad.append("inner flow %d twice" % k[-2])
        flows.add(k[-2])
        if k[0] == 4:
            v4 += 1
        else:
            v6 += 1
print(v4, v6, "; ".join(bad[:5]))
PYEOF
)
diag "capture: outer IPv4, outer IPv6, problems: $out"
check "the capture holds the $G4 + $G6 inner tcp/5202 frames and nothing else" \
	$([ "$out" = "$G4 $G6 " ]; echo $?)
done_testing
