#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A step from a trickle to full speed, while the worker naps: does the
# nap ever leave more frames in flight than the rings hold?
#
# xrxd with the pcap sink (the longest nap: a file's) first sees a
# trickle (BENCH_TRICKLE_PPS for BENCH_TRICKLE_S seconds), so its naps
# grow to their cap, then the sender steps to full speed for
# BENCH_FRAMES frames. What counts is what the socket says it lost:
# xsk_rx_dropped (the RX ring was full when the kernel had a frame for
# it) and xsk_rx_ring_full / fill ring empty (the fill ring ran dry),
# with nap_max_us, the longest nap the worker took.
#
# Rows, rounds interleaved, the same traffic:
#   nap      defaults: the file's nap, bounded by what the rings hold at
#            the link's line rate (user/lib/afxdp/nap.h)
#   nonap    coalesce = off: the worker waits in poll() at once, never
#            naps: the baseline that cannot lose frames to a nap
# A drop is also what a busy machine makes of a worker that cannot run
# (a CPU hog, another benchmark): read the nonap row of the same round
# before blaming the nap. This is a benchmark, never a test: the
# policy itself is tests/unit/test_nap.c's.
#
# Writes $BENCH_OUT/ratestep.json: {"config", "rows": [{"name",
# "rounds": [{"xsk_rx_dropped", "fill_empty", "nap_max_us", "frames",
# "veth_dropped"}], "xsk_rx_dropped_total", ...}]}.
#   BENCH_ROUNDS=N        rounds (default 3)
#   BENCH_FRAMES=N        frames at full speed per run (default 400000)
#   BENCH_TRICKLE_PPS=N   the trickle's rate (default 2000)
#   BENCH_TRICKLE_S=N     its length in seconds (default 2)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
ROUNDS=${BENCH_ROUNDS:-3}
FRAMES=${BENCH_FRAMES:-400000}
TPPS=${BENCH_TRICKLE_PPS:-2000}
TSECS=${BENCH_TRICKLE_S:-2}
PORT=5001
FOREIGN_MAC=00:00:5e:00:53:01	# RFC 7042 documentation unicast
SEND=$BUILD/xrx-send
XRXD=$BUILD/xrxd
ROWS="nap nonap"
mkdir -p "$BENCH_OUT"

usage_err() { echo "bench_ratestep: $*" >&2; exit 2; }
for v in ROUNDS FRAMES TPPS TSECS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage_err "$v=${!v}: a whole number >= 1"
done
if [ "$(id -u)" != 0 ] || [ ! -x "$SEND" ] || [ ! -x "$XRXD" ] || [ ! -x "$BUILD/xrxctl" ]; then
	echo "bench_ratestep: needs root, $SEND, $XRXD and $BUILD/xrxctl (make)" >&2
	exit 1
fi
if ! mountpoint -q /sys/fs/bpf; then
	echo "bench_ratestep: bpffs not mounted at /sys/fs/bpf (scripts/bpffs.sh mounts it)" >&2
	exit 1
fi
OUT=$(mktemp -d)
at_exit rm -rf "$OUT"
CAP=$(mktemp -d /dev/shm/xrx-ratestep.XXXXXX)
at_exit rm -rf "$CAP"
testbed_up || exit 1
at_exit rm -rf "/sys/fs/bpf/xrx/$IF_DUT"
in_src ethtool -K $IF_SRC tx off >/dev/null
in_src "$SEND" -i $IF_SRC --dmac $FOREIGN_MAC --dport $PORT --flows 16 --segs 16 \
	--mss 1448 --trains 16 -w "$OUT/trains.pcap" >/dev/null || exit 1

base="interface = $IF_DUT
accelerate = tcp/$PORT
sink = pcap:$CAP/cap.pcap,snaplen=128
csum = trust"
echo "$base" >"$OUT/nap.conf"
printf '%s\ncoalesce = off\n' "$base" >"$OUT/nonap.conf"

veth_tx_dropped() {
	in_src ip -s -j link show $IF_SRC |
		$PY -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["dropped"])'
}

stats() {
	in_dut "$BUILD/xrxctl" --state-dir "$OUT/state" stats $IF_DUT --json 2>/dev/null
}

# Every frame that reached the DUT taken and accounted for (@1 frames).
drained() {
	stats | $PY -c 'import json, sys
u = json.loads(sys.stdin.readline())["user"]
l = u["live"]
sys.exit(0 if u["unaccounted"] == 0 and
         l["rx_frames"] + l["xsk_rx_dropped"] + l["xsk_rx_ring_full"] >= int(sys.argv[1]) else 1)' "$1"
}

