#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Write crafted VXLAN frame trains as pcap files, one train per rule of the
kernel's UDP-tunnel GRO, in the layout gro_oracle.py reads.

    vxlan_trains.py OUTDIR            every train
    vxlan_trains.py --list            names and the rule each tests

Each train is OUTDIR/NAME.pcap (at most 64 frames: one NAPI poll) and
OUTDIR/trains.json lists them (proto "vxlan": the receiver needs a VXLAN
device on UDP 4789, and xrx-replay --vxlan-port 4789).

The inner frames are scripts/gen-fixtures.py's TCP segments (same payload
pattern, same field defaults) with their own MAC and IP addresses; the
outer Ethernet/IPv4/UDP/VXLAN headers are built here byte by byte, so a
train can set every outer field a rule needs (ID, DF, TTL, TOS, UDP
checksum zero, set or wrong, VNI, flags). Rules, as Linux 6.18 has them:
udp4_gro_receive() and udp_gro_receive() (net/ipv4/udp_offload.c),
vxlan_gro_receive() (drivers/net/vxlan/vxlan_core.c), eth_gro_receive(),
inet_gro_receive() and inet_gro_flush() for the outer and the inner
header, tcp_gro_receive() for the inner TCP.
"""
import importlib.util
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

_spec = importlib.util.spec_from_file_location(
    "gen_fixtures", os.path.join(TOP, "scripts", "gen-fixtures.py"))
gf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gf)

# Outer: the sender's and the receiver's veth addresses (tests/lib.sh), and
# a destination MAC that is not the receiver's, so GRO runs and the
# packets are then dropped. Inner: addresses no namespace has.
OSMAC = bytes.fromhex("020000000001")
ODMAC = bytes.fromhex("020000000002")
OSRC = bytes([198, 18, 0, 1])
ODST = bytes([198, 18, 0, 2])
OSRC6 = bytes.fromhex("20010db8000000000000000000000001")
ODST6 = bytes.fromhex("20010db8000000000000000000000002")
gf.IP4 = ("198.19.0.1", "198.19.0.2")
gf.IP6 = ("2001:db8:1::1", "2001:db8:1::2")
INNER_MAC = dict(smac="02:00:00:00:01:01", dmac="02:00:00:00:01:02")
PORT = 4789
VNI = 42


def csum(b):
    if len(b) % 2:
        b = bytes(b) + b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), bytes(b)))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def outer(inner, vni=VNI, vflags=0x08, ipid=1000, df=True, ttl=64, tos=0,
          sport=49152, dport=PORT, udp_csum=True, bad_udp_csum=False,
          v6=False, flowlabel=0):
    """@inner wrapped in Ethernet/IPv4/UDP/VXLAN (@v6: Ethernet/IPv6/...;
    then @ttl is the hop limit, @tos the traffic class)."""
    vx = struct.pack("!B3xI", vflags, vni << 8)
    ulen = 8 + len(vx) + len(inner)
    udp = bytearray(struct.pack("!HHHH", sport, dport, ulen, 0) + vx + inner)
    if udp_csum:
        if v6:
            pseudo = OSRC6 + ODST6 + struct.pack("!IxxxB", ulen, 17)
        else:
            pseudo = OSRC + ODST + struct.pack("!BBH", 0, 17, ulen)
        c = csum(pseudo + bytes(udp)) or 0xffff
        if bad_udp_csum:
            c ^= 0x5a5a
        struct.pack_into("!H", udp, 6, c)
    if v6:
        ip6 = struct.pack("!IHBB", 6 << 28 | tos << 20 | flowlabel, ulen, 17,
                          ttl) + OSRC6 + ODST6
        return ODMAC + OSMAC + b"\x86\xdd" + ip6 + bytes(udp)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + ulen,
                               ipid & 0xffff, 0x4000 if df else 0, ttl, 17, 0,
                               OSRC, ODST))
    struct.pack_into("!H", ip, 10, csum(ip))
    return ODMAC + OSMAC + b"\x08\x00" + bytes(ip) + bytes(udp)


def train(n, mods=None, omods=None, plens=None, v=4, oid=1000, ostep=1,
          okw=None, **common):
    """n contiguous inner segments (gen-fixtures' tcp_train(): mods[i]
    changes inner segment i), each wrapped in outer headers whose ID starts
    at @oid and grows by @ostep; omods[i] changes outer fields of frame i."""
    kw = dict(INNER_MAC)
    kw.update(common)
    segs = gf.tcp_train(n, mods, plens, v, **kw)
    omods = omods or {}
    frames = []
    for i, s in enumerate(segs, 1):
        o = dict(okw or {})
        o["ipid"] = oid + (i - 1) * ostep
        o.update(omods.get(i, {}))
        for fr in s.build():
            frames.append(outer(fr, **o))
    return frames


def plain_udp(dport=5000, plen=200, ipid=7):
    """A UDP datagram between the same outer addresses, not to a VXLAN
    port: the kernel has no socket with gro_receive for it."""
    data = bytes(range(256))[:plen]
    udp = bytearray(struct.pack("!HHHH", 49152, dport, 8 + plen, 0) + data)
    pseudo = OSRC + ODST + struct.pack("!BBH", 0, 17, 8 + plen)
    struct.pack_into("!H", udp, 6, csum(pseudo + bytes(udp)) or 0xffff)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + plen, ipid,
                               0x4000, 64, 17, 0, OSRC, ODST))
    struct.pack_into("!H", ip, 10, csum(ip))
    return ODMAC + OSMAC + b"\x08\x00" + bytes(ip) + bytes(udp)


def trains():
    """(name, rule, frames) for every train; names are stable."""
    t = []

    def add(name, rule, frames):
        t.append((name, rule, frames))

    mid = range(4, 9)       # frames 4..8 of 8 (or more) changed
    add("vx4_contig", "VXLAN, inner TCPv4: contiguous segments merge",
        train(20))
    add("vx6_contig", "VXLAN, inner TCPv6: contiguous segments merge",
        train(20, v=6))
    add("vx4_limit64k", "64 KiB limit counted from the outer IP header: "
        "50 -> 45 + 5", train(50))
    add("vx6_limit64k", "64 KiB limit, inner TCPv6", train(50, v=6))
    # vxlan_gro_prepare_receive(): flags and VNI are identity.
    add("vx4_vni", "VNI change: another flow",
        train(8, omods={i: dict(vni=43) for i in mid}))
    add("vx4_vni_alt", "two VNIs interleaved, each contiguous",
        [fr for pair in zip(train(8), train(8, okw=dict(vni=43), oid=5000))
         for fr in pair])
    add("vx4_vflags", "VXLAN flags word change: another flow",
        train(8, omods={i: dict(vflags=0x0c) for i in mid}))
    # udp_gro_receive(): ports and checksum presence are identity.
    add("vx4_osport", "outer UDP source port change: another flow",
        train(8, omods={i: dict(sport=49153) for i in mid}))
    add("vx4_csum_zero", "outer UDP checksum zero: merges (UDP_TUNNEL)",
        train(20, okw=dict(udp_csum=False)))
    add("vx4_csum_mixed", "outer UDP checksum zero vs set: another flow",
        train(8, omods={i: dict(udp_csum=False) for i in mid}))
    add("vx4_csum_bad", "bad outer UDP checksum: alone, not merged",
        train(8, omods={4: dict(bad_udp_csum=True)}))
    # inet_gro_flush() on the outer header.
    add("vx4_ottl", "outer TTL change flushes",
        train(8, omods={i: dict(ttl=63) for i in mid}))
    add("vx4_otos", "outer TOS change flushes",
        train(8, omods={i: dict(tos=0x10) for i in mid}))
    add("vx4_odf", "outer DF change flushes",
        train(8, omods={i: dict(df=False) for i in mid}))
    add("vx4_oid_fixed", "outer ID fixed (DF): merges",
        train(12, ostep=0))
    add("vx4_oid_fixed_nodf", "outer ID fixed without DF: merges",
        train(12, ostep=0, okw=dict(df=False)))
    add("vx4_oid_inc_nodf", "outer ID incrementing without DF: merges",
        train(12, okw=dict(df=False)))
    add("vx4_oid_jump", "outer ID jump flushes",
        train(8, omods={i: dict(ipid=3000 + i) for i in mid}))
    add("vx4_oid_random_df", "outer ID neither fixed nor +1, DF set",
        train(8, omods={i: dict(ipid=(i * 7919) & 0xffff)
                        for i in range(1, 9)}))
    add("vx4_oid_fixed_then_inc", "outer ID fixed, then incrementing",
        train(8, omods={1: dict(ipid=1000), 2: dict(ipid=1000),
                        3: dict(ipid=1000)}, oid=998))
    # The inner headers: tcp_gro_receive(), inet_gro_flush() inner.
    add("vx4_iid_fixed", "inner IPv4 ID fixed: merges",
        train(12, {i: dict(ipid=100) for i in range(1, 13)}))
    add("vx4_iid_jump", "inner IPv4 ID jump flushes",
        train(8, {i: dict(ipid=900 + i) for i in mid}))
    add("vx4_iid_fixed_oid_inc", "inner ID fixed, outer incrementing",
        train(12, {i: dict(ipid=100) for i in range(1, 13)}, ostep=1))
    add("vx4_ittl", "inner TTL change flushes",
        train(8, {i: dict(ttl=63) for i in mid}))
    add("vx4_psh", "inner PSH ends the aggregate",
        train(10, {4: dict(flags="PA")}))
    add("vx4_window", "inner window change flushes",
        train(8, {i: dict(win=1024) for i in mid}))
    add("vx4_ack", "inner ack_seq change flushes",
        train(8, {i: dict(ack=gf.ACK + 1448) for i in mid}))
    add("vx4_ts_change", "inner timestamp change flushes",
        train(8, {i: dict(opts=gf.TS2) for i in mid}, opts=gf.TS))
    add("vx4_seq_gap", "inner sequence gap flushes",
        train(8, {i: dict(seq=gf.ISN + (i - 1) * 1448 + 1448)
                  for i in mid}))
    add("vx4_short", "a shorter inner segment merges and ends it",
        train(8, plens=[1448, 1448, 1448, 700, 1448, 1448, 1448, 1448]))
    add("vx4_pure_ack", "inner pure ACK in the middle",
        train(8, plens=[1448, 1448, 1448, 0, 1448, 1448, 1448, 1448]))
    add("vx4_bad_tcp_csum", "bad inner TCP checksum: alone",
        train(8, {4: dict(bad_l4csum=True)}))
    add("vx4_imac", "inner MAC change: another flow",
        train(8, {i: dict(smac="02:00:00:00:01:09") for i in mid}))
    add("vx4_two_inner", "two inner flows in one tunnel, interleaved",
        [fr for pair in zip(train(8), train(8, sport=40001, oid=5000))
         for fr in pair])
    add("vx4_udp_between", "a plain UDP datagram in between",
        train(4) + [plain_udp()] + train(4, seq=gf.ISN + 4 * 1448, oid=1004,
                                       ipid=104))
    add("vx6_hlim", "inner IPv6 hop limit change flushes",
        train(8, {i: dict(ttl=63) for i in mid}, v=6))
    add("vx6_flowlabel", "inner IPv6 flow label change: another flow",
        train(8, {i: dict(flowlabel=7) for i in mid}, v=6))
    add("vx6_oid_jump", "outer ID jump flushes, inner TCPv6",
        train(8, omods={i: dict(ipid=3000 + i) for i in mid}, v=6))
    # Outer IPv6 (udp6_gro_receive(), ipv6_gro_receive/flush()).
    o6 = dict(v6=True)
    add("vx64_contig", "outer IPv6, inner TCPv4: contiguous segments merge",
        train(20, okw=o6))
    add("vx66_contig", "outer IPv6, inner TCPv6: contiguous segments merge",
        train(20, v=6, okw=o6))
    add("vx64_limit64k", "64 KiB limit from the outer IPv6 header",
        train(50, okw=o6))
    add("vx64_hlim", "outer hop limit change flushes",
        train(8, omods={i: dict(ttl=63) for i in mid}, okw=o6))
    add("vx64_tclass", "outer traffic class change flushes",
        train(8, omods={i: dict(tos=0x10) for i in mid}, okw=o6))
    add("vx64_flowlabel", "outer flow label change: another flow",
        train(8, omods={i: dict(flowlabel=5) for i in mid}, okw=o6))
    add("vx64_csum_zero", "outer IPv6 UDP checksum zero: merges",
        train(20, okw=dict(v6=True, udp_csum=False)))
    add("vx64_csum_mixed", "outer IPv6 UDP checksum zero vs set",
        train(8, omods={i: dict(udp_csum=False) for i in mid}, okw=o6))
    add("vx64_csum_bad", "bad outer IPv6 UDP checksum: alone",
        train(8, omods={4: dict(bad_udp_csum=True)}, okw=o6))
    add("vx64_vni", "VNI change over IPv6: another flow",
        train(8, omods={i: dict(vni=43) for i in mid}, okw=o6))
    return t


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)))
            f.write(fr)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1])
        return 0 if len(argv) == 2 else 2
    if argv[1] == "--list":
        for name, rule, _ in trains():
            print("%-24s %s" % (name, rule))
        return 0
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    index = []
    for name, rule, frames in trains():
        assert len(frames) <= 64, name
        write_pcap(os.path.join(out, name + ".pcap"), frames)
        index.append(dict(name=name, rule=rule, proto="vxlan",
                          frames=len(frames), needs=[]))
    with open(os.path.join(out, "trains.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
