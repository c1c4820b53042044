# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared by the tests of rules on the frame inside a tunnel, through a
# running xrxd (test_vxlan_inner_rules.sh, test_geneve_inner_rules.sh),
# sourced after tests/lib.sh and xrxd_lib.sh. The tunnel kind, vxlan or
# geneve, chooses its UDP port (4789, 6081), its xrx.conf key
# (KIND_ports), its counters (KIND, KIND_inner_rule), its name in xrxd's
# log (VXLAN, GENEVE) and the builders of its frames (the oracle's,
# tests/tools/KIND_trains.py). Crafted frames: no vxlan or geneve module.
#
#   tnl_testbed KIND NAME  skip unless xrxd_need bpffs and scapy; the
#                          testbed, xrxd_work NAME, $MAC and $SMAC (the
#                          DUT's, the source's), $TNL (KIND), $TNL_PORT,
#                          $TNL_NAME (its name in xrxd's log)
# The test then says what it sends and configures:
#   RULE         the inner TCP port of its rule (KIND:tcp/RULE)
#   ODPORT       the inner TCP port of the tunnel frames no rule takes
#   N4 N6 NO NP  N4 KIND frames over outer IPv4 and N6 over outer IPv6
#                with inner TCP to RULE, NO over outer IPv4 with inner TCP
#                to ODPORT, NP plain TCP frames to RULE; each inner frame
#                a flow of its own (source port), so the engine delivers
#                each one as it came
#   PORTS        the kinds whose port goes into xrx.conf (KIND_ports)
#   tnl_inner_rules ACCEL  xrxd with "accelerate = ACCEL" (rules ", "
#                apart) and PORTS, pcap sink: the cases that it lists
#                the rules, writes the ports and the inner-rules flag to
#                xrx_cfg, logs the rule inside KIND; that after tnl_send
#                the counters KIND and KIND_inner_rule, the other kind's
#                (both 0), redirect and pass_no_rule match the frames
#                sent; SIGTERM exit 0; the capture holds the N4 + N6
#                frames, each once, and nothing else. Ends the test (a
#                failed case) if xrxd does not come up
#   tnl_without_inner      the same configuration without inner rules
#                (accelerate = none): the cases that xrx_cfg's flag is 0,
#                that the tunnel frames are counted and none taken,
#                SIGTERM exit 0
#   tnl_send     the frames above, from the source to the DUT's MAC

tnl_testbed() {
	xrxd_need bpffs
	if ! $PY -c 'import scapy' 2>/dev/null; then
		skip_all "python3-scapy missing (scripts/deps.sh installs it)"
	fi
	TNL=$1
	case $TNL in
	vxlan) TNL_PORT=4789 TNL_NAME=VXLAN ;;
	geneve) TNL_PORT=6081 TNL_NAME=GENEVE ;;
	*) echo "tnl_testbed: unknown tunnel kind $TNL (vxlan, geneve)" >&2; exit 2 ;;
	esac
	testbed_up || { echo "not ok 1 - testbed"; exit 1; }
	xrxd_work "$2"
	MAC=$(dut_mac)
	SMAC=$(in_src ip -br link show $IF_SRC | awk '{ print $3 }')
}

