#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Lossless capture live (docs/lossless.md): AF_XDP on a veth into the
# pcap sink with its lossless option, then xrx-replay --split, against
# xrx-send --write's record of what was sent: every frame comes back byte
# for byte, flow by flow in the order sent -- TCP/IPv4, TCP/IPv6 and UDP
# trains that merge, and reordered and duplicated segments the kernel's
# rules would not merge, which must come back intact too. Times are not
# compared: the capture has the receive side's. Then the same through
# the one-file writer's time rotation (rotate=1, compress=zstd): each
# file splits on its own and together they are what was sent; and
# through a tee beside a null sink, whose copies no longer hold the
# frames (the worker makes each record while it has them).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
need_built "$BUILD/xrx-replay"
testbed_up || { check "testbed" 1; done_testing; exit 1; }

# 240 + 40 + 20 + 2 x 2 x 30 (and the duplicates xrx-send adds)
rx_start -p 5001 -u -s pcap:$WORK/rx.pcapng,lossless -T 20000 -t 60
check "live_rx with the lossless pcap sink" $?
send --flows 4 --segs 20 --trains 3 --gap-us 20000 -w $WORK/tx4.pcap &&
	send --src $IP6_SRC --dst $IP6_DUT --sport 41000 --flows 2 --segs 20 \
		--mss 1428 -w $WORK/tx6.pcap &&
	send --udp --sport 42000 --flows 2 --segs 10 --mss 1000 -w $WORK/txu.pcap &&
	send --sport 43000 --flows 2 --segs 30 --trains 2 --reorder 15 --dup 10 \
		--gap-us 20000 -w $WORK/txr.pcap
check "sent TCP/IPv4, TCP/IPv6, UDP, and reordered and duplicated TCP" $?
sent=0
for f in tx4 tx6 txu txr; do
	sent=$((sent + $($PY "$XRXPCAP" count $WORK/$f.pcap | cut -d' ' -f1)))
done
# every frame sent has been redirected to the socket (bounded), then stop
redirected() { in_dut ethtool -S $IF_DUT | awk '/xdp_redirect/ { s += $2 } END { print s + 0 }'; }
all_redirected() { [ "$(redirected)" -ge $sent ]; }
wait_for 20 all_redirected
rc=$?; check "xrx_rx redirected all $sent frames ($(redirected))" $rc
rx_stop
check "live_rx stopped cleanly" $?
[ "$(rxstat live rx_frames)" = $sent ] && [ "$(rxstat sink errors)" = 0 ] &&
	[ "$(rxstat sink dropped)" = 0 ]
rc=$?; check "all $sent frames sent reached the engine ($(rxstat live rx_frames)), every packet written" $rc
[ "$(rxstat engine aggs_out)" -gt 20 ] && [ "$(rxstat engine single_tcp_flags)$(rxstat engine flush_seq)" != 00 ]
rc=$?; check "aggregates ($(rxstat engine aggs_out)) and frames that did not merge (flush_seq $(rxstat engine flush_seq))" $rc

"$BUILD/xrx-replay" --split $WORK/rx.pcapng $WORK/split.pcap 2>$WORK/split.err
check "xrx-replay --split reads the live capture" $?
$PY - "$TOP/tests/tools" "$WORK" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w = sys.argv[2]
frames = []
for n in ("tx4", "tx6", "txu", "txr"):
    frames += [f for f, _ in xrxpcap.read_pcap("%s/%s.pcap" % (w, n))]
xrxpcap.write_pcap(w + "/tx.pcap", frames)
PYEOF
out=$($PY "$TOP/tests/tools/frame_cmp.py" --no-time $WORK/tx.pcap $WORK/split.pcap)
check "every frame sent comes back byte for byte, in order per flow: $out" $?
if command -v tshark >/dev/null; then
	n=$(tshark -r $WORK/rx.pcapng 2>/dev/null | wc -l)
	bad=$(tshark -r $WORK/rx.pcapng -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | wc -l)
	[ "$n" = "$(rxstat engine pkts_out)" ] && [ "$bad" = 0 ]
	check "tshark reads the $n packets of the lossless capture, nothing malformed" $?
else
	skip "tshark reads the lossless capture" "tshark not installed"
fi

# tshark on @1: it reads every block, says nothing on stderr, finds
# nothing malformed (the reordered and duplicated flows are TCP analysis
# warnings of their own, so: no error)
tshark_clean() {
	local err=$WORK/tshark.err bad
	command -v tshark >/dev/null || return 0
	tshark -r "$1" >/dev/null 2>$err || return 1
	bad=$(tshark -r "$1" -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | wc -l)
	[ "$bad" = 0 ] || tshark -r "$1" -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | head -3 | sed 's/^/# /'
	grep -v "Running as user" $err | head -3 | sed "s/^/# /"
	[ "$bad" = 0 ] && ! grep -v 'Running as user' $err | grep -q .
}

# --split each of FILES into one frame stream, in the files' order, as
# $WORK/$1.split.pcap
split_all() {
	local out=$1 f
	shift
	for f in "$@"; do
		"$BUILD/xrx-replay" --split "$f" "$f.split" 2>>$WORK/split.err ||
			return 1
	done
	$PY - "$TOP/tests/tools" "$WORK/$out.split.pcap" "$@" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
frames = []
for f in sys.argv[3:]:
    frames += [x for x, _ in xrxpcap.read_pcap(f + ".split")]
xrxpcap.write_pcap(sys.argv[2], frames)
PYEOF
}

