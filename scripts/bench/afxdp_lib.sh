# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The setup the AF_XDP receive benchmarks share (bench_afxdp.sh,
# bench_busy_poll.sh): tests/helpers/afxdp_bench.c receives on the DUT's
# CPU 1, build/xrx-send replays TCP trains from CPU 0; sourced after
# tests/lib.sh.
#
#   afxdp_setup NAME   root, the programs and bpffs checked (NAME in the
#                      message), the testbed up, $OUT made, $MAC the DUT's,
#                      and the traffic in $OUT/trains.pcap: 16 trains of
#                      16 flows x 16 segments (4096 frames, 6 MB). Sent
#                      into the DUT before any receiver is attached, which
#                      answers with resets; harmless. Exits on failure.
#   veth_tx_dropped    frames the source veth dropped (the peer's XDP ring
#                      was full: veth_xmit() cannot hand them to the DUT's
#                      NAPI)
RX=$BUILD/tests/afxdp_bench
SEND=$BUILD/xrx-send
NCPU=$(nproc)
SEND_CPU=0
RX_CPU=$((NCPU > 1 ? 1 : 0))

afxdp_setup() {
	if [ "$(id -u)" != 0 ] || [ ! -x "$RX" ] || [ ! -x "$SEND" ]; then
		echo "$1: needs root, $RX and $SEND (make)" >&2
		exit 1
	fi
	if ! mountpoint -q /sys/fs/bpf; then
		echo "$1: bpffs not mounted at /sys/fs/bpf (scripts/bpffs.sh mounts it)" >&2
		exit 1
	fi
	OUT=$(mktemp -d)
	at_exit rm -rf "$OUT"
	testbed_up || exit 1
	MAC=$(dut_mac)
	in_src "$SEND" -i $IF_SRC --dmac "$MAC" --dport $PORT --flows 16 --segs 16 \
		--mss 1448 --trains 16 -w "$OUT/trains.pcap" || exit 1
}

veth_tx_dropped() {
	in_src ip -s -j link show $IF_SRC |
		$PY -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["dropped"])'
}
