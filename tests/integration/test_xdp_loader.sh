#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# xrx_rx with the stock xdp-loader, as the README tells operators to use
# it: load in native and skb mode with pinned maps, see it in status and
# in bpftool, count a ping, unload leaving nothing behind. Chaining behind
# another program through libxdp's dispatcher (xrx_rx_chain.bpf.o) runs
# only where the kernel allows freplace; elsewhere it is reported as
# skipped, with the reason.
# XDP_LOADER_MODES: the modes of the single-program part (default
# "native skb"; the kernel matrix's guests ask for none and run the
# compat build and the chaining only: the host runs these two modes).
. "$(dirname "$0")/../lib.sh"
need_root

# The object an operator loads on this kernel (README): the plain build
# where the kernel's BTF has bpf_cast_to_kern_ctx(), else the compat one
# (libbpf refuses the plain build there: the kfunc is not found).
OBJ=$BUILD/xrx_rx.bpf.o
kernel_btf_has bpf_cast_to_kern_ctx || OBJ=$BUILD/xrx_rx_compat.bpf.o
# A pass-everything program of xdp-tools, to chain behind (xdp-filter's).
OTHER=/usr/lib/$(gcc -print-multiarch 2>/dev/null)/bpf/xdpfilt_alw_all.o

if [ ! -r "$OBJ" ]; then
	skip "xdp-loader" "$OBJ missing; run make"
	done_testing
	exit 0
fi
testbed_up || { check "testbed" 1; done_testing; exit 1; }

PIN_ROOT=/sys/fs/bpf/xrx
PIN=$PIN_ROOT/$IF_DUT
made_root=0
if [ ! -d $PIN_ROOT ]; then
	mkdir -p $PIN_ROOT && made_root=1
fi
at_exit "rm -rf $PIN; [ $made_root = 1 ] && rmdir $PIN_ROOT"
at_exit "in_dut xdp-loader unload -a $IF_DUT"

# stat_sum NAME FIELD: a counter (its name in XRX_STATS_TABLE, as bpftool
# prints it from BTF) summed over CPUs, from bpftool's dump: each CPU's
# value has a '"NAME": {' object holding '"FIELD": N'. By awk, not
# Python: the kernel guests' Python start takes seconds.
stat_sum() {
	bpftool map dump pinned $PIN/xrx_stats |
		awk -v n="\"$1\": {" -v f="\"$2\": " '
		index($0, n) { in_n = 1; next }
		in_n && index($0, f) { v = $0; sub(/.*: /, "", v); sub(/,.*/, "", v); s += v; k++ }
		in_n && /}/ { in_n = 0 }
		END { if (k) print s; else exit 1 }'
}

# The id of the XDP program attached to the DUT's interface, whichever
# the mode ("prog/xdp id N", or "prog/xdpgeneric id N" ... with several).
prog_id() {
	in_dut ip -d link show dev $IF_DUT |
		sed -n 's/.*prog\/xdp[a-z]* id \([0-9]*\).*/\1/p' | head -1
}

nothing_left() {
	local id=$1
	[ -z "$(prog_id)" ] || return 1
	[ ! -e $PIN ] || return 1
	[ -z "$id" ] || ! bpftool prog show id "$id" >/dev/null 2>&1
}