# rotate=1: three trains 0.7 s apart span more than a second, so at
# least two files, each closed one compressed
ROT=$WORK/rot
mkdir -p $ROT
base=$(redirected)
rx_start -p 5001 -u -s "pcap:$ROT/rx-%s.pcapng,lossless,rotate=1,compress=zstd" -T 20000 -t 60
check "live_rx with lossless, rotate=1 and compress=zstd" $?
send --sport 44000 --flows 4 --segs 20 --trains 3 --gap-us 700000 -w $WORK/txrot.pcap
check "sent 3 trains of 4 TCP flows, 0.7 s apart" $?
sent=$($PY "$XRXPCAP" count $WORK/txrot.pcap | cut -d' ' -f1)
# every frame sent since $base was counted
sent_since_base() { [ $(($(redirected) - base)) -ge $sent ]; }
wait_for 20 sent_since_base
rc=$?; check "xrx_rx redirected all $sent frames" $rc
rx_stop
check "live_rx stopped cleanly" $?
ls $ROT >$WORK/rot.ls
diag "files: $(tr '\n' ' ' <$WORK/rot.ls)"
[ "$(rxstat sink pkts_out)" = "$(rxstat engine pkts_out)" ] &&
	[ "$(rxstat sink compress_errors)" = 0 ] &&
	[ "$(grep -vc '\.zst$' $WORK/rot.ls)" = 0 ] &&
	[ "$(rxstat sink rotations)" -ge 1 ]
r=$?
check "every packet written, $(rxstat sink rotations) rotations, each file compressed" $r
for f in $ROT/*.zst; do zstd -dq --rm "$f" || break; done
files=()
for f in $(ls $ROT/*.pcapng | sort); do
	# a period no packet came in has a file of its headers alone
	[ "$(capinfos -c -M "$f" 2>/dev/null | awk '/Number of packets/ { print $NF }')" -gt 0 ] &&
		files+=("$f")
done
[ ${#files[@]} -ge 2 ]
check "the packets in ${#files[@]} files" $?
split_all rot "${files[@]}"
r=$?
check "each file splits on its own ($(head -c 200 $WORK/split.err))" $r
out=$($PY "$TOP/tests/tools/frame_cmp.py" --no-time $WORK/txrot.pcap $WORK/rot.split.pcap)
check "together the files give every frame sent, byte for byte: $out" $?
for f in "${files[@]}"; do tshark_clean "$f" || break; done
check "tshark reads every file without a word, nothing malformed" $?

# a tee: the sink null, the lossless capture beside it
TEE=$WORK/tee.pcapng
base=$(redirected)
rx_start -p 5001 -u -s null -e "pcap:$TEE,lossless" -T 20000 -t 60
check "live_rx with sink null and a lossless pcap tee" $?
send --flows 4 --segs 20 --trains 2 --gap-us 20000 -w $WORK/txt4.pcap &&
	send --src $IP6_SRC --dst $IP6_DUT --sport 41000 --flows 2 --segs 20 \
		--mss 1428 -w $WORK/txt6.pcap &&
	send --udp --sport 42000 --flows 2 --segs 10 --mss 1000 -w $WORK/txtu.pcap &&
	send --sport 43000 --flows 2 --segs 30 --trains 2 --reorder 15 --dup 10 \
		--gap-us 20000 -w $WORK/txtr.pcap
check "sent TCP/IPv4, TCP/IPv6, UDP, and reordered and duplicated TCP" $?
sent=0
for f in txt4 txt6 txtu txtr; do
	sent=$((sent + $($PY "$XRXPCAP" count $WORK/$f.pcap | cut -d' ' -f1)))
done
wait_for 20 sent_since_base
rc=$?; check "xrx_rx redirected all $sent frames" $rc
rx_stop
check "live_rx stopped cleanly" $?
po=$(rxstat engine pkts_out)
[ "$(rxstat sink pkts_out)" = $po ] && [ "$(rxstat tee pkts_in)" = $po ] &&
	[ "$(rxstat tee pkts_out)" = $po ] && [ "$(rxstat tee dropped)" = 0 ] &&
	[ "$(rxstat tee errors)" = 0 ] && [ "$(rxstat engine aggs_out)" -gt 10 ]
r=$?
check "the sink and the tee got all $po packets ($(rxstat engine aggs_out) aggregates), the tee wrote each ($(rxstat tee pkts_out))" $r
$PY - "$TOP/tests/tools" "$WORK" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w = sys.argv[2]
frames = []
for n in ("txt4", "txt6", "txtu", "txtr"):
    frames += [f for f, _ in xrxpcap.read_pcap("%s/%s.pcap" % (w, n))]
xrxpcap.write_pcap(w + "/txt.pcap", frames)
PYEOF
: >$WORK/split.err
split_all tee $TEE
r=$?
check "xrx-replay --split reads the tee's capture ($(head -c 200 $WORK/split.err))" $r
out=$($PY "$TOP/tests/tools/frame_cmp.py" --no-time $WORK/txt.pcap $WORK/tee.split.pcap)
check "every frame sent comes back from the tee byte for byte, in order per flow: $out" $?
tshark_clean $TEE
check "tshark reads the tee's capture without a word, nothing malformed" $?
done_testing
