#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# One set of bounds per option: where an option can be given in more than
# one way (an xrx.conf key checked by `xrxd --check-config`, an xrx-replay
# flag, or the field of an options struct handed to an engine or a sink),
# every way takes exactly the same values. Each is probed at every bound
# any of them has had, and just past it; numbers 0 are left out for the
# structs, where 0 means the default. No network namespaces needed.
. "$(dirname "$0")/../lib.sh"

XRXD=$BUILD/xrxd
R=$BUILD/xrx-replay
PROBE=$BUILD/tests/opt_probe
for b in "$XRXD" "$R" "$PROBE"; do
	if [ ! -x "$b" ]; then
		check "$(basename "$b") is built (make)" 1
		done_testing
		exit
	fi
done
W=$(mktemp -d /tmp/xrx-optbounds.XXXXXX)
at_exit rm -rf "$W"
NONE=$W/no-such-input.pcap

NUMS="0 1 2 63 64 65 1023 1024 1025 8191 65535 65536 262144 262145 524280
      524281 524792 524793 1000000 1000001 1048576 1048577 16777216 16777217
      4294967295 4294967296"
WORDS="header max-head full headers verify trust none on off"

# conf LINE: y if xrxd --check-config takes a file with LINE, n if it
# refuses it with exit 2 and one line naming the file, ? otherwise.
conf() {
	printf 'interface = lo\n%s\n' "$1" >"$W/p.conf"
	"$XRXD" -c "$W/p.conf" --check-config >/dev/null 2>"$W/conf.err"
	case $? in
	0) echo y ;;
	2) grep -q "^$W/p.conf:2: " "$W/conf.err" && echo n || echo "?" ;;
	*) echo "?" ;;
	esac
}

# replay FLAG VALUE: y if xrx-replay takes the flag and goes on to read its
# (missing) input, n if it refuses the flag with exit 2 naming it.
replay() {
	"$R" "$1" "$2" "$NONE" "$W/out.pcap" >/dev/null 2>"$W/replay.err"
	if grep -qF -- "$NONE" "$W/replay.err"; then
		echo y
	elif grep -qF -- "$1" "$W/replay.err"; then
		echo n
	else
		echo "?"
	fi
}

# lib SET FIELD VALUE: y if the engine or sink takes it, n if EINVAL.
lib() {
	"$PROBE" "$1" "$2" "$3" 2>>"$W/probe.err"
	case $? in 0) echo y ;; 2) echo n ;; *) echo "?" ;; esac
}

# row NAME CONF-LINE-PREFIX FLAG SET FIELD VALUES...: every way of giving
# the option (empty FLAG or SET: not this way) answers alike.
row() {
	local name=$1 line=$2 flag=$3 set=$4 field=$5 v a b c diff="" n=0
	local seen="" ways="xrx.conf"
	shift 5
	if [ -n "$flag" ] && [ -n "$set" ]; then
		ways="xrx.conf, $flag and the $set"
	elif [ -n "$flag$set" ]; then
		ways="xrx.conf and ${flag:-the $set}"
	fi
	for v in "$@"; do
		a=$(conf "$line$v")
		b=-
		[ -n "$flag" ] && b=$(replay "$flag" "$v")
		c=-
		[ -n "$set" ] && [ "$v" != 0 ] && c=$(lib "$set" "$field" "$v")
		n=$((n + 1))
		seen="$seen$a"
		case "$a$b$c" in
		*"?"*) diff="$diff $v(conf $a, replay $b, library $c: unclear)" ;;
		*y*n* | *n*y*) diff="$diff $v(conf $a, replay $b, library $c)" ;;
		esac
	done
	[ -n "$diff" ] && diag "$name disagrees at:$diff"
	# The probes must find both sides of the bounds.
	case $seen in *y*n* | *n*y*) ;; *) diag "$name: all probes got $seen" ;; esac
	check "$name: $ways take the same of $n values" \
		$([ -z "$diff" ] && [[ $seen == *y* && $seen == *n* ]]; echo $?)
}

row max_aggregate "max_aggregate = " --max-size engine max_aggregate $NUMS
row max_segments "max_segments = " --max-segs engine max_segs $NUMS
row flows "flows = " --flows engine flows $NUMS
row flush_timeout_us "flush_timeout_us = " "" engine flush_timeout_us $NUMS
row vxlan_ports "vxlan_ports = " --vxlan-port engine vxlan_ports $NUMS
row "pcap snaplen" "sink = pcap:$W/c.pcap,snaplen=" --snaplen sink snaplen $NUMS
row copy "copy = " --copy "" "" $WORDS
row csum "csum = " --csum "" "" $WORDS
[ -s "$W/probe.err" ] && sed 's/^/# /' "$W/probe.err" | sort -u

done_testing
