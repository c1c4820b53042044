#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# scripts/bench/cpu_lib.sh, the CPU-per-GB measure of every live
# benchmark: cpu_json's arithmetic on two made-up snapshots (busy time
# without idle, iowait and steal; the per-CPU split; CPU seconds per 10^9
# bytes, also from a rate counted over another window; the parties'
# cross-check), and cpu_snap on a real process tree (every thread of a
# labelled process and its descendants, the ksoftirqd threads).
. "$(dirname "$0")/../lib.sh"
. "$TOP/scripts/bench/cpu_lib.sh"

WORK=$(mktemp -d /tmp/xrx-cpulib-test.XXXXXX)
at_exit rm -rf "$WORK"
HZ=$(getconf CLK_TCK)

# Two CPUs over 2 s: cpu0 busy 1.5 s (user 0.5 + nice 0.1 + system 0.4 +
# irq 0.1 + softirq 0.4), idle 0.3, iowait 0.1, steal 0.1; cpu1 busy
# 0.5 s. 2.0 CPU seconds busy in all.
t() { echo $(($1 * HZ / 10)); }
cat >"$WORK/a" <<EOF
cpu0 1000 100 1000 1000 100 100 100 100 0 0
cpu1 1000 100 1000 1000 100 100 100 100 0 0
loadavg 0.10 0.20 0.30
task sender 100 xrx-send 1000000000 10 20
task receiver 200 worker 500000000 5 5
task ksoftirqd 14 ksoftirqd/0 0 0 0
EOF
cat >"$WORK/b" <<EOF
cpu0 $((1000 + $(t 5))) $((100 + $(t 1))) $((1000 + $(t 4))) $((1000 + $(t 3))) $((100 + $(t 1))) $((100 + $(t 1))) $((100 + $(t 4))) $((100 + $(t 1))) 0 0
cpu1 $((1000 + $(t 5))) 100 1000 $((1000 + $(t 15))) 100 100 100 100 0 0
loadavg 0.40 0.50 0.60
task sender 100 xrx-send 2200000000 110 30
task receiver 200 worker 800000000 25 15
task receiver 201 worker 100000000 5 5
task ksoftirqd 14 ksoftirqd/0 100000000 0 10
EOF
cpu_json "$WORK/a" "$WORK/b" 1000000000 >"$WORK/j"
check "cpu_json prints JSON" $($PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/j"; echo $?)
diag "$(cat "$WORK/j")"
jv() { $PY -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k]
print(v)' "$WORK/j" "$1"; }
check "busy: user+nice+system+irq+softirq of every CPU, 2.0 s" $([ "$(jv busy_cpu_s)" = 2.0 ]; echo $?)
check "per CPU: cpu0 1.5 s busy, 0.6 s user (nice included), 0.4 s softirq, steal apart" \
	$([ "$(jv per_cpu.cpu0.busy_s)" = 1.5 ] && [ "$(jv per_cpu.cpu0.user_s)" = 0.6 ] &&
	  [ "$(jv per_cpu.cpu0.softirq_s)" = 0.4 ] && [ "$(jv per_cpu.cpu0.steal_s)" = 0.1 ] &&
	  [ "$(jv per_cpu.cpu1.busy_s)" = 0.5 ]; echo $?)
check "interval 2.0 s, 1 GB: 2.0 CPU seconds per GB" \
	$([ "$(jv interval_s)" = 2.0 ] && [ "$(jv cpu_s_per_gb)" = 2.0 ]; echo $?)
check "parties from run time: sender 1.2 s, receiver 0.4 s (a thread born in the window from 0), ksoftirqd 0.1 s" \
	$([ "$(jv parties_cpu_s.sender)" = 1.2 ] && [ "$(jv parties_cpu_s.receiver)" = 0.4 ] &&
	  [ "$(jv parties_cpu_s.ksoftirqd)" = 0.1 ] && [ "$(jv parties_cpu_s_per_gb)" = 1.7 ] &&
	  [ "$(jv others_cpu_s)" = 0.3 ]; echo $?)
check "threads of the parties with their user and system time" \
	$([ "$($PY -c 'import json,sys
t = json.load(open(sys.argv[1]))["threads"]
print(len(t), t[0]["comm"], t[0]["user_s"] * '"$HZ"', t[0]["sys_s"] * '"$HZ"')' "$WORK/j")" = "3 xrx-send 100.0 10.0" ]; echo $?)
# 0.5 GB counted over 1 s: 1 GB over the 2 s interval.
cpu_json "$WORK/a" "$WORK/b" 500000000 1 >"$WORK/j"
check "bytes counted over another window are taken as a rate" $([ "$(jv gb)" = 1.0 ] && [ "$(jv cpu_s_per_gb)" = 2.0 ]; echo $?)

# cpu_snap: a shell with two children, started as a function in the
# background (the subshell's pid, as the benchmarks have it).
spin() { sleep 30 & sleep 30 & wait; }
spin &
sp=$!
at_exit kill $sp
at_exit pkill -P $sp
wait_for 5 eval '[ "$(pgrep -c -P $sp)" -ge 2 ]'
cpu_snap "$WORK/s0" me=$sp
check "cpu_snap: /proc/stat's per-CPU lines" \
	$([ "$(grep -c '^cpu[0-9]' "$WORK/s0")" = "$(grep -c '^cpu[0-9]' /proc/stat)" ]; echo $?)
check "cpu_snap: the labelled process and both its children" \
	$([ "$(awk '$1 == "task" && $2 == "me"' "$WORK/s0" | wc -l)" = 3 ] &&
	  [ "$(awk '$1 == "task" && $2 == "me" && $4 == "sleep"' "$WORK/s0" | wc -l)" = 2 ]; echo $?)
check "cpu_snap: one ksoftirqd thread per CPU" \
	$([ "$(awk '$1 == "task" && $2 == "ksoftirqd"' "$WORK/s0" | wc -l)" = "$(nproc)" ]; echo $?)
cpu_snap "$WORK/s1" me=$sp me2=999999999
cpu_json "$WORK/s0" "$WORK/s1" 1000000 >"$WORK/j"
check "a snapshot pair of a live machine gives a busy time and a party" \
	$($PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["busy_cpu_s"] >= 0 and "me" in d["parties_cpu_s"] and d["interval_s"] > 0))' "$WORK/j"; echo $?)
done_testing
