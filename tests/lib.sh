# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared by tests/integration/test_*.sh: TAP output, a two-namespace veth
# testbed with cleanup on any exit, and bounded waiting.
#
#   . "$(dirname "$0")/../lib.sh"
#   testbed_up            # namespaces $NS_SRC/$NS_DUT, veth $IF_SRC <-> $IF_DUT
#   ok "name" CMD...      # run CMD, report ok/not ok
#   skip "name" "why"     # report a skip with its reason
#   skip_all "why"        # skip the whole test (also need_root,
#                         # need_built FILE..., need_bpffs)
#   replay_need           # $R (xrx-replay) and $X (xrxpcap.py), or fail
#   tc_egress SRC.c [MAPDIR]  # a tc BPF program on $IF_SRC's egress
#   done_testing          # print the plan, exit 1 on any failure
#
# Addresses: 198.18.0.1/24 + 2001:db8::1/64 on the source side,
# 198.18.0.2/24 + 2001:db8::2/64 on the DUT. Namespace names carry the
# PID, so a leftover from a killed run never collides with this one.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
PY=/usr/bin/python3

NS_SRC=xrx-src-$$
NS_DUT=xrx-dut-$$
IF_SRC=xs$$
IF_DUT=xd$$
IP4_SRC=198.18.0.1
IP4_DUT=198.18.0.2
IP6_SRC=2001:db8::1
IP6_DUT=2001:db8::2

_tap_n=0
# _tap_secs: _tap_t, seconds since the test began, to the tenth
# (EPOCHREALTIME, no process: under TCG each one costs a quarter second).
_tap_t0=${EPOCHREALTIME/[.,]/}
_tap_secs() {
	local us=$((${EPOCHREALTIME/[.,]/} - _tap_t0))
	printf -v _tap_t '%d.%d' $((us / 1000000)) $((us / 100000 % 10))
}
_tap_fail=0
_cleanups=()

ok() {
	local name=$1
	shift
	_tap_n=$((_tap_n + 1))
	[ -z "${XRX_TAP_TIMES:-}" ] || { _tap_secs; echo "$_tap_t $_tap_n $name (started)" >>"$XRX_TAP_TIMES"; }
	if "$@"; then
		echo "ok $_tap_n - $name"
	else
		echo "not ok $_tap_n - $name"
		_tap_fail=$((_tap_fail + 1))
	fi
}

# check NAME CONDITION-RESULT: report a result computed elsewhere (0 = ok).
check() {
	local name=$1 rc=$2
	_tap_n=$((_tap_n + 1))
	# XRX_TAP_TIMES=FILE: when each check was made, in seconds since
	# the test began (the kernel guests keep one per test).
	[ -z "${XRX_TAP_TIMES:-}" ] || { _tap_secs; echo "$_tap_t $_tap_n $name" >>"$XRX_TAP_TIMES"; }
	if [ "$rc" = 0 ]; then
		echo "ok $_tap_n - $name"
	else
		echo "not ok $_tap_n - $name"
		_tap_fail=$((_tap_fail + 1))
	fi
}

skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n # SKIP $1: $2"
}

diag() { echo "# $*"; }

done_testing() {
	echo "1..$_tap_n"
	[ $_tap_fail -eq 0 ]
}

# at_exit CMD: run CMD (eval'd) on exit, last registered first.
at_exit() { _cleanups=("$*" "${_cleanups[@]}"); }

_run_cleanups() {
	local c
	for c in "${_cleanups[@]}"; do eval "$c" >/dev/null 2>&1; done
}
# Directories that the programs under test create and rightly keep on a
# host (xrxd's pin root, libxdp's lock directory on bpffs, the directory
# of xrxd's instance locks): a test that found them absent removes them
# again once empty.
for _d in /sys/fs/bpf/xrx /sys/fs/bpf/xdp /run/xrx; do
	[ -e $_d ] || at_exit rmdir $_d
done
trap _run_cleanups EXIT
trap 'exit 130' INT TERM

in_src() { nsenter --net=/run/netns/$NS_SRC "$@"; }
in_dut() { nsenter --net=/run/netns/$NS_DUT "$@"; }
# bg_src/bg_dut CMD...: CMD in the background in that namespace, with $!
# its own pid (nsenter execs it in place), so the test can kill it by pid.
# "in_dut CMD &" would fork a subshell: $! would be the subshell's, and
# killing that leaves CMD running.
bg_src() { nsenter --net=/run/netns/$NS_SRC "$@" & }
bg_dut() { nsenter --net=/run/netns/$NS_DUT "$@" & }

