# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Shared by the tests that run xrxd and xrxctl (after tests/lib.sh):
#
#   xrxd_need [bpffs]     skip the whole test unless root and both programs
#                         are built (and, with "bpffs", bpffs is mounted)
#   xrxd_work NAME        $WORK (/tmp/xrx-NAME.*) with private copies of the
#                         programs, $XRXD and $XRXCTL (a rebuild during the
#                         run must not pull them away); $STATE, $SF (the
#                         state file), $PIN (the pins); all removed on exit
#   xrxctl ARGS...        $XRXCTL --state-dir $STATE ARGS in the DUT
#   snapshot FILE         the DUT's NIC settings: ethtool -k/-l/-g, ip -d
#                         link, and what snapshot_more prints if the test
#                         defines it
#   same A B              A and B identical; the diff as TAP comments if not
#   xrxd_up               start xrxd -v on $WORK/xrx.conf in the DUT ($pid,
#                         stderr in $WORK/xrxd.err, killed on exit) and
#                         wait until it publishes its counters; its log as
#                         TAP comments and status 1 if it does not
#   stats_settled FILE    wait (bounded) for xrxd to refresh xrx_ustats
#                         after this call with every frame accounted for
#                         (unaccounted 0), and keep that `xrxctl stats
#                         --json` record in FILE: counters of the traffic
#                         before the call, not of an older refresh
#   prog_id               the id of the DUT's XDP program, empty if none
#   port_verdict PORT COL xrx_ports' verdict for PORT in column COL (tcp,
#                         udp, vxlan_tcp, vxlan_udp), as bpftool names it
#   lock_file [IFACE]     the instance lock of the DUT's interface: in
#                         /run/xrx whatever --state-dir says, named after
#                         the DUT namespace and the interface's ifindex
#   veth_no_native NAME   a veth NAME in the DUT (up, removed on exit) whose
#                         peer has more TX queues than NAME has RX queues,
#                         so that veth refuses native XDP on NAME
#   xdp_pass_attach [overwrite]  attach a map-less XDP_PASS program to the
#                         DUT (someone else's program), with "overwrite" in
#                         place of the one there; why not in $WORK/err
#   unaccounted_zero [LABEL [CMD...]]  one case: every frame xrxd took is
#                         accounted for (unaccounted 0 once in-flight
#                         frames settle); CMD prints the value (default:
#                         xrxctl stats' user.unaccounted); the counters as
#                         comments if not
#   notify_listen SECS    collect sd_notify datagrams sent to
#                         $WORK/notify.sock in $WORK/notify.log, one line
#                         each, for at most SECS or until STOPPING=1
#   redirected LABEL      one case: 320 TCP frames from the source to port
#                         5201 (xrx-send, $MAC) are redirected by xrx_rx
#   xrxd_notified SECS    start xrxd in the DUT on $WORK/xrx.conf, its log in
#                         $WORK/xrxd.err, its sd_notify datagrams collected
#                         for SECS (notify_listen); $pid; waits for READY=1
#   xrxd_tun_testbed NAME the start of the tests that stream TCP
#                         (tests/helpers/tcp_hash) through xrxd's TUN sink:
#                         skip unless xrxd_need bpffs, tcp_hash and
#                         /dev/net/tun allow it; the testbed, xrxd_work
#                         NAME, and a TUN $TUN (xtPID) up in the DUT;
#                         exits with a failed case if either cannot be made
#   xrxd_send_testbed NAME [ARG...]  after the test's needs, the start of
#                         the tests that send to xrxd with xrx-send: the
#                         testbed (ARGs to testbed_up), xrxd_work NAME,
#                         $MAC the DUT's, the source's TX checksum off, and
#                         $WORK/xrx.conf accelerating tcp/5201 with a 1 ms
#                         flush timeout

xrxd_need() {
	need_root
	need_built "$BUILD/xrxd" "$BUILD/xrxctl"
	[ "${1:-}" != bpffs ] || need_bpffs
}

