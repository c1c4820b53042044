#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# One capture file for two queues: a veth with two queues on each side
# (RSS as in test_afxdp_rss.sh: 8 flows sent from CPU 0, 8 from CPU 1,
# each lands on the queue of its CPU), one pcap sink spec for both
# workers. tshark must read one pcapng file with an Interface Description
# Block per queue, nanosecond resolution, every packet of both queues
# (one 20-segment aggregate per flow and train), each packet's interface
# being its queue, and the packets in time order; the plain pcap format
# must carry the nanosecond magic and the same packets in time order.
# Lossless (docs/lossless.md) goes through the same writer: one file for
# both queues, each aggregate's segment record in its block, and
# xrx-replay --split gives back every frame sent, byte for byte.
# Times are arrival times (docs/capture.md): every EPB's lies within the
# capture's wall-clock window, and its time option names the last
# segment's, no earlier, its segments, and software as the source
# (veth gives XDP no hardware stamp); the times never go back.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
need_built "$BUILD/xrx-replay"
command -v tshark >/dev/null || { skip_all "tshark not installed (scripts/deps.sh)"; }
testbed_up numrxqueues 2 numtxqueues 2 || { check "testbed" 1; done_testing; exit 1; }

send_on() {
	local cpu=$1
	shift
	in_src taskset -c $cpu "$XRX_SEND" -i $IF_SRC --dmac "$(dut_mac)" "$@"
}

# run FILE SPEC_OPTIONS: capture 16 flows x 2 trains over both queues
run() {
	local f=$1 opts=$2 p0 r1
	rx_start -Q 2 -c 0,1 -p 5001 -s "pcap:$f$opts" -T 20000 -t 40 ||
		return 1
	send_on 0 --sport 40000 --flows 8 --segs 20 --trains 2 --gap-us 50000 -w $WORK/tx0.pcap &
	p0=$!
	send_on 1 --sport 41000 --flows 8 --segs 20 --trains 2 --gap-us 50000 -w $WORK/tx1.pcap
	r1=$?
	wait $p0 || return 1
	[ $r1 = 0 ] || return 1
	# the stop delivers what the engines hold and writes it all
	rx_stop
}

NG=$WORK/rx.pcapng
T0=$(date +%s%N)
run $NG ",format=pcapng"
check "live_rx on 2 queues wrote one pcapng file" $?
T1=$(date +%s%N)
q0=$(awk '$1 == "q0" { print $3 }' "$RX_OUT")
q1=$(awk '$1 == "q1" { print $3 }' "$RX_OUT")
diag "queue 0: ${q0:-0} frames, queue 1: ${q1:-0} frames"
[ "${q0:-0}" -gt 0 ] && [ "${q1:-0}" -gt 0 ] && [ $((q0 + q1)) = 640 ]
check "both queues received frames, 640 in all" $?
[ ! -e $NG.q0 ] && [ ! -e $NG.q1 ]
check "no per-queue files" $?
# The loss ledger's written (xrxctl stats --losses) is the sink's
# segs_out: the writer of the one file counts it as the per-queue one.
po=$(rxstat sink pkts_out)
so=$(rxstat sink segs_out)
[ "$po" = "$(rxstat engine pkts_out)" ] && [ "$so" = 640 ]
check "the sink counts every packet the engine gave it, 640 segments written ($po, $so)" $?

tshark -r $NG -T fields -e frame.interface_id -e frame.time_epoch \
	-e tcp.srcport -e tcp.len >$WORK/ng.txt 2>$WORK/ng.err
# The status before the message's $(...), which would replace $?.
r=$?
check "tshark reads the file ($(head -c 200 $WORK/ng.err))" $r
# Every payload byte of the 640 segments (1448 each) in the one file, in
# as many records as the engine delivered: 32 when no train is split by
# the 20 ms flush timeout, which a stalled sender on a busy machine can
# do, so only "merged" is asserted (the merge rules have their own
# exact tests).
n=$(wc -l <$WORK/ng.txt)
pk=$(rxstat engine pkts_out)
[ "$n" = "$pk" ] && [ "$n" -le 320 ] &&
	[ "$(awk '{ s += $4 } END { print s }' $WORK/ng.txt)" = $((640 * 1448)) ]
