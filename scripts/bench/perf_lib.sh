# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Where the live path's time goes, per frame and per party, from a
# whole-machine perf profile; sourced by bench_afxdp.sh and
# bench_capture.sh, which run one extra, profiled round of each case
# after the measured ones (perf's own sampling would otherwise count in
# their CPU figures).
#
#   perf_ok                     perf can sample here (else a reason on stderr)
#   perf_start FILE             perf record -a -g in the background ($perf_pid)
#   perf_stop                   stop it and wait
#   perf_json FILE FRAMES PARTY=SPEC...
#                               JSON: each party's ns per frame, its user
#                               share, its top symbols; and the kernel's
#                               receive path (the parties' samples under
#                               net_rx_action or a NAPI kthread's loop)
#
# SPEC is a comma-separated list of thread ids, comm:NAME for every
# thread of that name, or re:REGEX for every thread whose name matches
# (kthreads=re:^(ksoftirqd/|napi/DEV-)). Samples of no party (the
# neighbours on a shared machine) count nowhere. Samples are cpu-clock at PERF_HZ (999) per CPU
# (a VM often has no hardware counters), so each stands for 1/PERF_HZ s;
# ns per frame is samples / PERF_HZ / FRAMES. A sample lands where
# interrupts were enabled again, so time spent with them off (a context
# switch, a softirq's entry) shows on the instruction after, e.g.
# finish_task_switch() for the cost of a sleep and wake-up.
PERF_HZ=${PERF_HZ:-999}

perf_ok() {
	if ! command -v perf >/dev/null; then
		echo "perf not installed (scripts/deps.sh --bench: linux-perf)" >&2
		return 1
	fi
	if ! perf record -q -a -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
		echo "perf cannot sample the whole machine here (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid))" >&2
		return 1
	fi
}

perf_start() {
	perf record -q -a -g -e cpu-clock -F "$PERF_HZ" -o "$1" >/dev/null 2>&1 &
	perf_pid=$!
}

perf_stop() {
	kill -INT "$perf_pid" 2>/dev/null
	wait "$perf_pid" 2>/dev/null
}

# perf_json FILE FRAMES PARTY=SPEC...
perf_json() {
	local data=$1 frames=$2
	shift 2
	perf script -i "$data" -F comm,tid,ip,sym 2>/dev/null |
		/usr/bin/python3 -c '
import collections, json, re, sys
frames, hz = float(sys.argv[1]), float(sys.argv[2])
parties = {}
for a in sys.argv[3:]:
    name, spec = a.split("=", 1)
    if spec.startswith("comm:"):
        parties[name] = (re.compile("^%s$" % re.escape(spec[5:])), None)
    elif spec.startswith("re:"):
        parties[name] = (re.compile(spec[3:]), None)
    else:
        parties[name] = (None, set(spec.split(",")))
RX = re.compile(r"^(net_rx_action|napi_threaded_poll)$")
ns = lambda n: round(n * 1e9 / hz / frames, 1)
tot = collections.Counter()
user = collections.Counter()
top = collections.defaultdict(collections.Counter)
rx, rx_top, rx_by = 0, collections.Counter(), collections.Counter()

def sample(head, chain):
    global rx
    if not chain:
        return
    comm, tid = head.rsplit(None, 1) if len(head.split()) > 1 else (head, "")
    who = None
    for name, (c, tids) in parties.items():
        if (c and c.search(comm)) or (tids and tid in tids):
            who = name
            break
    leaf_ip, leaf = chain[0]
    if who:
        tot[who] += 1
        top[who][leaf] += 1
        if not leaf_ip.startswith("ffff"):
            user[who] += 1
    if who and any(RX.match(s) for _, s in chain):
        rx += 1
        rx_top[leaf] += 1
        rx_by[who] += 1

head, chain = None, []
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line.strip():
        sample(head, chain)
        head, chain = None, []
    elif head is None:
        head = line.strip()
    else:
        p = line.split(None, 1)
        chain.append((p[0], p[1].split(" (")[0] if len(p) > 1 else "?"))
sample(head, chain)
out = {"frames": int(frames), "sample_hz": hz, "parties": {}}
for name in parties:
    out["parties"][name] = {
        "ns_per_frame": ns(tot[name]), "user_ns_per_frame": ns(user[name]),
        "top": [[s, ns(n)] for s, n in top[name].most_common(15)]}
out["kernel_rx"] = {"ns_per_frame": ns(rx),
                    "by_party": {k: ns(v) for k, v in rx_by.items()},
                    "top": [[s, ns(n)] for s, n in rx_top.most_common(15)]}
print(json.dumps(out))
' "$frames" "$PERF_HZ" "$@"
}
