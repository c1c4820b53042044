# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Where the live benchmarks' CPU time goes; sourced by every benchmark
# that runs live traffic (bench_afxdp.sh, bench_tun.sh, bench_capture.sh,
# bench_xdp_meta.sh, bench_tee.sh).
#
# The measure is whole-machine CPU per byte delivered: on veth the
# sender's CPU also runs the receiving side's NAPI (XDP, the copy into the
# UMEM, GRO), so a receiver that looks cheap may only have moved work to
# another core. Busy time is every CPU's user + nice + system + irq +
# softirq from /proc/stat (idle, iowait and steal are not ours), over the
# measured interval; cpu_s_per_gb is that in CPU seconds per 10^9 bytes
# delivered to the consumer. On a machine shared with other work that
# figure includes the neighbours', so each snapshot also records the
# threads of the parties the benchmark started (sender, receiver) and the
# kernel threads that carry network work (ksoftirqd/N, napi/DEV-N); their
# sum is the cross-check, and busy - parties is what others took (plus
# softirqs that ran on an idle CPU, charged to no task).
#
# CPU_DEVS: the benchmark's devices (a regular expression, "xd1|xs1"),
# whose napi/DEV-N threads count; other devices' are neighbours'.
#
#   cpu_snap FILE [LABEL=PID ...]   snapshot: /proc/stat and the threads of
#                                   each PID and its descendants (a job
#                                   started as "in_src timeout CMD &" is a
#                                   subshell whose grandchild is CMD)
#   cpu_load A B                    "cpuN busy user sys softirq" (percent)
#   cpu_json A B BYTES [SECS]       the JSON object below, BYTES delivered
#                                   between A and B (or at the same rate
#                                   over SECS seconds, when the bytes were
#                                   counted over another window)
#
# cpu_json prints {"cpu_s_per_gb", "busy_cpu_s", "interval_s", "gb",
# "per_cpu": {"cpu0": {"busy_s", "user_s", "system_s", "softirq_s",
# "irq_s"}, ...}, "parties_cpu_s": {LABEL: s, "ksoftirqd": s, "napi": s},
# "parties_cpu_s_per_gb", "others_cpu_s", "threads": [{"party", "tid",
# "comm", "cpu_s", "user_s", "sys_s"}] (the labelled parties' threads),
# "loadavg"}. Task times are
# sum_exec_runtime (schedstat, ns), which on this kernel (no
# IRQ_TIME_ACCOUNTING) includes the softirqs that ran in the task's
# context, such as veth's NAPI on the sending CPU.

# cpu_tree PID: PID and every descendant of it.
cpu_tree() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ kids[$2] = kids[$2] " " $1 }
		END {
			q[1] = root; n = 1
			for (i = 1; i <= n; i++) {
				print q[i]
				c = split(kids[q[i]], k, " ")
				for (j = 1; j <= c; j++) q[++n] = k[j]
			} }'
}

# cpu_snap FILE [LABEL=PID ...]
cpu_snap() {
	local f=$1 arg pid t
	local -a tasks=()
	shift
	for arg in "$@"; do
		for pid in $(cpu_tree "${arg#*=}"); do
			for t in /proc/"$pid"/task/*; do
				tasks+=("$t=${arg%%=*}")
			done
		done
	done
	for t in $(grep -lE "^(ksoftirqd/|napi/(${CPU_DEVS:-.*})-)" /proc/[0-9]*/comm 2>/dev/null); do
		tasks+=("${t%/comm}=kthread")
	done
	{
		grep '^cpu[0-9]' /proc/stat
		echo "loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
		# "task LABEL TID COMM RUN_NS UTIME STIME" (ns, clock ticks); a
		# thread that exits between the
		# listing and the read is left out (getline fails, no abort).
		awk -v tasks="${tasks[*]}" 'BEGIN {
			n = split(tasks, ts, " ")
			for (i = 1; i <= n; i++) {
				split(ts[i], kv, "=")
				if ((getline st < (kv[1] "/stat")) <= 0 ||
				    (getline run < (kv[1] "/schedstat")) <= 0)
					continue
				close(kv[1] "/stat"); close(kv[1] "/schedstat")
				a = index(st, "("); b = index(st, ") ")
				comm = substr(st, a + 1, b - a - 1); gsub(/ /, "_", comm)
				split(run, r, " "); split(substr(st, b + 2), f, " ")
				l = kv[2]
				if (l == "kthread") l = comm ~ /^napi\// ? "napi" : "ksoftirqd"
				# utime, stime: fields 14 and 15 of stat, 12 and
				# 13 after the comm
				print "task", l, substr(st, 1, a - 2), comm, r[1], f[12], f[13]
			} }'
	} >"$f"
}

