#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Run every test and print one closing line: "N passed, N failed, N skipped".
#
# Every test program speaks TAP on stdout: "ok N - name", "not ok N - name",
# and a skip as "ok N # SKIP reason" or "not ok N # SKIP reason" (cmocka's
# form). A program that exits non-zero without reporting a failure (a crash,
# a broken setup) counts as one failure of its own.
#
#   tests/run.sh                 everything
#   tests/run.sh PATTERN...      only tests whose file name contains PATTERN
#   BUILD=dir tests/run.sh       test binaries from another build folder
#   SAN_BUILD=dir tests/run.sh   also the test binaries of a sanitizer build
#                                (make san-build), reported as NAME-san
#
# The kernel matrix comes last: each kernel of tests/kernels/kernels.list
# booted under QEMU (scripts/kernels/run.sh), one entry each, kernel-6.1,
# kernel-6.12, kernel-7.3, its guest's cases counted like any test's
# (pattern "kernel" selects them; XRX_KERNELS, documented there, chooses).
# The guests run one after another: on the 2-core machine three side by
# side took longer than in turn (the BPF suite 222-253 s each, against
# 54-72 s alone). XRX_KERNELS_PARALLEL=1 runs them side by side, each on
# its own tap, for a machine with CPUs to spare.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
export BUILD
export CMOCKA_MESSAGE_OUTPUT=TAP
SAN_BUILD=${SAN_BUILD:-}
# A sanitizer report with the stack that led to it.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
LOGDIR=$BUILD/test-logs
mkdir -p "$LOGDIR"

tests=()
for t in "$BUILD"/tests/test_* ${SAN_BUILD:+"$SAN_BUILD"/tests/test_*} \
	 tests/integration/test_*.sh; do
	[ -x "$t" ] || continue
	if [ $# -gt 0 ]; then
		keep=0
		for pat in "$@"; do [[ "$t" == *"$pat"* ]] && keep=1; done
		[ $keep = 1 ] || continue
	fi
	tests+=("$t")
done
for k in $(sed 's/#.*//' tests/kernels/kernels.list | awk 'NF { print "kernels:" $1 }'); do
	if [ $# -gt 0 ]; then
		keep=0
		for pat in "$@"; do [[ "$k" == *"$pat"* ]] && keep=1; done
		[ $keep = 1 ] || continue
	fi
	tests+=("$k")
done

pass=0 fail=0 skip=0
failed_names=()

# entry T: its name and command, in NAME and CMD.
entry() {
	local t=$1
	NAME=$(basename "$t")
	[ -n "$SAN_BUILD" ] && [[ "$t" == "$SAN_BUILD"/* ]] && NAME=$NAME-san
	CMD=("$t")
	if [[ "$t" == kernels:* ]]; then
		CMD=(scripts/kernels/run.sh --tap --build "$BUILD" "${t#kernels:}")
		NAME=kernel-${t#kernels:}
	fi
}

# run T LOG: run one entry within its time limit; its exit status.
run() {
	local t=$1 log=$2 limit=900
	# A guest under TCG verifies xrx_rx in about a minute a load.
	[[ "$t" == kernels:* ]] && limit=1860
	timeout --kill-after=10 $limit "${CMD[@]}" >"$log" 2>&1 </dev/null
}

# report T NAME LOG RC SECS: count an entry's TAP and print its line.
report() {
	local t=$1 name=$2 log=$3 rc=$4 secs=$5 k p s f ps fs
	if [[ "$t" == kernels:* ]]; then
		# The newest kernel by its version: kernel-7.3.
		k=$(scripts/kernels/run.sh --name "${t#kernels:}")
		[ "$k" = "$name" ] || mv "$log" "$LOGDIR/$k.log"
		name=$k log=$LOGDIR/$k.log
	fi
	p=$(grep -cE '^ok [0-9]+' "$log" | tr -d ' ')
	s=$(grep -cE '^(not )?ok [0-9]+.*# SKIP' "$log" | tr -d ' ')
	f=$(grep -cE '^not ok [0-9]+' "$log" | tr -d ' ')
	ps=$(grep -cE '^ok [0-9]+.*# SKIP' "$log" | tr -d ' ')
	fs=$(( s - ps ))
	p=$(( p - ps )); f=$(( f - fs ))
	if [ $rc -ne 0 ] && [ $f -eq 0 ]; then
		f=1
		echo "not ok - $name exited with $rc without reporting a failure" >>"$log"
	fi
	# /dev/null must still be the null device: a test that replaced it
	# (a rename, an unlink and a write) would break every test after it.
	# Said against the test that did it, and mended.
	if [ ! -c /dev/null ]; then
		f=$((f + 1))
		echo "not ok - $name left /dev/null a $(stat -c %F /dev/null 2>/dev/null || echo missing file); made the null device again" >>"$log"
		rm -f /dev/null && mknod -m 666 /dev/null c 1 3
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	printf '%-40s %3d passed %3d failed %3d skipped  (%ss)\n' "$name" $p $f $s $secs
	grep -E '^(not )?ok [0-9]+.*# SKIP' "$log" | sed 's/^/    /'
	if [ $f -gt 0 ]; then
		failed_names+=("$name")
		grep -E -A12 '^not ok' "$log" | grep -vE '# SKIP' | head -40 | sed 's/^/    /'
	fi
}

guests=()
for t in "${tests[@]}"; do
	if [[ "$t" == kernels:* ]] && [ -n "${XRX_KERNELS_PARALLEL:-}" ]; then
		guests+=("$t")
		continue
	fi
	entry "$t"
	start=$(date +%s)
	run "$t" "$LOGDIR/$NAME.log"
	report "$t" "$NAME" "$LOGDIR/$NAME.log" $? $(( $(date +%s) - start ))
done

# XRX_KERNELS_PARALLEL: the guests side by side, reported in the list's
# order, each with its own time. (A first run downloads their kernels one
# at a time: scripts/kernels/fetch.sh holds a lock on the cache.)
if [ ${#guests[@]} -gt 0 ]; then
	declare -A gpid
	start=$(date +%s)
	# Stopped by hand: each guest's timeout (its own process group,
	# which a ^C at the terminal does not reach) stops its QEMU.
	trap 'for p in "${gpid[@]}"; do pkill -TERM -P "$p"; done; exit 130' INT TERM
	for t in "${guests[@]}"; do
		entry "$t"
		( run "$t" "$LOGDIR/$NAME.log"; rc=$?
		  echo $(( $(date +%s) - start )) >"$LOGDIR/$NAME.secs"
		  exit $rc ) &
		gpid[$t]=$!
	done
	for t in "${guests[@]}"; do
		entry "$t"
		wait "${gpid[$t]}"
		rc=$?
		report "$t" "$NAME" "$LOGDIR/$NAME.log" $rc \
			"$(cat "$LOGDIR/$NAME.secs" 2>/dev/null || echo ?)"
		rm -f "$LOGDIR/$NAME.secs"
	done
fi

[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]} (logs in $LOGDIR/)"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] && [ $((pass + skip)) -gt 0 ]
