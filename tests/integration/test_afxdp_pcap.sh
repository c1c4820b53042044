#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# AF_XDP live receive into the pcap sink, end to end on a veth: crafted
# TCP/IPv4, TCP/IPv6 and UDP trains to an accelerated port come out of
# the pcap file as exactly the expected aggregates, carrying exactly the
# payload bytes sent, readable by tcpdump and tshark; ARP, ICMP, ICMPv6
# and a port without a rule still reach the DUT's kernel. Then snaplen and
# size-based rotation of the pcap sink, and its explain option (pcapng,
# a comment per packet saying why GRO ended it).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/afxdp_lib.sh"
afxdp_need
testbed_up || { check "testbed" 1; done_testing; exit 1; }

# Frames that must be accelerated: 4 IPv4 flows x 3 trains x 20
# segments, 2 IPv6 flows x 20, 2 UDP flows x 10 datagrams.
rx_start -p 5001 -u -s pcap:$WORK/rx.pcap -T 20000 -t 40
check "live_rx opened $IF_DUT (xrx_rx attached, AF_XDP socket bound)" $?
diag "$(grep -h 'AF_XDP' "$RX_ERR")"

send --flows 4 --segs 20 --trains 3 --gap-us 50000 -w $WORK/tx4.pcap
check "sent 240 TCP/IPv4 segments" $?
send --src $IP6_SRC --dst $IP6_DUT --sport 41000 --flows 2 --segs 20 \
	--mss 1428 -w $WORK/tx6.pcap
check "sent 40 TCP/IPv6 segments" $?
send --udp --sport 42000 --flows 2 --segs 10 --mss 1000 -w $WORK/txu.pcap
check "sent 20 UDP datagrams" $?

noports0=$(dut_snmp Udp NoPorts)
send --udp --dport 5002 --flows 1 --segs 10 --mss 100
in_src ping -c 2 -i 0.2 -W 2 $IP4_DUT >/dev/null 2>&1
check "ARP and ICMP reach the DUT's kernel while xrx runs" $?
in_src ping -c 2 -i 0.2 -W 2 $IP6_DUT >/dev/null 2>&1
check "neighbour discovery and ICMPv6 reach it too" $?
wait_for 5 test "$(dut_snmp Udp NoPorts)" -ge $((noports0 + 10))
check "UDP to a port without a rule reaches the DUT's kernel (NoPorts +10)" $?
sleep 0.3

rx_stop
check "live_rx stopped cleanly" $?
rx_meta_check
grep -q '^check ok' "$RX_OUT"
check "frame ownership invariant holds ($(grep '^check' "$RX_OUT"))" $?
[ "$(rxstat live rx_frames)" = 300 ] && [ "$(rxstat prog redirect)" = 300 ]
rc=$?; check "all 300 accelerated frames reached the engine (rx_frames $(rxstat live rx_frames), redirect $(rxstat prog redirect))" $rc
[ "$(rxstat engine payload_bytes_copied)" = 0 ]
check "no payload byte copied (header-only copy)" $?
[ "$(rxstat sink pkts_out)" = "$(rxstat engine pkts_out)" ] &&
	[ "$(rxstat sink errors)" = 0 ] && [ "$(rxstat sink dropped)" = 0 ]
rc=$?; check "the sink wrote every delivered packet ($(rxstat sink pkts_out))" $rc