xrxd_work() {
	WORK=$(mktemp -d /tmp/xrx-$1.XXXXXX)
	at_exit rm -rf "$WORK"
	cp "$BUILD/xrxd" "$BUILD/xrxctl" "$WORK/"
	XRXD=$WORK/xrxd
	XRXCTL=$WORK/xrxctl
	STATE=$WORK/state
	SF=$STATE/$IF_DUT.state
	PIN=/sys/fs/bpf/xrx/$IF_DUT
	at_exit rm -rf "$PIN"
}

xrxd_tun_testbed() {
	xrxd_need bpffs
	need_built "$BUILD/tests/tcp_hash"
	need_tun
	TUN=xt$$
	testbed_up || { check "testbed" 1; done_testing; exit 1; }
	xrxd_work "$1"
	dut_tun $TUN || { check "TUN $TUN in the DUT" 1; done_testing; exit 1; }
}

xrxd_send_testbed() {
	local name=$1

	shift
	testbed_up "$@" || { echo "not ok 1 - testbed"; exit 1; }
	xrxd_work "$name"
	MAC=$(dut_mac)
	in_src ethtool -K $IF_SRC tx off >/dev/null
	cat >"$WORK/xrx.conf" <<EOF
interface = $IF_DUT
accelerate = tcp/5201
flush_timeout_us = 1000
EOF
}

xrxctl() { in_dut "$XRXCTL" --state-dir "$STATE" "$@"; }

# jpath FILE PATH: a field of a JSON document by dotted path; FILE "-"
# reads the first line of stdin (one xrxctl stats --json record).
# A file's leaves are read once, by awk (_jpath_flatten), into
# FILE.leaves, and looked up there while FILE holds the same bytes (its
# checksum and size, the leaves' first line; a time stamp would not do:
# the kernel's is coarser than two quick writes): a Python start takes
# seconds in the kernel guests, an awk a quarter of one. What is not a
# leaf there (an object, a float, an escaped string, anything in an
# array) is read from FILE itself, by Python.
jpath() {
	local leaves=$1.leaves sum first=
	if [ "$1" != - ] && [ -f "$1" ] && sum=$(cksum <"$1"); then
		[ -f "$leaves" ] && read -r first <"$leaves"
		if [ "$first" != "#$sum" ]; then
			if { echo "#$sum" && _jpath_flatten "$1"; } >"$leaves.tmp"; then
				mv -f "$leaves.tmp" "$leaves"
			else
				rm -f "$leaves.tmp"
			fi
		fi
		_jpath_leaf "$leaves" "#$sum" "$2" && return 0
	fi
	"$PY" -c '
import json, sys
f = sys.argv[1]
v = json.loads(sys.stdin.readline()) if f == "-" else json.load(open(f))
for k in sys.argv[2].split("."):
    v = v[k]
print(v)' "$1" "$2"
}

# _jpath_leaf LEAVES SUM PATH: PATH's value from LEAVES; status 1: no
# such leaf, 2: LEAVES absent or of other bytes than SUM.
_jpath_leaf() {
	awk -F '\t' -v sum="$2" -v k="$3" '
		NR == 1 { if ($0 != sum) { stale = 1; exit } next }
		$1 == k { print $2; f = 1; exit }
		END { exit stale || NR == 0 ? 2 : !f }' "$1" 2>/dev/null
}

