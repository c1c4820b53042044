#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Install the Debian packages xrx needs, when missing. Idempotent and quiet
# when everything is there.
#   scripts/deps.sh          build + test dependencies (and the Debian
#                            package build: make deb)
#   scripts/deps.sh --bench  also the benchmark baseline (DPDK) and perf
set -e

PKGS="make gcc clang llvm libclang-rt-14-dev pkg-config libbpf-dev libxdp-dev xdp-tools bpftool libdpdk-dev
libelf-dev zlib1g-dev libmnl-dev libsystemd-dev libpcap-dev libzstd-dev libcmocka-dev
iproute2 iputils-ping ethtool iperf3 tcpdump tshark python3 python3-scapy util-linux valgrind bc strace
man-db groff-base systemd systemd-container gnuplot-nox
debhelper dpkg-dev fakeroot lintian
qemu-system-x86 busybox-static kmod xz-utils zstd"
# qemu-system-x86 busybox-static kmod xz-utils zstd: the kernel matrix
# (scripts/kernels/): QEMU boots Debian's kernels, which apt-get download
# fetches without installing, from a static-busybox initramfs.
# perf: the profiled rounds of the live benchmarks (scripts/bench/perf_lib.sh)
[ "$1" = "--bench" ] && PKGS="$PKGS libdpdk-dev linux-perf"

missing=""
for p in $PKGS; do
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case "$s" in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing; install them as root (apt-get install$missing)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