# Expected: per flow and train one aggregate of every segment.
$PY "$XRXPCAP" summary $WORK/rx.pcap >$WORK/summary 2>&1
awk '{ print $2, $3, $4, $5, $7, $9 }' $WORK/summary | sort >$WORK/got
{
	for t in 0 1 2; do
		for f in 0 1 2 3; do
			echo "IPv4 tcp $((40000 + f)) 5001 $((1000000 * (f + 1) + 28960 * t)) 28960"
		done
	done
	for f in 0 1; do
		echo "IPv6 tcp $((41000 + f)) 5001 $((1000000 * (f + 1))) 28560"
	done
} | sort >$WORK/want
grep -q ' udp ' $WORK/summary
tcp_ok=0
diff $WORK/want <(grep ' tcp ' $WORK/got) >$WORK/diff || tcp_ok=1
check "TCP: one 20-segment aggregate per flow and train, 14 in all" $tcp_ok
[ $tcp_ok = 0 ] || diag "$(head -20 $WORK/diff)"
udp=$(awk '$3 == "udp" { n++; if ($NF != "") l[$NF]++ } END { print n + 0 }' $WORK/summary)
[ "$(grep -c ' udp 4200[01] 5001 .*len 10000' $WORK/summary)" = 2 ] && [ "$udp" = 2 ]
check "UDP: one 10-datagram aggregate per flow (UDP GRO)" $?

$PY -c '
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w = sys.argv[2]
frames = []
for n in ("tx4", "tx6", "txu"):
    frames += [f for f, _ in xrxpcap.read_pcap("%s/%s.pcap" % (w, n))]
xrxpcap.write_pcap(w + "/tx.pcap", frames)' "$TOP/tests/tools" "$WORK"
out=$($PY "$XRXPCAP" check-payload $WORK/tx.pcap $WORK/rx.pcap 2>&1)
check "every flow's payload arrived byte for byte" $?
[ -n "$out" ] && diag "$out"

n=$(rxstat engine pkts_out)
if command -v tcpdump >/dev/null; then
	[ "$(tcpdump -nr $WORK/rx.pcap 2>/dev/null | wc -l)" = "$n" ]
	check "tcpdump reads all $n packets" $?
else
	skip "tcpdump reads the pcap" "tcpdump not installed"
fi
if command -v tshark >/dev/null; then
	[ "$(tshark -r $WORK/rx.pcap 2>/dev/null | wc -l)" = "$n" ] &&
		[ "$(tshark -r $WORK/rx.pcap -Y 'tcp.len == 28960 || tcp.len == 28560' 2>/dev/null | wc -l)" = 14 ]
	check "tshark reads all $n packets and sees the 14 TCP aggregates" $?
	bad=$(tshark -r $WORK/rx.pcap -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | wc -l)
	[ "$bad" = 0 ]
	check "tshark finds nothing malformed" $?
else
	skip "tshark reads the pcap" "tshark not installed"
	skip "tshark finds nothing malformed" "tshark not installed"
fi

# pcap_run WHAT RX_ARGS SEND_ARGS: a receiver on port 5001 with RX_ARGS,
# SEND_ARGS sent to it, and stopped; each step checked.
pcap_run() {
	rx_start -p 5001 $2 -t 30
	check "live_rx with $1" $?
	send $3
	sleep 0.3
	rx_stop
	check "live_rx stopped cleanly ($1)" $?
}

# snaplen and rotation: 128-byte records, files of at most 4 KiB.
pcap_run "snaplen 128 and rotation at 4 KiB" "-s pcap:$WORK/rot.pcap -L 128 -B 4096" \
	"--flows 2 --segs 1 --trains 40 --mss 1000"
grep -q '^check ok' "$RX_OUT"
check "frame ownership invariant holds (rotation run)" $?
files=$(ls $WORK/rot.pcap* | wc -l)
recs=0 big=0 sizeok=0
for f in $WORK/rot.pcap*; do
	r=$(tcpdump -nr "$f" 2>/dev/null | wc -l)
	recs=$((recs + r))
	[ "$(stat -c %s "$f")" -le 4096 ] || sizeok=1
done
rot=$(rxstat sink rotations)
[ "$files" -ge 3 ] && [ "$files" -le 9 ] && [ $sizeok = 0 ]
check "rotated into $files files of at most 4096 bytes (rotations $rot)" $?
kept=$(( $(rxstat sink pkts_out) ))
[ "$kept" = 80 ] && [ "$(rxstat sink rotations)" -ge 2 ]
check "80 packets written ($kept)" $?
caps=$(tshark -r $WORK/rot.pcap -T fields -e frame.cap_len -e frame.len 2>/dev/null | sort -u)
[ "$caps" = "$(printf '128\t1054')" ]
check "records are cut at 128 bytes, original length kept ($caps)" $?

