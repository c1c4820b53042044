#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrx-replay as a command: every class of bad input fails with exit 2, one
# line naming the file or option and the fix, and no OUT (nor temporary
# file) left behind; good runs deliver the packets and bytes they should,
# checked with tshark and tests/tools/xrxpcap.py; BIG TCP aggregates are
# written whole and read by tshark/tcpdump when written with a snaplen
# those tools accept. No network namespaces needed.
. "$(dirname "$0")/../lib.sh"

R=$BUILD/xrx-replay
X="$PY $TOP/tests/tools/xrxpcap.py"
if [ ! -x "$R" ]; then
	check "xrx-replay is built (make)" 1
	done_testing
	exit
fi
if ! $PY -c 'import scapy' 2>/dev/null; then
	skip "replay cli" "python3-scapy missing (scripts/deps.sh installs it)"
	done_testing
	exit
fi
W=$(mktemp -d /tmp/xrx-replay-cli.XXXXXX)
at_exit rm -rf "$W"
F=$W/fx
$PY "$TOP/scripts/gen-fixtures.py" "$F" tcp4_contig tcp4_bad_csum \
	tcp_interleaved udp4_equal udp4_cap66 big_tcp4 big_tcp6 many_flows >/dev/null
check "fixtures generated" $?

# expect_usage NAME OUT WORD CMD...: exit 2, one stderr line containing
# WORD, OUT absent and no temporary file left in its directory.
expect_usage() {
	local name=$1 out=$2 word=$3 rc lines
	shift 3
	"$@" >"$W/stdout" 2>"$W/stderr"
	rc=$?
	lines=$(wc -l <"$W/stderr")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$word" "$W/stderr" &&
	   [ ! -e "$out" ] && [ -z "$(ls -A "$(dirname "$out")" 2>/dev/null | grep '^\.')" ]; then
		check "$name" 0
	else
		check "$name" 1
		diag "exit $rc, $lines stderr line(s): $(head -3 "$W/stderr")"
	fi
}

# --- usage -----------------------------------------------------------------
"$R" --help >"$W/help" 2>&1
check "--help exits 0" $?
[ "$(wc -l <"$W/help")" -le 24 ] && awk 'length > 80 { exit 1 }' "$W/help"
check "--help fits a screen (<= 24 lines of <= 80 columns)" $?
"$R" --version | grep -qE '^xrx-replay [0-9]'
check "--version prints the version" $?

mkdir "$W/o"
O=$W/o/out.pcap
expect_usage "unknown option" "$O" "--bogus" "$R" --bogus "$F/tcp4_contig.pcap" "$O"
expect_usage "option without its value" "$O" "--batch" "$R" "$F/tcp4_contig.pcap" "$O" --batch
expect_usage "--batch 0 is refused" "$O" "--batch" "$R" --batch 0 "$F/tcp4_contig.pcap" "$O"
expect_usage "--batch abc is refused" "$O" "--batch" "$R" --batch abc "$F/tcp4_contig.pcap" "$O"
expect_usage "--max-size below the minimum" "$O" "--max-size" "$R" --max-size 100 "$F/tcp4_contig.pcap" "$O"
expect_usage "--max-size above BIG TCP" "$O" "--max-size" "$R" --max-size 600000 "$F/tcp4_contig.pcap" "$O"
expect_usage "--csum with an unknown mode" "$O" "--csum" "$R" --csum maybe "$F/tcp4_contig.pcap" "$O"
expect_usage "--copy with an unknown mode" "$O" "--copy" "$R" --copy some "$F/tcp4_contig.pcap" "$O"
expect_usage "--ipv6-jumbo with an unknown form" "$O" "--ipv6-jumbo" "$R" --ipv6-jumbo split "$F/tcp4_contig.pcap" "$O"
expect_usage "--vxlan-port 0 is refused" "$O" "--vxlan-port" "$R" --vxlan-port 0 "$F/tcp4_contig.pcap" "$O"
expect_usage "--vxlan-port above 65535" "$O" "--vxlan-port" "$R" --vxlan-port 65536 "$F/tcp4_contig.pcap" "$O"
expect_usage "--vxlan-port given twice" "$O" "lists 4789 twice" "$R" -x 4789 --vxlan-port 4789 "$F/tcp4_contig.pcap" "$O"
expect_usage "more than 8 --vxlan-port" "$O" "at most 8" "$R" -x 1 -x 2 -x 3 -x 4 -x 5 -x 6 -x 7 -x 8 -x 9 "$F/tcp4_contig.pcap" "$O"
expect_usage "one file name only" "$O" "IN.pcap and OUT.pcap" "$R" "$F/tcp4_contig.pcap"
expect_usage "--hash-key of 31 digits" "$O" "--hash-key" "$R" --hash-key 000102030405060708090a0b0c0d0e0 "$F/tcp4_contig.pcap" "$O"
expect_usage "--hash-key with a non-hex digit" "$O" "--hash-key" "$R" --hash-key 000102030405060708090a0b0c0d0e0g "$F/tcp4_contig.pcap" "$O"
expect_usage "--hash-key all zero" "$O" "--hash-key" "$R" --hash-key 00000000000000000000000000000000 "$F/tcp4_contig.pcap" "$O"