# tcp_field KEY FILE: the value after KEY in tcp_hash's output lines.
tcp_field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$2"; }

# tcp_stream OUT DST PORT BYTES: BYTES through TCP with tests/helpers/
# tcp_hash, from the source namespace to DST:PORT in the DUT's (the
# receiver started with its own pid and killed on exit; both bounded in
# time); OUT.send and OUT.recv keep what each side printed, shown as
# diagnostics. Return: 0 if the stream completed with every byte and the
# receiver's hash of it equals the sender's.
tcp_stream() {
	local out=$1 dst=$2 port=$3 bytes=$4 rp src rc
	bg_dut "$BUILD/tests/tcp_hash" recv -b $dst -p $port -t 90 >"$out.recv" 2>&1
	rp=$!
	at_exit kill $rp
	wait_for 10 grep -q ready "$out.recv"
	in_src timeout 100 "$BUILD/tests/tcp_hash" send -a $dst -p $port \
		-n $bytes -t 90 >"$out.send" 2>&1
	src=$?
	wait $rp
	rc=$?
	sed 's/^/# /' "$out.send" "$out.recv"
	[ $src = 0 ] && [ $rc = 0 ] &&
		[ "$(tcp_field bytes "$out.recv" | tail -1)" = "$bytes" ] &&
		[ -n "$(tcp_field hash "$out.send")" ] &&
		[ "$(tcp_field hash "$out.send")" = "$(tcp_field hash "$out.recv" | tail -1)" ]
}

# testbed_up [ip-link-options]: two namespaces joined by a veth pair.
testbed_up() {
	ip netns add $NS_SRC || return 1
	at_exit ip netns del $NS_SRC
	ip netns add $NS_DUT || return 1
	at_exit ip netns del $NS_DUT
	ip link add $IF_SRC netns $NS_SRC "$@" type veth peer name $IF_DUT netns $NS_DUT "$@" || return 1
	in_src ip link set lo up
	in_dut ip link set lo up
	in_src ip addr add $IP4_SRC/24 dev $IF_SRC
	in_dut ip addr add $IP4_DUT/24 dev $IF_DUT
	in_src ip -6 addr add $IP6_SRC/64 dev $IF_SRC nodad
	in_dut ip -6 addr add $IP6_DUT/64 dev $IF_DUT nodad
	in_src ip link set $IF_SRC up
	in_dut ip link set $IF_DUT up
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	local deadline=$(($(date +%s) + $1))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge $deadline ] && return 1
		sleep 0.1
	done
}

# How long xrxd, or any receiver that loads xrx_rx (live_rx, xsk_smoke),
# may take to come up: loading xrx_rx runs the BPF verifier, 8-14 s at
# load 10 on 2 CPUs and more beside a CPU hog. The bound is generous
# because the wait ends as soon as the process is up, or has exited.
XRXD_START_S=${XRXD_START_S:-120}

# wait_xrxd PID CMD...: poll CMD (xrxd's READY=1, its "ready:" line, its
# pid in xrxctl stats; a receiver's "ready") until it succeeds; fail at once when process PID
# has exited, or after XRXD_START_S seconds.
wait_xrxd() {
	local pid=$1 deadline=$(($(date +%s) + XRXD_START_S))
	shift
	until "$@" >/dev/null 2>&1; do
		kill -0 "$pid" 2>/dev/null || return 1
		[ "$(date +%s)" -ge $deadline ] && return 1
		sleep 0.1
	done
}

# skip_all WHY: report the whole test skipped, and exit.
skip_all() {
	skip "$(basename "$0")" "$1"
	done_testing
	exit 0
}

need_root() { [ "$(id -u)" = 0 ] || skip_all "needs root (netns, XDP)"; }
need_tun() { [ -c /dev/net/tun ] || skip_all "no /dev/net/tun (modprobe tun)"; }

# need_built FILE...: skip the whole test unless every FILE is built.
need_built() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || skip_all "$f not built (run make)"
	done
}

