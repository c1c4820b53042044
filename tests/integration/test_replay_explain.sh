#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrx-replay --explain: OUT is pcapng that tshark reads, every delivered
# packet with one comment (frame.comment) saying how many segments it
# holds and why it ended. For each crafted train of scripts/gen-fixtures.py
# whose one cause is known (window, TTL, TOS, PSH, SYN, ACK, options,
# sequence gap, size limit, checksum) the comments, in delivery order, are
# exactly those naming it and the kernel function that decides the same;
# the packets are those xrx-replay writes without --explain, and the fast
# path (--meta) explains alike (both read with tests/tools/xrxpcap.py,
# which checks every block's lengths and padding on its own). The
# per-flow summary counts, per
# reason, what the engine's counters count (text and --json), and sorts
# the reason that cost the most aggregation first. No namespaces needed.
. "$(dirname "$0")/../lib.sh"

replay_need
$PY -c 'import scapy' 2>/dev/null ||
	skip_all "python3-scapy missing (scripts/deps.sh installs it)"
command -v tshark >/dev/null || skip_all "tshark missing (scripts/deps.sh installs it)"
W=$(mktemp -d /tmp/xrx-explain.XXXXXX)
at_exit rm -rf "$W"
F=$W/fx
TRAINS="tcp4_window tcp4_ttl tcp4_tos tcp4_psh tcp4_syn tcp4_ack
	tcp4_ts_change tcp4_gap tcp4_limit64k tcp4_bad_csum tcp6_hlim
	udp4_bad_csum tcp_interleaved many_flows"
$PY "$TOP/scripts/gen-fixtures.py" "$F" $TRAINS >/dev/null
check "fixtures generated" $?

comments() { tshark -r "$1" -T fields -e frame.comment 2>/dev/null; }

# TRAIN|comment|comment...: what each delivered packet must say, in order.
BE="flushed: batch end (napi_complete_done)"
while IFS='|' read -r t want; do
	[ -n "$t" ] || continue
	"$R" --explain "$F/$t.pcap" "$W/$t.pcapng" >"$W/$t.txt" 2>"$W/$t.err"
	rc=$?
	got=$(comments "$W/$t.pcapng" | paste -sd'|')
	[ $rc = 0 ] && [ "$got" = "$want" ]
	check "$t: ${want%%|*}" $?
	[ "$got" = "$want" ] || diag "got: $got ($(head -1 "$W/$t.err"))"
	"$R" "$F/$t.pcap" "$W/$t.pcap" >/dev/null &&
		$X compare "$W/$t.pcap" "$W/$t.pcapng" >/dev/null &&
		"$R" --explain --meta "$F/$t.pcap" "$W/$t-meta.pcapng" >/dev/null 2>&1 &&
		[ "$($X comments "$W/$t-meta.pcapng" | paste -sd'|')" = "$want" ]
	check "$t: the packets of plain pcap output; the same comments with --meta" $?
done <<EOF
tcp4_window|3 segs; flushed: window changed (tcp_gro_receive)|3 segs; flushed: window changed (tcp_gro_receive)|2 segs; $BE
tcp4_ttl|3 segs; flushed: TTL changed (inet_gro_flush)|5 segs; $BE
tcp4_tos|3 segs; flushed: TOS changed (inet_gro_flush)|5 segs; $BE
tcp4_psh|4 segs; ended: PSH set (tcp_gro_receive)|6 segs; $BE
tcp4_syn|2 segs; flushed: TCP flags or header length changed (tcp_gro_receive)|1 seg; not merged: SYN set (tcp_gro_receive)|3 segs; $BE
tcp4_ack|3 segs; flushed: ACK number changed (tcp_gro_receive)|5 segs; $BE
tcp4_ts_change|3 segs; flushed: TCP options changed (tcp_gro_receive)|5 segs; $BE
tcp4_gap|4 segs; flushed: sequence gap or retransmit (tcp_gro_receive)|5 segs; $BE
tcp4_limit64k|45 segs; flushed: size limit 65536 (skb_gro_receive)|5 segs; $BE
tcp4_bad_csum|1 seg; not merged: bad L4 checksum (tcp4_gro_receive)|3 segs; flushed: sequence gap or retransmit (tcp_gro_receive)|4 segs; $BE
tcp6_hlim|3 segs; flushed: hop limit changed (ipv6_gro_flush)|5 segs; $BE
EOF
"$R" --explain --udp "$F/udp4_bad_csum.pcap" "$W/u.pcapng" >/dev/null &&
	comments "$W/u.pcapng" | grep -qx '1 seg; not merged: bad L4 checksum (udp4_gro_receive)'
check "udp4_bad_csum: not merged: bad L4 checksum (udp4_gro_receive)" $?
"$R" --explain -s 100000 "$F/tcp4_limit64k.pcap" "$W/big.pcapng" >/dev/null &&
	[ "$(comments "$W/big.pcapng" | paste -sd'|')" = "50 segs; $BE" ]
check "--max-size 100000: the 50 segments in one, no size limit named" $?

# The file: pcapng, as tshark and capinfos see it, one comment per packet.
capinfos -t "$W/tcp4_window.pcapng" 2>/dev/null | grep -q 'pcapng'
check "OUT is pcapng (capinfos)" $?
"$R" --explain -S 262144 "$TOP/tests/fixtures/iperf3-tcp4.pcap" "$W/ip.pcapng" \
	--json >"$W/ip.json"