# Every leaf of a JSON file as "PATH<TAB>VALUE", as jpath prints VALUE:
# by awk, as Python's str() would print it, for the leaves whose text is
# the same either way (integers, strings without escapes, true, false,
# null); a float, an escaped string or anything in an array is left out
# (jpath reads it with Python). Not JSON: status 1, no leaves.
_jpath_flatten() {
	awk '
	{ s = s $0 "\n" }
	function leaf(v) {
		if (inarr || d == 0 || t[d] != "o")
			return
		p = k[1]
		for (x = 2; x <= d; x++)
			p = p "." k[x]
		if (p !~ /\t/)
			out = out p "\t" v "\n"
	}
	END {
		n = length(s); d = 0; inarr = 0; out = ""
		for (i = 1; i <= n; ) {
			c = substr(s, i, 1)
			if (c ~ /[ \t\r\n,:]/) {
				if (c == ":") w[d] = "v"
				else if (c == "," && t[d] == "o") w[d] = "k"
				i++
			} else if (c == "{" || c == "[") {
				d++; t[d] = c == "{" ? "o" : "a"; w[d] = "k"
				if (c == "[") inarr++
				i++
			} else if (c == "}" || c == "]") {
				if (d == 0 || t[d] != (c == "}" ? "o" : "a")) exit 1
				if (c == "]") inarr--
				d--; i++
			} else if (c == "\"") {
				esc = 0
				for (j = i + 1; j <= n; j++) {
					c = substr(s, j, 1)
					if (c == "\\") { esc = 1; j++ }
					else if (c == "\"") break
				}
				if (j > n) exit 1
				v = substr(s, i + 1, j - i - 1); i = j + 1
				if (t[d] == "o" && w[d] == "k") k[d] = esc ? "\t" : v
				else if (!esc && v !~ /\t/) leaf(v)
			} else if (match(substr(s, i), /^-?[0-9]+([.eE][-+0-9.eE]*)?/)) {
				v = substr(s, i, RLENGTH); i += RLENGTH
				if (v !~ /[.eE]/) leaf(v == "-0" ? "0" : v)
			} else if (substr(s, i, 4) == "true") { leaf("True"); i += 4 }
			else if (substr(s, i, 5) == "false") { leaf("False"); i += 5 }
			else if (substr(s, i, 4) == "null") { leaf("None"); i += 4 }
			else exit 1
		}
		if (d != 0 || out == "") exit 1
		printf "%s", out
	}' "$1"
}

# A field of `xrxctl stats IF_DUT --json`, by path: jget user.engine.frames_in
jget() { xrxctl stats $IF_DUT --json | jpath - "$1"; }

