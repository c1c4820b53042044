#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# VLAN tags a NIC strips (rx-vlan-hw-parse) are flow identity. A tc
# program on the sender pushes the tag out of band (bpf_skb_vlan_push()
# sets the skb's hardware tag), and veth hands it to XDP as metadata, as a
# stripping NIC does. Two TCP flows with the same 5-tuple on VLAN 10 and
# 20, interleaved segment by segment:
#
#   1. the kernel's GRO (no XDP, GRO on) keeps them apart;
#   2. xrx-replay keeps them apart on a capture that holds the tags;
#   3. xrxd (device-bound xrx_rx, tags read with
#      bpf_xdp_metadata_rx_vlan_tag()) keeps them apart live, the pcap
#      sink puts the tags back, and rx-vlan-hw-parse is left as it is;
#   4. the fallback (attach = skb: the plain program, no tag can be read):
#      xrxd turns rx-vlan-hw-parse off while it runs and restores it; the
#      tags then stay in the frame (sent in band here, since veth ignores
#      the setting) and the flows stay apart;
#   5. the same when attach = auto ends up there (native refused, so the
#      device-bound program cannot run): turned off after the attach,
#      recorded with the other originals, restored on stop.
#
# "Apart" is judged per (VLAN, 5-tuple) flow: every segment's bytes
# delivered exactly once, in sequence, under its own tag, and segments
# aggregated. A merge across VLANs breaks the sequence of both flows.
# (veth's RX hash, skb_get_hash(), differs between the two VLANs, so live
# they also land in different buckets; tests/unit/test_gro_engine.c
# holds the tag comparison itself to account with one hash.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

xrxd_need bpffs
need_built "$BUILD/xrx-replay"
for tool in clang tc tcpdump ethtool taskset chrt; do
	command -v $tool >/dev/null || skip_all "$tool missing (scripts/deps.sh installs it)"
done
xrxd_work vlan
TRAINS="$PY $TOP/tests/tools/tcp_trains.py"
XRXPCAP=$TOP/tests/tools/xrxpcap.py
SEGS=16
NTRAINS=4
PER_VLAN=$((SEGS * NTRAINS))

# The sender's tc program: SO_MARK 1..4094 becomes an out-of-band tag.
cat >"$WORK/push.bpf.c" <<'EOF'
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

__attribute__((section("tc"), used)) int vlan_push(struct __sk_buff *skb)
{
	if (skb->mark > 0 && skb->mark < 4095)
		bpf_skb_vlan_push(skb, bpf_htons(0x8100), skb->mark);
	return TC_ACT_OK;
}
char _license[] __attribute__((section("license"), used)) = "GPL";
EOF

testbed_up || { check "testbed" 1; done_testing; exit 1; }
in_src ethtool -K $IF_SRC tso off gso off tx off >/dev/null 2>&1
tc_egress "$WORK/push.bpf.c"
rc=$?
[ $rc = 2 ] && skip_all "clang cannot build a tc program: $TC_ERR"
[ $rc = 0 ] || diag "$TC_ERR"
check "tc program on the sender pushes out-of-band tags" $rc
MAC=$(dut_mac)

# tcpdump IFACE FILE NS-RUNNER [filter...]: start a capture, wait until
# it listens; its pid in $TD.
tcpdump_start() {
	local ns=$1 ifc=$2 file=$3
	shift 3
	nsenter --net=/run/netns/$ns tcpdump --immediate-mode -U -n -i $ifc "$@" -w "$file" \
		2>"$file.err" &
	TD=$!
	at_exit kill $TD
	wait_for 10 grep -q "listening on" "$file.err"
}

tcpdump_stop() {
	local i
	kill -INT $1 2>/dev/null
	for i in $(seq 100); do
		kill -0 $1 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $1 2>/dev/null
	wait $1 2>/dev/null
}

