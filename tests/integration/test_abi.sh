#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# libxrx's ABI: the shared build exports exactly the functions
# include/xrx/ marks XRX_API, each listed in user/lib/libxrx.map and
# versioned LIBXRX_*, and nothing of the library's inside (the GRO rules,
# the flow table, the UMEM bookkeeping); the same objects make libxrx.a,
# where those stay hidden too. A program written against the public
# headers links against the shared library and gives the same output as
# the static build.
. "$(dirname "$0")/../lib.sh"

SO=$BUILD/libxrx.so.0
MAP=$TOP/user/lib/libxrx.map
WORK=$(mktemp -d /tmp/xrx-abi.XXXXXX)
at_exit rm -rf "$WORK"

for t in nm objdump readelf; do
	command -v $t >/dev/null || skip_all "$t missing (package binutils)"
done
[ -e "$SO" ] || { echo "not ok 1 - $SO missing; run make"; exit 1; }

# The three lists: marked in the headers, listed in the map, exported.
sed -n 's/^XRX_API [^(]*\b\(xrx_[A-Za-z0-9_]*\)(.*/\1/p' "$TOP"/include/xrx/*.h |
	sort >"$WORK/api"
sed -n 's/^[[:space:]]*\(xrx_[A-Za-z0-9_]*\);$/\1/p' "$MAP" | sort >"$WORK/map"
nm -D --defined-only "$SO" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' |
	sort >"$WORK/exported"
ok "the headers mark some functions XRX_API" test "$(wc -l <"$WORK/api")" -ge 40
ok "libxrx.map lists exactly the XRX_API functions" diff -u "$WORK/api" "$WORK/map"
ok "libxrx.so exports exactly the XRX_API functions" diff -u "$WORK/api" "$WORK/exported"

# Each export carries a version node of the map.
objdump -T "$SO" | awk '$NF ~ /^xrx_/ && $(NF-1) !~ /^LIBXRX_/ { print $NF }' >"$WORK/unversioned"
ok "every export is versioned LIBXRX_*" test ! -s "$WORK/unversioned"
ok "the soname is libxrx.so.0" sh -c "readelf -d '$SO' | grep -q 'SONAME.*\[libxrx.so.0\]'"

# The inside stays inside: in the shared build not exported, in the
# static one HIDDEN, so no program can come to depend on it.
for sym in xrx_gro_receive xrx_gro_table_insert xrx_tnl_frame xrx_csum_pseudo; do
	ok "$sym is not exported" sh -c "! nm -D '$SO' | grep -qw '$sym'"
	ok "$sym is hidden in libxrx.a" sh -c \
		"readelf -sW '$BUILD/libxrx.a' | awk '\$8 == \"$sym\" && \$7 != \"UND\"' | grep -q HIDDEN"
done

# A control: the check above must see an export that is not in the map.
printf 'xrx_not_in_map\n' | sort -m - "$WORK/exported" >"$WORK/exported.bad"
ok "an extra export is noticed (control)" sh -c "! diff -q '$WORK/api' '$WORK/exported.bad' >/dev/null"

# A program of the public API against the shared library: xrx-replay,
# built from its source with the installed-style headers only (and the
# command-line tables of user/util/cli.c, which use libc alone), replays
# the iperf3 capture to the same bytes as the static build.
PKG="libbpf libxdp libpcap"
if ! ${CC:-cc} -O2 -I"$TOP/include" -I"$TOP/user" $(pkg-config --cflags $PKG) \
	"$TOP/user/tools/xrx-replay.c" "$TOP/user/util/cli.c" -o "$WORK/xrx-replay-so" \
	"$SO" $(pkg-config --libs $PKG) -lpthread 2>"$WORK/cc.err"; then
	sed 's/^/# /' "$WORK/cc.err"
	ok "xrx-replay links against libxrx.so alone" false
else
	ok "xrx-replay links against libxrx.so alone" true
	ok "it loads libxrx.so.0" sh -c \
		"LD_LIBRARY_PATH='$BUILD' ldd '$WORK/xrx-replay-so' | grep -q '$SO'"
	IN=$TOP/tests/fixtures/iperf3-tcp4.pcap
	ok "static build replays the capture" "$BUILD/xrx-replay" "$IN" "$WORK/static.pcap"
	ok "shared build replays the capture" env LD_LIBRARY_PATH="$BUILD" \
		"$WORK/xrx-replay-so" "$IN" "$WORK/shared.pcap"
	# The records' timestamps are the replay's own clock: compare frames.
	ok "both deliver the same packets, byte for byte" "$PY" - \
		"$TOP/tests/tools" "$WORK/static.pcap" "$WORK/shared.pcap" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
a = [f for f, _ in xrxpcap.read_pcap(sys.argv[2])]
b = [f for f, _ in xrxpcap.read_pcap(sys.argv[3])]
print("# %d and %d packets" % (len(a), len(b)))
sys.exit(0 if a and a == b else 1)
PYEOF
fi
done_testing