# cpu_load A B: "cpuN busy user sys softirq" (percent) between snapshots.
cpu_load() {
	paste <(grep '^cpu' "$1") <(grep '^cpu' "$2") | awk '{
		n = NF / 2
		u = $(n+2) - $2 + $(n+3) - $3; s = $(n+4) - $4; id = $(n+5) - $5
		io = $(n+6) - $6; irq = $(n+7) - $7; si = $(n+8) - $8
		t = u + s + id + io + irq + si; if (t == 0) t = 1
		printf "%s %.0f %.0f %.0f %.0f\n", $1, 100 * (t - id - io) / t,
			100 * u / t, 100 * s / t, 100 * (si + irq) / t }'
}

# cpu_json A B BYTES [SECS]
cpu_json() {
	/usr/bin/python3 - "$@" "$(getconf CLK_TCK)" <<'PY'
import json, sys
a, b, nbytes = sys.argv[1], sys.argv[2], float(sys.argv[3])
secs = float(sys.argv[4]) if len(sys.argv) > 5 else None
hz = float(sys.argv[-1])

def snap(path):
    cpus, tasks, load = {}, {}, None
    for line in open(path):
        p = line.split()
        if p[0].startswith("cpu"):
            cpus[p[0]] = [int(x) for x in p[1:]]
        elif p[0] == "task" and len(p) == 7:
            tasks[(p[1], p[2])] = (p[3], int(p[4]), int(p[5]), int(p[6]))
        elif p[0] == "loadavg":
            load = p[1:]
    return cpus, tasks, load

c0, t0, l0 = snap(a)
c1, t1, l1 = snap(b)
per, busy, interval = {}, 0.0, 0.0
for c in sorted(c1, key=lambda k: int(k[3:])):
    d = [x - y for x, y in zip(c1[c], c0.get(c, c1[c]))]
    # user nice system idle iowait irq softirq steal (guest in user)
    user, nice, system, idle, iowait, irq, softirq = d[:7]
    steal = d[7] if len(d) > 7 else 0
    b_s = (user + nice + system + irq + softirq) / hz
    per[c] = {"busy_s": round(b_s, 3), "user_s": round((user + nice) / hz, 3),
              "system_s": round(system / hz, 3), "softirq_s": round(softirq / hz, 3),
              "irq_s": round(irq / hz, 3), "steal_s": round(steal / hz, 3)}
    busy += b_s
    interval = max(interval, (sum(d[:8])) / hz)
gb = nbytes / 1e9
if secs:
    gb = gb / secs * interval
parties, threads = {}, []
for k, (comm, ns, ut, st) in sorted(t1.items(), key=lambda x: int(x[0][1])):
    if k in t0:		# a thread born inside the window counts from 0
        ns, ut, st = ns - t0[k][1], ut - t0[k][2], st - t0[k][3]
    parties[k[0]] = parties.get(k[0], 0.0) + ns / 1e9
    if k[0] not in ("ksoftirqd", "napi"):
        threads.append({"party": k[0], "tid": int(k[1]), "comm": comm,
                        "cpu_s": round(ns / 1e9, 4), "user_s": round(ut / hz, 3),
                        "sys_s": round(st / hz, 3)})
ptot = sum(parties.values())
print(json.dumps({
    "cpu_s_per_gb": round(busy / gb, 4) if gb > 0 else None,
    "busy_cpu_s": round(busy, 3), "interval_s": round(interval, 3),
    "gb": round(gb, 4), "per_cpu": per,
    "parties_cpu_s": {k: round(v, 3) for k, v in sorted(parties.items())},
    "parties_cpu_s_per_gb": round(ptot / gb, 4) if gb > 0 else None,
    "others_cpu_s": round(busy - ptot, 3), "threads": threads,
    "loadavg": [l0, l1]}))
PY
}
