#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What a lossless capture costs (docs/lossless.md), offline: for the real
# captures of tests/fixtures and a bulk TCP capture made here (16 flows,
# 1448-byte segments with the TCP timestamp option, incrementing IP IDs,
# real checksums, 1 us apart, in trains of 16 segments a flow), the file sizes of the per-frame capture,
# the plain aggregated one (xrx-replay: pcap, and pcapng as --explain
# writes it) and the lossless one (--lossless), and xrx-replay's CPU
# seconds (user + system) per GB of input, plain against lossless, median
# of BENCH_ROUNDS runs each, interleaved. Every lossless file is split
# again and must give back the input's frames (tests/tools/frame_cmp.py).
# The live CPU per GB is bench_capture's xrx_lossless row.
#
# Writes $BENCH_OUT/lossless.json: {"rows": [{"input", "frames",
# "per_frame_bytes", "plain_pcap_bytes", "plain_pcapng_bytes",
# "lossless_bytes", "lossless_vs_plain_pcap", "lossless_vs_plain_pcapng",
# "lossless_vs_per_frame", "record_bytes_per_segment",
# "cpu_s_per_gb": {"plain", "lossless"}, "cpu_ratio", ...}], "targets"}.
#   BENCH_ROUNDS=N       runs of each (default 5)
#   BENCH_BULK_SEGS=N    segments per flow of the bulk capture (default 4000)
#   BENCH_REPEAT=N       xrx-replay runs per CPU measure (default 10)
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
ROUNDS=${BENCH_ROUNDS:-5}
SEGS=${BENCH_BULK_SEGS:-4000}
PY=/usr/bin/python3
R=$BUILD/xrx-replay
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "bench_lossless: BENCH_ROUNDS=$ROUNDS: a count >= 1" >&2; exit 2; }
[[ $SEGS =~ ^[1-9][0-9]*$ ]] || { echo "bench_lossless: BENCH_BULK_SEGS=$SEGS: a count >= 1" >&2; exit 2; }
[ -x "$R" ] || { echo "bench_lossless: $R not built (make)" >&2; exit 1; }
mkdir -p "$BENCH_OUT"
W=$(mktemp -d /tmp/xrx-bench-lossless.XXXXXX)
trap 'rm -rf "$W"' EXIT

$PY - "$W/bulk-tcp4.pcap" "$SEGS" <<'PYEOF'
import struct, sys
path, segs = sys.argv[1], int(sys.argv[2])
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
out = open(path, "wb")
out.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
mss, flows, t = 1448, 16, 1700000000 * 10**9
payload = bytes(range(256)) * 6
seq = [1000000 * (f + 1) for f in range(flows)]
ipid = [100 * f for f in range(flows)]
# trains of 16 segments a flow, flows one after the other, as
# bench_capture's xrx-send traffic
order = [(t * 16 + j, f) for t in range((segs + 15) // 16) for f in range(flows)
         for j in range(16) if t * 16 + j < segs]
for i, f in order:
    if True:
        src, dst = bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2])
        opts = struct.pack("!BBBBII", 1, 1, 8, 10, 5000 + i // 64, 7000)
        tcp = struct.pack("!HHIIBBHHH", 40000 + f, 5201, seq[f], 1, (32 // 4) << 4,
                          0x10 | (0x08 if i % 64 == 63 else 0), 502, 0, 0) + opts
        data = payload[:mss]
        ph = src + dst + struct.pack("!BBH", 0, 6, len(tcp) + mss)
        c = csum(ph + tcp + data)
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + mss, ipid[f] & 0xffff,
                         0x4000, 64, 6, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        eth = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]) + b"\x08\x00"
        fr = eth + ip + tcp + data
        out.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(fr), len(fr)) + fr)
        t += 1000
        seq[f] += mss
        ipid[f] += 1
PYEOF
[ $? = 0 ] || exit 1

# user+sys seconds of the command run REPEAT times (time counts the
# children it waited for)
REPEAT=${BENCH_REPEAT:-10}
cpu_of() {
	local s
	s=$( { /usr/bin/time -f '%U %S' sh -c 'i=0; while [ $i -lt '"$REPEAT"' ]; do "$@" >/dev/null 2>&1 || exit 1; i=$((i + 1)); done' sh "$@"; } 2>&1 | tail -1)
	echo "$s" | awk -v n="$REPEAT" '{ print ($1 + $2) / n }'
}