# --- bad input ---------------------------------------------------------------
expect_usage "missing input names the file" "$O" "$W/nope.pcap" "$R" "$W/nope.pcap" "$O"
mkdir "$W/dir.pcap"
expect_usage "a directory as input names it" "$O" "$W/dir.pcap" "$R" "$W/dir.pcap" "$O"
echo "this is not a capture" >"$W/text.pcap"
expect_usage "not a pcap names the file" "$O" "$W/text.pcap" "$R" "$W/text.pcap" "$O"
head -c 20 "$F/tcp4_contig.pcap" >"$W/short-hdr.pcap"
expect_usage "truncated file header" "$O" "$W/short-hdr.pcap" "$R" "$W/short-hdr.pcap" "$O"
head -c 5000 "$F/tcp4_contig.pcap" >"$W/cut.pcap"
expect_usage "truncated in a record names the file" "$O" "$W/cut.pcap" "$R" "$W/cut.pcap" "$O"
# The same bytes with linktype 101 (LINKTYPE_RAW, IP without Ethernet).
$PY - "$F/tcp4_contig.pcap" "$W/raw.pcap" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", d, 20, 101)
open(sys.argv[2], "wb").write(d)
EOF
expect_usage "non-Ethernet link type names the file" "$O" "not Ethernet" "$R" "$W/raw.pcap" "$O"
expect_usage "output directory missing" "$W/none/out.pcap" "$W/none/out.pcap" \
	"$R" "$F/tcp4_contig.pcap" "$W/none/out.pcap"
# A failed run leaves an existing OUT as it was.
echo keep >"$O"
"$R" "$W/cut.pcap" "$O" 2>/dev/null
check "a failed run leaves an existing OUT untouched" "$([ "$(cat "$O")" = keep ]; echo $?)"
rm -f "$O"
# VXLAN ports change nothing for traffic that is not to them.
"$R" --udp "$F/tcp4_contig.pcap" "$W/plain-t.pcap" &&
	"$R" --udp -x 4789 -x 8472 "$F/tcp4_contig.pcap" "$W/vx-t.pcap" &&
	"$R" --udp "$F/udp4_equal.pcap" "$W/plain-u.pcap" &&
	"$R" --udp -x 4789 -x 8472 "$F/udp4_equal.pcap" "$W/vx-u.pcap" &&
	$X compare "$W/plain-t.pcap" "$W/vx-t.pcap" &&
	$X compare "$W/plain-u.pcap" "$W/vx-u.pcap"
check "--vxlan-port leaves TCP and UDP to other ports as they were" $?

# --- good runs -----------------------------------------------------------------
count() { $X count "$1"; }
"$R" --json "$F/tcp4_contig.pcap" "$O" >"$W/json"
check "20 contiguous segments: exit 0" $?
check "  one packet of 29014 bytes (xrxpcap)" "$([ "$(count "$O")" = "1 29014" ]; echo $?)"
n=$(tshark -r "$O" -T fields -e frame.len -e tcp.len 2>/dev/null)
check "  tshark reads it: frame 29014, TCP payload 28960" "$([ "$n" = "$(printf '29014\t28960')" ]; echo $?)"
$PY - "$W/json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
e = j["engine"]
assert j["input"]["frames"] == 20, j["input"]
assert e["frames_in"] == 20 and e["pkts_out"] == 1 and e["segs_merged"] == 19, e
assert e["frames_released"] == 20 and "flush_cwr" in e, e
assert j["sink"]["pkts_out"] == 1, j["sink"]
EOF
check "  --json: valid JSON with the engine's counter names and values" $?
check "  OUT is readable by others, as a plain file would be" "$([ -r "$O" ] && [ "$(stat -c %a "$O")" != 600 ]; echo $?)"