check "all 640 segments' payload in the one file, merged into $n aggregates (32 unless a train was split)" $?
[ "$(capinfos $NG | grep -c '^Interface #')" = 2 ]
check "two Interface Description Blocks, one per queue" $?
# Each IDB's if_tsresol, read from the file: tshark shows every time
# with 9 digits whatever the resolution.
res=$($PY -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
off, out = 0, []
while off + 12 <= len(d):
    t, n = struct.unpack_from("<II", d, off)
    if t == 1:
        o, r = off + 16, "none"
        while o + 4 <= off + n - 4:
            c, l = struct.unpack_from("<HH", d, o)
            if c == 0:
                break
            if c == 9:
                r = str(d[o + 4])
            o += 4 + (l + 3) // 4 * 4
        out.append(r)
    off += n
print(" ".join(out))' $NG)
[ "$res" = "9 9" ]
check "nanosecond resolution: if_tsresol 9 in both IDBs ($res)" $?
[ "$(awk '$1 == 0' $WORK/ng.txt | wc -l)" -gt 0 ] &&
	[ "$(awk '$1 == 1' $WORK/ng.txt | wc -l)" -gt 0 ] &&
	[ "$(awk '$1 != 0 && $1 != 1' $WORK/ng.txt | wc -l)" = 0 ]
check "packets of both queues, each on interface 0 or 1" $?
# A flow's CPU picks its queue: ports 40000.. from CPU 0, 41000.. from 1.
# Which CPU feeds which queue is veth's choice; one flow group per
# interface is what must hold.
awk '{ print $1, int($3 / 1000) }' $WORK/ng.txt | sort -u >$WORK/ifmap
[ "$(wc -l <$WORK/ifmap)" = 2 ] && [ "$(cut -d' ' -f1 $WORK/ifmap | sort -u | wc -l)" = 2 ]
r=$?
check "each queue's flows on its own interface ($(tr '\n' ';' <$WORK/ifmap))" $r
awk 'NR > 1 && $2 < prev { bad++ } { prev = $2 } END { exit bad ? 1 : 0 }' $WORK/ng.txt
check "the packets of both queues in time order" $?
awk '{ split($2, a, "."); if (length(a[2]) != 9) bad++ } END { exit bad ? 1 : 0 }' $WORK/ng.txt
check "nanosecond timestamps in every record" $?
grep -v 'Running as user "root"' $WORK/ng.err >$WORK/ng.warn
bad=$(tshark -r $NG -Y '_ws.malformed' 2>/dev/null | wc -l)
[ ! -s $WORK/ng.warn ] && [ "$bad" = 0 ]
r=$?
check "tshark reads it without a warning, nothing malformed ($(head -c 200 $WORK/ng.warn))" $r
# Each EPB: its time (ns), then its time options' kind, flags, segments
# and last time (include/xrx/segrec.h), one line per EPB.
$PY -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 0
while off + 12 <= len(d):
    t, n = struct.unpack_from("<II", d, off)
    if t == 6:
        hi, lo, cap = struct.unpack_from("<III", d, off + 12)
        o, out = off + 28 + (cap + 3) // 4 * 4, []
        while o + 4 <= off + n - 4:
            c, l = struct.unpack_from("<HH", d, o)
            if c == 0:
                break
            if c == 2989 and l == 20 and struct.unpack_from("<I", d, o + 4)[0] == 32473:
                k, f, r, s, last = struct.unpack_from("<BBHIQ", d, o + 8)
                out.append("%d %d %d %d %d" % (k, f, r, s, last))
            o += 4 + (l + 3) // 4 * 4
        print(hi << 32 | lo, len(out), " ".join(out))
    off += n' $NG >$WORK/times.txt
diag "capture window $T0 .. $T1; first EPB: $(head -1 $WORK/times.txt)"
awk -v t0=$T0 -v t1=$T1 '$2 != 1 || $3 != 84 || $4 != 0 || $5 != 0 || $6 < 1 { bad++ }
	{ segs += $6; if ($1 < t0 || $1 > t1 || $7 < $1 || $7 > t1) late++ }
	END { exit bad || late || segs != 640 ? 1 : 0 }' $WORK/times.txt
check "every EPB: one time option, software times, its segments (640 in all), first <= last, all within the capture" $?
$PY -c '
import sys
t = [int(l.split()[0]) for l in open(sys.argv[1])]
sys.exit(any(b < a for a, b in zip(t, t[1:])))' $WORK/times.txt
check "the EPB times, exact to the ns, never go back" $?
$PY -c '
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w = sys.argv[2]
xrxpcap.write_pcap(w + "/tx.pcap", [f for i in (0, 1) for f, _ in xrxpcap.read_pcap("%s/tx%d.pcap" % (w, i))])' \
	"$TOP/tests/tools" "$WORK"
out=$($PY "$XRXPCAP" check-payload $WORK/tx.pcap $NG 2>&1)
check "every flow's payload in the one file, byte for byte" $?
[ -n "$out" ] && diag "$out"

PC=$WORK/rx.pcap
run $PC ""
check "live_rx on 2 queues wrote one pcap file (the default format)" $?
[ "$(od -An -tx4 -N4 $PC | tr -d ' ')" = a1b23c4d ]
check "the nanosecond pcap magic" $?
pk=$(rxstat engine pkts_out)
tshark -r $PC -T fields -e frame.time_epoch -e tcp.len >$WORK/pc.txt 2>$WORK/pc.err &&
	[ "$(wc -l <$WORK/pc.txt)" = "$pk" ] &&
	[ "$(awk '{ s += $2 } END { print s }' $WORK/pc.txt)" = $((640 * 1448)) ]
check "tshark reads all $pk aggregates of both queues from it, every payload byte" $?
awk 'NR > 1 && $1 < prev { bad++ } { prev = $1 } END { exit bad ? 1 : 0 }' $WORK/pc.txt
check "in time order" $?

LL=$WORK/rx-ll.pcapng
run $LL ",lossless"
check "live_rx on 2 queues wrote one lossless file" $?
q0=$(awk '$1 == "q0" { print $3 }' "$RX_OUT")
q1=$(awk '$1 == "q1" { print $3 }' "$RX_OUT")
[ "${q0:-0}" -gt 0 ] && [ "${q1:-0}" -gt 0 ] && [ $((q0 + q1)) = 640 ] &&
	[ ! -e $LL.q0 ] && [ ! -e $LL.q1 ] &&
	[ "$(rxstat sink pkts_out)" = "$(rxstat engine pkts_out)" ]
check "both queues' frames ($q0, $q1), every packet in the one file, no per-queue files" $?
tshark -r $LL -T fields -e frame.interface_id >$WORK/ll.txt 2>$WORK/ll.err
r=$?
bad=$(tshark -r $LL -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | wc -l)
# tshark's one line about running as root is no word about the file
grep -v 'Running as user' $WORK/ll.err >$WORK/ll.warn
[ $r = 0 ] && [ ! -s $WORK/ll.warn ] && [ "$bad" = 0 ] &&
	[ "$(wc -l <$WORK/ll.txt)" = "$(rxstat engine pkts_out)" ] &&
	[ "$(sort -u $WORK/ll.txt | tr '\n' ' ')" = "0 1 " ] &&
	[ "$(capinfos $LL | grep -c '^Interface #')" = 2 ]
r=$?
check "tshark reads it without a word, an IDB per queue, packets on both ($(head -c 200 $WORK/ll.warn))" $r
"$BUILD/xrx-replay" --split $LL $WORK/ll-split.pcap 2>$WORK/split.err
r=$?
check "xrx-replay --split reads the two queues' file ($(head -c 200 $WORK/split.err))" $r
out=$($PY "$TOP/tests/tools/frame_cmp.py" --no-time $WORK/tx.pcap $WORK/ll-split.pcap)
check "every frame sent on both queues comes back byte for byte, in order per flow: $out" $?

done_testing