tnl_send() {
	timeout 60 nsenter --net=/run/netns/$NS_SRC $PY - "$TOP/tests/tools" \
		$TNL $IF_SRC "$SMAC" "$MAC" $IP4_SRC $IP4_DUT $RULE $ODPORT \
		$N4 $N6 $NO $NP <<'PYEOF'
# The frame builders of the kind's oracle: its outer addresses are the
# testbed's; each frame goes to the DUT's MAC.
import importlib, socket, sys
sys.path.insert(0, sys.argv[1])
kind, ifname = sys.argv[2:4]
tr = importlib.import_module(kind + "_trains")
smac, dmac = (bytes(int(x, 16) for x in m.split(":")) for m in sys.argv[4:6])
s4, d4 = sys.argv[6:8]
rule, odport, n4, n6, no, np = (int(x) for x in sys.argv[8:14])
to_dut = lambda f: dmac + smac + f[12:]


def tunneled(outer6, inner_dport, sport):
    """One 100-byte inner TCP segment, its own flow (@sport). VXLAN over
    IPv4 (outer UDP checksum 0) or IPv6 (mandatory there); GENEVE with
    options over IPv4, or IPv4 without inner Ethernet over IPv6."""
    kw = dict(plens=[100], sport=sport, dport=inner_dport)
    if kind == "vxlan":
        f, = tr.train(1, okw=dict(v6=outer6, udp_csum=outer6, sport=50000),
                      **kw)
    else:
        gkw = dict(proto=0x0800) if outer6 else dict(opts=tr.OPT * 2)
        f, = tr.train(1, okw=dict(v6=outer6, sport=50000), gkw=gkw,
                      no_eth=outer6, **kw)
    return to_dut(f)


frames = [tunneled(False, rule, 41000 + i) for i in range(n4)]
frames += [tunneled(True, rule, 42000 + i) for i in range(n6)]
frames += [tunneled(False, odport, 43000 + i) for i in range(no)]
# Plain TCP to the rule's port between the testbed's own addresses.
tr.gf.IP4 = (s4, d4)
frames += [to_dut(tr.gf.Seg(sport=44000 + i, dport=rule, plen=100).build()[0])
           for i in range(np)]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
for f in frames:
    s.send(f)
PYEOF
}

# _tnl_conf ACCEL PCAP: $WORK/xrx.conf with the ports of PORTS.
_tnl_conf() {
	local k
	{
		printf '%s\n' "interface = $IF_DUT" "accelerate = $1"
		for k in $PORTS; do
			case $k in
			vxlan) echo "vxlan_ports = 4789" ;;
			geneve) echo "geneve_ports = 6081" ;;
			esac
		done
		echo "sink = pcap:$WORK/$2"
	} >"$WORK/xrx.conf"
}

# _tnl_cfg FLAGS: one case, xrx_cfg as xrxd wrote it: the inner-rules
# flag FLAGS, vxlan_ports and geneve_ports those of PORTS (none: 0s).
# The ports are in an anonymous union (a row per tunnel kind, and by
# name).
_tnl_cfg() {
	local cfg want=$1 k p say=
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
	for k in vxlan geneve; do
		p=0
		[[ " $PORTS " != *" $k "* ]] || { [ $k = vxlan ] && p=4789 || p=6081; }
		want+=" $p,0,0,0,0,0,0,0"
		say+=", ${k}_ports $p"
	done
	check "xrx_cfg: flags $1$say ($cfg)" \
		$([ "$cfg" = "$want" ]; echo $?)
}

# _tnl_stop: one case, xrxd ($pid) ends on SIGTERM with 0.
_tnl_stop() {
	kill -TERM $pid
	timeout 20 tail --pid=$pid -f /dev/null
	wait $pid
	check "SIGTERM: exit 0" $?
}

_tnl_ge() { [ "$(jget "$1")" -ge "$2" ]; }

