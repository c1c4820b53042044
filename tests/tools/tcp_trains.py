#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Send TCP segment trains out of an interface with AF_PACKET: no handshake,
no kernel TCP on either side, valid checksums, so a receiver that
aggregates (xrx, or the kernel's GRO) sees contiguous same-flow segments.

    tcp_trains.py IFACE DST_MAC SRC_IP DST_IP DPORT [--flows N]
                  [--segs N] [--trains N] [--mss BYTES] [--sport PORT]
                  [--vlans VID,VID... [--oob]]

Each train is --segs back-to-back segments of --mss payload bytes per
flow (flows interleaved train by train); trains are 2 ms apart. Bounded:
flows * segs * trains frames, then it exits. Prints the frame count.

--vlans: one flow per VLAN, all with the same 5-tuple (source port
--sport), sequence numbers 10,000,000 apart, interleaved segment by
segment. The tag is in the frame, or with --oob the socket's SO_MARK
carries the VLAN ID for a tc program on IFACE to push out of band
(bpf_skb_vlan_push()), as a NIC that strips tags delivers them.
"""
import argparse
import socket
import struct
import time


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def frame(dmac, smac, sip, dip, sport, dport, seq, ipid, payload, vid=0):
    tcp = bytearray(struct.pack("!HHIIBBHHH", sport, dport, seq, 1, 5 << 4,
                                0x10, 512, 0, 0))
    pseudo = sip + dip + struct.pack("!BBH", 0, 6, len(tcp) + len(payload))
    struct.pack_into("!H", tcp, 16, csum(pseudo + bytes(tcp) + payload))
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0,
                               20 + len(tcp) + len(payload), ipid, 0x4000,
                               64, 6, 0, sip, dip))
    struct.pack_into("!H", ip, 10, csum(bytes(ip)))
    tag = struct.pack("!HH", 0x8100, vid) if vid else b""
    return dmac + smac + tag + b"\x08\x00" + bytes(ip) + bytes(tcp) + payload


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iface")
    ap.add_argument("dmac")
    ap.add_argument("sip")
    ap.add_argument("dip")
    ap.add_argument("dport", type=int)
    ap.add_argument("--flows", type=int, default=4)
    ap.add_argument("--segs", type=int, default=16)
    ap.add_argument("--trains", type=int, default=20)
    ap.add_argument("--mss", type=int, default=1448)
    ap.add_argument("--sport", type=int, default=40000)
    ap.add_argument("--vlans", default="")
    ap.add_argument("--oob", action="store_true")
    a = ap.parse_args()
    if a.vlans:
        return vlan_trains(a)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    dmac = bytes.fromhex(a.dmac.replace(":", ""))
    smac = s.getsockname()[4][:6]
    sip, dip = socket.inet_aton(a.sip), socket.inet_aton(a.dip)
    payload = bytes(range(256)) * (a.mss // 256 + 1)
    payload = payload[:a.mss]
    seq = [1000] * a.flows
    ipid = [1] * a.flows
    sent = 0
    for _ in range(a.trains):
        for f in range(a.flows):
            for _ in range(a.segs):
                s.send(frame(dmac, smac, sip, dip, a.sport + f, a.dport,
                             seq[f], ipid[f], payload))
                seq[f] = (seq[f] + a.mss) & 0xffffffff
                ipid[f] = (ipid[f] + 1) & 0xffff
                sent += 1
        time.sleep(0.002)
    print(sent)


def vlan_trains(a):
    vids = [int(v) for v in a.vlans.split(",")]
    socks = []
    for vid in vids:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((a.iface, 0))
        if a.oob:
            s.setsockopt(socket.SOL_SOCKET, SO_MARK, vid)
        socks.append(s)
    dmac = bytes.fromhex(a.dmac.replace(":", ""))
    smac = socks[0].getsockname()[4][:6]
    sip, dip = socket.inet_aton(a.sip), socket.inet_aton(a.dip)
    payload = (bytes(range(256)) * (a.mss // 256 + 1))[:a.mss]
    seq = [1000 + 10000000 * f for f in range(len(vids))]
    ipid = [1] * len(vids)
    sent = 0
    for _ in range(a.trains):
        for _ in range(a.segs):
            for f, vid in enumerate(vids):
                socks[f].send(frame(dmac, smac, sip, dip, a.sport, a.dport,
                                    seq[f], ipid[f], payload,
                                    0 if a.oob else vid))
                seq[f] = (seq[f] + a.mss) & 0xffffffff
                ipid[f] = (ipid[f] + 1) & 0xffff
                sent += 1
        time.sleep(0.002)
    print(sent)


SO_MARK = 36


if __name__ == "__main__":
    main()
