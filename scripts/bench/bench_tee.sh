#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What a tee costs: one xrxd on a veth with sink = tun:NAME, its config
# switched by SIGHUP between no tee and tee = pcap:PATH on a tmpfs (the
# same process, the same sockets and engine settings), a TCP stream of
# BENCH_BYTES (tests/helpers/tcp_hash.c) through each in turn, rounds
# interleaved so that a neighbour's load hits both alike.
#   per run: the receiver's Gbit/s; xrxd's CPU time (user + system,
#   all threads: the worker does the TUN write and the tee's pcap write;
#   the main thread wakes once a second) per frame received; and
#   cpu_s_per_gb, busy CPU seconds of the whole machine per 10^9 bytes
#   the receiver got (scripts/bench/cpu_lib.sh), with each CPU's share
#   and, the cross-check on a shared machine, the parties' figure: xrxd's
#   threads, tcp_hash's sender and receiver (their user + system time,
#   reaped by this shell), ksoftirqd and the veth's NAPI kthreads
# Prints a table and writes $BENCH_OUT/bench_tee.json:
#   {"rows": {"tun": {...}, "tun_tee": {...}} (each with cpu_s_per_gb
#    and parties_cpu_s_per_gb, the medians of its runs, and per run
#    per_cpu),
#    "cpu_ns_per_frame_ratio": median of the rounds' tee/no-tee ratios,
#    "cpu_per_gb_ratio": the same for cpu_s_per_gb,
#    "parties_cpu_per_gb_ratio": for parties_cpu_s_per_gb,
#    "gbps_ratio": for Gbit/s, ...}
#   BENCH_BYTES=N    bytes per stream (default 256 MiB)
#   BENCH_ROUNDS=N   rounds (default 6)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/integration/xrxd_lib.sh
. scripts/bench/cpu_lib.sh
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
CPU_DEVS="$IF_DUT|$IF_SRC"
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
# The user + system ticks of this shell's reaped children (cutime,
# cstime): tcp_stream's sender and receiver, gone before the last
# snapshot, are reaped by it (with its few helper commands).
child_ticks() { awk '{ print $16 + $17 }' /proc/$$/stat; }

