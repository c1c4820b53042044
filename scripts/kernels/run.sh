#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The kernel matrix: boot each kernel of tests/kernels/kernels.list under
# QEMU and run the tests of tests/kernels/tests.list inside, against a
# build directory of the host's.
#
#   scripts/kernels/run.sh [--build DIR] [LABEL...]
#       every kernel (or those whose label, or major.minor, is given);
#       "kernel-LABEL: N passed, N failed, N skipped" per kernel and the
#       total as the closing line. Exit 1 on any failure.
#   scripts/kernels/run.sh --tap [--build DIR] LABEL
#       one kernel's TAP on stdout (tests/run.sh runs it so)
#   scripts/kernels/run.sh --name LABEL
#       the entry's name: kernel-6.1, kernel-6.12, kernel-7.3 (the newest
#       as its kernel's major.minor)
#
# DIR defaults to $BUILD or build/; the guest sees the host's / read-only,
# so DIR may be any build of xrx (another checkout's too). Console logs,
# TAP and the guest's work files: DIR/test-logs/kernel-NAME.*. One guest
# after another (XRX_KERNELS_PARALLEL=1: side by side, each on its own
# tap, as tests/run.sh can run them too).
#
# XRX_KERNELS chooses:
#   (unset), all     every kernel; a kernel that cannot boot (no QEMU, a
#                    package that cannot be fetched) is a failure
#   LABEL...         only these kernels (same rule)
#   optional         by hand only: what cannot boot is a SKIP that names
#                    what is missing (ignored when CI is set: CI fails)
#   none             every kernel reported as a SKIP, nothing booted
# XRX_GUEST_ZC_FRAMES: frames of live's zero-copy stream (default 100000;
# `make test-kernels-soak` sends a million)
# XRX_GUEST_TESTS: names of tests/kernels/NAME.sh to run in the guest
# instead of tests/kernels/tests.list's (by hand, to try one test quickly).
# XRX_KERNEL_SECS: time limit of one guest (default 1800 s; tests/run.sh stops an entry at 1860).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$TOP/scripts/kernels
LIST=$TOP/tests/kernels/kernels.list
BUILD=${BUILD:-build}
mode=summary
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$2; shift 2 ;;
	--tap) mode=tap; shift ;;
	--name) mode=name; shift ;;
	-h|--help) sed -n '3,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;;
	-*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
case "$BUILD" in /*) ;; *) BUILD=$(cd "$TOP" && cd "$BUILD" 2>/dev/null && pwd) || {
	echo "run.sh: no build directory ${BUILD}: run make first" >&2; exit 2; } ;; esac

# kernels: "LABEL SUITE NICOPTS" lines, comments dropped.
kernels() { sed 's/#.*//; /^[[:space:]]*$/d' "$LIST"; }
labels() { kernels | awk '{ print $1 }'; }

# cached_name LABEL: kernel-LABEL, the newest by the major.minor of the
# kernel last fetched for its suite.
entry_name() {
	local label=$1 suite kver
	if [ "$label" = newest ]; then
		suite=$(kernels | awk '$1 == "newest" { print $2 }')
		kver=$(cat "${XRX_KERNEL_CACHE:-/var/cache/xrx-kernels}/$suite.kver" 2>/dev/null)
		[ -n "$kver" ] && label=$(echo "$kver" | cut -d. -f1,2)
	fi
	echo "kernel-$label"
}

# xrx_made DIR [ARGS]: xrx-replay's output for every train of DIR, into
# DIR/xrx (tests/tools/gro_oracle.py --xrx-only); nothing where it fails.
xrx_made() {
	local dir=$1
	shift
	[ -d "$dir" ] || return 0
	/usr/bin/python3 "$TOP/tests/tools/gro_oracle.py" --xrx-only \
		--fixtures "$dir" --replay "$BUILD/xrx-replay" "$@" >/dev/null 2>&1 ||
		rm -rf "$dir/xrx"
}

