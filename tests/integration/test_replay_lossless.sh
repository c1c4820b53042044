#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Lossless capture (docs/lossless.md): xrx-replay --lossless writes every
# aggregate as one pcapng block with a record of its segments, and
# xrx-replay --split rebuilds the frame stream from it. Over every capture
# the suite has, real and crafted -- scripts/gen-fixtures.py's trains
# (each GRO rule, frames the kernel would not merge among them), the VXLAN
# trains, the valid inputs of the fuzz corpus, the real captures of
# tests/fixtures -- the rebuilt frames are the input's, flow by flow in
# the input's order: every byte, every length and every timestamp
# (tests/tools/frame_cmp.py names the first frame and byte that differ).
# tshark reads the lossless files without a warning and sees the
# aggregates, and the record costs what docs/lossless.md says. A damaged
# record is refused, naming the block. No namespaces needed.
. "$(dirname "$0")/../lib.sh"

replay_need
$PY -c 'import scapy' 2>/dev/null ||
	skip_all "python3-scapy missing (scripts/deps.sh installs it)"
command -v tshark >/dev/null || skip_all "tshark missing (scripts/deps.sh installs it)"
W=$(mktemp -d /tmp/xrx-lossless.XXXXXX)
at_exit rm -rf "$W"
CMP="$PY $TOP/tests/tools/frame_cmp.py"

mkdir -p "$W/in"
$PY "$TOP/scripts/gen-fixtures.py" "$W/in" >/dev/null &&
	$PY "$TOP/scripts/gen-fixtures.py" "$W/in" many_flows >/dev/null &&
	$PY "$TOP/tests/tools/vxlan_trains.py" "$W/vx" >/dev/null
