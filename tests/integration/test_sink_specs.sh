#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# One parser per sink kind: for every spec of the table, what
# `xrxd --check-config` says of "sink = SPEC" is what the sink says when
# it opens SPEC (tests/helpers/sink_open.c: xrx_sink__open(), as the live
# path opens it). Both take it, or both refuse it (the config with exit 2
# and a line naming the file, the sink with EINVAL). Opened in a network
# namespace of their own, so that a TUN/TAP made by an open goes with it.
. "$(dirname "$0")/../lib.sh"

need_root
need_tun
XRXD=$BUILD/xrxd
OPEN=$BUILD/tests/sink_open
need_built "$XRXD" "$OPEN"
W=$(mktemp -d /tmp/xrx-sinkspecs.XXXXXX)
at_exit rm -rf "$W"
LONG=$W/$(printf 'p%.0s' $(seq 300)).pcap

# conf SPEC: y if --check-config takes sink = SPEC, n if it refuses it
# with exit 2 and one line naming the file's line, ? otherwise.
conf() {
	printf 'interface = lo\nsink = %s\n' "$1" >"$W/s.conf"
	"$XRXD" -c "$W/s.conf" --check-config >/dev/null 2>"$W/conf.err"
	case $? in
	0) echo y ;;
	2) grep -q "^$W/s.conf:2: " "$W/conf.err" && echo n || echo "?" ;;
	*) echo "?" ;;
	esac
}

# opens SPEC: y if the sink opens it, n if it refuses the spec.
opens() {
	unshare --net "$OPEN" "$1" 2>"$W/open.err"
	case $? in 0) echo y ;; 2) echo n ;; *) echo "?" ;; esac
}

# The specs: each kind's forms, its options, and the edges of each.
SPECS=(
	null null:x
	"tun:xs$$" "tun:xs$$,gso" "tun:xs$$,nogso" tun:x,bogus
	tun:abcdefghijkl,nogso tun:abcdefghijklmno tun:abcdefghijklmnop
	tun: tun:a/b "tun:a b" tun:. tun:..
	"tap:xs$$" "tap:xs$$,nogso" tap:x,bogus tap:abcdefghijkl,nogso
	tap:a:b
	"pcap:$W/a.pcap" "pcap:$W/a.pcap,size=1M,files=2"
	"pcap:$W/a.pcap,snaplen=64" "pcap:$W/a.pcap,snaplen=10"
	"pcap:$W/a.pcap,files=4" "pcap:$W/a.pcap,count=3"
	"pcap:$W/a.pcap,explain" "pcap:$W/a.pcap,explain=yes"
	"pcap:$LONG"
	nosuchkind:x
)
for spec in "${SPECS[@]}"; do
	a=$(conf "$spec")
	b=$(opens "$spec")
	[ "$a$b" = yy ] || [ "$a$b" = nn ] ||
		{ sed 's/^/# /' "$W/conf.err" "$W/open.err"; }
	check "sink = ${spec:0:60}: --check-config $a, open $b" \
		$([ "$a$b" = yy ] || [ "$a$b" = nn ]; echo $?)
done
done_testing