for mode in ${XDP_LOADER_MODES-native skb}; do
	out=$(in_dut xdp-loader load -m $mode --pin-path $PIN $IF_DUT "$OBJ" 2>&1)
	check "load in $mode mode" $?
	[ -n "$out" ] && diag "$out"

	status=$(in_dut xdp-loader status $IF_DUT 2>&1)
	echo "$status" | grep -qE "xrx_rx +$mode"
	check "xdp-loader status lists xrx_rx in $mode mode" $?

	for m in xrx_stats xrx_rules xrx_ports xrx_cfg xrx_xsks; do
		[ -e $PIN/$m ] || { diag "no pin $PIN/$m"; false; }
	done
	check "maps pinned under $PIN ($mode)" $?

	# Nobody filled xrx_ports: every entry sends its frames to the trie,
	# which bpftool names from BTF (port 5001 here).
	ports=$(bpftool map lookup pinned $PIN/xrx_ports key 0x89 0x13 0 0 2>&1)
	echo "$ports" | grep -q '"tcp": "XRX_PORT_LPM"' &&
		echo "$ports" | grep -q '"vxlan_udp": "XRX_PORT_LPM"'
	rc=$?
	[ $rc = 0 ] || diag "$ports"
	check "bpftool names xrx_ports' verdicts: an unfilled table asks the trie ($mode)" $rc

	dump=$(bpftool map dump pinned $PIN/xrx_stats 2>&1)
	for f in '"rx": ' '"redirect": ' '"pass_not_l4": ' '"packets": ' '"bytes": '; do
		echo "$dump" | grep -q "$f" || { diag "bpftool dump lacks $f"; false; }
	done
	check "bpftool shows xrx_stats' named fields ($mode)" $?

	rx0=$(stat_sum rx packets)
	nr0=$(stat_sum pass_not_l4 packets)
	in_src ping -c 3 -i 0.2 -W 2 $IP4_DUT >/dev/null 2>&1
	check "ping crosses xrx_rx ($mode)" $?
	rx=$(stat_sum rx packets)
	nr=$(stat_sum pass_not_l4 packets)
	diag "$mode: rx $rx0 -> $rx, pass_not_l4 $nr0 -> $nr"
	[ "${rx:-0}" -ge $((rx0 + 3)) ] && [ "${nr:-0}" -ge $((nr0 + 3)) ]
	check "rx and pass_not_l4 counted the echo requests ($mode)" $?

	id=$(prog_id)
	check "ip link shows the program attached (id ${id:-none}, $mode)" $([ -n "$id" ]; echo $?)
	in_dut xdp-loader unload -a $IF_DUT
	check "unload ($mode)" $?
	rm -rf $PIN
	wait_for 5 nothing_left "$id"
	check "no program, no pin left after unload ($mode)" $?
done

# Can libxdp attach its dispatcher here at all? Tried with two of
# xdp-tools' own pass-by-default programs (xdp-filter's), so a refusal is
# libxdp's and the kernel's, not xrx_rx's. Sets DISPATCHER_WHY.
dispatcher_broken() {	# MODE
	local o other2=${OTHER%_all.o}_eth.o
	[ -r "$OTHER" ] && [ -r "$other2" ] || return 1
	o=$(in_dut xdp-loader load -m "$1" --pin-path $PIN $IF_DUT "$OTHER" "$other2" 2>&1)
	in_dut xdp-loader unload -a $IF_DUT >/dev/null 2>&1
	rm -rf $PIN
	echo "$o" | grep -q "Couldn't attach XDP program" || return 1
	DISPATCHER_WHY=$(echo "$o" | grep -m1 "Couldn't attach XDP program")
}

# The kernel's refusal of an extension that changes packet data in place
# of a dispatcher slot that does not (Linux 6.13+, Debian's 6.12): libxdp
# before xdp-tools 1.5.5 has such slots, and xrx_rx writes xrx_meta with
# bpf_xdp_adjust_meta().
PKT_DATA="Extension program changes packet data"

# The compat build (kernels without bpf_cast_to_kern_ctx()) loads the same
# way and counts the same. Where the kernel refuses it behind libxdp's
# dispatcher (PKT_DATA), the refusal must be that one, and it loads alone
# with LIBXDP_SKIP_DISPATCHER=1 (docs/limits.md).
COMPAT=$BUILD/xrx_rx_compat.bpf.o
out=$(in_dut xdp-loader load -vv -m native --pin-path $PIN $IF_DUT "$COMPAT" 2>&1)
rc=$?
how=""
if [ $rc != 0 ] && echo "$out" | grep -q "$PKT_DATA"; then
	diag "behind libxdp's dispatcher: $(echo "$out" | grep -m1 "$PKT_DATA")"
	in_dut xdp-loader unload -a $IF_DUT >/dev/null 2>&1
	rm -rf $PIN
	out=$(in_dut env LIBXDP_SKIP_DISPATCHER=1 xdp-loader load -m native --pin-path $PIN $IF_DUT "$COMPAT" 2>&1)
	rc=$?
	how=" alone (LIBXDP_SKIP_DISPATCHER=1: this kernel refuses it behind libxdp's dispatcher)"