updated() {
	stats | $PY -c 'import json, sys; print(json.loads(sys.stdin.readline())["user"]["updated_ns"])' 2>/dev/null
}

# run ROW ROUND: one trickle-then-step run; ROW.ROUND.json
run() {
	local t=$1 r=$2 xp sp vd0 vd u0 u i trickle
	rm -rf "$OUT/state" "$CAP"/*
	nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$OUT/state" \
		-c "$OUT/$t.conf" 2>"$OUT/$t.err" &
	xp=$!
	at_exit kill -KILL $xp
	if ! wait_for 20 grep -q ' ready: ' "$OUT/$t.err"; then
		echo "bench_ratestep: xrxd ($t) did not start:" >&2
		cat "$OUT/$t.err" >&2
		return 1
	fi
	vd0=$(veth_tx_dropped)
	trickle=$((TPPS * TSECS))
	in_src "$SEND" -i $IF_SRC --pcap "$OUT/trains.pcap" --repeat 1000000000 \
		-c $trickle -r $TPPS 2>/dev/null || return 1
	in_src "$SEND" -i $IF_SRC --pcap "$OUT/trains.pcap" --repeat 1000000000 \
		-c $FRAMES -b 256 2>/dev/null &
	sp=$!
	at_exit kill $sp
	wait $sp
	vd=$(($(veth_tx_dropped) - vd0))
	wait_for 20 drained $((trickle + FRAMES - vd)) ||
		echo "bench_ratestep: $t round $r: not every frame accounted for within 20 s" >&2
	# The stats file after the drain (xrxd rewrites it about once a second).
	u0=$(updated)
	for ((i = 0; i < 30; i++)); do
		u=$(updated)
		[ "$u" != "$u0" ] && break
		sleep 0.1
	done
	stats >"$OUT/$t.$r.stats"
	kill -INT $xp
	wait $xp
	$PY - "$OUT/$t.$r.stats" "$vd" "$((trickle + FRAMES))" >"$OUT/$t.$r.json" <<'PY'
import json, sys
u = json.loads(open(sys.argv[1]).readline())["user"]["live"]
print(json.dumps({"xsk_rx_dropped": u["xsk_rx_dropped"],
                  "fill_empty": u["xsk_rx_ring_full"],
                  "nap_max_us": u.get("nap_max_us"),
                  "naps": u.get("naps"), "rx_frames": u["rx_frames"],
                  "frames": int(sys.argv[3]), "veth_dropped": int(sys.argv[2])}))
PY
}

for ((r = 1; r <= ROUNDS; r++)); do
	for t in $ROWS; do
		run $t $r || exit 1
	done
done

$PY - "$OUT" "$BENCH_OUT/ratestep.json" "$ROUNDS" "$FRAMES" "$TPPS" "$TSECS" $ROWS <<'PY'
import json, sys
out, jpath, rounds, frames, tpps, tsecs = sys.argv[1:7]
names = sys.argv[7:]
rounds = int(rounds)
rows = []
for n in names:
    rr = [json.load(open(f"{out}/{n}.{r}.json")) for r in range(1, rounds + 1)]
    rows.append({"name": n, "rounds": rr,
                 "xsk_rx_dropped_total": sum(x["xsk_rx_dropped"] for x in rr),
                 "fill_empty_total": sum(x["fill_empty"] for x in rr),
                 "veth_dropped_total": sum(x["veth_dropped"] for x in rr),
                 "nap_max_us": max((x["nap_max_us"] or 0) for x in rr)})
d = {"bench": "ratestep",
     "what": "a trickle then full speed into xrxd's pcap sink: frames the socket lost while the worker napped",
     "config": {"rounds": rounds, "frames_full_speed": int(frames),
                "trickle_pps": int(tpps), "trickle_s": int(tsecs),
                "loadavg_at_end": open("/proc/loadavg").read().split()[:3],
                "rows": {"nap": "defaults (pcap sink: a file's nap, bounded by the rings at line rate)",
                         "nonap": "coalesce = off (never naps)"}},
     "rows": rows}
json.dump(d, open(jpath, "w"), indent=1)
print(f"{'row':18} {'xsk_rx_dropped':>15} {'fill empty':>11} {'veth dropped':>13} {'nap max us':>11}")
for x in rows:
    print(f"{x['name']:18} {x['xsk_rx_dropped_total']:15d} {x['fill_empty_total']:11d} "
          f"{x['veth_dropped_total']:13d} {x['nap_max_us']:11d}")
print(f"bench_ratestep: JSON in {jpath}")
PY
