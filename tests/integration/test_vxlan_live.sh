#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# VXLAN through a running xrxd: with "vxlan_ports = 4789" and an
# accelerate rule for udp/4789, crafted VXLAN trains (inner TCPv4 and
# TCPv6, two inner flows in one tunnel, two VNIs, outer UDP checksum zero)
# sent with AF_PACKET into the DUT's veth come out of the pcap sink
# aggregated: every flow's payload byte for byte (compared by outer flow,
# VNI and inner flow), the engine's VXLAN counters agree, and every
# packet's headers are consistent as the kernel leaves an aggregate (outer
# IPv4 length and checksum, UDP length, UDP checksum zero or the
# pseudo-header sum, inner IP length and checksum). The rules themselves
# are checked against the kernel by test_vxlan_oracle.sh; this is the live
# path (xrx_rx, AF_XDP, workers, sink) carrying them.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
if ! $PY -c 'import scapy' 2>/dev/null; then
	skip_all "python3-scapy missing (scripts/deps.sh installs it)"
fi

testbed_up mtu 2000 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work vxlan
MAC=$(dut_mac)
jget() { jpath "$WORK/stats.json" "$1"; }
ready() { xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"; }
in_src ethtool -K $IF_SRC tso off gso off tx off >/dev/null 2>&1

TRAINS="vx4_contig vx6_contig vx4_two_inner vx4_vni_alt vx4_csum_zero"
ok "VXLAN trains generated" $PY "$TOP/tests/tools/vxlan_trains.py" "$WORK/fx"
# To the DUT's own MAC, as a VXLAN peer sends them, and each train from
# an outer UDP source port of its own: the trains reuse inner flows and
# sequence numbers, and the payload check needs every flow once. One
# input file of them all too.
$PY - "$TOP/tests/tools" "$WORK/fx" "$MAC" $TRAINS <<'PYEOF'
import struct, sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
d, mac = sys.argv[2], bytes(int(x, 16) for x in sys.argv[3].split(":"))
alltx = []
for k, n in enumerate(sys.argv[4:]):
    out = []
    for f, _ in xrxpcap.read_pcap("%s/%s.pcap" % (d, n)):
        f = bytearray(mac + f[6:])
        struct.pack_into("!H", f, 34, 50000 + k)
        if f[40] | f[41]:
            f[40:42] = b"\0\0"
            ulen = len(f) - 34
            c = xrxpcap.csum(bytes(f[26:34]) + struct.pack("!HH", 17, ulen) +
                             bytes(f[34:]))
            struct.pack_into("!H", f, 40, c or 0xffff)
        out.append(bytes(f))
    xrxpcap.write_pcap("%s/%s.pcap" % (d, n), out)
    alltx += out
xrxpcap.write_pcap(d + "/tx.pcap", alltx)
PYEOF
sent=$($PY "$TOP/tests/tools/xrxpcap.py" count "$WORK/fx/tx.pcap" | cut -d' ' -f1)

printf '%s\n' "interface = $IF_DUT" "accelerate = udp/4789" \
	"vxlan_ports = 4789" "sink = pcap:$WORK/rx.pcap" \
	"flush_timeout_us = 2000" >"$WORK/xrx.conf"
nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" \
	-c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
if ! wait_xrxd $pid ready; then
	sed 's/^/# /' "$WORK/xrxd.err"
	check "xrxd ready with vxlan_ports = 4789" 1
	done_testing
	exit
fi
check "xrxd ready with vxlan_ports = 4789" 0

timeout 60 nsenter --net=/run/netns/$NS_SRC $PY \
	"$TOP/tests/tools/send_trains.py" --gap 50 $IF_SRC "$WORK/fx" $TRAINS
check "sent $sent VXLAN frames in 5 trains" $?
# Idle: everything flushed (2 ms timeout), counters refreshed (1 s).
sleep 2.5
xrxctl stats $IF_DUT --json >"$WORK/stats.json"
fin=$(jget user.engine.vxlan_frames_in)
aggs=$(jget user.engine.vxlan_aggs_out)
diag "engine: vxlan_frames_in $fin, vxlan_aggs_out $aggs, pkts_out $(jget user.engine.pkts_out), segs_merged $(jget user.engine.segs_merged), csum_bad $(jget user.engine.csum_bad)"
check "every VXLAN frame reached the engine's tunnel rules ($fin of $sent)" \
	$([ "$fin" = "$sent" ]; echo $?)
# At least one aggregate per inner flow: 1 + 1 + 2 + 2 + 1.
check "aggregated: at least 7 VXLAN aggregates ($aggs)" $([ "$aggs" -ge 7 ]; echo $?)
check "no checksum refused, nothing dropped" \
	$([ "$(jget user.engine.csum_bad)" = 0 ] && [ "$(jget user.engine.drop_no_buffer)" = 0 ] &&
	  [ "$(jget user.sink.errors)" = 0 ] && [ "$(jget user.sink.dropped)" = 0 ]; echo $?)
unaccounted_zero

kill -TERM $pid
timeout 20 tail --pid=$pid -f /dev/null
wait $pid
check "SIGTERM: exit 0" $?

out=$($PY - "$TOP/tests/tools" "$WORK/fx/tx.pcap" "$WORK/rx.pcap" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
xrxpcap.VXLAN_PORTS.add(4789)
for e in xrxpcap.check_payload(xrxpcap.packets(sys.argv[2]),
                               xrxpcap.packets(sys.argv[3])):
    print(e)
PYEOF
)
check "every flow's payload arrived byte for byte (outer flow + VNI + inner flow)" \
	$([ -z "$out" ]; echo $?)
[ -n "$out" ] && diag "$out"

# Header consistency, computed here: what a receiver of an aggregate
# (or of a single frame) relies on.
out=$($PY - "$TOP/tests/tools" "$WORK/rx.pcap" <<'PYEOF'
import struct, sys
sys.path.insert(0, sys.argv[1])
import xrxpcap


def s16(b):
    """Ones' complement sum of @b, folded, not complemented."""
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


n = aggs = 0
for i, (f, _) in enumerate(xrxpcap.read_pcap(sys.argv[2]), 1):
    ip, uh = f[14:34], f[34:42]
    if f[23] != 17 or struct.unpack("!H", uh[2:4])[0] != 4789:
        continue
    n += 1
    ulen, uck = struct.unpack("!HH", uh[4:8])
    err = []
    if struct.unpack("!H", ip[2:4])[0] != len(f) - 14:
        err.append("outer tot_len")
    if s16(ip) != 0xffff:
        err.append("outer IPv4 checksum")
    if ulen != len(f) - 34:
        err.append("UDP length")
    inner = f[50:]
    if struct.unpack("!H", inner[12:14])[0] == 0x0800:
        iplen = struct.unpack("!H", inner[16:18])[0] + 14
        if s16(inner[14:34]) != 0xffff:
            err.append("inner IPv4 checksum")
    else:
        iplen = struct.unpack("!H", inner[18:20])[0] + 54
    if iplen != len(inner):
        err.append("inner IP length")
    pseudo = s16(ip[12:20] + struct.pack("!HH", 17, ulen))
    if len(f) > 2014:
        # An aggregate (longer than the MTU): udp4_gro_complete() leaves
        # ~udp_v4_check(len, saddr, daddr, 0), the pseudo-header sum.
        aggs += 1
        if uck and uck != pseudo:
            err.append("UDP checksum %04x, pseudo-header sum %04x" %
                       (uck, pseudo))
    elif uck and s16(f[34:] + struct.pack("!H", pseudo)) != 0xffff:
        err.append("a single frame's UDP checksum")
    if err:
        print("packet %d (%d bytes): %s" % (i, len(f), ", ".join(err)))
print("checked %d VXLAN packets, %d aggregates" % (n, aggs))
PYEOF
)
echo "$out" | tail -1 | sed 's/^/# /'
check "every VXLAN packet's outer and inner headers are consistent" \
	$([ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q ', [1-9][0-9]* aggregates'; echo $?)
echo "$out" | head -n -1 | head -5 | sed 's/^/# /'
done_testing