"$R" --batch 1 "$F/tcp4_contig.pcap" "$W/b1.pcap"
check "--batch 1: nothing held across batches, 20 packets" "$([ "$(count "$W/b1.pcap" | cut -d' ' -f1)" = 20 ]; echo $?)"
"$R" --max-segs 4 "$F/tcp4_contig.pcap" "$W/s4.pcap"
check "--max-segs 4: 5 aggregates" "$([ "$(count "$W/s4.pcap" | cut -d' ' -f1)" = 5 ]; echo $?)"
"$R" "$F/tcp4_bad_csum.pcap" "$W/v.pcap"
"$R" --csum trust "$F/tcp4_bad_csum.pcap" "$W/t.pcap"
check "--csum verify: the bad segment alone (3 packets)" "$([ "$(count "$W/v.pcap" | cut -d' ' -f1)" = 3 ]; echo $?)"
check "--csum trust: it merges (1 packet)" "$([ "$(count "$W/t.pcap" | cut -d' ' -f1)" = 1 ]; echo $?)"
"$R" "$F/udp4_equal.pcap" "$W/u0.pcap"
"$R" --udp "$F/udp4_equal.pcap" "$W/u1.pcap"
check "UDP untouched without --udp (20 packets)" "$([ "$(count "$W/u0.pcap" | cut -d' ' -f1)" = 20 ]; echo $?)"
check "--udp: one UDP aggregate" "$([ "$(count "$W/u1.pcap" | cut -d' ' -f1)" = 1 ]; echo $?)"
# The kernel cannot show this cap over veth: 64 frames fill a NAPI budget,
# and at HZ < 1000 a full-budget poll flushes everything GRO holds.
"$R" --udp --batch 128 "$F/udp4_cap66.pcap" "$W/u66.pcap"
sizes=$($X summary "$W/u66.pcap" | awk '{ print $NF }' | tr '\n' ' ')
check "--udp: 66 datagrams in one batch -> 64 + 2 ($sizes)" "$([ "$sizes" = "12800 400 " ]; echo $?)"
for m in max-head full; do
	"$R" --copy $m "$F/tcp_interleaved.pcap" "$W/c-$m.pcap"
	"$R" --copy header "$F/tcp_interleaved.pcap" "$W/c-header.pcap"
	$X compare "$W/c-header.pcap" "$W/c-$m.pcap" >/dev/null
	check "--copy $m delivers what --copy header does" $?
done
$X check-payload "$F/tcp_interleaved.pcap" "$W/c-header.pcap"
check "interleaved flows: every payload byte exactly once" $?
"$R" --json --flows 16 "$F/many_flows.pcap" "$W/mf.pcap" >"$W/mf.json"
$PY -c 'import json,sys; e=json.load(open(sys.argv[1]))["engine"]; sys.exit(not e["flush_table_full"])' "$W/mf.json"
check "--flows 16 with 200 flows: table-full flushes counted" $?
$X check-payload "$F/many_flows.pcap" "$W/mf.pcap"
check "  and every payload byte still delivered exactly once" $?
# The flow hash key only places flows in buckets: two keys, with and
# without metadata, deliver the same packets.
K1=000102030405060708090a0b0c0d0e0f K2=f0e0d0c0b0a090807060504030201000
"$R" --hash-key $K1 "$F/many_flows.pcap" "$W/k1.pcap" &&
	"$R" --hash-key $K2 --meta "$F/many_flows.pcap" "$W/k2.pcap" &&
	"$R" --meta "$F/many_flows.pcap" "$W/k3.pcap" &&
	$X compare "$W/k1.pcap" "$W/k2.pcap" >/dev/null &&
	$X compare "$W/k1.pcap" "$W/k3.pcap" >/dev/null
check "--hash-key: 200 flows delivered alike under two keys and a random one" $?
tshark -r "$F/tcp4_contig.pcap" -F pcapng -w "$W/in.pcapng" 2>/dev/null
"$R" "$W/in.pcapng" "$W/ng.pcap"
check "pcapng input is read" "$([ "$(count "$W/ng.pcap")" = "1 29014" ]; echo $?)"

