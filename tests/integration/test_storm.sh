#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A storm into a running xrxd: one million frames (STORM_FRAMES) over veth
# at once from three senders — valid TCP flows, the same kind of flows with
# every segment malformed (bad IP or TCP checksum, IP length beyond the
# frame), and garbage (random bytes, headers cut short anywhere, bogus
# version and header-length fields, VLAN stacks), unpaced. xrxd must keep
# running; every frame must be accounted for (xrxctl stats: unaccounted 0;
# redirected = delivered + counted drops); the valid flows' payload must
# reach the pcap sink exactly, each byte at most once, and only whole
# segments may be missing, no more than the drops counted; the malformed
# frames must be counted (xrx_stats pass_malformed, engine csum_bad),
# never merged; every UMEM frame must come back (no ownership errors,
# umem_engine 0 once idle, frames released = frames in); and SIGTERM must
# leave the NIC as it was.
#
# Not timing-dependent: the senders are not paced, so AF_XDP copy mode on
# veth may drop frames at the sockets when the machine is busy; those
# drops are counted (XDP_STATISTICS) and the test checks the books
# balance, not that the machine was fast enough.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"
xrxd_need bpffs
need_built "$BUILD/xrx-send"

FRAMES=${STORM_FRAMES:-1000000}
# 40 % valid, 30 % malformed segments, 30 % garbage.
N_VALID=$((FRAMES * 4 / 10))
N_BAD=$((FRAMES * 3 / 10))
N_JUNK=$((FRAMES - N_VALID - N_BAD))
JUNK_DISTINCT=3000

testbed_up numrxqueues 2 numtxqueues 2 || { echo "not ok 1 - testbed"; exit 1; }
xrxd_work storm
MAC=$(dut_mac)
SMAC=$(in_src ip -br link show $IF_SRC | awk '{ print $3 }')
# A field of the saved xrxctl stats --json, e.g. user.engine.frames_in.
jget() { jpath "$WORK/stats.json" "$1"; }
ready() { xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"; }

in_src ethtool -K $IF_SRC tx off >/dev/null
snapshot "$WORK/orig"

cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
sink = pcap:$WORK/rx.pcap,perqueue
flush_timeout_us = 2000
[offload]
gro = on
EOF

# Garbage frames, all to the DUT's MAC so they reach xrx_rx: random
# lengths and bytes after a valid or random EtherType.
"$PY" - "$WORK/junk.pcap" "$MAC" "$SMAC" $JUNK_DISTINCT <<'PYEOF'
import random, struct, sys
path, dmac, smac, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
mac = lambda s: bytes(int(x, 16) for x in s.split(":"))
eth = mac(dmac) + mac(smac)
r = random.Random(7)
def ip4(proto, cut):
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + r.randrange(2000),
                  r.randrange(65536), r.choice((0, 0x4000, 0x2000, 0x1fff)),
                  64, proto, 0, bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2])))
    h[0] = r.choice((0x45, 0x45, 0x46, 0x4f, 0x44, 0x40, 0x65))
    tcp = struct.pack("!HHIIBBHHH", r.randrange(65536), 5201, r.randrange(1 << 32),
                      0, r.choice((0x50, 0xf0, 0x10, 0x00)), r.randrange(256), 0, 0, 0)
    return (bytes(h) + tcp + bytes(r.randrange(64)))[:cut]
def ip6(cut):
    h = struct.pack("!IHBB16s16s", 0x60000000, r.randrange(3000),
                    r.choice((6, 17, 0, 43, 44, 60, 59)), 64,
                    bytes.fromhex("20010db8" + "00" * 11 + "01"),
                    bytes.fromhex("20010db8" + "00" * 11 + "02"))
    return (h + bytes(r.randrange(256) for _ in range(r.randrange(80))))[:cut]
out = []
for i in range(n):
    kind = r.randrange(5)
    cut = r.randrange(1, 120)
    if kind == 0:
        body = b"\x08\x00" + ip4(r.choice((6, 17)), cut)
    elif kind == 1:
        body = b"\x86\xdd" + ip6(cut)
    elif kind == 2:
        tags = b"".join(b"\x81\x00" + struct.pack("!H", r.randrange(4096))
                        for _ in range(r.randrange(1, 6)))
        body = tags + b"\x08\x00" + ip4(6, cut)
    elif kind == 3:
        body = struct.pack("!H", r.choice((0x0800, 0x86dd, 0x8100, 0x88a8,
                                            r.randrange(65536)))) + \
            bytes(r.randrange(256) for _ in range(r.randrange(100)))
    else:
        body = bytes(r.randrange(256) for _ in range(r.randrange(2, 300)))
    f = eth + body
    out.append(f + bytes(max(0, 14 - len(f))))
with open(path, "wb") as fp:
    fp.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for f in out:
        fp.write(struct.pack("<IIII", 0, 0, len(f), len(f)) + f)