check "fixtures generated" $?
for f in "$W"/vx/*.pcap; do cp "$f" "$W/in/vxlan-$(basename "$f")"; done
cp "$TOP"/tests/fixtures/*.pcap "$W/in/"
# The fuzz corpus of xrx-replay: byte 0 picks options, the rest is the
# capture; those xrx-replay takes as they are count.
for f in "$TOP"/tests/fuzz/fuzz_replay/seed-*; do
	tail -c +2 "$f" >"$W/in/fuzz-$(basename "$f").pcap"
	"$R" "$W/in/fuzz-$(basename "$f").pcap" "$W/x.pcap" >/dev/null 2>&1 ||
		rm "$W/in/fuzz-$(basename "$f").pcap"
done
n_in=$(ls "$W"/in/*.pcap | wc -l)
[ "$n_in" -gt 70 ]
check "$n_in captures to go through" $?

# Capture with ARGS, split, and compare the frames with the input's.
roundtrip() {
	local tag=$1 pairs=() f b fail=0
	shift
	mkdir -p "$W/$tag"
	for f in "$W"/in/*.pcap; do
		b=$W/$tag/$(basename "$f" .pcap)
		if ! "$R" "$@" --lossless "$f" "$b.pcapng" >/dev/null 2>"$b.err" ||
		   ! "$R" --split "$b.pcapng" "$b.split.pcap" 2>>"$b.err"; then
			diag "$tag: $(basename "$f"): $(head -1 "$b.err")"
			fail=1
			continue
		fi
		pairs+=("$f" "$b.split.pcap")
	done
	$CMP "${pairs[@]}" >"$W/$tag.cmp" || fail=1
	grep -v identical "$W/$tag.cmp" | head -4 | while read -r l; do diag "$l"; done
	return $fail
}

roundtrip default
check "every capture: split gives back every frame, byte for byte, with its time" $?
roundtrip meta --meta --udp --vxlan-port 4789
check "the same with the fast path, UDP GRO and VXLAN" $?
roundtrip batch1k --batch 1000 --max-size 524280 --max-segs 1000
check "the same with batches of 1000, BIG TCP sizes and 1000 segments" $?
roundtrip trust --csum trust --udp
check "the same with checksums trusted, not verified (the record carries them)" $?

# Snaplen: an aggregate cut short gives frames cut short, every byte there
# is the input's.
mkdir -p "$W/snap"
"$R" --lossless -S 200 "$W/in/tcp4_contig.pcap" "$W/snap/c.pcapng" >/dev/null &&
	"$R" --split "$W/snap/c.pcapng" "$W/snap/c.pcap" &&
	$CMP --prefix "$W/in/tcp4_contig.pcap" "$W/snap/c.pcap" >"$W/snap/cmp"
check "snaplen 200: the rebuilt frames are their first bytes" $?

# tshark: no warning, the aggregates as packets, the record skipped.
f=$W/default/iperf3-tcp4.pcapng
# tshark's own notice about running as root is no warning about the file
quiet_tshark() {
	tshark "$@" 2>&1 >/dev/null | grep -v 'Running as user "root"' >&2
	return "${PIPESTATUS[0]}"
}
tshark -r "$f" >"$W/ts.out" 2>/dev/null
quiet_tshark -r "$f" 2>"$W/ts.err"
rc=$?
bad=$(tshark -r "$f" -Y '_ws.malformed || _ws.expert.severity >= warning' 2>/dev/null | wc -l)
n=$(wc -l <"$W/ts.out")
"$R" --json "$TOP/tests/fixtures/iperf3-tcp4.pcap" "$W/plain.pcap" >"$W/plain.json"
pkts=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["engine"]["pkts_out"])' "$W/plain.json")
[ $rc = 0 ] && [ ! -s "$W/ts.err" ] && [ "$bad" = 0 ] && [ "$n" = "$pkts" ]
check "tshark reads the lossless iperf3 capture: $n packets (engine: $pkts), no message, nothing malformed" $?
[ -s "$W/ts.err" ] && diag "$(head -2 "$W/ts.err")"
fail=0
for t in "$W"/default/*.pcapng; do
	quiet_tshark -r "$t" 2>"$W/ts.err" && [ ! -s "$W/ts.err" ] ||
		{ diag "$(basename "$t"): $(head -1 "$W/ts.err")"; fail=1; }
done
check "tshark reads every lossless capture without a message" $fail

# The packets are those of a plain capture; each aggregate has a record.
$X compare "$W/plain.pcap" "$f" >/dev/null
check "the lossless capture holds the packets of the plain one" $?
aggs=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["engine"]["aggs_out"])' "$W/plain.json")
recs=$($PY - "$f" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
off = n = 0
while off < len(d):
    bt, bl = struct.unpack_from("<II", d, off)
    if bt == 6:
        cap = struct.unpack_from("<I", d, off + 20)[0]
        o = off + 28 + ((cap + 3) & ~3)
        while o < off + bl - 4:
            code, ol = struct.unpack_from("<HH", d, o)
            if code == 0:
                break
            # the record, not the time option beside it (first byte 0x54)
            if code == 2989 and struct.unpack_from("<I", d, o + 4)[0] == 32473 and d[o + 8] == 1:
                n += 1
            o += 4 + ((ol + 3) & ~3)
    off += bl
print(n)
PYEOF
)
[ "$recs" = "$aggs" ] && [ "$aggs" -gt 50 ]
check "one segment record (option 2989, PEN 32473) per aggregate: $recs of $aggs" $?

# What it costs on bulk TCP: the record against the aggregate's bytes.
ll=$(stat -c %s "$f")
pl=$(stat -c %s "$W/plain.pcap")
pf=$(stat -c %s "$TOP/tests/fixtures/iperf3-tcp4.pcap")
[ "$ll" -lt $((pl * 115 / 100)) ] && [ "$ll" -lt "$pf" ]
check "iperf3: lossless $ll bytes, plain aggregated $pl, per frame $pf: under 115% of plain" $?

# Damage: a record that does not fit its packet is refused, nothing
# written.
# the version byte of the first record: 0x7f
$PY - "$W/default/tcp4_contig.pcapng" "$W/bad.pcapng" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 0
while off < len(d):
    bt, bl = struct.unpack_from("<II", d, off)
    if bt == 6:
        cap = struct.unpack_from("<I", d, off + 20)[0]
        o = off + 28 + ((cap + 3) & ~3)
        code = struct.unpack_from("<H", d, o)[0]
        if code == 2989:
            d[o + 8] = 0x7f
            break
    off += bl
open(sys.argv[2], "wb").write(d)
PYEOF
"$R" --split "$W/bad.pcapng" "$W/bad.pcap" 2>"$W/bad.err"
rc=$?
[ $rc = 2 ] && grep -q 'block [0-9]*: its segment record' "$W/bad.err" && [ ! -e "$W/bad.pcap" ]
check "a damaged record: exit 2, the block named, no OUT" $?
# An interface per queue (a live capture of several queues): the same
# blocks behind a first IDB of 10^-6 s, each EPB on the second (10^-9 s),
# split as before, every time read in its own interface's resolution;
# an EPB on an interface the file does not describe is damage.
$PY - "$W/default/iperf3-tcp4.pcapng" "$W/two.pcapng" "$W/noif.pcapng" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
blocks, off = [], 0
while off < len(d):
    bt, bl = struct.unpack_from("<II", d, off)
    blocks.append(bytearray(d[off:off + bl]))
    off += bl
# IDB: linktype 1, snaplen 65535, if_tsresol 6, opt_endofopt
idb = struct.pack("<IIHHIHHB3xHHI", 1, 32, 1, 0, 65535, 9, 1, 6, 0, 0, 32)
out, bad, moved = [blocks[0], idb], [blocks[0], idb], False
for b in blocks[1:]:
    if struct.unpack_from("<I", b, 0)[0] == 6:
        struct.pack_into("<I", b, 8, 1)
        c = bytearray(b)
        if not moved:
            struct.pack_into("<I", c, 8, 2)
            moved = True
        bad.append(c)
    else:
        bad.append(b)
    out.append(b)
open(sys.argv[2], "wb").write(b"".join(out))
open(sys.argv[3], "wb").write(b"".join(bad))
PYEOF
"$R" --split "$W/two.pcapng" "$W/two.pcap" 2>"$W/two.err" &&
	cmp -s "$W/two.pcap" "$W/default/iperf3-tcp4.split.pcap"
r=$?
check "an IDB per queue: the split is the same, byte for byte ($(head -c 200 "$W/two.err"))" $r
"$R" --split "$W/noif.pcapng" "$W/noif.pcap" 2>"$W/noif.err"
rc=$?
[ $rc = 2 ] && grep -q 'block [0-9]* is damaged' "$W/noif.err" && [ ! -e "$W/noif.pcap" ]
check "an EPB of an interface not described: exit 2, the block named, no OUT" $?
"$R" --lossless --copy full "$W/in/tcp4_contig.pcap" "$W/x.pcapng" 2>"$W/err"
[ $? = 2 ] && grep -q 'copy header' "$W/err"
check "--lossless --copy full: exit 2, says why" $?

done_testing