# run NAME R: switch to NAME's config, one stream; "gbps ticks frames"
# in $WORK/runs, NAME.R.cpu (cpu_json) and NAME.R.ticks (tcp_hash's).
run() {
	local n
	if [ $1 = tun_tee ]; then conf "pcap:$WORK/shm/cap.pcap"; else conf; fi
	n=$(grep -c reloaded "$WORK/xrxd.err")
	kill -HUP $pid
	wait_for 10 eval '[ "$(grep -c reloaded "$WORK/xrxd.err")" -gt $n ]' || return 1
	stats_settled "$WORK/a.json" || return 1
	local c0 f0 c1 f1 k0 k1
	c0=$(cpu_ticks)
	f0=$(jpath "$WORK/a.json" user.engine.frames_in)
	cpu_snap "$WORK/c0" xrxd=$pid
	k0=$(child_ticks)
	tcp_stream "$WORK/s" $IP4_DUT $PORT $BYTES >/dev/null || return 1
	k1=$(child_ticks)
	cpu_snap "$WORK/c1" xrxd=$pid
	cpu_json "$WORK/c0" "$WORK/c1" $BYTES >"$WORK/$1.$2.cpu"
	echo $((k1 - k0)) >"$WORK/$1.$2.ticks"
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

$PY - "$WORK" "$BENCH_OUT/bench_tee.json" "$(getconf CLK_TCK)" "$BYTES" "$ROUNDS" <<'PY'
import json, statistics, sys
work, jpath, hz, nbytes, rounds = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rows = {"tun": [], "tun_tee": []}
for line in open(work + "/runs"):
    name, r, gbps, ticks, frames = line.split()
    # cpu_json's figures; tcp_hash's sender and receiver among the
    # parties (their threads were gone by the last snapshot).
    c = json.load(open("%s/%s.%s.cpu" % (work, name, r)))
    parties = dict(c["parties_cpu_s"],
                   tcp_hash=int(open("%s/%s.%s.ticks" % (work, name, r)).read()) / hz)
    gb = c["gb"]
    rows[name].append({"round": int(r), "gbps": float(gbps),
                       "cpu_ns_per_frame": int(ticks) / hz * 1e9 / max(int(frames), 1),
                       "frames": int(frames),
                       "cpu_s_per_gb": c["cpu_s_per_gb"],
                       "parties_cpu_s_per_gb": round(sum(parties.values()) / gb, 4) if gb else None,
                       "parties_cpu_s": {n: round(v, 3) for n, v in sorted(parties.items())},
                       "busy_cpu_s": c["busy_cpu_s"], "interval_s": c["interval_s"],
                       "per_cpu": c["per_cpu"], "loadavg": c["loadavg"]})

def med(name, key):
    return statistics.median(x[key] or 0 for x in rows[name])

def ratios(key):
    return [t[key] / n[key] if n[key] and t[key] else 0 for n, t in zip(rows["tun"], rows["tun_tee"])]

def busy_pct(name):
    # Each CPU's busy share of the measured intervals, over all runs.
    busy, secs = {}, sum(x["interval_s"] for x in rows[name]) or 1
    for x in rows[name]:
        for c, v in x["per_cpu"].items():
            busy[c] = busy.get(c, 0) + v["busy_s"]
    return {c: round(100 * b / secs) for c, b in busy.items()}

res = {"bench": "tee", "rounds": rounds,
       "config": {"link": "veth, one queue", "xrx": "xrxd, sink tun:DEV, default options",
                  "tee": "pcap:PATH on a tmpfs, snaplen 262144, switched by SIGHUP in the same xrxd",
                  "traffic": "tcp_hash TCP/IPv4, one stream of %d bytes per run, %d rounds interleaved" % (nbytes, rounds),
                  "cpu": "cpu_ns_per_frame: xrxd's user + system time (all threads; the 10 ms tick is the resolution); "
                         "cpu_s_per_gb: busy CPU seconds of the whole machine (/proc/stat) per 10^9 bytes tcp_hash received"},
       "rows": {n: {"gbps_median": med(n, "gbps"),
                    "cpu_ns_per_frame_median": med(n, "cpu_ns_per_frame"),
                    "cpu_s_per_gb": med(n, "cpu_s_per_gb"),
                    "parties_cpu_s_per_gb": med(n, "parties_cpu_s_per_gb"),
                    "cpu_busy_pct": busy_pct(n),
                    "runs": rows[n]} for n in rows},
       "cpu_ns_per_frame_ratios": ratios("cpu_ns_per_frame"),
       "cpu_per_gb_ratios": ratios("cpu_s_per_gb"),
       "parties_cpu_per_gb_ratios": ratios("parties_cpu_s_per_gb"),
       "gbps_ratios": ratios("gbps")}
for k in ("cpu_ns_per_frame", "cpu_per_gb", "parties_cpu_per_gb", "gbps"):
    res[k + "_ratio"] = statistics.median(res[k + "_ratios"])
json.dump(res, open(jpath, "w"), indent=1)
print("# veth, xrxd sink tun:DEV with and without tee = pcap on a tmpfs, one TCP stream of %d MiB per run, %d rounds interleaved" % (nbytes >> 20, rounds))
print("%-8s %8s %-30s %13s %-30s %9s %9s %-30s %s" % (
    "path", "Gbit/s", "per round", "ns CPU/frame", "per round", "cpu_s/GB", "parties", "per round", "CPU busy%"))
for n in rows:
    print("%-8s %8.3f %-30s %13.0f %-30s %9.3f %9.3f %-30s %s" % (
        n, med(n, "gbps"), " ".join("%.2f" % x["gbps"] for x in rows[n]),
        med(n, "cpu_ns_per_frame"), " ".join("%.0f" % x["cpu_ns_per_frame"] for x in rows[n]),
        res["rows"][n]["cpu_s_per_gb"], res["rows"][n]["parties_cpu_s_per_gb"],
        " ".join("%.2f" % (x["cpu_s_per_gb"] or 0) for x in rows[n]),
        " ".join("%s %d%%" % (c, v) for c, v in sorted(res["rows"][n]["cpu_busy_pct"].items()))))
print("ns CPU/frame: xrxd's; cpu_s/GB: whole machine; parties: xrxd, tcp_hash sender and receiver, ksoftirqd, NAPI threads (the cross-check on a shared machine)")
print("tee/no tee, medians of the rounds' ratios: xrxd's CPU per frame %.2fx (rounds %s), machine CPU per GB %.2fx (rounds %s; parties %.2fx), Gbit/s %.2fx (rounds %s)" % (
    res["cpu_ns_per_frame_ratio"], " ".join("%.2f" % x for x in res["cpu_ns_per_frame_ratios"]),
    res["cpu_per_gb_ratio"], " ".join("%.2f" % x for x in res["cpu_per_gb_ratios"]),
    res["parties_cpu_per_gb_ratio"],
    res["gbps_ratio"], " ".join("%.2f" % x for x in res["gbps_ratios"])))
PY