# --- BIG TCP -------------------------------------------------------------------
for v in 4 6; do
	"$R" --batch 512 --max-size 524280 "$F/big_tcp$v.pcap" "$W/big$v.pcap"
	check "BIG TCP IPv$v: exit 0" $?
	sizes=$($X summary "$W/big$v.pcap" | awk '{ print $(NF-4) }' | tr '\n' ' ')
	check "  362 + 8 segments: payloads 524176 and 11584 ($sizes)" \
		"$([ "$sizes" = "524176 11584 " ]; echo $?)"
	$X check-payload "$F/big_tcp$v.pcap" "$W/big$v.pcap"
	check "  the 512 KiB aggregate is whole, every byte in place" $?
done
# The Linux 6.x form: the same aggregates with the 8-byte hop-by-hop
# jumbo option after the IPv6 header; IPv4 and 64 KiB ones unchanged.
"$R" --batch 512 --max-size 524280 --ipv6-jumbo hbh "$F/big_tcp6.pcap" "$W/big6h.pcap" &&
	"$R" --batch 512 --max-size 524280 --ipv6-jumbo hbh "$F/big_tcp4.pcap" "$W/big4h.pcap" &&
	"$R" --ipv6-jumbo hbh "$F/big_tcp6.pcap" "$W/big6h64.pcap" &&
	"$R" "$F/big_tcp6.pcap" "$W/big6z64.pcap"
check "--ipv6-jumbo hbh: exit 0" $?
$PY - "$TOP/tests/tools" "$W" <<'EOF2'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w = sys.argv[2]
zero = xrxpcap.read_pcap(w + "/big6.pcap")
hbh = xrxpcap.read_pcap(w + "/big6h.pcap")
assert len(zero) == len(hbh) == 2, (len(zero), len(hbh))
z, h = zero[0][0], hbh[0][0]
# Ethernet 14 + IPv6 40: next header 0, payload_len 0, then the option
assert len(h) == len(z) + 8 and h[14 + 4:14 + 6] == b"\0\0", len(h)
assert h[14 + 6] == 0 and z[14 + 6] == 6, (h[20], z[20])
opt = h[54:62]
assert opt[:4] == bytes([6, 0, 0xc2, 4]), opt.hex()
assert int.from_bytes(opt[4:], "big") == 524176 + 20 + 8, opt.hex()
assert h[:20] == z[:20] and h[21:54] == z[21:54] and h[62:] == z[54:]
assert hbh[1][0] == zero[1][0]      # 8 segments: below 64 KiB, as it was
assert xrxpcap.read_pcap(w + "/big4h.pcap") == xrxpcap.read_pcap(w + "/big4.pcap")
assert xrxpcap.read_pcap(w + "/big6h64.pcap") == xrxpcap.read_pcap(w + "/big6z64.pcap")
EOF2
check "  IPv6 512 KiB aggregate: option 06 00 c2 04, length 524204; the rest byte for byte the zero form" $?
$X check-payload "$F/big_tcp6.pcap" "$W/big6h.pcap"
check "  every payload byte in place (xrxpcap reads the jumbo length)" $?
# Debian 12's libpcap 1.10 and Wireshark 4.0 refuse records above 262144
# bytes; written with that snaplen the aggregate is kept truncated with
# its original length, as a live capture of BIG TCP records it.
"$R" --snaplen 262144 --batch 512 --max-size 524280 "$F/big_tcp4.pcap" "$W/big4s.pcap"
n=$(tshark -r "$W/big4s.pcap" -T fields -e frame.len -e frame.cap_len 2>/dev/null | head -1)
check "tshark reads the 512 KiB aggregate (length 524230, 262144 kept)" \
	"$([ "$n" = "$(printf '524230\t262144')" ]; echo $?)"
tcpdump -nr "$W/big4s.pcap" >"$W/td.out" 2>&1
check "tcpdump reads the file with the 512 KiB aggregate (2 records)" \
	"$([ $? -eq 0 ] && [ "$(grep -c . "$W/td.out")" -ge 3 ]; echo $?)"
if tcpdump -nr "$W/big4.pcap" >/dev/null 2>&1; then
	diag "this tcpdump reads whole 512 KiB records"
else
	diag "this tcpdump/libpcap refuses whole 512 KiB records (use --snaplen 262144 for it)"
fi
done_testing
