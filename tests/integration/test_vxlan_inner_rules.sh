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
	timeout 60 nsenter --net=/run/netns/$NS_SRC $PY - $IF_SRC "$SMAC" "$MAC" \
		$IP4_SRC $IP4_DUT $IP6_SRC $IP6_DUT $N4 $N6 $NO $NP <<'PYEOF'
import socket, struct, sys

ifname, smac, dmac = sys.argv[1], sys.argv[2], sys.argv[3]
s4, d4, s6, d6 = sys.argv[4:8]
n4, n6, no, np = (int(x) for x in sys.argv[8:12])
mac = lambda m: bytes(int(x, 16) for x in m.split(":"))
smac, dmac = mac(smac), mac(dmac)
a4 = lambda a: socket.inet_pton(socket.AF_INET, a)
a6 = lambda a: socket.inet_pton(socket.AF_INET6, a)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def tcp4(src, dst, sport, dport, payload):
    th = bytearray(struct.pack("!HHIIBBHHH", sport, dport, 1000, 1, 5 << 4,
                               0x18, 65535, 0, 0)) + payload
    ph = src + dst + struct.pack("!HH", 6, len(th))
    struct.pack_into("!H", th, 16, csum(ph + bytes(th)))
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(th), 1,
                               0x4000, 64, 6, 0, src, dst))
    struct.pack_into("!H", ip, 10, csum(bytes(ip)))
    return bytes(ip + th)


def tcp6(src, dst, sport, dport, payload):
    th = bytearray(struct.pack("!HHIIBBHHH", sport, dport, 1000, 1, 5 << 4,
                               0x18, 65535, 0, 0)) + payload
    ph = src + dst + struct.pack("!II", len(th), 6)
    struct.pack_into("!H", th, 16, csum(ph + bytes(th)))
    return struct.pack("!IHBB16s16s", 6 << 28, len(th), 6, 64, src, dst) + th


def vxlan(outer6, inner_dport, sport):
    imac = bytes.fromhex("02000000aa01") + bytes.fromhex("02000000aa02")
    inner = imac + b"\x08\x00" + tcp4(a4("198.19.0.1"), a4("198.19.0.2"),
                                      sport, inner_dport, b"x" * 100)
    udp = struct.pack("!HHHH", 50000, 4789, 8 + 8 + len(inner), 0)
    body = udp + struct.pack("!II", 0x08000000, 42 << 8) + inner
    if outer6:
        ip = struct.pack("!IHBB16s16s", 6 << 28, len(body), 17, 64,
                         a6(s6), a6(d6))
        # a UDP checksum is mandatory over IPv6
        ph = a6(s6) + a6(d6) + struct.pack("!II", len(body), 17)
        c = csum(ph + body) or 0xffff
        body = body[:6] + struct.pack("!H", c) + body[8:]
        return dmac + smac + b"\x86\xdd" + ip + body
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(body), 1,
                               0x4000, 64, 17, 0, a4(s4), a4(d4)))
    struct.pack_into("!H", ip, 10, csum(bytes(ip)))
    return dmac + smac + b"\x08\x00" + bytes(ip) + body


frames = [vxlan(False, 5201, 41000 + i) for i in range(n4)]
frames += [vxlan(True, 5201, 42000 + i) for i in range(n6)]
frames += [vxlan(False, 80, 43000 + i) for i in range(no)]
frames += [dmac + smac + b"\x08\x00" +
           tcp4(a4(s4), a4(d4), 44000 + i, 5201, b"y" * 100)
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
if ! wait_for 15 ready; then
	sed 's/^/# /' "$WORK/xrxd.err"
	check "xrxd ready with accelerate = vxlan:tcp/5201" 1
	done_testing
	exit
fi
check "xrxd ready with accelerate = vxlan:tcp/5201" 0

check "xrxctl rules lists vxlan:tcp/5201" \
	$(xrxctl rules $IF_DUT | grep -q ' accel  vxlan:tcp/5201$'; echo $?)
# xrx_cfg as xrxd wrote it: the port and the inner-rules flag.
cfgv() {
	bpftool -j map dump pinned "$PIN/xrx_cfg" | $PY -c '
import json, sys
v = json.load(sys.stdin)[0]
v = v.get("formatted", v)["value"]
print(v["flags"], ",".join(str(p) for p in v["vxlan_ports"]))'
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
if wait_for 15 ready; then
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
