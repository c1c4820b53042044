#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Runs inside a guest (scripts/kernels/run.sh boots it): load the modules
# the tests use from the guest kernel's own unpacked package, then each
# test of tests/kernels/tests.list, as one TAP stream on stdout, every
# case named "TEST: case".
#   guest.sh --build DIR --kroot DIR --kver KVER --out DIR
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$2 ;;
	--kroot) KROOT=$2 ;;
	--kver) KVER=$2 ;;
	--out) GUEST_OUT=$2 ;;
	*) echo "guest.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
export BUILD KROOT KVER GUEST_OUT
echo "# running $(uname -r), $(nproc) CPUs, build $BUILD"
[ "$(uname -r)" = "$KVER" ] || echo "# guest: running $(uname -r), expected $KVER"
# The guest's modules: the host's / is read-only, the unpacked package
# has its own modules.dep (scripts/kernels/fetch.sh ran depmod).
for m in virtio_net tun veth 8021q; do
	modprobe -d "$KROOT" $m 2>&1 | sed "s/^/# modprobe $m: /"
done
ip link set lo up
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

# XRX_GUEST_TESTS (scripts/kernels/run.sh): these tests instead of the list.
LIST=$TOP/tests/kernels/tests.list
if [ -n "${XRX_GUEST_TESTS:-}" ]; then
	LIST=$GUEST_OUT/tests.list
	printf '%s\n' $XRX_GUEST_TESTS >"$LIST"
fi
n=0
while read -r t _; do
	t=${t%%#*}
	[ -n "$t" ] || continue
	log=$GUEST_OUT/$t.log
	start=$(date +%s)
	XRX_TAP_TIMES=$GUEST_OUT/$t.times \
	timeout --kill-after=10 "${XRX_GUEST_TEST_SECS:-1200}" \
		bash "$TOP/tests/kernels/$t.sh" >"$log" 2>&1 </dev/null
	rc=$?
	# The test's TAP renumbered into one stream, each case named
	# "TEST: case", in one awk: a process per line costs a quarter of
	# a second under emulation.
	awk -v n=$n -v t="$t" -v out="$GUEST_OUT/$t.count" '
	/^(not )?ok [0-9]+/ {
		n++
		no = $0 ~ /^not ok/
		if (no && $0 !~ /# SKIP/)
			bad = 1
		rest = $0
		sub(/^(not )?ok [0-9]+( - )?/, "", rest)
		pre = (no ? "not ok " : "ok ") n
		if (sub(/^# SKIP/, "", rest))
			print pre " # SKIP " t ":" rest
		else
			print pre " - " t ": " rest
		next
	}
	/^#/ { print }
	END { print n, bad + 0 > out }' "$log"
	read -r n bad <"$GUEST_OUT/$t.count"
	if [ $rc -ne 0 ] && [ $bad = 0 ]; then
		n=$((n + 1))
		echo "not ok $n - $t exited with $rc without reporting a failure"
		tail -20 "$log" | sed 's/^/# /'
	fi
	echo "# $t: $(($(date +%s) - start)) s"
done <"$LIST"
echo "1..$n"
