#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# AF_XDP end to end on a veth: xrx_rx attached through libxdp, a copy-mode
# socket on queue 0 (tests/helpers/xsk_smoke.c), TCP and UDP to port 5001
# sent from the peer namespace must arrive in the socket with a correct
# xrx_meta in front (no_meta_room 0), while ARP and ICMP still reach the
# DUT's kernel.
. "$(dirname "$0")/../lib.sh"
need_root

OBJ=$BUILD/xrx_rx.bpf.o
SMOKE=$BUILD/tests/xsk_smoke
PORT=5001
NTCP=10
NUDP=10

for f in "$OBJ" "$SMOKE"; do
	if [ ! -x "$f" ] && [ ! -r "$f" ]; then
		skip "afxdp smoke" "$f missing; run make"
		done_testing
		exit 0
	fi
done
if ! $PY -c 'import scapy' 2>/dev/null; then
	skip "afxdp smoke" "python3-scapy missing (scripts/deps.sh installs it)"
	done_testing
	exit 0
fi

testbed_up || { check "testbed" 1; done_testing; exit 1; }
PIN=/sys/fs/bpf/xrx/$IF_DUT
LOG=$(mktemp -d /tmp/xrx-afxdp.XXXXXX)
at_exit "rm -rf $LOG"
at_exit "rm -rf $PIN; rmdir /sys/fs/bpf/xrx"
mkdir -p "$PIN"

# send_frames: TCP data segments and UDP datagrams from the source side.
send_frames() {
	local dmac
	dmac=$(in_dut ip -br link show dev $IF_DUT | awk '{ print $3 }')
	in_src $PY - "$IF_SRC" "$dmac" $IP4_SRC $IP4_DUT $IP6_SRC $IP6_DUT \
		$PORT $NTCP $NUDP <<'PYEOF'
import sys
from scapy.all import Ether, IP, IPv6, TCP, UDP, Raw, sendp
ifc, dmac, s4, d4, s6, d6, port, ntcp, nudp = sys.argv[1:]
port, ntcp, nudp = int(port), int(ntcp), int(nudp)
frames = []
for i in range(ntcp):
    ip = IP(src=s4, dst=d4) if i % 2 == 0 else IPv6(src=s6, dst=d6)
    frames.append(Ether(dst=dmac) / ip /
                  TCP(sport=40000, dport=port, flags="PA", seq=1000 + 100 * i,
                      options=[("NOP", None), ("NOP", None), ("Timestamp", (i, 0))]) /
                  Raw(bytes(100)))
for i in range(nudp):
    ip = IP(src=s4, dst=d4) if i % 2 == 0 else IPv6(src=s6, dst=d6)
    frames.append(Ether(dst=dmac) / ip / UDP(sport=40000, dport=port) / Raw(bytes(64 + i)))
sendp(frames, iface=ifc, verbose=False, inter=0.01)
PYEOF
}

for mode in native skb; do
	out=$LOG/smoke-$mode.out
	in_dut "$SMOKE" -i $IF_DUT -o "$OBJ" -P "$PIN" -q 0 -p $PORT \
		-n $((NTCP + NUDP)) -t 15 -m $mode >"$out" 2>"$LOG/smoke-$mode.err" &
	pid=$!
	at_exit "kill $pid"
	if ! wait_xrxd $pid grep -q '^ready' "$out"; then
		diag "$(cat "$LOG/smoke-$mode.err")"
		check "xsk_smoke bound an AF_XDP socket ($mode)" 1
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		continue
	fi
	check "xsk_smoke bound an AF_XDP socket ($mode)" 0

	in_src ping -c 3 -i 0.2 -W 2 $IP4_DUT >/dev/null 2>&1
	check "ARP and ICMP still reach the DUT kernel ($mode)" $?
	in_src ping -c 2 -i 0.2 -W 2 $IP6_DUT >/dev/null 2>&1
	check "ICMPv6 and neighbour discovery still reach it ($mode)" $?

	send_frames
	check "sent $NTCP TCP and $NUDP UDP frames to port $PORT ($mode)" $?
	wait $pid
	rc=$?
	res=$(grep '^rx ' "$out")
	diag "$mode: $res"
	[ -s "$LOG/smoke-$mode.err" ] && diag "$(head -5 "$LOG/smoke-$mode.err")"
	check "xsk_smoke ran to the end ($mode)" $rc

	set -- $res
	rx=${2:-0} tcp=${4:-0} udp=${6:-0} meta=${8:-0} nometa=${10:-0} bad=${12:-0}
	[ "$rx" = $((NTCP + NUDP)) ] && [ "$tcp" = $NTCP ] && [ "$udp" = $NUDP ]
	check "every TCP and UDP frame arrived in the socket ($mode)" $?
	[ "$bad" = 0 ]
	check "no frame with wrong metadata ($mode)" $?
	# The copy path carries the metadata too (__xsk_rcv() copies from
	# data_meta), so a frame without it is a failure, never a skip.
	[ "$meta" = "$rx" ] && [ "$rx" -gt 0 ] && [ "$nometa" = 0 ]
	check "xrx_meta in front of each frame, equal to xrx_parse() (meta $meta nometa $nometa of $rx) ($mode)" $?
	# The pinned counters outlive the helper: redirect saw every
	# accelerated frame, and each had room for its metadata.
	read -r red nmr < <(bpftool -j map dump pinned $PIN/xrx_stats 2>/dev/null | $PY -c '
import json, sys
e = json.load(sys.stdin)[0]["formatted"]
print(sum(v["value"]["redirect"]["packets"] for v in e["values"]),
      sum(v["value"]["no_meta_room"]["packets"] for v in e["values"]))')
	[ "${red:-0}" -ge $((NTCP + NUDP)) ]
	check "xrx_stats counted $((NTCP + NUDP)) redirects (got ${red:-none}) ($mode)" $?
	[ "${nmr:-x}" = 0 ]
	check "xrx_stats no_meta_room is 0 (got ${nmr:-none}) ($mode)" $?
	rm -rf "$PIN"/*
done

done_testing