PYEOF

nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" \
	-c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
pid=$!
at_exit kill -KILL $pid
wait_xrxd $pid ready || { sed 's/^/# /' "$WORK/xrxd.err"; echo "not ok 1 - xrxd ready"; exit 1; }

# Unpaced (STORM_RATE paces each sender if set): whatever the sockets
# drop is counted, and the checks below balance the books with it.
send() { in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC ${STORM_RATE:+-r $STORM_RATE} "$@"; }
start=$(date +%s.%N)
send --dport 5201 --flows 8 --segs 16 --mss 100 --interleave \
	--trains $((N_VALID / 128 + 1)) -c $N_VALID -w "$WORK/sent.pcap" -v \
	2>"$WORK/valid.err" &
p1=$!
send --dport 5201 --sport 50000 --flows 8 --segs 16 --mss 64 --malformed 100 \
	--trains $((N_BAD / 128 + 1)) -c $N_BAD -v 2>"$WORK/bad.err" &
p2=$!
send --pcap "$WORK/junk.pcap" --repeat $((N_JUNK / JUNK_DISTINCT)) -v \
	2>"$WORK/junk.err" &
p3=$!
at_exit kill $p1 $p2 $p3
rc=0
for p in $p1 $p2 $p3; do
	# Bounded: the senders stop by count; 60 s is far beyond their time.
	timeout 60 tail --pid=$p -f /dev/null
	wait $p || rc=1
done
secs=$(echo "$(date +%s.%N) - $start" | bc)
sed 's/^/# /' "$WORK/valid.err" "$WORK/bad.err" "$WORK/junk.err"
sent=$(cat "$WORK/valid.err" "$WORK/bad.err" "$WORK/junk.err" |
	sed -n 's/.*sent \([0-9]*\) frames.*/\1/p' | paste -sd+ | bc)
diag "$sent frames sent in $secs s"
check "senders: $sent frames sent" $([ $rc = 0 ] && [ "$sent" -ge $((FRAMES - JUNK_DISTINCT)) ]; echo $?)

