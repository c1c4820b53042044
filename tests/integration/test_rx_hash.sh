#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The NIC's RX hash as xrx's flow hash. veth answers
# bpf_xdp_metadata_rx_hash() with the skb's hash (veth_xdp_rx_hash():
# skb_get_hash(), type L4 when skb->l4_hash), so a tc program on the
# sender that sets the hash (bpf_set_hash(), an L4 software hash) decides
# what the device-bound xrx_rx reads, as a NIC's RSS hash would:
#
#   port 5001: each flow its own hash, 0x5a170000 | source port;
#   port 5002: every flow the same hash 0x5a17c0de (all in one bucket);
#   port 5003: the kernel's own hash, left to skb_get_hash() and recorded
#              by the tc program (bpf_get_hash_recalc()) per source port.
#
# live_rx (callback, -F) accounts every delivered packet to its flow. With
# the device-bound build every packet's hash is the driver's, never
# xrx_flow_hash() of its headers; with the NIC's hash switched off (-W)
# and with the plain build (-H) it is xrx_flow_hash(). In every case each
# flow is delivered whole, in sequence, and aggregated: a flow lookup that
# trusted the hash alone would merge the flows of port 5002.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"

afxdp_need
for tool in clang tc bpftool; do
	command -v $tool >/dev/null || skip_all "$tool missing (scripts/deps.sh installs it)"
done
TRAINS="$PY $TOP/tests/tools/tcp_trains.py"
FLOWS=4
SEGS=16
NTRAINS=4
MSS=1448
PER_FLOW=$((SEGS * NTRAINS))
TOTAL=$((3 * FLOWS * PER_FLOW))

cat >"$WORK/set_hash.c" <<'EOF'
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);		/* source port */
	__type(value, __u32);		/* skb_get_hash() */
} kernel_hash SEC(".maps");

/* IPv4 without options, TCP: what tests/tools/tcp_trains.py sends. */
SEC("tc") int set_hash(struct __sk_buff *skb)
{
	__u8 h[38];
	__u32 sport, dport, hash;

	if (bpf_skb_load_bytes(skb, 0, h, sizeof(h)) || h[12] != 0x08 ||
	    h[13] != 0x00 || h[14] != 0x45 || h[23] != 6)
		return TC_ACT_OK;
	sport = h[34] << 8 | h[35];
	dport = h[36] << 8 | h[37];
	if (dport == 5001) {
		bpf_set_hash(skb, 0x5a170000 | sport);
	} else if (dport == 5002) {
		bpf_set_hash(skb, 0x5a17c0de);
	} else if (dport == 5003) {
		hash = bpf_get_hash_recalc(skb);
		bpf_map_update_elem(&kernel_hash, &sport, &hash, BPF_ANY);
	}
	return TC_ACT_OK;
}
char _license[] SEC("license") = "GPL";
EOF

testbed_up || { check "testbed" 1; done_testing; exit 1; }
in_src ethtool -K $IF_SRC tso off gso off tx off >/dev/null 2>&1
MAPS=/sys/fs/bpf/xrx-test-tcmaps-$$
tc_egress "$WORK/set_hash.c" $MAPS
rc=$?
[ $rc = 2 ] && skip_all "clang cannot build a tc program: $TC_ERR"
[ $rc = 0 ] || diag "$TC_ERR"
check "tc program on the sender sets and records skb hashes" $rc
MAC=$(dut_mac)