: >"$W/rows"
for in in tests/fixtures/*.pcap "$W/bulk-tcp4.pcap"; do
	b=$W/$(basename "$in" .pcap)
	"$R" --json "$in" "$b.plain.pcap" >"$b.json" || exit 1
	"$R" --explain "$in" "$b.plain.pcapng" >/dev/null || exit 1
	"$R" --lossless "$in" "$b.ll.pcapng" >/dev/null || exit 1
	"$R" --split "$b.ll.pcapng" "$b.split.pcap" || exit 1
	$PY tests/tools/frame_cmp.py "$in" "$b.split.pcap" >"$b.cmp" || {
		echo "bench_lossless: $in: the split differs: $(cat "$b.cmp")" >&2
		exit 1
	}
	cp=() cl=()
	for ((r = 0; r < ROUNDS; r++)); do
		cp+=("$(cpu_of "$R" "$in" "$b.x.pcap")")
		cl+=("$(cpu_of "$R" --lossless "$in" "$b.x.pcapng")")
	done
	echo "$in $(stat -c %s "$in" "$b.plain.pcap" "$b.plain.pcapng" "$b.ll.pcapng" | paste -sd' ') $b.json ${cp[*]} / ${cl[*]}" >>"$W/rows"
done

$PY - "$W/rows" "$BENCH_OUT/lossless.json" "$ROUNDS" <<'PYEOF'
import json, os, statistics, sys
rows_in, jpath, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = []

def opt_bytes(path):
    """Bytes of the segment record options (code 2989) of a pcapng file
    written in this host's byte order."""
    import struct
    d = open(path, "rb").read()
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
                # the record (first byte: its version), not the time
                # option every EPB carries (docs/capture.md)
                if code == 2989 and ol > 4 and d[o + 8] == 1:
                    n += 4 + ((ol + 3) & ~3)
                o += 4 + ((ol + 3) & ~3)
        off += bl
    return n

for line in open(rows_in):
    p = line.split()
    inp, pf, pp, png, ll, js = p[0], int(p[1]), int(p[2]), int(p[3]), int(p[4]), p[5]
    k = p.index("/")
    cp, cl = [float(x) for x in p[6:k]], [float(x) for x in p[k + 1:]]
    e = json.load(open(js))
    gb = e["input"]["bytes"] / 1e9
    segs = e["engine"]["frames_in"]
    mp, ml = statistics.median(cp), statistics.median(cl)
    rows.append({
        "input": "bulk TCP/IPv4 (made by bench_lossless.sh)" if "bulk-tcp4" in inp else inp,
        "frames": e["input"]["frames"], "packets_out": e["engine"]["pkts_out"],
        "aggregates": e["engine"]["aggs_out"],
        "per_frame_bytes": pf, "plain_pcap_bytes": pp, "plain_pcapng_bytes": png,
        "lossless_bytes": ll,
        "lossless_vs_plain_pcap": round(ll / pp, 4),
        "lossless_vs_plain_pcapng": round(ll / png, 4),
        "lossless_vs_per_frame": round(ll / pf, 4),
        # the custom options' bytes, per segment of an aggregate
        "record_bytes_per_segment": round(opt_bytes(js.replace(".json", ".ll.pcapng")) /
                                          max(1, e["engine"]["segs_merged"] + e["engine"]["aggs_out"]), 2),
        "cpu_s_per_gb": {"plain": round(mp / gb, 4), "lossless": round(ml / gb, 4)},
        "cpu_s_per_gb_rounds": {"plain": [round(x / gb, 4) for x in cp],
                                "lossless": [round(x / gb, 4) for x in cl]},
        "cpu_ratio": round(ml / mp, 4) if mp else None,
        "split_identical": True})
bulk = [r for r in rows if r["input"].startswith("bulk")][0]
targets = {
    "bulk_file_vs_plain": {"target": "<= 1.15", "measured": bulk["lossless_vs_plain_pcap"],
                           "met": bulk["lossless_vs_plain_pcap"] <= 1.15},
    "bulk_replay_cpu_vs_plain": {"target": "<= 1.10", "measured": bulk["cpu_ratio"],
                                 "met": bulk["cpu_ratio"] is not None and bulk["cpu_ratio"] <= 1.10},
}
json.dump({"bench": "lossless", "rounds": rounds,
           "config": {"tool": "xrx-replay, default engine options (csum verify, copy header, batch 64)",
                      "cpu": "user + system seconds of the xrx-replay process (/usr/bin/time), per GB of input frame bytes (10^9)",
                      "plain_pcapng": "xrx-replay --explain: the same packets as EPBs with a comment each"},
           "rows": rows, "targets": targets}, open(jpath, "w"), indent=1)
print("%-40s %8s %11s %11s %11s %11s %7s %7s %9s %8s" % ("input", "frames", "per_frame", "plain", "plain_ng", "lossless", "ll/pl", "ll/pf", "rec/seg", "cpu"))
for r in rows:
    print("%-40s %8d %11d %11d %11d %11d %7.4f %7.4f %9.2f %8.4f" % (
        r["input"][-40:], r["frames"], r["per_frame_bytes"], r["plain_pcap_bytes"], r["plain_pcapng_bytes"],
        r["lossless_bytes"], r["lossless_vs_plain_pcap"], r["lossless_vs_per_frame"],
        r["record_bytes_per_segment"], r["cpu_ratio"] or 0))
for k, v in targets.items():
    print("target %s %s: %s" % (k, v["target"], "met" if v["met"] else "MISSED"))
PYEOF