# Not jget: some tests define their own.
_unaccounted() { xrxctl stats $IF_DUT --json | jpath - user.unaccounted; }
_unaccounted_is_0() { [ "$("${_unaccounted_cmd[@]}")" = 0 ]; }
unaccounted_zero() {
	local label=${1:-} u
	if [ $# -ge 2 ]; then
		shift
		_unaccounted_cmd=("$@")
	else
		_unaccounted_cmd=(_unaccounted)
	fi
	wait_for 10 _unaccounted_is_0
	u=$("${_unaccounted_cmd[@]}")
	[ "$u" = 0 ] || [ "${_unaccounted_cmd[0]}" != _unaccounted ] ||
		xrxctl stats $IF_DUT | sed "s/^/# /"
	check "${label:+$label: }every frame accounted for (unaccounted ${u:-unknown})" \
		$([ "$u" = 0 ]; echo $?)
}

# port_verdict PORT COLUMN: xrx_ports' verdict for destination PORT in
# COLUMN (tcp, udp, vxlan_tcp, vxlan_udp) as bpftool names it from BTF:
# XRX_PORT_ACCEL, XRX_PORT_DEFAULT, ...
port_verdict() {
	bpftool -j map lookup pinned "$PIN/xrx_ports" key \
		$(($1 & 255)) $(($1 >> 8)) 0 0 | "$PY" -c '
import json, sys
print(json.load(sys.stdin)["formatted"]["value"][sys.argv[1]])' "$2"
}

# The flow hash key in PINDIR/xrx_cfg, as "K0 K1" ("0 0": none chosen).
cfg_key() {
	bpftool map dump pinned "$1/xrx_cfg" -j 2>/dev/null | "$PY" -c '
import json, sys
e = json.load(sys.stdin)[0]
print(*e.get("formatted", e)["value"]["hash_key"]["k"])'
}

snapshot() {
	{
		in_dut ethtool -k $IF_DUT
		in_dut ethtool -l $IF_DUT
		in_dut ethtool -g $IF_DUT 2>&1
		in_dut ip -d link show $IF_DUT
		! declare -F snapshot_more >/dev/null || snapshot_more
	} >"$1" 2>&1
}

same() { cmp -s "$1" "$2" || { diff "$1" "$2" | sed 's/^/# /'; return 1; }; }

xrxd_up() {
	bg_dut "$XRXD" -v --state-dir "$STATE" -c "$WORK/xrx.conf" 2>"$WORK/xrxd.err"
	pid=$!
	at_exit kill -KILL $pid
	wait_xrxd $pid eval 'xrxctl stats $IF_DUT --json 2>/dev/null | grep -q "\"pid\":$pid,"' ||
		{ sed 's/^/# /' "$WORK/xrxd.err"; return 1; }
}

stats_settled() {
	local _ss_file=$1 _ss_since
	_ss_since=$(date +%s%N)	# updated_ns is CLOCK_REALTIME too
	wait_for 10 eval 'xrxctl stats $IF_DUT --json >"$_ss_file" 2>/dev/null &&
		[ "$(jpath "$_ss_file" user.updated_ns)" -gt $_ss_since ] &&
		[ "$(jpath "$_ss_file" user.unaccounted)" = 0 ]'
}

prog_id() {
	in_dut ip -d link show $IF_DUT |
		sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1
}

lock_file() {
	local idx
	idx=$(in_dut ip -o link show "${1:-$IF_DUT}" | cut -d: -f1)
	echo "/run/xrx/net$(stat -L -c %i /run/netns/$NS_DUT)-$idx.lock"
}

veth_no_native() {
	in_dut ip link add $1 numrxqueues 1 numtxqueues 1 type veth peer name $1p \
		numrxqueues 2 numtxqueues 2 || return 1
	at_exit in_dut ip link del $1
	in_dut ip link set $1 up
	in_dut ip link set $1p up
}

xdp_pass_attach() {
	cat >"$WORK/pass.bpf.c" <<'EOF'
#include <linux/bpf.h>
__attribute__((section("xdp"), used)) int xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}
char _license[] __attribute__((section("license"), used)) = "GPL";
EOF
	# bpftool, not "ip link set xdp obj": iproute2 would leave its
	# /sys/fs/bpf/{ip,tc,xdp} directories behind. The pin only bridges
	# load and attach; the attachment keeps the program alive.
	local pin=/sys/fs/bpf/xrx-test-pass-$$ rc
	clang -target bpf -O2 -I/usr/include/$(gcc -print-multiarch) \
		-c "$WORK/pass.bpf.c" -o "$WORK/pass.bpf.o" 2>"$WORK/err" &&
	bpftool prog load "$WORK/pass.bpf.o" $pin type xdp 2>"$WORK/err" &&
	in_dut bpftool net attach xdp pinned $pin dev $IF_DUT ${1:-} 2>"$WORK/err"
	rc=$?
	rm -f $pin
	[ $rc = 0 ] || return 1
	at_exit in_dut ip link set dev $IF_DUT xdp off
}

notify_listen() {
	"$PY" - "$WORK/notify.sock" "$WORK/notify.log" "$1" <<'PYEOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(0.2)
end = time.time() + float(sys.argv[3])
with open(sys.argv[2], "w") as log:
    while time.time() < end:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            continue
        for line in msg.split("\n"):
            log.write(line + "\n")
        log.flush()
        if "STOPPING=1" in msg:
            break
PYEOF
	at_exit kill $!
	wait_for 5 test -S "$WORK/notify.sock"
}

xrxd_notified() {
	notify_listen "$1"
	NOTIFY_SOCKET=$WORK/notify.sock \
		nsenter --net=/run/netns/$NS_DUT "$XRXD" --state-dir "$STATE" \
		-c "$WORK/xrx.conf" 2>"$WORK/xrxd.err" &
	pid=$!
	at_exit kill -KILL $pid
	wait_xrxd $pid grep -qx READY=1 "$WORK/notify.log"
}

redirected() {
	local red0
	red0=$(jget kernel.redirect.packets)
	in_src "$BUILD/xrx-send" -i $IF_SRC --dmac $MAC --dport 5201 --flows 4 \
		--segs 8 --trains 10 -c 320 >/dev/null 2>&1
	wait_for 10 eval '[ "$(jget kernel.redirect.packets)" -ge $((red0 + 320)) ]'
	check "$1: 320 frames redirected by xrx_rx" \
		$([ "$(jget kernel.redirect.packets)" -ge $((red0 + 320)) ]; echo $?)
}
