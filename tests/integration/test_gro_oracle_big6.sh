#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The kernel's IPv6 BIG TCP GRO as the oracle for xrx-replay --ipv6-jumbo
# hbh: crafted IPv6 trains of up to 64 frames (one NAPI poll) go over a
# veth into a receiver whose gro_max_size is above 64 KiB, tcpdump
# records what GRO delivered, and xrx-replay with the same limit must
# deliver the same packets, header bytes included: the hop-by-hop jumbo
# option Linux 6.x inserts (ipv6_gro_complete()) and its length.
#
# The receiver needs an XDP program (xrxd_lib.sh's xdp_pass_attach, which
# passes everything): without one the frames an AF_PACKET sender makes
# reach GRO with 2 bytes of headroom in front of the Ethernet header
# (LL_RESERVED_SPACE 16 - ETH_HLEN), short of the 8 bytes
# ipv6_gro_complete() moves the headers by for the option, and the kernel
# never grows an IPv6 aggregate past 64 KiB (skb_gro_receive()'s
# GRO_LEGACY_MAX_SIZE branch: 45 x 1448); with one, veth_xdp_rcv_skb()
# rebuilds each skb with XDP_PACKET_HEADROOM (256). The test shows both:
# the kernel's aggregates first without the program (at most 64 KiB),
# then with it (above 64 KiB, jumbo option).
#
# Two limits: gro_max_size 185000 (every train fits) and 80000 (the size
# rule, skb_gro_receive(): p->len + len >= gro_max_size refuses). IPv4 is
# not in these trains: the kernel's IPv4 limit is gro_ipv4_max_size, which
# Debian 12's iproute2 cannot set, and xrx has one limit for both.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/oracle_lib.sh"
. "$(dirname "$0")/xrxd_lib.sh"

oracle_need "ipv6 big tcp oracle"
command -v clang >/dev/null && command -v bpftool >/dev/null ||
	skip_all "clang or bpftool missing (scripts/deps.sh installs them)"

WORK=$(mktemp -d /tmp/xrx-oracle6.XXXXXX)
at_exit rm -rf "$WORK"
BIG="big6_64 big6_psh big6_ts big6_dstopt"
ok "fixtures generated" $PY "$TOP/scripts/gen-fixtures.py" "$WORK/fixtures" \
	$BIG big6_limit

testbed_up mtu 2000 || { check "testbed" 1; done_testing; exit; }
if ! in_dut ip link set $IF_DUT gro_max_size 185000 2>"$WORK/err"; then
	skip_all "cannot raise gro_max_size on veth: $(head -1 "$WORK/err")"
fi
oracle_receiver "ipv6 big tcp oracle"

# jumbos FILE: "packets-with-a-jumbo-option largest-IPv6-payload"
jumbos() {
	$PY - "$TOP/tests/tools" "$1" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
n, big = 0, 0
for p in xrxpcap.packets(sys.argv[2]):
    f = dict(p["fields"])
    if "ip6.w0" not in f:
        continue
    n += "ip6.jumbo" in f
    big = max(big, p["plen"])
print(n, big)
PYEOF
}

mkdir -p "$WORK/plain"
# Without the XDP program: the kernel stops at 64 KiB (what an earlier
# look took for "veth cannot do IPv6 BIG TCP GRO").
$PY "$TOP/tests/tools/gro_oracle.py" --src-ns $NS_SRC --src-if $IF_SRC \
	--dut-ns $NS_DUT --dut-if $IF_DUT --fixtures "$WORK/fixtures" \
	--replay "$BUILD/xrx-replay" --work "$WORK/plain" --runs 1 --retries 0 \
	--big --only big6_64 >"$WORK/plain.out" 2>&1
read -r n big < <(jumbos "$WORK/plain/kernel-0.pcap" 2>/dev/null || echo "? ?")
diag "without an XDP program: largest IPv6 TCP payload $big, $n jumbo option(s)"
check "without an XDP program the kernel keeps IPv6 aggregates at 64 KiB ($big bytes of TCP payload)" \
	"$([ "$n" = 0 ] && [ "$big" = 65160 ]; echo $?)"

if ! xdp_pass_attach; then
	skip_all "cannot attach an XDP program to veth: $(head -1 "$WORK/err")"
fi
check "an XDP program on the receiver" "$([ -n "$(prog_id)" ]; echo $?)"
# Attaching may give the veth new NAPI instances: pin and prioritise
# the threads again.
oracle_receiver "ipv6 big tcp oracle"

gms=$(in_dut ip -d link show $IF_DUT | grep -o 'gro_max_size [0-9]*')
check "receiver gro_max_size 185000 ($gms)" "$([ "$gms" = "gro_max_size 185000" ]; echo $?)"
oracle_run 4 --big --only $BIG --replay-args="--ipv6-jumbo hbh --max-size 185000"
read -r n big < <(jumbos "$WORK/kernel-0.pcap")
check "the kernel delivered IPv6 aggregates above 64 KiB with the jumbo option ($n, largest $big)" \
	"$([ "$n" -ge 4 ] && [ "$big" = 92672 ]; echo $?)"
# Every frame of every train, raw bytes: the kernel's first run and xrx's.
$PY - "$TOP/tests/tools" "$WORK" $BIG <<'PYEOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import xrxpcap
w, bad = sys.argv[2], 0
for n in sys.argv[3:]:
    k = sorted(fr for fr, _ in xrxpcap.read_pcap(os.path.join(w, "kernel-0", n + ".pcap")))
    x = sorted(fr for fr, _ in xrxpcap.read_pcap(os.path.join(w, "xrx-" + n + ".pcap")))
    if k != x:
        bad += 1
        print("# %s: kernel %s, xrx %s" % (n, [len(f) for f in k], [len(f) for f in x]))
sys.exit(bad)
PYEOF
check "kernel and xrx-replay --ipv6-jumbo hbh: the same frames, byte for byte" $?
tcpdump -nn -v -r "$WORK/kernel-0.pcap" 2>/dev/null | grep -m1 'HBH (jumbo' |
	sed 's/^/# kernel: /' | cut -c1-200

in_dut ip link set $IF_DUT gro_max_size 80000
WORK2=$WORK/limit
mkdir -p "$WORK2"
cp -r "$WORK/fixtures" "$WORK2/"
WORK=$WORK2 oracle_run 1 --big --only big6_limit \
	--replay-args="--ipv6-jumbo hbh --max-size 80000"
done_testing