fi
[ $rc = 0 ] || echo "$out" | grep -vE '^ *libbpf: (elf|sec|map|prog .*relo)' | tail -8 | sed 's/^/# /'
check "load $(basename "$COMPAT") in native mode$how" $rc
in_dut xdp-loader status $IF_DUT 2>&1 | grep -qE "xrx_rx +native|=> +10 +xrx_rx"
check "xdp-loader status lists it as xrx_rx" $?
rx0=$(stat_sum rx packets)
in_src ping -c 3 -i 0.2 -W 2 $IP4_DUT >/dev/null 2>&1
check "ping crosses the compat build" $?
[ "$(stat_sum rx packets)" -ge $((rx0 + 3)) ]
check "its xrx_stats counted the echo requests" $?
id=$(prog_id)
check "ip link shows the compat build attached (id ${id:-none})" $([ -n "$id" ]; echo $?)
in_dut xdp-loader unload -a $IF_DUT >/dev/null 2>&1
rm -rf $PIN
wait_for 5 nothing_left "$id"
check "no program, no pin left after unloading the compat build" $?

# Chaining: xrx_rx (priority 10) ahead of another program in one
# dispatcher. xrx_rx_chain.bpf.o is the build without xrx_meta, which no
# kernel refuses there (bpf/xrx_rx.bpf.c); it must chain wherever libxdp's
# dispatcher works at all.
CHAIN=$BUILD/xrx_rx_chain.bpf.o
out=$(in_dut xdp-loader load -v -m skb --pin-path $PIN $IF_DUT "$CHAIN" "$OTHER" 2>&1)
rc=$?
if echo "$out" | grep -q "Compatibility check for dispatcher program failed"; then
	why=$(echo "$out" | grep -m1 "Compatibility check" | sed 's/.*failed: //')
	skip "chained behind libxdp's dispatcher" \
		"the kernel refuses freplace (BPF_PROG_TYPE_EXT) here: $why"
elif [ ! -r "$OTHER" ]; then
	skip "chained behind libxdp's dispatcher" "$OTHER not installed (xdp-tools)"
elif [ $rc != 0 ] &&
	{ in_dut xdp-loader unload -a $IF_DUT >/dev/null 2>&1; rm -rf $PIN; dispatcher_broken skb; }; then
	echo "$out" | tail -3 | sed 's/^/# /'
	skip "chained behind libxdp's dispatcher" \
		"libxdp cannot attach its dispatcher on this kernel ($(uname -r)) even for two of xdp-tools' own programs: $DISPATCHER_WHY"
else
	[ $rc = 0 ] || echo "$out" | grep -vE '^ *libbpf: (elf|sec|map|prog .*relo)' | tail -8 | sed 's/^/# /'
	check "load xrx_rx_chain and a second program through the dispatcher" $rc
	status=$(in_dut xdp-loader status $IF_DUT 2>&1)
	diag "$status"
	echo "$status" | grep -q "xdp_dispatcher" &&
		echo "$status" | grep -qE "=> +10 +xrx_rx"
	check "status shows the dispatcher with xrx_rx at priority 10" $?
	rx0=$(stat_sum rx packets)
	in_src ping -c 2 -i 0.2 -W 2 $IP4_DUT >/dev/null 2>&1
	check "ping crosses the chain" $?
	[ "$(stat_sum rx packets)" -ge $((rx0 + 2)) ]
	check "xrx_rx counts inside the chain" $?
fi
in_dut xdp-loader unload -a $IF_DUT >/dev/null 2>&1
rm -rf $PIN
wait_for 5 nothing_left ""
check "nothing left after the chaining case" $?

done_testing
