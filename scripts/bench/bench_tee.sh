#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What a tee costs: one xrxd on a veth with sink = tun:NAME, its config
# switched by SIGHUP between no tee and tee = pcap:PATH on a tmpfs (the
# same process, the same sockets and engine settings), a TCP stream of
# BENCH_BYTES (tests/helpers/tcp_hash.c) through each in turn, rounds
# interleaved so that a neighbour's load hits both alike.
#   per run: the receiver's Gbit/s, and xrxd's CPU time (user + system,
#   all threads: the worker does the TUN write and the tee's pcap write;
#   the main thread wakes once a second) per frame received
# Prints a table and writes $BENCH_OUT/bench_tee.json:
#   {"rows": {"tun": {...}, "tun_tee": {...}},
#    "cpu_ns_per_frame_ratio": median of the rounds' tee/no-tee ratios,
#    "gbps_ratio": the same for Gbit/s, ...}
#   BENCH_BYTES=N    bytes per stream (default 256 MiB)
#   BENCH_ROUNDS=N   rounds (default 6)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/integration/xrxd_lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
BYTES=${BENCH_BYTES:-$((256 << 20))}
ROUNDS=${BENCH_ROUNDS:-6}
PORT=5201
TUN=xt$$
mkdir -p "$BENCH_OUT"
if [ "$(id -u)" != 0 ] || [ ! -x "$BUILD/xrxd" ] || [ ! -x "$BUILD/tests/tcp_hash" ]; then
	echo "bench_tee: needs root, $BUILD/xrxd and $BUILD/tests/tcp_hash (make)" >&2
	exit 1
fi
mountpoint -q /sys/fs/bpf || { echo "bench_tee: bpffs not mounted (scripts/bpffs.sh)" >&2; exit 1; }
testbed_up || exit 1
xrxd_work bench-tee
dut_tun $TUN || exit 1
mkdir "$WORK/shm"
mount -t tmpfs -o size=2g xrx-bench-tee-$$ "$WORK/shm" || exit 1
at_exit umount "$WORK/shm"

# conf [TEE]
conf() {
	printf 'interface = %s\naccelerate = tcp/%s\nsink = tun:%s\n%s\n' \
		$IF_DUT $PORT $TUN "${1:+tee = $1}" >"$WORK/xrx.conf"
}
conf
xrxd_up || exit 1
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$pid/stat; }

# run NAME R: switch to NAME's config, one stream; "gbps ticks frames".
run() {
	local n
	if [ $1 = tun_tee ]; then conf "pcap:$WORK/shm/cap.pcap"; else conf; fi
	n=$(grep -c reloaded "$WORK/xrxd.err")
	kill -HUP $pid
	wait_for 10 eval '[ "$(grep -c reloaded "$WORK/xrxd.err")" -gt $n ]' || return 1
	stats_settled "$WORK/a.json" || return 1
	local c0 f0 c1 f1
	c0=$(cpu_ticks)
	f0=$(jpath "$WORK/a.json" user.engine.frames_in)
	tcp_stream "$WORK/s" $IP4_DUT $PORT $BYTES >/dev/null || return 1
	stats_settled "$WORK/b.json" || return 1
	c1=$(cpu_ticks)
	f1=$(jpath "$WORK/b.json" user.engine.frames_in)
	[ $1 = tun ] || [ "$(jpath "$WORK/b.json" user.tee.errors)" = 0 ] || return 1
	echo "$1 $2 $(tcp_field gbps "$WORK/s.recv" | tail -1) $((c1 - c0)) $((f1 - f0))" >>"$WORK/runs"
	rm -f "$WORK/shm/cap.pcap"
}

: >"$WORK/runs"
for ((r = 1; r <= ROUNDS; r++)); do
	run tun $r && run tun_tee $r || { echo "bench_tee: round $r failed" >&2; exit 1; }
done
kill -TERM $pid
wait $pid

$PY - "$WORK/runs" "$BENCH_OUT/bench_tee.json" "$(getconf CLK_TCK)" "$BYTES" "$ROUNDS" <<'PY'
import json, statistics, sys
runs, jpath, hz, nbytes, rounds = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rows = {"tun": [], "tun_tee": []}
for line in open(runs):
    name, r, gbps, ticks, frames = line.split()
    rows[name].append({"round": int(r), "gbps": float(gbps),
                       "cpu_ns_per_frame": int(ticks) / hz * 1e9 / max(int(frames), 1),
                       "frames": int(frames)})

def med(name, key):
    return statistics.median(x[key] for x in rows[name])

def ratios(key):
    return [t[key] / n[key] if n[key] else 0 for n, t in zip(rows["tun"], rows["tun_tee"])]

res = {"bench": "tee", "rounds": rounds,
       "config": {"link": "veth, one queue", "xrx": "xrxd, sink tun:DEV, default options",
                  "tee": "pcap:PATH on a tmpfs, snaplen 262144, switched by SIGHUP in the same xrxd",
                  "traffic": "tcp_hash TCP/IPv4, one stream of %d bytes per run, %d rounds interleaved" % (nbytes, rounds),
                  "cpu": "xrxd's user + system time (all threads; the 10 ms tick is the resolution)"},
       "rows": {n: {"gbps_median": med(n, "gbps"),
                    "cpu_ns_per_frame_median": med(n, "cpu_ns_per_frame"),
                    "runs": rows[n]} for n in rows},
       "cpu_ns_per_frame_ratios": ratios("cpu_ns_per_frame"),
       "gbps_ratios": ratios("gbps")}
res["cpu_ns_per_frame_ratio"] = statistics.median(res["cpu_ns_per_frame_ratios"])
res["gbps_ratio"] = statistics.median(res["gbps_ratios"])
json.dump(res, open(jpath, "w"), indent=1)
print("# veth, xrxd sink tun:DEV with and without tee = pcap on a tmpfs, one TCP stream of %d MiB per run, %d rounds interleaved" % (nbytes >> 20, rounds))
print("%-8s %10s %-40s %14s %s" % ("path", "Gbit/s", "per round", "ns CPU/frame", "per round"))
for n in rows:
    print("%-8s %10.3f %-40s %14.0f %s" % (n, med(n, "gbps"), " ".join("%.2f" % x["gbps"] for x in rows[n]),
                                          med(n, "cpu_ns_per_frame"),
                                          " ".join("%.0f" % x["cpu_ns_per_frame"] for x in rows[n])))
print("tee/no tee, medians of the rounds' ratios: CPU per frame %.2fx (rounds %s), Gbit/s %.2fx (rounds %s)" % (
    res["cpu_ns_per_frame_ratio"], " ".join("%.2f" % x for x in res["cpu_ns_per_frame_ratios"]),
    res["gbps_ratio"], " ".join("%.2f" % x for x in res["gbps_ratios"])))
PY