# The same bounds from the spec alone (what xrxd's config passes):
# size=4K, files=3 in all, snaplen=96.
pcap_run "pcap:PATH,size=4K,files=3,snaplen=96" "-s pcap:$WORK/spec.pcap,size=4K,files=3,snaplen=96" \
	"--flows 2 --segs 1 --trains 40 --mss 1000"
files=$(ls $WORK/spec.pcap* | wc -l)
sizeok=0
for f in $WORK/spec.pcap*; do
	[ "$(stat -c %s "$f")" -le 4096 ] || sizeok=1
done
# (the result first: a $(...) in the name would reset $?)
rot=$(rxstat sink rotations)
[ "$files" = 3 ] && [ -e $WORK/spec.pcap.2 ] && [ ! -e $WORK/spec.pcap.3 ] &&
	[ $sizeok = 0 ] && [ "$rot" -ge 2 ]
check "files=3: exactly spec.pcap, .1, .2, each at most 4096 bytes (rotations $rot)" $?
caps=$(tshark -r $WORK/spec.pcap -T fields -e frame.cap_len -e frame.len 2>/dev/null | sort -u)
[ "$caps" = "$(printf '96\t1054')" ]
check "snaplen=96: records cut at 96 bytes, original length kept ($caps)" $?

# explain: pcapng, each packet with the comment xrx-replay --explain
# writes, rotated as pcap is.
pcap_run "pcap:PATH,explain,size=16K,files=9" "-s pcap:$WORK/ex.pcapng,explain,size=16K,files=9" \
	"--flows 2 --segs 10 --trains 4 --mss 500"
files=0 sizeok=0
: >$WORK/ex.comments
for f in $WORK/ex.pcapng*; do
	files=$((files + 1))
	[ "$(stat -c %s "$f")" -le 16384 ] || sizeok=1
	tshark -r "$f" -T fields -e frame.comment >>$WORK/ex.comments 2>/dev/null || sizeok=1
done
n=$(grep -c . $WORK/ex.comments)
segs=$(awk '{ s += $1 } END { print s + 0 }' $WORK/ex.comments)
odd=$(grep -cvE '^[0-9]+ segs?; (flushed|ended|not merged): .+ \([a-z0-9_]+\)$' $WORK/ex.comments)
frames=$(rxstat engine frames_in)
[ "$files" -ge 2 ] && [ $sizeok = 0 ] && [ "$n" -gt 0 ] &&
	[ "$n" = "$(rxstat sink pkts_out)" ] && [ "$segs" = "$frames" ] && [ "$odd" = 0 ]
check "explain: $files pcapng files tshark reads, a comment per packet ($n), segments $segs of $frames" $?
[ "$odd" = 0 ] || diag "$(head -3 $WORK/ex.comments)"

# The size limit an explained packet names is the engine's own
# (max_aggregate 4096: four 1000-byte segments), as xrx-replay names it.
pcap_run "explain with max_aggregate 4096" "-A 4096 -s pcap:$WORK/lim.pcapng,explain" \
	"--flows 1 --segs 10 --trains 4 --mss 1000"
tshark -r $WORK/lim.pcapng -T fields -e frame.comment >$WORK/lim.comments 2>/dev/null
named=$(grep -c 'flushed: size limit 4096 (skb_gro_receive)$' $WORK/lim.comments)
other=$(grep 'size limit' $WORK/lim.comments | grep -vc 'size limit 4096 ')
most=$(awk '{ if ($1 > m) m = $1 } END { print m + 0 }' $WORK/lim.comments)
[ "$named" -gt 0 ] && [ "$other" = 0 ] && [ "$most" -le 4 ]
check "explain names the engine's size limit 4096 ($named packets; otherwise named $other; at most $most segments)" $?
[ "$other" = 0 ] || diag "$(grep 'size limit' $WORK/lim.comments | head -2)"

done_testing
