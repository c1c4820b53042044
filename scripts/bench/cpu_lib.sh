# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Where the benchmarks' CPU time goes, from /proc/stat; sourced by
# bench_afxdp.sh and bench_tun.sh.

# cpu_snap FILE: the per-CPU lines of /proc/stat.
cpu_snap() { grep '^cpu[0-9]' /proc/stat >"$1"; }

# cpu_load A B: "cpuN busy user sys softirq" (percent) between snapshots.
cpu_load() {
	paste "$1" "$2" | awk '{
		n = NF / 2
		u = $(n+2) - $2 + $(n+3) - $3; s = $(n+4) - $4; id = $(n+5) - $5
		io = $(n+6) - $6; irq = $(n+7) - $7; si = $(n+8) - $8
		t = u + s + id + io + irq + si; if (t == 0) t = 1
		printf "%s %.0f %.0f %.0f %.0f\n", $1, 100 * (t - id - io) / t,
			100 * u / t, 100 * s / t, 100 * (si + irq) / t }'
}