# flows_check NAME MODE: judge live_rx's flow lines. MODE hw: the
# driver's hashes (expected per port as above); sw: xrx_flow_hash().
flows_check() {
	local name=$1 mode=$2
	bpftool map dump pinned $MAPS/kernel_hash -j >"$WORK/khash.json" 2>/dev/null
	$PY - "$RX_OUT" "$WORK/khash.json" $mode $FLOWS $PER_FLOW $MSS <<'PYEOF'
import json, sys
out, khash, mode = sys.argv[1:4]
flows, per_flow, mss = map(int, sys.argv[4:7])
kernel = {}
try:
    for e in json.load(open(khash)):
        k, v = e["key"], e["value"]
        k = k if isinstance(k, int) else int.from_bytes(bytes(int(b, 16) for b in k), "little")
        v = v if isinstance(v, int) else int.from_bytes(bytes(int(b, 16) for b in v), "little")
        kernel[k] = v
except (OSError, ValueError, KeyError, TypeError):
    pass
got, bad = {}, []
for line in open(out):
    w = line.split()
    if len(w) == 17 and w[0] == "flow":
        f = dict(zip(w[3::2], w[4::2]))
        got[(int(w[1]), int(w[2]))] = {k: int(v, 0) for k, v in f.items()}
    elif w[:2] == ["flow", "other"] and w[2] != "0":
        bad.append("%s packets outside the trains' flows" % w[2])
for port in (5001, 5002, 5003):
    for sport in range(40000, 40000 + flows):
        f = got.get((sport, port))
        name = "%d->%d" % (sport, port)
        if not f:
            bad.append("%s: not delivered" % name)
            continue
        want = None
        if mode == "hw":
            want = {5001: 0x5a170000 | sport, 5002: 0x5a17c0de,
                    5003: kernel.get(sport)}[port]
            if f["sw"]:
                bad.append("%s: %d packets with xrx_flow_hash()" % (name, f["sw"]))
        elif f["sw"] != f["pkts"]:
            bad.append("%s: %d of %d packets with xrx_flow_hash()" % (name, f["sw"], f["pkts"]))
        if want is not None and f["hash"] != want:
            bad.append("%s: hash %#x, expected %#x" % (name, f["hash"], want))
        if want is None and mode == "hw":
            bad.append("%s: the tc program recorded no kernel hash" % name)
        for k, v in (("segs", per_flow), ("bytes", per_flow * mss),
                     ("rehash", 0), ("gaps", 0)):
            if f[k] != v:
                bad.append("%s: %s %d, expected %d" % (name, k, f[k], v))
        if f["pkts"] >= f["segs"]:
            bad.append("%s: %d packets for %d segments, none aggregated" % (name, f["pkts"], f["segs"]))
    print("# %d: %s" % (port, " ".join("%d/%d@%#x" % (got[(s, port)]["pkts"], got[(s, port)]["segs"],
          got[(s, port)]["hash"]) for s in range(40000, 40000 + flows) if (s, port) in got)))
if len(got) != 3 * flows:
    bad.append("%d flows delivered, expected %d" % (len(got), 3 * flows))
for b in bad[:10]:
    print("# " + b)
sys.exit(1 if bad else 0)
PYEOF
}

# run NAME LIVE_RX-OPTIONS MODE: receive the three ports' trains.
run() {
	local name=$1 opts=$2 mode=$3 port rc
	rx_start -a native -m cb -F -p 5001 -p 5002 -p 5003 -T 20000 \
		-n $TOTAL -t 60 $opts || { check "$name: live_rx started" 1; return; }
	for port in 5001 5002 5003; do
		in_src $TRAINS $IF_SRC $MAC $IP4_SRC $IP4_DUT $port --flows $FLOWS \
			--segs $SEGS --trains $NTRAINS --mss $MSS >/dev/null
	done
	# live_rx stops by itself once the engines have every frame.
	wait_for 30 grep -q "^check " "$RX_OUT"
	rx_stop
	check "$name: live_rx ran and stopped cleanly" $?
	diag "$name: frames_in $(rxstat engine frames_in), pkts_out $(rxstat engine pkts_out), redirect $(rxstat prog redirect)"
	[ "$(rxstat engine frames_in)" = $TOTAL ] && [ "$(rxstat prog redirect)" = $TOTAL ]
	check "$name: all $TOTAL segments redirected and taken by the engine" $?
	rx_meta_check
	grep -q "check ok" "$RX_OUT"
	check "$name: every UMEM frame accounted for" $?
	# hash_nic: every accelerated frame on the NIC's hash, or none.
	local want=0
	[ $mode = hw ] && want=$TOTAL
	[ "$(rxstat prog hash_nic)" = $want ]
	rc=$?; check "$name: xrx_rx counts $want frames on the NIC's hash (hash_nic $(rxstat prog hash_nic))" $rc
	flows_check "$name" $mode
	rc=$?
	if [ $mode = hw ]; then
		check "$name: each flow's hash is the driver's (port 5001: per flow, 5002: one for all, 5003: the kernel's skb hash), never xrx_flow_hash(); each flow whole, in sequence, aggregated" $rc
	else
		check "$name: each flow's hash is xrx_flow_hash(); each flow whole, in sequence, aggregated" $rc
	fi
}

run "device-bound, NIC hash" "" hw
grep -q "device-bound" "$RX_ERR"
check "the device-bound build was attached" $?
run "device-bound, NIC hash ignored (no_hw_hash)" "-W" sw
run "plain build" "-H" sw

done_testing
