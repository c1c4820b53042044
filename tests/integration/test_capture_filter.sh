#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The pcap sink's filter= (docs/capture-filter.md), offline through
# xrx-replay: for each expression, what xrx writes with it is exactly what
# tcpdump -r keeps of xrx's unfiltered capture of the same traffic, with
# the same expression; what it leaves out is counted in sink.filtered and
# nowhere else; an expression libpcap refuses is a usage error naming
# libpcap's message.
. "$(dirname "$0")/../lib.sh"

replay_need
if ! command -v tcpdump >/dev/null; then
	skip "tcpdump is not installed (scripts/deps.sh)"
	done_testing
	exit
fi
W=$(mktemp -d /tmp/xrx-filter.XXXXXX)
at_exit rm -rf "$W"

$PY "$TOP/tests/tools/filter_mix.py" "$W/mix.pcap" >/dev/null
check "the mixed traffic is written" $?
"$R" "$W/mix.pcap" "$W/all.pcap"
check "xrx-replay without a filter: exit 0" $?
total=$(tcpdump -r "$W/all.pcap" 2>/dev/null | wc -l)
diag "$total packets in the unfiltered capture"

# The packets of a capture, each as its bytes in hex, without timestamps
# (xrx stamps packets when it writes them).
dump() { tcpdump -nn -t -xx -r "$@" 2>/dev/null; }

# The expressions; the number after each is how many packets of the
# unfiltered capture it keeps, checked below so that no expression passes
# by matching nothing (or everything).
while IFS='|' read -r expr; do
	[ -z "$expr" ] && continue
	"$R" --json --filter "$expr" "$W/mix.pcap" "$W/f.pcap" >"$W/json"
	rc=$?
	dump "$W/all.pcap" "$expr" >"$W/want"
	dump "$W/f.pcap" >"$W/got"
	want=$(grep -c '^[^ 	]' "$W/want")
	got=$(grep -c '^[^ 	]' "$W/got")
	filtered=$($PY -c 'import json,sys; s=json.load(open(sys.argv[1]))["sink"]; print(s["filtered"], s["pkts_in"] - s["pkts_out"] - s["errors"] - s["dropped"])' "$W/json")
	[ $rc = 0 ] && [ "$want" -gt 0 ] && [ "$want" -lt "$total" ] &&
		cmp -s "$W/want" "$W/got" &&
		[ "$filtered" = "$((total - want)) $((total - want))" ]
	check "filter '$expr': the $want packets tcpdump -r keeps, $((total - want)) counted in filtered" $?
done <<'EXPRS'
host 198.18.0.1
src host 198.18.1.2
dst host 198.19.0.7
net 198.18.0.0/24
dst net 198.19.0.0/16
vlan and src net 198.18.2.0/23
port 80
dst port 5201
src port 5201
portrange 1000-2000
tcp
udp
icmp
ip6
ip6 and tcp
ip6 net 2001:db8:1::/48
ip6 and dst host 2001:db8::2
icmp6
tcp[tcpflags] & tcp-syn != 0
tcp[tcpflags] & (tcp-fin|tcp-rst) != 0
tcp[tcpflags] & tcp-push != 0
tcp[tcpflags] == tcp-ack
vlan
vlan 10
vlan 20 and tcp port 22
udp and src net 198.18.0.0/16
greater 1000
less 200
len > 10000
ip[8] = 32
ether src 02:00:00:00:00:03
ether dst 02:00:00:00:00:02 and not ether src 02:00:00:00:00:01
(udp port 53 or icmp) and not host 198.18.0.20
tcp and not (port 80 or port 22)
host 198.18.0.1 and (udp or tcp[tcpflags] & tcp-syn != 0)
icmp[icmptype] = icmp-echo
udp and ip[2:2] > 300
tcp[((tcp[12:1] & 0xf0) >> 2):4] = 0x47455420
EXPRS

# Payload: the view is the packet's first 256 bytes. The "GET " at the
# start of the first segment's payload matched above; a byte further in
# is beyond the view, so nothing matches, as with tcpdump -s 256.
"$R" --json --filter 'tcp[300] != 255' "$W/mix.pcap" "$W/deep.pcap" >"$W/json"
n=$(tcpdump -r "$W/deep.pcap" 2>/dev/null | wc -l)
w=$(tcpdump -r "$W/all.pcap" 'tcp[300] != 255' 2>/dev/null | wc -l)
[ "$n" = 0 ] && [ "$w" -gt 0 ]
check "a load beyond the 256-byte view matches nothing ($n; tcpdump -r on the whole capture: $w)" $?

# A bad expression: exit 2, libpcap's message, no output file.
out=$("$R" --filter 'tcp prot 80' "$W/mix.pcap" "$W/bad.pcap" 2>&1)
rc=$?
[ $rc = 2 ] && [ ! -e "$W/bad.pcap" ] && grep -q "syntax error" <<<"$out" &&
	grep -q "filter=tcp prot 80" <<<"$out"
check "a refused expression: exit 2 with libpcap's message ($rc: $out)" $?
done_testing
