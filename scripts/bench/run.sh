#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Run every benchmark: each program build/bench/NAME (built from
# scripts/bench/NAME.c) and each script scripts/bench/bench_*.sh. They
# print their own table and write JSON into $BENCH_OUT (build/bench).
# Adding a benchmark means adding its source file; nothing is listed here.
#
#   scripts/bench/run.sh              everything
#   scripts/bench/run.sh PATTERN...   only benchmarks whose name contains PATTERN
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
export BENCH_OUT=${BENCH_OUT:-$BUILD/bench}
mkdir -p "$BENCH_OUT"

benches=()
for b in "$BUILD"/bench/* scripts/bench/bench_*.sh; do
	[ -f "$b" ] && [ -x "$b" ] || continue
	case "$b" in *.o | *.h | *.json | *.log) continue ;; esac
	if [ $# -gt 0 ]; then
		keep=0
		for pat in "$@"; do [[ "$(basename "$b")" == *"$pat"* ]] && keep=1; done
		[ $keep = 1 ] || continue
	fi
	benches+=("$b")
done

if [ ${#benches[@]} -eq 0 ]; then
	echo "bench: nothing to run; build first (make benches)" >&2
	exit 1
fi

# Every JSON a benchmark writes names the run it came from: the command
# (with the BENCH_* settings it ran under), the commit ("-dirty" when the
# tree had changes) and the time. docs/bench/ keeps such files, and
# tests/integration/test_bench_json.sh holds every file there to it.
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && commit=$commit-dirty
settings=$(env | grep -E '^BENCH_[A-Z_]+=' | grep -v '^BENCH_OUT=' | sort | tr '\n' ' ')

failed=()
for b in "${benches[@]}"; do
	name=$(basename "$b")
	echo "== $name"
	mark=$(mktemp)
	"$b" || failed+=("$name")
	find "$BENCH_OUT" -maxdepth 1 -name '*.json' -newer "$mark" -print0 |
		xargs -0 -r scripts/bench/stamp.py --command "$settings$b" --commit "$commit"
	rm -f "$mark"
	echo
done
[ ${#failed[@]} -gt 0 ] && echo "bench: failed: ${failed[*]}" >&2

# One file with every benchmark's JSON and the machine it ran on: what
# scripts/bench/compare.py takes, and what docs/bench/ keeps as the
# reference run.
/usr/bin/python3 - "$BENCH_OUT" "scripts/bench/run.sh${*:+ $*}" "$commit" <<'PY'
import json, os, platform, subprocess, sys, time
out = sys.argv[1]

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True,
                              text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""

lscpu = {}
for line in sh("lscpu").splitlines():
    k, _, v = line.partition(":")
    lscpu[k.strip()] = v.strip()
benches = {}
for name in ("gro.json", "xdp.json", "bench_tun.json", "afxdp.json",
             "xdp_meta.json", "bench_tee.json", "flood.json",
             "capture.json", "busy_poll.json", "ratestep.json"):
    p = os.path.join(out, name)
    if os.path.exists(p):
        with open(p) as f:
            d = json.load(f)
        benches[d.get("bench", name[:-5])] = d
machine = {
    "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "kernel": platform.release(),
    "os": sh(". /etc/os-release && echo $PRETTY_NAME"),
    "cpu": lscpu.get("Model name"), "cpus": os.cpu_count(),
    "hypervisor": lscpu.get("Hypervisor vendor"),
    "l2": lscpu.get("L2 cache"), "l3": lscpu.get("L3 cache"),
    "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    "loadavg_at_end": open("/proc/loadavg").read().split()[:3],
    "dpdk": sh("pkg-config --modversion libdpdk"),
    "libbpf": sh("pkg-config --modversion libbpf"),
    "compiler": sh("${CC:-gcc} --version | head -1"),
}
with open(os.path.join(out, "all.json"), "w") as f:
    json.dump({"machine": machine, "benches": benches,
               "command": sys.argv[2], "commit": sys.argv[3],
               "when": machine["when"]}, f, indent=1)
PY
echo "bench: JSON in $BENCH_OUT/ (all.json: every benchmark and the machine;"
echo "       scripts/bench/compare.py docs/bench/reference.json $BENCH_OUT/all.json compares)"
[ ${#failed[@]} -eq 0 ]