check "the iperf3 capture: exit 0" $?
n=$(tshark -r "$W/ip.pcapng" 2>/dev/null | wc -l)
c=$(comments "$W/ip.pcapng" | grep -c .)
bad=$(tshark -r "$W/ip.pcapng" -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | wc -l)
[ "$n" -gt 100 ] && [ "$c" = "$n" ] && [ "$bad" = 0 ]
check "tshark reads its $n packets, each with a comment ($c), nothing malformed" $?
segs=$(comments "$W/ip.pcapng" | awk '{ s += $1 } END { print s }')
$PY - "$W/ip.json" "$segs" <<'PYEOF'
import json, sys
e = json.load(open(sys.argv[1]))["engine"]
assert int(sys.argv[2]) == e["frames_in"], (sys.argv[2], e["frames_in"])
PYEOF
check "the comments' segments add up to the frames in ($segs)" $?

# The summary's counts are the engine's counters: per reason, over all
# flows and flow by flow, in the JSON; and the text says the same.
summary_ok() {
	$PY - "$1" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
e, x = j["engine"], j["explain"]
reasons = [k for k in e if k.startswith(("flush_", "complete_", "single_"))
           or k == "csum_bad"]
tot = {}
for r in x["total"]["reasons"]:
    tot[r["reason"]] = tot.get(r["reason"], 0) + r["packets"]
for k in reasons:
    assert tot.get(k, 0) == e[k], (k, tot.get(k, 0), e[k])
assert set(tot) <= set(reasons), tot
assert x["unexplained"] == 0, x
t = x["total"]
assert t["pkts_out"] == e["pkts_out"] and t["segs_in"] == e["frames_in"], t
assert t["aggs_out"] == e["aggs_out"], t
flows = x["flows"]
assert len(flows) == x["flows_seen"]
for key in ("pkts_out", "segs_in", "cost"):
    assert sum(f[key] for f in flows) == t[key], key
per = {}
for f in flows:
    costs = [r["cost"] for r in f["reasons"]]
    assert costs == sorted(costs, reverse=True), f
    assert sum(costs) == f["cost"], f
    for r in f["reasons"]:
        per[r["reason"]] = per.get(r["reason"], 0) + r["packets"]
assert per == tot, (per, tot)
PYEOF
}
summary_ok "$W/ip.json"
check "iperf3 capture: summary counts = engine counters, per flow too" $?
for t in many_flows tcp_interleaved tcp4_syn tcp4_bad_csum; do
	"$R" --explain --json "$F/$t.pcap" "$W/$t-j.pcapng" >"$W/$t.json" &&
		summary_ok "$W/$t.json"
	check "$t: summary counts = engine counters" $?
done
flows=$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["explain"]["flows"]))' "$W/many_flows.json")
[ "$flows" = 200 ]
check "many_flows: 200 flows in the summary ($flows)" $?

# Sorted by cost: the window flushes cost two splits, the batch end none;
# the SYN both splits around it, the flag flush it caused nothing.
first() { awk '/^  *cost/ { getline; sub(/^ *[0-9]+ +[0-9]+  /, ""); print; exit }' "$1"; }
[ "$(first "$W/tcp4_window.txt")" = "flushed: window changed (tcp_gro_receive)  [flush_window]" ] &&
	grep -q '^ *2 *2  flushed: window changed' "$W/tcp4_window.txt" &&
	grep -q '^ *0 *1  flushed: batch end' "$W/tcp4_window.txt"
check "text summary: window changed first, cost 2; batch end cost 0" $?
[ "$(first "$W/tcp4_syn.txt")" = "not merged: SYN set (tcp_gro_receive)  [single_tcp_flags]" ] &&
	grep -q '^ *2 *1  not merged: SYN set' "$W/tcp4_syn.txt"
check "text summary: the SYN first, cost 2" $?
grep -q '^ *0 *1  flushed: size limit 65536 (skb_gro_receive)' "$W/tcp4_limit64k.txt"
check "text summary: the size limit costs nothing" $?
grep -q '^flow 198.18.0.1:40000 > 198.18.0.2:5201 tcp: 8 segments in, 3 packets out, 2.67 segments per packet$' "$W/tcp4_window.txt"
check "text summary: the flow, segments in, packets out, segments per packet" $?

# GENEVE flows are named so, IPv4 carried without an inner Ethernet
# header (protocol type 0x0800) too.
$PY "$TOP/tests/tools/geneve_trains.py" "$W/gn" >/dev/null &&
	"$R" --geneve-port 6081 --explain "$W/gn/gn4_proto_ip.pcap" \
		"$W/gnip.pcapng" >"$W/gnip.txt" &&
	"$R" --geneve-port 6081 --explain "$W/gn/gn4_contig.pcap" \
		"$W/gn.pcapng" >"$W/gn.txt" &&
	grep -q '^flow .* tcp in geneve 42: 12 segments in, 1 packet out' "$W/gnip.txt" &&
	grep -q '^flow .* tcp in geneve 42: 20 segments in, 1 packet out' "$W/gn.txt"
check "text summary: flows inside GENEVE, with and without inner Ethernet" $?

# Without --explain: a classic pcap, with nanosecond timestamps.
"$R" "$F/tcp4_window.pcap" "$W/plain.pcap" >"$W/plain.out" &&
	[ ! -s "$W/plain.out" ] &&
	[ "$(od -An -tx4 -N4 "$W/plain.pcap" | tr -d ' ')" = a1b23c4d ]
check "without --explain: pcap, nothing on standard output" $?
done_testing
