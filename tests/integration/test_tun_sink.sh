#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The TUN sink on its own: engine-built aggregates, from frames built in
# memory, go into a namespace's kernel stack through "tun:DEV" and reach
# real sockets there (tests/helpers/tun_inject.c).
#   - UDP GSO aggregates (USO) to a UDP socket, IPv4 and IPv6;
#   - a TCP connection: SYN in, SYN-ACK read back from the TUN, then the
#     ACK and a segment train as one GSO packet, IPv4 and IPv6;
#   - the same with GSO off (",nogso"): the aggregates written as their
#     segments give the same bytes;
#   - BIG TCP: IPv4 aggregates above 64 KiB written whole (Linux 6.3+);
#     IPv6 ones whole with the hop-by-hop jumbo option the sink inserts
#     (before Linux 7.0, tun_ipv6_jumbo auto), whole as the engine built
#     them in that form (and cut, with GSO off, into segments without
#     it), or cut into GSO pieces of <= 64 KiB (split);
#     without the option (zero) 6.x drops them (Ip6InHdrErrors);
#   - the kernel's own counters: datagrams/segments in, no checksum or
#     receive errors.
. "$(dirname "$0")/../lib.sh"
need_root

INJ=$BUILD/tests/tun_inject
NS=xrx-tun-$$
TUN=xt$$
if [ ! -x "$INJ" ]; then
	skip "tun sink" "$INJ not built (make)"
	done_testing
	exit 0
fi
if [ ! -c /dev/net/tun ]; then
	skip "tun sink" "no /dev/net/tun (modprobe tun)"
	done_testing
	exit 0
fi

ip netns add $NS || exit 1
at_exit ip netns del $NS
in_ns() { nsenter --net=/run/netns/$NS "$@"; }
in_ns ip link set lo up
# A persistent TUN the sink attaches to, with the local addresses; the
# peer (198.18.1.1, 2001:db8:1::1) is reached through it.
in_ns ip tuntap add dev $TUN mode tun vnet_hdr || exit 1
in_ns ip addr add 198.18.1.2/24 dev $TUN
in_ns ip -6 addr add 2001:db8:1::2/64 dev $TUN nodad
in_ns ip link set $TUN up

# counter NAME: the namespace's value of one nstat counter (0 if absent)
counter() { in_ns nstat -az "$1" 2>/dev/null | awk -v n="$1" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }'; }
# field NAME LINE: the value after NAME in a "result ..." line
field() { echo "$2" | awk -v n="$1" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }'; }

