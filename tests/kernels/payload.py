#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""payload.py SENT GOT...: the GOT files together (one per RX queue, the
pcap sink's PATH.qN) carry exactly the TCP payload bytes of SENT, flow by
flow, put together by sequence number. SENT and GOT are pcap files of Ethernet frames or raw IP packets (a TUN's capture). Prints
"flows N bytes N"; exit 1 on any difference (said on stderr)."""
import struct
import sys


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data)[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    link = struct.unpack_from(end + "I", data, 20)[0]
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from(end + "IIII", data, off)
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if link == 1:
            et = struct.unpack_from(">H", pkt, 12)[0]
            pkt = pkt[14:] if et == 0x0800 else b""
        yield pkt


def streams(paths):
    flows = {}
    for ip in (p for path in paths for p in packets(path)):
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack_from(">H", ip, 2)[0]
        tcp = ip[ihl:tot]
        sport, dport, seq = struct.unpack_from(">HHI", tcp)
        doff = (tcp[12] >> 4) * 4
        if len(tcp) > doff:
            flows.setdefault((ip[12:16], ip[16:20], sport, dport), {})[seq] = tcp[doff:]
    out = {}
    for k, segs in flows.items():
        b, nxt = b"", None
        for seq in sorted(segs):
            if nxt is not None and seq != nxt:
                sys.stderr.write("flow %s: gap or overlap at seq %d\n" % (k[2], seq))
            b += segs[seq]
            nxt = seq + len(segs[seq])
        out[k] = b
    return out


sent, got = streams(sys.argv[1:2]), streams(sys.argv[2:])
bad = 0
for k in sent:
    if got.get(k) != sent[k]:
        sys.stderr.write("flow %d->%d: sent %d bytes, got %d%s\n" % (
            k[2], k[3], len(sent[k]), len(got.get(k, b"")),
            "" if k in got else " (flow missing)"))
        bad = 1
for k in got:
    if k not in sent:
        sys.stderr.write("flow %d->%d: not sent\n" % (k[2], k[3]))
        bad = 1
print("flows %d bytes %d" % (len(got), sum(len(v) for v in got.values())))
sys.exit(bad)
