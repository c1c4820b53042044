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

failed=()
for b in "${benches[@]}"; do
	name=$(basename "$b")
	echo "== $name"
	"$b" || failed+=("$name")
	echo
done
[ ${#failed[@]} -gt 0 ] && echo "bench: failed: ${failed[*]}" >&2
echo "bench: JSON in $BENCH_OUT/"
[ ${#failed[@]} -eq 0 ]