# Idle: everything flushed (2 ms timeout), counters refreshed (1 s).
sleep 2.5
xrxctl stats $IF_DUT --json >"$WORK/stats.json"
check "xrxd still running after the storm" $(kill -0 $pid && ready; echo $?)
rx=$(jget kernel.rx.packets)
mal=$(jget kernel.pass_malformed.packets)
bad=$(jget user.engine.csum_bad)
diag "xrx_rx saw $rx frames: redirect $(jget kernel.redirect.packets), pass_malformed $mal, pass_not_ip $(jget kernel.pass_not_ip.packets), pass_not_l4 $(jget kernel.pass_not_l4.packets); engine csum_bad $bad, single_malformed $(jget user.engine.single_malformed)"
# What veth itself dropped on the way (a full peer ring: veth_xmit()
# counts it as the sender's tx dropped) never reached xrx_rx.
vdrop=$(in_src ip -s -j link show $IF_SRC | "$PY" -c '
import json, sys
print(json.load(sys.stdin)[0]["stats64"]["tx"]["dropped"])')
diag "veth drops before xrx_rx: $vdrop"
check "xrx_rx saw every frame veth did not drop ($rx + $vdrop >= $sent)" \
	$([ $((rx + vdrop)) -ge "$sent" ]; echo $?)
sockdrop=$(( $(jget user.live.xsk_rx_dropped) + $(jget user.live.xsk_rx_ring_full) ))
# A malformed segment the sockets dropped never reached the engine.
check "malformed frames counted: pass_malformed + csum_bad + socket drops >= the $N_BAD malformed segments" \
	$([ "$mal" -gt 0 ] && [ $((mal + bad + sockdrop)) -ge $N_BAD ]; echo $?)
check "kernel verdicts add up to the frames seen" \
	$("$PY" -c '
import json, sys
k = json.load(open(sys.argv[1]))["kernel"]
# The verdicts: redirect and the pass_ reasons (the rest describe frames).
sys.exit(0 if sum(v["packets"] for n, v in k.items()
                  if n == "redirect" or n.startswith("pass_")) == k["rx"]["packets"] else 1)' "$WORK/stats.json"; echo $?)
xrxdrop=$(( $(jget user.live.rx_chain_drops) + $(jget user.engine.drop_no_buffer) + $(jget user.engine.drop_bad_frame) ))
sinkdrop=$(( $(jget user.sink.errors) + $(jget user.sink.dropped) ))
delivered=$(( $(jget user.engine.pkts_out) + $(jget user.engine.segs_merged) ))
red=$(jget kernel.redirect.packets)
diag "redirected $red = delivered $delivered + socket drops $sockdrop (xsk_rx_dropped $(jget user.live.xsk_rx_dropped), ring_full $(jget user.live.xsk_rx_ring_full), of them fill_empty $(jget user.live.xsk_rx_fill_empty)) + xrx drops $xrxdrop; sink errors/drops $sinkdrop; unaccounted $(jget user.unaccounted)"
check "xrxctl stats: unaccounted 0" $([ "$(jget user.unaccounted)" = 0 ]; echo $?)
check "every redirected frame delivered or counted dropped ($red = $delivered + $sockdrop + $xrxdrop)" \
	$([ "$red" = $((delivered + sockdrop + xrxdrop)) ]; echo $?)
check "the sink wrote every packet it was given (pkts_in = pkts_out, no error)" \
	$([ "$(jget user.sink.pkts_in)" = "$(jget user.sink.pkts_out)" ] && [ $sinkdrop = 0 ]; echo $?)
check "frame ownership: ownership_errors 0, frames released = frames in, umem_engine 0 when idle" \
	$([ "$(jget user.live.ownership_errors)" = 0 ] &&
	  [ "$(jget user.engine.frames_released)" = "$(jget user.engine.frames_in)" ] &&
	  [ "$(jget user.live.umem_engine)" = 0 ] &&
	  [ $(($(jget user.live.umem_free) + $(jget user.live.umem_kernel))) = "$(jget user.live.umem_frames)" ]; echo $?)
diag "umem: frames $(jget user.live.umem_frames) free $(jget user.live.umem_free) kernel $(jget user.live.umem_kernel) engine $(jget user.live.umem_engine)"

kill -TERM $pid
wait $pid
rc=$?
snapshot "$WORK/now"
check "SIGTERM after the storm: exit 0" $([ $rc = 0 ]; echo $?)
ok "NIC identical to before, no pins, no state file" \
	eval 'same "$WORK/orig" "$WORK/now" && [ ! -e "$PIN" ] && [ ! -e "$SF" ]'

# The valid flows (source ports 40000-40007): every delivered byte is the
# sent byte at its sequence number, each sent segment delivered at most
# once and whole, and the segments missing are no more than the frames
# counted dropped (sent = delivered + missing per flow). The pcap files
# hold exactly the packets the sink counted out.
"$PY" - "$TOP/tests/tools" "$WORK/sent.pcap" $((sockdrop + xrxdrop)) \
	"$(jget user.sink.pkts_out)" "$WORK"/rx.pcap.q* >"$WORK/payload" 2>&1 <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
sent = xrxpcap.packets(sys.argv[2])
drops, pkts_out = int(sys.argv[3]), int(sys.argv[4])
got = [p for f in sys.argv[5:] for p in xrxpcap.packets(f)]
errs = []
if len(got) != pkts_out:
    errs.append("the pcap files hold %d packets, the sink counted %d out"
                % (len(got), pkts_out))
valid = lambda p: p["kind"] == "tcp" and 40000 <= p["key"][-2] < 40008
segs = {}
for p in sent:
    if valid(p) and p["plen"]:
        segs.setdefault(p["key"], {})
        if p["seq"] in segs[p["key"]]:
            errs.append("sender repeated seq %d" % p["seq"])
        segs[p["key"]][p["seq"]] = p["payload"]
done = {k: set() for k in segs}
for p in got:
    if not valid(p) or not p["plen"]:
        continue
    k, seq, pay = p["key"], p["seq"], p["payload"]
    if k not in segs:
        errs.append("delivered a flow never sent: %s" % xrxpcap.fmt_key(k))
        continue
    off = 0
    while off < len(pay):
        s = segs[k].get((seq + off) & 0xffffffff)
        if s is None or pay[off:off + len(s)] != s:
            errs.append("flow %s: delivered bytes at seq %d are not a sent segment"
                        % (xrxpcap.fmt_key(k), seq + off))
            break
        if (seq + off) in done[k]:
            errs.append("flow %s: seq %d delivered twice" % (xrxpcap.fmt_key(k), seq + off))
        done[k].add((seq + off) & 0xffffffff)
        off += len(s)
missing = 0
for k in sorted(segs, key=repr):
    m = len(segs[k]) - len(done[k])
    missing += m
    print("flow %s: sent %d segments = delivered %d + missing %d"
          % (xrxpcap.fmt_key(k), len(segs[k]), len(done[k]), m))
if missing > drops:
    errs.append("%d segments missing, but only %d frames counted dropped" % (missing, drops))
for e in errs[:20]:
    print(e)
n = sum(len(v) for v in segs.values())
print("valid flows: %d segments sent, %d missing, %d frames counted dropped in all; %d packets in the pcap files"
      % (n, missing, drops, len(got)))
sys.exit(1 if errs or not n else 0)
PYEOF
rc=$?
sed 's/^/# /' "$WORK/payload"
check "valid flows: delivered bytes exact and at most once; missing segments whole and no more than the counted drops" $rc

done_testing
