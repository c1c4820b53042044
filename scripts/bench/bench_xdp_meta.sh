#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrx_rx per frame on live traffic, the plain build against the
# device-bound build that also calls bpf_xdp_metadata_rx_vlan_tag() and
# bpf_xdp_metadata_rx_hash(), and what taking the NIC's hash instead of
# computing xrx_flow_hash() saves. Four cases, interleaved round by round,
# each natively on a veth behind tests/helpers/live_rx (null sink), on the
# same TCP trains from build/xrx-send (through the qdisc layer, --qdisc);
# the kernel's own accounting (kernel.bpf_stats_enabled, run_time_ns /
# run_cnt of the attached program) gives the time per frame. The sender
# runs on CPU 1, so veth's NAPI, and xrx_rx in it, run there too; the
# receiving worker on CPU 0.
#
#   plain      build/xrx_rx.bpf.o (live_rx -H): xrx_flow_hash()
#   hw_sw      the device-bound build told to ignore the NIC's hash
#              (no_hw_hash, live_rx -W): the VLAN kfunc, xrx_flow_hash()
#   hw         the device-bound build, the skb's hash already set (a tc
#              program on the sender, bpf_set_hash()): veth's rx_hash op
#              returns a stored value, as a NIC reads its RX descriptor;
#              xrx_flow_hash() is skipped
#   hw_dissect the device-bound build, no hash in the skb: veth's
#              skb_get_hash() dissects the frame in software first
#
# BPF_PROG_TEST_RUN refuses device-bound programs (EINVAL: the driver's
# metadata ops need the driver's xdp_buff), hence live. On veth the RX
# hash is the kernel's software skb hash either way; only hw shows what a
# NIC's hash would cost.
#
# kernel.bpf_stats_enabled is switched on only while a case sends and
# set back to what it was. Each case also records the whole machine's CPU
# per GB that reached live_rx (cpu_s_per_gb, scripts/bench/cpu_lib.sh,
# from the first frame sent until live_rx has taken the last) and the
# Gbit/s it received. Prints a table and writes $BENCH_OUT/xdp_meta.json.
#   BENCH_ROUNDS=N   rounds, interleaved (default 7; 8 to 13 s each)
#   BENCH_TRAINS=N   trains of 4 x 16 segments per case (default 1000)
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. scripts/bench/cpu_lib.sh
BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
ROUNDS=${BENCH_ROUNDS:-7}
TRAINS=${BENCH_TRAINS:-1000}
RX=$BUILD/tests/live_rx
SEND=$BUILD/xrx-send
STATS=/proc/sys/kernel/bpf_stats_enabled
CASES="plain hw_sw hw hw_dissect"
mkdir -p "$BENCH_OUT"
if [ "$(id -u)" != 0 ] || [ ! -x "$RX" ] || [ ! -x "$SEND" ]; then
	echo "bench_xdp_meta: needs root, $RX and $SEND (make)" >&2
	exit 1
fi
if ! mountpoint -q /sys/fs/bpf || [ ! -w $STATS ]; then
	echo "bench_xdp_meta: needs bpffs at /sys/fs/bpf and a writable $STATS" >&2
	exit 1
fi
OUT=$(mktemp -d)
at_exit rm -rf "$OUT"
PIN=/sys/fs/bpf/xrx-bench-$$
at_exit rm -rf "$PIN"
stats0=$(cat $STATS)
at_exit "echo $stats0 > $STATS"
testbed_up || exit 1
CPU_DEVS="$IF_DUT|$IF_SRC"
MAC=$(dut_mac)

# The sender's skb hash for port 5001 (case hw); port 5002 keeps none.
cat >"$OUT/set_hash.c" <<'EOF'
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

SEC("tc") int set_hash(struct __sk_buff *skb)
{
	__u8 h[38];

	if (!bpf_skb_load_bytes(skb, 0, h, sizeof(h)) && h[12] == 0x08 &&
	    h[13] == 0x00 && h[14] == 0x45 && h[23] == 6 &&
	    (h[36] << 8 | h[37]) == 5001)
		bpf_set_hash(skb, 0x5a170000 | h[34] << 8 | h[35]);
	return TC_ACT_OK;
}
char _license[] SEC("license") = "GPL";
EOF
if ! tc_egress "$OUT/set_hash.c"; then
	echo "bench_xdp_meta: the sender's tc program: ${TC_ERR:-not attached} (clang, bpftool and tc are needed)" >&2
	exit 1
fi

# one_case CASE ROUND: ns per frame of the attached program, frames,
# Gbit/s received; "" on failure. CASE.ROUND.cpu: cpu_json.
one_case() {
	local opt='' port=5001 pid id t c t0 t1 bytes
	case $1 in
	plain) opt=-H ;;
	hw_sw) opt=-W ;;
	hw_dissect) port=5002 ;;
	esac
	: >"$OUT/rx.out"
	nsenter --net=/run/netns/$NS_DUT "$RX" -i $IF_DUT -P "$PIN" -a native \
		-p $port -s null -t 120 -c 0 $opt >"$OUT/rx.out" 2>"$OUT/rx.err" &
	pid=$!
	at_exit kill $pid
	if ! wait_for 30 grep -q '^ready' "$OUT/rx.out"; then
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		return
	fi
	id=$(in_dut ip -d link show $IF_DUT | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1)
	echo 1 >$STATS
	cpu_snap "$OUT/c0" receiver=$pid
	t0=$(date +%s.%N)
	in_src taskset -c 1 "$SEND" -i $IF_SRC --dmac "$MAC" --dport $port --flows 4 \
		--segs 16 --trains $TRAINS --qdisc >/dev/null 2>&1
	t1=$(date +%s.%N)
	read -r t c < <(bpftool prog show id "$id" --json 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
print(d.get("run_time_ns", 0), d.get("run_cnt", 0))')
	echo "$stats0" >$STATS
	# The worker takes the last frames a moment after the sender is done.
	sleep 0.2
	cpu_snap "$OUT/c1" receiver=$pid
	kill -INT $pid 2>/dev/null
	wait $pid 2>/dev/null
	bytes=$(awk '$1 == "engine" && $2 == "bytes_in" { print $3 }' "$OUT/rx.out")
	cpu_json "$OUT/c0" "$OUT/c1" "${bytes:-0}" >"$OUT/$1.$2.cpu"
	# The case must have run the build it names.
	case $1 in
	plain) grep -q "device-bound" "$OUT/rx.err" && return ;;
	*) grep -q "device-bound, NIC metadata" "$OUT/rx.err" || return ;;
	esac
	[ "${c:-0}" -gt 0 ] && echo "$((t / c)) $c $(echo "${bytes:-0} * 8 / ($t1 - $t0) / 10^9" | bc -l)"
}