# Which labels: arguments, else XRX_KERNELS's, else all.
want=("$@")
kmode=${XRX_KERNELS:-all}
[ -n "${CI:-}" ] && [ "$kmode" = optional ] && kmode=all
case "$kmode" in
all|optional|none) ;;
*) [ ${#want[@]} = 0 ] && read -ra want <<<"$kmode"; kmode=all ;;
esac
[ ${#want[@]} = 0 ] && read -ra want <<<"$(labels | tr '\n' ' ')"

if [ $mode = name ]; then
	entry_name "${want[0]}"
	exit 0
fi

# One kernel: TAP on stdout.
one_kernel() {
	local label=$1 line suite nicopts kdir kver name out log tap sender boot rc
	line=$(kernels | awk -v l="$label" '$1 == l')
	if [ -z "$line" ]; then
		# A major.minor for the newest kernel: 7.3.
		[ "$(entry_name newest)" = "kernel-$label" ] &&
			line=$(kernels | awk '$1 == "newest"')
	fi
	[ -n "$line" ] || { echo "not ok 1 - no kernel $label in tests/kernels/kernels.list"; return 1; }
	read -r label suite nicopts <<<"$line"
	if [ $kmode = none ]; then
		echo "ok 1 # SKIP kernel $label: XRX_KERNELS=none"
		return 0
	fi
	missing=""
	command -v qemu-system-x86_64 >/dev/null || missing="qemu-system-x86_64 (package qemu-system-x86)"
	if [ -z "$missing" ]; then
		kdir=$("$HERE/fetch.sh" "$suite" 2>"$BUILD/test-logs/fetch-$label.err") ||
			missing="the $suite kernel: $(tail -1 "$BUILD/test-logs/fetch-$label.err")"
	fi
	if [ -n "$missing" ]; then
		if [ $kmode = optional ]; then
			echo "ok 1 # SKIP kernel $label: cannot boot, missing $missing"
			return 0
		fi
		echo "not ok 1 - kernel $label boots (missing $missing; XRX_KERNELS=optional makes this a skip by hand)"
		return 1
	fi
	kver=$(cat "$kdir/kver")
	echo "$kver" >"${XRX_KERNEL_CACHE:-/var/cache/xrx-kernels}/$suite.kver"
	name=$(entry_name "$label")
	echo "# $name: $kver from $suite, virtio-net${nicopts:+ ($nicopts)}"
	log=$BUILD/test-logs/$name
	rm -rf "$log.work"
	mkdir -p "$log.work/req"
	out=$log.work
	# The oracles' trains, and xrx-replay's output for each, made here: a
	# process start takes a quarter second under emulation, a Python
	# start (scapy's above all) seconds. Where they cannot be made, the
	# guest's tests make them (or say why not); an output made with
	# other options than the guest's test uses is made again there.
	/usr/bin/python3 "$TOP/scripts/gen-fixtures.py" "$out/fixtures-gro" \
		>/dev/null 2>&1 || rm -rf "$out/fixtures-gro"
	/usr/bin/python3 "$TOP/tests/tools/geneve_trains.py" "$out/fixtures-geneve" \
		>/dev/null 2>&1 || rm -rf "$out/fixtures-geneve"
	xrx_made "$out/fixtures-gro"
	xrx_made "$out/fixtures-geneve" --geneve-port 6081
	tap=xrxk$BASHPID	# $$ is the same in every side-by-side guest
	# The guest's command: tests/kernels/guest.sh of this tree, TAP in
	# OUT/tap, against BUILD.
	cat >"$out/cmd" <<EOF
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export XRX_GUEST_NIC="$nicopts"
export XRX_GUEST_TESTS="${XRX_GUEST_TESTS:-}"
export XRX_GUEST_ZC_FRAMES="${XRX_GUEST_ZC_FRAMES:-}"
exec "$TOP/tests/kernels/guest.sh" --build "$BUILD" --kroot "$kdir/root" --kver "$kver" \
	--out /run/xrx-guest >/run/xrx-guest/tap 2>/run/xrx-guest/guest.err
EOF
	ip tuntap add dev $tap mode tap multi_queue || {
		echo "not ok 1 - kernel $label: cannot create the tap $tap"; return 1; }
	# The host says nothing on the tap: no IPv6 (no router solicitation,
	# no DAD), no address. Only xrx-send writes to it.
	sysctl -qw net.ipv6.conf.$tap.disable_ipv6=1 2>/dev/null
	# A long queue: the guest under TCG drains the tap slower than
	# xrx-send fills it, and a full queue drops (live's stream).
	ip link set $tap txqueuelen 10000 up
	"$HERE/sender.sh" "$out" "$tap" "$BUILD/xrx-send" &
	sender=$!
	: >"$log.console"
	: >"$log.console.qemu"
	start=$(date +%s)
	# In the background and waited for, so that a TERM (tests/run.sh's
	# time limit, ^C) runs the trap at once: boot.sh's timeout is a
	# process group of its own, which no signal to ours reaches, and
	# it stops QEMU only when told.
	"$HERE/boot.sh" "$kdir" "$out" "$tap" "$nicopts" "$log.console" "${XRX_KERNEL_SECS:-1800}" &
	boot=$!
	trap 'kill -TERM $boot $sender 2>/dev/null; wait $boot; ip link del $tap 2>/dev/null; exit 143' TERM INT
	wait $boot
	rc=$?
	trap - TERM INT
	kill $sender 2>/dev/null
	wait $sender 2>/dev/null
	ip link del $tap 2>/dev/null
	cp "$out/tap" "$log.tap" 2>/dev/null
	[ -s "$out/tap" ] && cat "$out/tap"
	echo "# $name: guest ran $(($(date +%s) - start)) s (console: $log.console)"
	if [ $rc = 124 ]; then
		echo "not ok 9999 - $name: the guest did not finish in ${XRX_KERNEL_SECS:-1800} s"
	elif ! grep -q '^1\.\.' "$out/tap" 2>/dev/null; then
		echo "not ok 9999 - $name: the guest did not complete its tests (QEMU exit $rc)"
		sed 's/^/# /' "$log.console.qemu" | tail -5
		grep -v '^$' "$log.console" | tail -15 | sed 's/^/# console: /'
		sed 's/^/# guest: /' "$out/guest.err" 2>/dev/null | tail -10
	fi
}

count() {
	local f=$1 p s f2 ps
	p=$(grep -cE '^ok [0-9]+' "$f")
	s=$(grep -cE '^(not )?ok [0-9]+.*# SKIP' "$f")
	ps=$(grep -cE '^ok [0-9]+.*# SKIP' "$f")
	f2=$(grep -cE '^not ok [0-9]+' "$f")
	echo $((p - ps)) $((f2 - (s - ps))) $s
}

mkdir -p "$BUILD/test-logs"
if [ $mode = tap ]; then
	one_kernel "${want[0]}"
	exit 0
fi
tp=0 tf=0 ts=0
declare -A out pid
for l in "${want[@]}"; do
	out[$l]=$(mktemp)
	one_kernel "$l" >"${out[$l]}" 2>&1 &
	pid[$l]=$!
	[ -z "${XRX_KERNELS_PARALLEL:-}" ] && wait "${pid[$l]}"
done
trap 'kill "${pid[@]}" 2>/dev/null; exit 130' INT TERM
for l in "${want[@]}"; do
	t=${out[$l]}
	wait "${pid[$l]}"
	read -r p f s <<<"$(count "$t")"
	grep -E '^not ok|# SKIP|^# (console|guest|QEMU)' "$t" | sed 's/^/    /'
	echo "$(entry_name "$l"): $p passed, $f failed, $s skipped"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	rm -f "$t"
done
echo "$tp passed, $tf failed, $ts skipped"
[ $tf = 0 ]
