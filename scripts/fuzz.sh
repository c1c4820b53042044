#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Run the libFuzzer targets (tests/fuzz/fuzz_*.c, built by `make fuzz-build`
# into $FUZZ_BUILD/fuzz/) one after the other, and report per target the
# executions, coverage (libFuzzer's cov: edges and ft: features) and
# crashes.
#
#   scripts/fuzz.sh [-t SECONDS] [-q] [TARGET...]
#
#   -t SECONDS  per target; 300 by default (FUZZ_SECONDS)
#   -q          quick: no parser differential, a throw-away corpus
#   TARGET      fuzz_parse, ...; all by default
#
# Each target starts from its seeds and regression inputs in
# tests/fuzz/TARGET/ (read only) plus, without -q, what earlier runs found
# ($FUZZ_BUILD/corpus/TARGET/, which it grows). A crash is written to
# $FUZZ_BUILD/crashes/TARGET-crash-*; minimise it with
#   $FUZZ_BUILD/fuzz/TARGET -minimize_crash=1 -runs=10000 CRASH
# and keep it as tests/fuzz/TARGET/regress-WHAT.
#
# Without -q, it then runs the BPF-vs-userspace parser differential
# (build/tests/test_parse_diff, VXLAN frames included) on XRX_DIFF_FRAMES
# frames, 1000000 by default. Exit status: 0 when nothing crashed and the differential passed.
set -u
cd "$(dirname "$0")/.." || exit 1
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
BUILD=${BUILD:-build}
secs=${FUZZ_SECONDS:-300}
quick=0

while getopts "t:q" opt; do
	case $opt in
	t) secs=$OPTARG ;;
	q) quick=1 ;;
	*) echo "usage: scripts/fuzz.sh [-t SECONDS] [-q] [TARGET...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for b in "$FUZZ_BUILD"/fuzz/fuzz_*; do
		[ -x "$b" ] && targets+=("$(basename "$b")")
	done
fi
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no targets in $FUZZ_BUILD/fuzz/; build them with 'make fuzz-build'" >&2
	exit 2
fi

mkdir -p "$FUZZ_BUILD/crashes" "$FUZZ_BUILD/logs"
tmp=$(mktemp -d /tmp/xrx-fuzz.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The last libFuzzer status line ("#N DONE cov: C ft: F corp: K/..."),
# as "execs cov ft corpus".
summary() {
	grep -E '^#[0-9]+[[:space:]]+(DONE|INITED|NEW|REDUCE|pulse)' "$1" | tail -1 |
		sed -E 's/^#([0-9]+).*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+).*/\1 \2 \3 \4/'
}

status=0
for t in "${targets[@]}"; do
	bin=$FUZZ_BUILD/fuzz/$t
	seeds=tests/fuzz/$t
	log=$FUZZ_BUILD/logs/$t.log
	if [ ! -x "$bin" ]; then
		echo "$t: not built ($bin); run 'make fuzz-build'"
		status=1
		continue
	fi
	if [ $quick = 1 ]; then
		corpus=$tmp/$t
	else
		corpus=$FUZZ_BUILD/corpus/$t
	fi
	mkdir -p "$corpus"
	[ -d "$seeds" ] || seeds=
	# -timeout: one input taking 10 s is a hang; rss_limit: a leak.
	timeout --kill-after=10 $((secs + 120)) "$bin" -max_total_time="$secs" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$FUZZ_BUILD/crashes/$t-" \
		"$corpus" $seeds >"$log" 2>&1
	rc=$?
	read -r execs cov ft corp <<<"$(summary "$log")"
	crash=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | cut -d' ' -f5)
	printf '%s: %s execs in %ss, cov %s, ft %s, corpus %s, %s\n' "$t" \
		"${execs:-?}" "$secs" "${cov:-?}" "${ft:-?}" "${corp:-?}" \
		"$([ $rc = 0 ] && echo "no crash" || echo "CRASH (exit $rc) ${crash:-}")"
	if [ $rc != 0 ]; then
		status=1
		grep -E -m1 -A8 'ERROR: |runtime error: |invariant|deadly signal|timeout after' "$log" | sed 's/^/    /'
		echo "    log: $log"
	fi
done

if [ $quick = 0 ]; then
	n=${XRX_DIFF_FRAMES:-1000000}
	if [ -x "$BUILD/tests/test_parse_diff" ]; then
		start=$(date +%s)
		if XRX_DIFF_FRAMES=$n CMOCKA_MESSAGE_OUTPUT=TAP \
		   "$BUILD/tests/test_parse_diff" >"$FUZZ_BUILD/logs/parse_diff.log" 2>&1; then
			echo "parse_diff: $n frames, BPF and userspace agree ($(( $(date +%s) - start ))s)"
		else
			echo "parse_diff: $n frames: FAILED"
			grep -E -A12 '^not ok' "$FUZZ_BUILD/logs/parse_diff.log" | head -30 | sed 's/^/    /'
			status=1
		fi
	else
		echo "parse_diff: $BUILD/tests/test_parse_diff not built; run 'make'"
		status=1
	fi
fi
exit $status