for r in $(seq "$ROUNDS"); do
	for m in $CASES; do
		res=$(one_case $m $r)
		[ -n "$res" ] && echo "$r $m $res" >>"$OUT/results"
	done
done
[ -s "$OUT/results" ] || { echo "bench_xdp_meta: no case ran" >&2; exit 1; }
$PY - "$OUT/results" "$BENCH_OUT/xdp_meta.json" "$TRAINS" "$OUT" <<'PYEOF'
import json, statistics, sys
CONFIG = {
    "plain": "build/xrx_rx.bpf.o: xrx_flow_hash()",
    "hw_sw": "device-bound, NIC hash ignored (no_hw_hash): VLAN kfunc + xrx_flow_hash()",
    "hw": "device-bound, skb hash set by the sender (bpf_set_hash): "
          "veth's rx_hash returns it, xrx_flow_hash() skipped",
    "hw_dissect": "device-bound, no skb hash: veth's skb_get_hash() "
                  "dissects the frame, xrx_flow_hash() skipped",
}
RATIOS = (("hw", "hw_sw", "NIC hash vs software hash, same program"),
          ("hw", "plain", "device-bound with NIC hash vs plain"),
          ("hw_sw", "plain", "device-bound, software hash vs plain"),
          ("hw_dissect", "hw_sw", "veth hash by dissection vs software hash"))
rounds = {}
for line in open(sys.argv[1]):
    r, m, ns, cnt, gbit = line.split()
    cpu = json.load(open("%s/%s.%s.cpu" % (sys.argv[4], m, r)))
    rounds.setdefault(int(r), {})[m] = {"ns_per_frame": int(ns), "frames": int(cnt),
                                        "gbit_s": float(gbit),
                                        "cpu_s_per_gb": cpu["cpu_s_per_gb"],
                                        "parties_cpu_s_per_gb": cpu["parties_cpu_s_per_gb"]}
med = lambda v: statistics.median(v) if v else None
cases = {}
for m in CONFIG:
    rd = [x[m] for x in rounds.values() if m in x]
    ns = [x["ns_per_frame"] for x in rd]
    cases[m] = {"config": CONFIG[m], "ns_per_frame": ns,
                "frames": [x["frames"] for x in rd],
                "median_ns": med(ns),
                "gbit_s": med([x["gbit_s"] for x in rd]),
                "cpu_s_per_gb": med([x["cpu_s_per_gb"] for x in rd if x["cpu_s_per_gb"]]),
                "cpu_s_per_gb_rounds": [x["cpu_s_per_gb"] for x in rd],
                "parties_cpu_s_per_gb": med([x["parties_cpu_s_per_gb"] for x in rd
                                             if x["parties_cpu_s_per_gb"]])}
ratios = {}
for a, b, what in RATIOS:
    per = [rd[a]["ns_per_frame"] / rd[b]["ns_per_frame"]
           for rd in rounds.values() if a in rd and b in rd and rd[b]["ns_per_frame"]]
    if per:
        ratios["%s/%s" % (a, b)] = {"what": what, "rounds": [round(x, 3) for x in per],
                                    "median": round(statistics.median(per), 3)}
print("driver veth, native XDP, live_rx null sink; 4 TCP flows x 16 x 1448 B "
      "segments, %s trains per case; ns per frame = run_time_ns / run_cnt" % sys.argv[3])
print("%-11s %-9s %-26s %7s %9s %s" % ("case", "median ns", "ns per frame (each round)",
                                       "Gbit/s", "cpu_s/GB", "configuration"))
for m, c in cases.items():
    print("%-11s %-9s %-26s %7.3f %9.3f %s" % (m, c["median_ns"], " ".join(map(str, c["ns_per_frame"])),
                                             c["gbit_s"] or 0, c["cpu_s_per_gb"] or 0, c["config"]))
print("%-18s %-7s %-30s %s" % ("ratio", "median", "each round", "what"))
for k, v in ratios.items():
    print("%-18s %-7.3f %-30s %s" % (k, v["median"], " ".join("%.3f" % x for x in v["rounds"]),
                                     v["what"]))
json.dump({"bench": "xdp_meta", "driver": "veth", "unit": "ns per frame",
           "method": "live veth, native XDP, run_time_ns / run_cnt "
                     "(kernel.bpf_stats_enabled); rounds interleaved; cpu_s_per_gb: "
                     "busy CPU seconds of the whole machine per 10^9 bytes live_rx received",
           "traffic": "xrx-send --qdisc, 4 flows x 16 segments x 1448 B, "
                      "%s trains per case" % sys.argv[3],
           "cases": cases, "ratios": ratios},
          open(sys.argv[2], "w"), indent=1)
PYEOF
