#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Send frame trains out of an interface with AF_PACKET, each preceded by a
marker frame, so a capture on the far side can be cut back into trains.

    send_trains.py [--gap MS] IFACE DIR NAME...

sends DIR/NAME.pcap for each NAME, then a final "END" marker. All files
are read before the first frame goes out, and the frames of one train are
sent back to back: run this SCHED_FIFO on the CPU of the receiver's NAPI
thread (taskset -c 0 chrt -f 50) and the receiver polls the whole train
at once. The marker goes 2 ms ahead of its train, so it has a poll of its
own and a train of 64 frames fills exactly one NAPI budget. Between trains it sleeps --gap milliseconds
(default 20) so NAPI completes and GRO flushes everything it holds.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xrxpcap  # noqa: E402

SMAC = bytes.fromhex("020000000001")
DMAC = bytes.fromhex("020000000002")


def marker(text):
    """An ICMP echo request carrying "xrx-train NAME". It must be IP: the
    kernel hands a frame of a protocol nobody handles to packet taps only
    after the next frame of its receive list (__netif_receive_skb_list_core()
    delivers the last pt_prev per sublist), so a capture would show it out
    of order. ICMP is never aggregated, so it keeps its place."""
    body = xrxpcap.MARKER_MAGIC + text.encode()
    icmp = bytearray(struct.pack("!BBHHH", 8, 0, 0, 0x7872, 0) + body)
    struct.pack_into("!H", icmp, 2, xrxpcap.csum(icmp))
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 0,
                               0x4000, 1, 1, 0, bytes([198, 18, 0, 1]),
                               bytes([198, 18, 0, 2])))
    struct.pack_into("!H", ip, 10, xrxpcap.csum(ip))
    return DMAC + SMAC + b"\x08\x00" + bytes(ip) + bytes(icmp)


def main(argv):
    gap = 0.02
    args = argv[1:]
    if args[:1] == ["--gap"]:
        gap = float(args[1]) / 1000
        args = args[2:]
    if len(args) < 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    iface, d, names = args[0], args[1], args[2:]
    trains = []
    for n in names:
        try:
            frames = [fr for fr, _ in xrxpcap.read_pcap(os.path.join(d, n + ".pcap"))]
        except (OSError, xrxpcap.PcapError) as e:
            print("send_trains: %s" % e, file=sys.stderr)
            return 2
        trains.append((marker(n), frames))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.bind((iface, 0))
    # A send that finds the socket's buffer full sleeps, and NAPI would
    # poll a half-sent train: room for a whole train (root may force it).
    try:
        s.setsockopt(socket.SOL_SOCKET, 32, 8 << 20)   # SO_SNDBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)
    send = s.send
    for m, frames in trains:
        send(m)
        time.sleep(0.002)       # the marker gets a poll of its own
        for fr in frames:
            send(fr)
        time.sleep(gap)
    send(marker("END"))
    s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