# vlan_check FILE TAGS MIN_AGG [EXACT]: per VLAN flow of the 5-tuple, the
# sequence covered exactly once from its start; TAGS: the VLAN IDs
# expected and no other TCP; MIN_AGG: at least one packet of that many
# segments per flow; EXACT "N": every flow has exactly N packets.
vlan_check() {
	$PY - "$XRXPCAP" "$@" $PER_VLAN <<'PYEOF'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("xrxpcap", sys.argv[1])
x = importlib.util.module_from_spec(spec)
spec.loader.exec_module(x)
path, tags, min_agg = sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
exact = int(sys.argv[5]) if len(sys.argv) > 6 else None
per_vlan = int(sys.argv[-1])
mss, bad = 1448, []
flows = x.by_flow([p for p in x.packets(path) if p["kind"] == "tcp"])
want = {"8100:%s" % t for t in tags}
got = {k[1] for k in flows}
if got != want:
    bad.append("flows under tags %s, expected %s" % (sorted(got), sorted(want)))
for k, ps in flows.items():
    f = int(k[1].split(":")[1]) if k[1] else 0
    seq = 1000 + 10000000 * tags.index(str(f)) if str(f) in tags else 0
    total = 0
    for p in ps:
        if p["seq"] != seq:
            bad.append("%s: seq %d, expected %d" % (x.fmt_key(k), p["seq"], seq))
            break
        seq += p["plen"]
        total += p["plen"]
    if total != per_vlan * mss:
        bad.append("%s: %d payload bytes, expected %d" % (x.fmt_key(k), total, per_vlan * mss))
    if max(p["plen"] for p in ps) < min_agg * mss:
        bad.append("%s: no packet of %d segments" % (x.fmt_key(k), min_agg))
    if exact is not None and len(ps) != exact:
        bad.append("%s: %d packets, expected %d" % (x.fmt_key(k), len(ps), exact))
    print("# %s: %d packets, sizes %s" % (x.fmt_key(k), len(ps),
          ",".join(str(p["plen"] // mss) for p in ps)))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
PYEOF
}

# --- 1. the kernel's GRO ----------------------------------------------------
in_dut ethtool -K $IF_DUT gro on >/dev/null 2>&1
# Threaded NAPI on CPU 0 with the sender (tests/integration/test_gro_oracle.sh
# says why), so a train is queued before a poll.
ip netns exec $NS_DUT sh -c "echo 1 > /sys/class/net/$IF_DUT/threaded"
napi=$(ps -eo pid=,comm= | awk -v p="napi/$IF_DUT-" 'index($2, p) == 1 { print $1 }')
for p in $napi; do
	taskset -p -c 0 $p >/dev/null
	chrt -f -p 40 $p
done
tcpdump_start $NS_DUT $IF_DUT "$WORK/kernel.pcap" -Q in; td_dut=$TD
tcpdump_start $NS_SRC $IF_SRC "$WORK/wire.pcap" -Q out; td_src=$TD
in_src taskset -c 0 chrt -f 50 $TRAINS $IF_SRC $MAC $IP4_SRC $IP4_DUT 5201 \
	--vlans 10,20 --oob --segs $SEGS --trains $NTRAINS >/dev/null
check "sent $PER_VLAN segments on each of VLAN 10 and 20, one 5-tuple" $?
# tcpdump may still be reading on a loaded machine: wait (bounded) until
# both captures are complete, or give up and judge what is there.
wait_for 10 vlan_check "$WORK/wire.pcap" 10,20 1 $PER_VLAN
wait_for 10 vlan_check "$WORK/kernel.pcap" 10,20 2
tcpdump_stop $td_dut
tcpdump_stop $td_src
vlan_check "$WORK/wire.pcap" 10,20 1 $PER_VLAN
check "the sender's capture holds both flows with their tags, segment by segment" $?
if [ -n "$napi" ]; then
	vlan_check "$WORK/kernel.pcap" 10,20 2
	check "kernel GRO: the two VLANs are two flows, each aggregated and whole" $?
else
	skip "kernel GRO keeps the VLANs apart" "no threaded NAPI kthread for $IF_DUT, so a train is not polled at once"
fi

# --- 2. xrx-replay on the capture that holds the tags -----------------------
# Only the trains (the sender's own IPv6 neighbour traffic would shift
# the batches), replayed one train per batch.
$PY - "$XRXPCAP" "$WORK/wire.pcap" "$WORK/trains.pcap" <<'PYEOF'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("xrxpcap", sys.argv[1])
x = importlib.util.module_from_spec(spec)
spec.loader.exec_module(x)
x.write_pcap(sys.argv[3], [f for f, _ in x.read_pcap(sys.argv[2])
                           if x.parse(f)["kind"] == "tcp"])
PYEOF
"$BUILD/xrx-replay" --batch $((2 * SEGS)) "$WORK/trains.pcap" "$WORK/replay.pcap" >/dev/null
check "xrx-replay ran" $?
vlan_check "$WORK/replay.pcap" 10,20 $SEGS $NTRAINS
check "xrx-replay: one aggregate of $SEGS per VLAN and train, never across VLANs" $?

# --- 3. live through xrxd, tags from the driver ------------------------------
# xrxd_run NAME CONF-LINES...: start xrxd on the DUT, by default with a
# pcap sink $WORK/NAME.pcap; its pid in $XPID, its log in $WORK/NAME.err.
xrxd_run() {
	local name=$1 sink
	shift
	sink="sink = pcap:$WORK/$name.pcap"
	case "$*" in *"sink = "*) sink= ;; esac
	printf '%s\n' "interface = $IF_DUT" "accelerate = tcp/5201" ${sink:+"$sink"} \
		"flush_timeout_us = 20000" "$@" >"$WORK/$name.conf"
	nsenter --net=/run/netns/$NS_DUT "$XRXD" -v --state-dir "$STATE" \
		-c "$WORK/$name.conf" 2>"$WORK/$name.err" &
	XPID=$!
	at_exit kill -KILL $XPID
	wait_xrxd $XPID grep -q "ready:" "$WORK/$name.err"
}

xrxd_stop() {
	local i
	kill -TERM $XPID
	for i in $(seq 200); do
		kill -0 $XPID 2>/dev/null || break
		sleep 0.1
	done
	wait $XPID
}

# jget PATH: a field of xrxctl stats --json.

# live NAME IN-BAND: send the trains, wait for every frame (or its drop),
# stop xrxd and judge its capture.
live() {
	local name=$1 oob=$2 want=$((2 * PER_VLAN)) drops
	in_src $TRAINS $IF_SRC $MAC $IP4_SRC $IP4_DUT 5201 --vlans 10,20 $oob \
		--segs $SEGS --trains $NTRAINS >/dev/null
	wait_for 10 test "$(jget user.engine.frames_in)" = $want
	drops=$(($(jget kernel.redirect.packets) - $(jget user.engine.frames_in)))
	diag "$name: frames_in $(jget user.engine.frames_in), redirected $(jget kernel.redirect.packets), frames_no_meta $(jget user.engine.frames_no_meta)"
	[ "$(jget user.engine.frames_in)" = $want ]
	check "$name: xrxd took all $want segments (not redirected to the socket: $drops)" $?
	[ "$(jget user.engine.frames_no_meta)" = 0 ]
	check "$name: every frame carried xrx_meta" $?
	unaccounted_zero "$name"
}

snapshot "$WORK/orig"
in_dut ethtool -k $IF_DUT | grep -q '^rx-vlan-offload: on'
check "veth starts with rx-vlan-hw-parse on" $?
xrxd_run hw
check "xrxd started (device-bound xrx_rx)" $?
grep -q "VLAN tags and RX hash read from the driver" "$WORK/hw.err"
check "xrxd reads VLAN tags from the driver (XDP metadata kfuncs)" $?
in_dut ethtool -k $IF_DUT | grep -q '^rx-vlan-offload: on'
check "rx-vlan-hw-parse left on: the tags can be read" $?
live hw --oob
xrxd_stop
check "xrxd stopped cleanly" $?
vlan_check "$WORK/hw.pcap" 10,20 2
check "live, device-bound: two flows, each aggregated and whole, tags put back by the pcap sink" $?

# --- 4. fallback: the plain program, the offload turned off ---------------
xrxd_run plain "attach = skb"
check "xrxd started (plain xrx_rx, skb mode)" $?
grep -q "turning rx-vlan-hw-parse off while xrxd runs" "$WORK/plain.err"
check "xrxd says it turns rx-vlan-hw-parse off, and why" $?
in_dut ethtool -k $IF_DUT | grep -q '^rx-vlan-offload: off'
check "rx-vlan-hw-parse is off while it runs" $?
live plain ""
xrxd_stop
check "xrxd stopped cleanly" $?
vlan_check "$WORK/plain.pcap" 10,20 2
check "live, plain program: in-band tags keep the two flows apart" $?
snapshot "$WORK/now"
same "$WORK/orig" "$WORK/now"
check "rx-vlan-hw-parse restored: ethtool -k/-l/-g and ip -d link as before" $?

# --- 5. L2 into the stack: the TAP sink keeps MACs and tags ------------------
TAP=xt$$
xrxd_run tap "sink = tap:$TAP"
check "xrxd started with sink = tap:$TAP" $?
tcpdump_start $NS_DUT $TAP "$WORK/tap.pcap" -Q in; td_tap=$TD
live tap --oob
wait_for 10 vlan_check "$WORK/tap.pcap" 10,20 2
tcpdump_stop $td_tap
xrxd_stop
check "xrxd stopped cleanly" $?
vlan_check "$WORK/tap.pcap" 10,20 2
check "tap sink: each VLAN's aggregates reach the stack on the TAP with their tag put back" $?
in_dut ip link show $TAP >/dev/null 2>&1
check "the TAP xrxd created is gone with it" $([ $? != 0 ]; echo $?)

# An explicit keep is the user's call, with a warning that names the risk.
xrxd_run keep "attach = skb" "[offload]" "rx_vlan = keep"
check "xrxd started with offload.rx_vlan = keep" $?
grep -q "offload.rx_vlan = keep (.*keep.conf:7): .*merged; write offload.rx_vlan = off" "$WORK/keep.err"
check "offload.rx_vlan = keep: a warning names the risk and the fix" $?
in_dut ethtool -k $IF_DUT | grep -q '^rx-vlan-offload: on'
check "offload.rx_vlan = keep: rx-vlan-hw-parse left on" $?
xrxd_stop

# Started with nothing to accelerate, the offload stays; a reload that
# starts accelerating says that only a restart keeps the tags safe.
printf '%s\n' "interface = $IF_DUT" "accelerate = none" "attach = skb" \
	>"$WORK/reload.conf"
nsenter --net=/run/netns/$NS_DUT "$XRXD" -v --state-dir "$STATE" \
	-c "$WORK/reload.conf" 2>"$WORK/reload.err" &
XPID=$!
at_exit kill -KILL $XPID
wait_xrxd $XPID grep -q "ready:" "$WORK/reload.err"
in_dut ethtool -k $IF_DUT | grep -q '^rx-vlan-offload: on'
check "nothing accelerated: rx-vlan-hw-parse left on" $?
sed -i 's|^accelerate = none|accelerate = tcp/5201|' "$WORK/reload.conf"
kill -HUP $XPID
wait_for 10 grep -q "reloaded" "$WORK/reload.err"
grep -q "reload: traffic is accelerated now, but rx-vlan-hw-parse is on .*restart xrxd" "$WORK/reload.err"
check "reload that starts accelerating: a warning says a restart keeps the tags" $?
xrxd_stop

# --- attach = auto falling back to skb mode -----------------------------------
# veth refuses native XDP when its peer has more TX queues than it has RX
# queues: the device-bound program, meant to read the tags, cannot run.
XA=xa$$
veth_no_native $XA
in_dut ethtool -k $XA >"$WORK/xa.before"
printf '%s\n' "interface = $XA" "accelerate = tcp/5201" "attach = auto" >"$WORK/xa.conf"
nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" -c "$WORK/xa.conf" \
	2>"$WORK/xa.err" &
XPID=$!
at_exit kill -KILL $XPID
wait_xrxd $XPID grep -q "ready:" "$WORK/xa.err"
sed 's/^/# /' "$WORK/xa.err"
grep -q "ready: .* in skb mode" "$WORK/xa.err" && grep -q '^rx-vlan-offload: on' "$WORK/xa.before"
check "attach = auto on $XA fell back to skb mode, rx-vlan-hw-parse on before" $?
grep -q "turning rx-vlan-hw-parse off while xrxd runs.*device-bound xrx_rx could not be attached" "$WORK/xa.err" &&
	in_dut ethtool -k $XA | grep -q '^rx-vlan-offload: off'
check "... so xrxd turns rx-vlan-hw-parse off, as with attach = skb, and says why" $?
grep -qx "feature rx-vlan-hw-parse on" "$STATE/$XA.state"
check "... recorded in the state file" $?
xrxd_stop
in_dut ethtool -k $XA >"$WORK/xa.after"
same "$WORK/xa.before" "$WORK/xa.after"
check "... and restored on stop" $?
rm -rf "/sys/fs/bpf/xrx/$XA"

done_testing