kernel_at_least() {
	local r=$(uname -r) ma mi
	ma=${r%%.*}; mi=${r#*.}; mi=${mi%%.*}
	[ "$ma" -gt "$1" ] || { [ "$ma" = "$1" ] && [ "$mi" -ge "$2" ]; }
}

LAST=
inject() {
	LAST=$(in_ns timeout 30 "$INJ" -d $TUN "$@" 2>&1)
	local rc=$?
	echo "$LAST" | sed 's/^/# /'
	return $rc
}
LAST_LINE() { echo "$LAST" | grep '^result'; }

for fam in 4 6; do
	u=Udp; [ $fam = 6 ] && u=Udp6
	in0=$(counter ${u}InDatagrams)
	ok "UDPv$fam: 100 datagrams as USO aggregates reach a socket intact" \
		inject -f $fam -p udp -n 100 -s 1000
	r=$(LAST_LINE)
	check "UDPv$fam: written as GSO packets ($(field gso_writes "$r") writes for 100 datagrams)" \
		"$([ "$(field gso_writes "$r")" -ge 2 ] && [ "$(field gso_writes "$r")" -le 4 ] && [ "$(field plain_writes "$r")" = 0 ]; echo $?)"
	in1=$(counter ${u}InDatagrams)
	check "UDPv$fam: kernel counted 100 datagrams in ($((in1 - in0)))" \
		"$([ $((in1 - in0)) = 100 ]; echo $?)"

	ok "UDPv$fam, GSO off: the segments give the same datagrams" \
		inject -f $fam -p udp -n 100 -s 1000 -g nogso
	r=$(LAST_LINE)
	check "UDPv$fam, GSO off: 100 plain writes, no GSO" \
		"$([ "$(field plain_writes "$r")" = 100 ] && [ "$(field gso_writes "$r")" = 0 ]; echo $?)"

	ok "TCPv$fam: handshake through the TUN, 40 x 1448 B as one GSO aggregate, bytes intact" \
		inject -f $fam -p tcp -n 40 -s 1448 -P $((6000 + fam))
	r=$(LAST_LINE)
	check "TCPv$fam: one GSO write carried the 40 segments" \
		"$([ "$(field gso_writes "$r")" = 1 ] && [ "$(field aggs "$r")" = 1 ]; echo $?)"

	ok "TCPv$fam, GSO off: the same stream as 40 segments" \
		inject -f $fam -p tcp -n 40 -s 1448 -g nogso -P $((6010 + fam))
	r=$(LAST_LINE)
	check "TCPv$fam, GSO off: no GSO write, 40 segments + SYN + ACK" \
		"$([ "$(field gso_writes "$r")" = 0 ] && [ "$(field plain_writes "$r")" = 42 ]; echo $?)"

	if [ $fam = 6 ]; then
		form=hbh; kernel_at_least 7 0 && form=zero
		ok "TCPv6 BIG TCP: 300 x 1448 B as one 424 KiB aggregate, tun_ipv6_jumbo auto ($form here), bytes intact" \
			inject -f 6 -p tcp -n 300 -s 1448 -A 524280 -P 6030
		r=$(LAST_LINE)
		jw=1; [ $form = zero ] && jw=0
		check "TCPv6 BIG TCP: one GSO write, $jw with the jumbo option inserted, not split" \
			"$([ "$(field ipv6_jumbo "$r")" = $form ] && [ "$(field gso_writes "$r")" = 1 ] && [ "$(field jumbo_writes "$r")" = $jw ] && [ "$(field split_big "$r")" = 0 ]; echo $?)"
		if [ $form = hbh ]; then
			# Why: the same aggregate without the option is taken by
			# the TUN write and then dropped by the IPv6 input.
			e0=$(counter Ip6InHdrErrors)
			inject -f 6 -p tcp -n 300 -s 1448 -A 524280 -j zero -t 2 -P 6032
			zrc=$?
			r=$(LAST_LINE)
			e1=$(counter Ip6InHdrErrors)
			check "TCPv6 BIG TCP without the option (zero): written, but no byte reaches the socket on this kernel (Ip6InHdrErrors +$((e1 - e0)))" \
				"$([ $zrc != 0 ] && [ "$(field bytes "$r")" = 0 ] && [ "$(field gso_writes "$r")" = 1 ] && [ $((e1 - e0)) -ge 1 ]; echo $?)"
		fi
		ok "TCPv6 BIG TCP, the engine's jumbo form (ipv6_jumbo hbh) written as it is, bytes intact" \
			inject -f 6 -p tcp -n 300 -s 1448 -A 524280 -e hbh -j $form -P 6031
		r=$(LAST_LINE)
		check "TCPv6 BIG TCP, engine form: one GSO write, nothing inserted" \
			"$([ "$(field gso_writes "$r")" = 1 ] && [ "$(field jumbo_writes "$r")" = 0 ] && [ "$(field split_big "$r")" = 0 ]; echo $?)"
		# Cut (GSO off): each segment loses the option, as
		# ipv6_gso_segment() takes it out; it used to be kept with a
		# non-zero payload_len, which the IPv6 input refuses.
		ok "TCPv6 BIG TCP, the engine's jumbo form with GSO off: cut into its 300 segments, bytes intact" \
			inject -f 6 -p tcp -n 300 -s 1448 -A 524280 -e hbh -g nogso -P 6033
		r=$(LAST_LINE)
		check "TCPv6 BIG TCP, engine form, GSO off: 300 segments + SYN + ACK written, none GSO" \
			"$([ "$(field gso_writes "$r")" = 0 ] && [ "$(field plain_writes "$r")" = 302 ]; echo $?)"
	fi
	if [ $fam = 6 ] || ! kernel_at_least 6 3; then
		j=; [ $fam = 6 ] && j="-j split"
		ok "TCPv$fam BIG TCP: 90 x 1448 B aggregated to 128 KiB, cut into <= 64 KiB GSO pieces${j:+ (split)}" \
			inject -f $fam -p tcp -n 90 -s 1448 -A 131072 $j -P $((6020 + fam))
		r=$(LAST_LINE)
		check "TCPv$fam BIG TCP: split for size, written as GSO pieces ($(field gso_writes "$r"))" \
			"$([ "$(field split_big "$r")" -ge 1 ] && [ "$(field gso_writes "$r")" -ge 2 ]; echo $?)"
	else
		ok "TCPv$fam BIG TCP: 300 x 1448 B as one 424 KiB aggregate (tot_len 0), bytes intact" \
			inject -f $fam -p tcp -n 300 -s 1448 -A 524280 -P $((6020 + fam))
		r=$(LAST_LINE)
		check "TCPv$fam BIG TCP: one GSO write, not split" \
			"$([ "$(field split_big "$r")" = 0 ] && [ "$(field gso_writes "$r")" = 1 ]; echo $?)"
	fi
done

bad=0
for c in UdpInCsumErrors Udp6InCsumErrors TcpInCsumErrors UdpRcvbufErrors \
	 Udp6RcvbufErrors TcpInErrs; do
	v=$(counter $c)
	[ "$v" = 0 ] || { diag "$c = $v"; bad=1; }
done
check "kernel counters: no checksum, buffer or TCP input errors" $bad
tx=$(in_ns ip -s -j link show $TUN | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["errors"])' 2>/dev/null)
check "TUN device: no rx errors (frames the kernel refused: ${tx:-?})" \
	"$([ "${tx:-1}" = 0 ]; echo $?)"

done_testing