# replay_need: $R, xrx-replay, and $X, tests/tools/xrxpcap.py, for the
# tests that replay captures. The build always makes xrx-replay: without
# it, one failed case and the test ends (not a skip).
replay_need() {
	R=$BUILD/xrx-replay
	X="$PY $TOP/tests/tools/xrxpcap.py"
	if [ ! -x "$R" ]; then
		check "xrx-replay is built (make)" 1
		done_testing
		exit
	fi
}

# True when the programs under test were built with SANITIZE=1 (ASan).
built_with_asan() {
	ldd "$BUILD/xrxd" 2>/dev/null | grep -q libasan
}

need_bpffs() {
	mountpoint -q /sys/fs/bpf ||
		skip_all "bpffs not mounted at /sys/fs/bpf (scripts/bpffs.sh mounts it)"
}

# dut_tun NAME: a TUN (without multi_queue) in the DUT for a sink to hand
# the DUT's stack its traffic through, set up as xrx.conf(5)'s TUN sink
# section says: real checksums on the wire (the engine verifies them),
# rp_filter off (the sources are routed through the veth), the link up.
dut_tun() {
	in_src ethtool -K $IF_SRC tx off >/dev/null &&
		in_dut sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 &&
		in_dut ip tuntap add dev "$1" mode tun vnet_hdr &&
		in_dut sysctl -qw net.ipv4.conf."$1".rp_filter=0 &&
		in_dut ip link set "$1" up
}

# The DUT interface's MAC address.
dut_mac() { in_dut ip -br link show $IF_DUT | awk '{ print $3 }'; }

# dut_napi_defaults DEFER TIMEOUT: the DUT device's napi_defer_hard_irqs
# and gro_flush_timeout, which its NAPI instances take, those made later
# too (veth makes them when an XDP program is attached or GRO turns on).
# Through sysfs, so `ip netns exec`: it mounts the namespace's own /sys.
dut_napi_defaults() {
	ip netns exec $NS_DUT sh -c "echo $1 >/sys/class/net/$IF_DUT/napi_defer_hard_irqs &&
		echo $2 >/sys/class/net/$IF_DUT/gro_flush_timeout"
}

# The frames the kernel busy-polled in the DUT's namespace (TcpExt
# BusyPollRxPackets): what tells busy polling from its fallback.
dut_busy_poll_rx() {
	in_dut awk '/^TcpExt:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "BusyPollRxPackets") c = i; h = 1 } else print c ? $c : 0 }' /proc/net/netstat
}

# tc_egress SRC.c [MAPDIR]: build the tc BPF program SRC.c (SEC "tc") with
# clang and attach it to $IF_SRC's egress (clsact, direct action); with
# MAPDIR its maps are pinned there (removed on exit). Return: 0 attached;
# 2 clang cannot build it (a machine without the BPF toolchain: skip);
# 1 loading or attaching failed. The first line of any error in $TC_ERR.
# Loaded by bpftool and attached pinned: "tc ... bpf obj" would leave
# iproute2's /sys/fs/bpf/{ip,tc,xdp} behind. The pin only bridges load and
# attach.
tc_egress() {
	local src=$1 obj=${1%.c}.o pin=/sys/fs/bpf/xrx-test-tc-$$ rc
	TC_ERR=
	if ! clang -target bpf -O2 -g -Wall -I/usr/include/$(gcc -print-multiarch) \
		-c "$src" -o "$obj" 2>"$src.err"; then
		TC_ERR=$(head -1 "$src.err")
		return 2
	fi
	[ -z "${2:-}" ] || at_exit rm -rf "$2"
	bpftool prog load "$obj" $pin type classifier ${2:+pinmaps "$2"} 2>"$src.err" &&
		in_src tc qdisc add dev $IF_SRC clsact 2>>"$src.err" &&
		in_src tc filter add dev $IF_SRC egress bpf da pinned $pin 2>>"$src.err"
	rc=$?
	rm -f $pin
	[ $rc = 0 ] || TC_ERR=$(head -1 "$src.err")
	return $rc
}

# kernel_btf_has NAME: the running kernel's BTF names NAME (a kfunc, which
# libbpf looks up there). A search of the raw bytes: bpftool's dump of all
# of vmlinux's BTF takes a minute and a half in a TCG guest.
kernel_btf_has() { grep -qaw "$1" /sys/kernel/btf/vmlinux 2>/dev/null; }