tnl_inner_rules() {
	local accel=$1 other rules r rs ok sent tot=$((N4 + N6 + NO))
	local want=$((N4 + N6)) red n on inner oinner norule out

	[ $TNL = vxlan ] && other=geneve || other=vxlan
	_tnl_conf "$accel" rx.pcap
	if ! xrxd_up; then
		check "xrxd ready with accelerate = $accel" 1
		done_testing
		exit
	fi
	check "xrxd ready with accelerate = $accel" 0

	rules=$(xrxctl rules $IF_DUT)
	ok=0
	IFS=, read -ra rs <<<"${accel//, /,}"
	for r in "${rs[@]}"; do
		grep -q " accel  $r\$" <<<"$rules" || ok=1
	done
	check "xrxctl rules lists $accel" $ok
	_tnl_cfg 1
	check "xrxd logs the rule inside $TNL_NAME" \
		$(grep -q "1 of the rules match the frame inside $TNL_NAME" "$WORK/xrxd.err"; echo $?)

	sent="$tot $TNL_NAME frames"
	[ $NP = 0 ] || sent+=" and $NP plain ones"
	tnl_send
	check "sent $sent" $?
	# Every frame seen before the counters are read: each wait bounded.
	wait_for 10 _tnl_ge kernel.$TNL.packets $tot
	wait_for 10 _tnl_ge kernel.redirect.packets $want
	wait_for 10 _tnl_ge kernel.pass_no_rule.packets $((NO + NP))
	wait_for 5 _tnl_ge user.engine.frames_in $want
	red=$(jget kernel.redirect.packets)
	n=$(jget kernel.$TNL.packets)
	on=$(jget kernel.$other.packets)
	inner=$(jget kernel.${TNL}_inner_rule.packets)
	oinner=$(jget kernel.${other}_inner_rule.packets)
	norule=$(jget kernel.pass_no_rule.packets)
	diag "xrx_rx: redirect $red, $TNL $n, ${TNL}_inner_rule $inner, $other $on, ${other}_inner_rule $oinner, pass_no_rule $norule"
	check "$TNL counts every $TNL_NAME frame ($n of $tot), $other none ($on)" \
		$([ "$n" = $tot ] && [ "$on" = 0 ]; echo $?)
	check "${TNL}_inner_rule counts the inner tcp/$RULE frames ($inner of $want), ${other}_inner_rule none ($oinner)" \
		$([ "$inner" = $want ] && [ "$oinner" = 0 ]; echo $?)
	check "exactly those were redirected ($red)" $([ "$red" = $want ]; echo $?)
	r="the tunnel's frames with inner tcp/$ODPORT"
	[ $NP = 0 ] || r+=" and plain tcp/$RULE"
	check "$r went to the kernel ($norule >= $((NO + NP)))" \
		$([ "$norule" -ge $((NO + NP)) ]; echo $?)

	_tnl_stop

	# The capture: the inner tcp/RULE frames, each once, and nothing else.
	out=$($PY - "$TOP/tests/tools" $TNL $TNL_PORT $RULE "$WORK"/rx.pcap* <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
kind, port, rule = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
(xrxpcap.VXLAN_PORTS if kind == "vxlan" else xrxpcap.GENEVE_PORTS).add(port)
v4 = v6 = 0
flows = set()
bad = []
for path in sys.argv[5:]:
    for f, _ in xrxpcap.read_pcap(path):
        k = xrxpcap.parse(f)["key"]
        # outer (ver, vlans, addresses..., "udp", sport, dport, csum,
        # "vxlan" for either kind, header) + the inner key (..., "tcp",
        # sport, dport)
        if ("vxlan" not in k or k[k.index("udp") + 2] != port or
                k[-3] != "tcp" or k[-1] != rule):
            bad.append("not %s to %d with inner tcp/%d: %r" %
                       (kind, port, rule, k))
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
	check "the capture holds the $N4 + $N6 inner tcp/$RULE frames and nothing else" \
		$([ "$out" = "$N4 $N6 " ]; echo $?)
}

tnl_without_inner() {
	local tot=$((N4 + N6 + NO)) n red inner

	_tnl_conf none rx2.pcap
	if ! xrxd_up; then
		check "xrxd ready without inner rules" 1
		return
	fi
	_tnl_cfg 0
	tnl_send
	wait_for 10 _tnl_ge kernel.$TNL.packets $tot
	n=$(jget kernel.$TNL.packets)
	red=$(jget kernel.redirect.packets)
	inner=$(jget kernel.${TNL}_inner_rule.packets)
	check "without inner rules: $TNL_NAME frames counted ($n), none redirected ($red), no inner rule used ($inner)" \
		$([ "$n" = $tot ] && [ "$red" = 0 ] && [ "$inner" = 0 ]; echo $?)
	_tnl_stop
}
