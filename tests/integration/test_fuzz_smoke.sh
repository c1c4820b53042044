#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A short run of every libFuzzer target (tests/fuzz/fuzz_*.c, built by
# `make fuzz-build`), one after the other, from its seeds and regression
# inputs: one TAP line per target, failing on a crash, a sanitizer report,
# a broken invariant or a hang; executions and coverage in a diag line.
# `make fuzz` is the long run.
#
#   FUZZ_SMOKE_SECONDS  per target; by default 100 s shared by the
#                       targets, at most 20 s each
. "$(dirname "$0")/../lib.sh"

FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
case "$FUZZ_BUILD" in /*) ;; *) FUZZ_BUILD=$TOP/$FUZZ_BUILD ;; esac
export FUZZ_BUILD

srcs=("$TOP"/tests/fuzz/fuzz_*.c)
if [ ! -e "${srcs[0]}" ]; then
	skip "fuzz smoke" "no fuzz targets in tests/fuzz/"
	done_testing
	exit
fi

bins=()
for s in "${srcs[@]}"; do
	t=$(basename "$s" .c)
	[ -x "$FUZZ_BUILD/fuzz/$t" ] && bins+=("$t")
done
if [ ${#bins[@]} -eq 0 ]; then
	# Name the cause that holds: no libFuzzer runtime, or only no build.
	if echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
		clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
		why="not built in $FUZZ_BUILD (make fuzz-build; make test builds them)"
	else
		why="not built: clang cannot link -fsanitize=fuzzer here (install libclang-rt-14-dev, then make fuzz-build)"
	fi
	for s in "${srcs[@]}"; do
		skip "$(basename "$s" .c)" "$why"
	done
	done_testing
	exit
fi

secs=${FUZZ_SMOKE_SECONDS:-$((100 / ${#srcs[@]}))}
[ -z "${FUZZ_SMOKE_SECONDS:-}" ] && [ "$secs" -gt 20 ] && secs=20
[ "$secs" -lt 1 ] && secs=1

for s in "${srcs[@]}"; do
	t=$(basename "$s" .c)
	if [ ! -x "$FUZZ_BUILD/fuzz/$t" ]; then
		check "$t: built" 1
		diag "$FUZZ_BUILD/fuzz/$t is missing although the others were built; run make fuzz-build"
		continue
	fi
	out=$("$TOP"/scripts/fuzz.sh -q -t "$secs" "$t" 2>&1)
	rc=$?
	check "$t: ${secs}s from the seeds, no crash" $rc
	echo "$out" | sed 's/^/# /'
done
done_testing
