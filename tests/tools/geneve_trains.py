#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Write crafted GENEVE frame trains as pcap files, one train per rule of
the kernel's GENEVE GRO, in the layout gro_oracle.py reads.

    geneve_trains.py OUTDIR            every train
    geneve_trains.py --list            names and the rule each tests

As vxlan_trains.py (its inner segments, outer addresses and outer rules),
with a GENEVE header (RFC 8926) on UDP 6081 in place of VXLAN's: version,
option length, OAM and critical bits, protocol type, VNI and options all
settable. Rules, as Linux has them in geneve_gro_receive()
(drivers/net/geneve.c): version other than 0 or OAM set -> the frame goes
alone; the header compared with memcmp over its length, options included,
after comparing the option length -> a difference is another flow;
protocol type 0x6558 -> eth_gro_receive(), another type -> that type's
gro_receive (IPv4, IPv6) or alone. Outer and inner rules are the common
UDP-tunnel ones, which the VXLAN trains cover; a few are repeated here.
"""
import importlib.util
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "vxlan_trains", os.path.join(HERE, "vxlan_trains.py"))
vx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vx)
gf = vx.gf

PORT = 6081
OPT = bytes.fromhex("0102030400000000")   # class 0x0102, type 3, 1 word


def geneve(vni=vx.VNI, opts=b"", ver=0, oam=False, crit=False,
           proto=0x6558):
    assert len(opts) % 4 == 0 and len(opts) <= 252
    return struct.pack("!BBHI", ver << 6 | len(opts) // 4,
                       (0x80 if oam else 0) | (0x40 if crit else 0),
                       proto, vni << 8) + opts


def outer(inner, gkw=None, **okw):
    """@inner in Ethernet/IP/UDP/GENEVE: vxlan_trains' outer() with the
    GENEVE header (@gkw: geneve()'s arguments) in place of VXLAN's 8
    bytes, which outer() writes and this takes out again."""
    okw.setdefault("dport", PORT)
    g = geneve(**(gkw or {}))
    fr = bytearray(vx.outer(g + inner, **okw))
    # vx.outer() put 8 VXLAN bytes after UDP: drop them, fix the lengths
    v6 = okw.get("v6", False)
    l3 = 14
    u = l3 + (40 if v6 else 20)
    del fr[u + 8:u + 16]
    ulen = len(fr) - u
    struct.pack_into("!H", fr, u + 4, ulen)
    if v6:
        struct.pack_into("!H", fr, l3 + 4, ulen)
    else:
        struct.pack_into("!H", fr, l3 + 2, 20 + ulen)
        struct.pack_into("!H", fr, l3 + 10, 0)
        struct.pack_into("!H", fr, l3 + 10, vx.csum(fr[l3:l3 + 20]))
    if okw.get("udp_csum", True):
        struct.pack_into("!H", fr, u + 6, 0)
        if v6:
            pseudo = vx.OSRC6 + vx.ODST6 + struct.pack("!IxxxB", ulen, 17)
        else:
            pseudo = vx.OSRC + vx.ODST + struct.pack("!BBH", 0, 17, ulen)
        c = vx.csum(pseudo + bytes(fr[u:])) or 0xffff
        if okw.get("bad_udp_csum"):
            c ^= 0x5a5a
        struct.pack_into("!H", fr, u + 6, c)
    return bytes(fr)


def train(n, mods=None, gmods=None, omods=None, plens=None, v=4, oid=1000,
          gkw=None, okw=None, no_eth=False, **common):
    """n contiguous inner segments; gmods[i] changes GENEVE fields of
    frame i (1-based), omods[i] outer fields; @no_eth: the inner IP packet
    without its Ethernet header (protocol type IPv4/IPv6)."""
    kw = dict(vx.INNER_MAC)
    kw.update(common)
    segs = gf.tcp_train(n, mods, plens, v, **kw)
    frames = []
    for i, s in enumerate(segs, 1):
        o = dict(okw or {})
        o["ipid"] = oid + i - 1
        o.update((omods or {}).get(i, {}))
        g = dict(gkw or {})
        g.update((gmods or {}).get(i, {}))
        for fr in s.build():
            frames.append(outer(fr[14:] if no_eth else fr, gkw=g, **o))
    return frames


def trains():
    """(name, rule, frames) for every train; names are stable."""
    t = []

    def add(name, rule, frames):
        t.append((name, rule, frames))

    mid = range(4, 9)
    o2 = dict(opts=OPT * 2)
    add("gn4_contig", "GENEVE, inner TCPv4: contiguous segments merge",
        train(20))
    add("gn6_contig", "GENEVE, inner TCPv6: contiguous segments merge",
        train(20, v=6))
    add("gn4_limit64k", "64 KiB limit counted from the outer IP header",
        train(50, gkw=o2))
    add("gn4_opts_same", "equal options (2 x 8 bytes) merge",
        train(20, gkw=o2))
    add("gn4_opts_bytes", "other option bytes: another flow",
        train(8, gkw=o2, gmods={i: dict(opts=OPT + bytes.fromhex(
            "0102030400000001")) for i in mid}))
    add("gn4_opts_len", "other option length: another flow",
        train(8, gkw=o2, gmods={i: dict(opts=OPT) for i in mid}))
    add("gn4_opts_none", "options, then none: another flow",
        train(8, gkw=o2, gmods={i: dict(opts=b"") for i in mid}))
    add("gn4_opts_alt", "two option sets interleaved, each contiguous",
        [fr for pair in zip(train(8), train(8, gkw=o2, oid=5000))
         for fr in pair])
    add("gn4_vni", "VNI change: another flow",
        train(8, gmods={i: dict(vni=43) for i in mid}))
    add("gn4_crit", "critical bit on the middle frames: another flow",
        train(8, gkw=o2, gmods={i: dict(opts=OPT * 2, crit=True)
                                for i in mid}))
    add("gn4_crit_all", "critical bit on every frame: merges",
        train(12, gkw=dict(opts=OPT, crit=True)))
    add("gn4_oam", "OAM frame goes alone, the held aggregate stays",
        train(8, gmods={4: dict(oam=True)}))
    add("gn4_oam_all", "OAM on every frame: each alone",
        train(6, gkw=dict(oam=True)))
    add("gn4_ver1", "version 1: each alone",
        train(6, gkw=dict(ver=1)))
    add("gn4_proto_other", "protocol type without GRO (0x88b5): alone",
        train(6, gkw=dict(proto=0x88b5)))
    add("gn4_proto_change", "protocol type change: another flow, alone",
        train(8, gmods={i: dict(proto=0x88b5) for i in mid}))
    # geneve_gro_receive(): IPv4/IPv6 go to inet/ipv6_gro_receive()
    ip4, ip6 = dict(proto=0x0800), dict(proto=0x86dd)
    add("gn4_proto_ip", "protocol type IPv4, no inner Ethernet: merges",
        train(12, gkw=ip4, no_eth=True))
    add("gn6_proto_ip6", "protocol type IPv6, no inner Ethernet: merges",
        train(12, v=6, gkw=ip6, no_eth=True))
    add("gn4_proto_ip_opts", "IPv4 without Ethernet, with options: merges",
        train(12, gkw=dict(ip4, opts=OPT * 2), no_eth=True))
    add("gn4_proto_ip_iid", "IPv4 without Ethernet: inner ID jump flushes (DF clear)",
        train(8, {i: dict(ipid=3000 + i) for i in mid}, gkw=ip4,
              no_eth=True, df=False))
    add("gn4_proto_ip_eth", "IPv4 then Ethernet: another flow",
        train(4, gkw=ip4, no_eth=True) +
        train(4, seq=gf.ISN + 4 * 1448, oid=1004, ipid=104))
    add("gn4_proto_ip_psh", "IPv4 without Ethernet: PSH ends the aggregate",
        train(8, {4: dict(flags="PA")}, gkw=ip4, no_eth=True))
    add("gn4_ottl", "outer TTL change flushes",
        train(8, omods={i: dict(ttl=63) for i in mid}))
    # DF clear: kernels before the 2025 IP ID rework (6.12) skip the ID
    # of an outer header with DF (inet_gro_flush(): outer && df), later
    # ones (and xrx) do not; without DF every kernel checks it.
    add("gn4_oid_jump", "outer ID jump flushes (DF clear)",
        train(8, omods={i: dict(ipid=3000 + i) for i in mid},
              okw=dict(df=False)))
    add("gn4_csum_zero", "outer UDP checksum zero: merges",
        train(20, okw=dict(udp_csum=False)))
    add("gn4_csum_bad", "bad outer UDP checksum: alone",
        train(8, omods={4: dict(bad_udp_csum=True)}))
    add("gn4_iwindow", "inner window change flushes",
        train(8, {i: dict(win=1024) for i in mid}))
    add("gn4_imac", "inner MAC change: another flow",
        train(8, {i: dict(smac="02:00:00:00:01:09") for i in mid}))
    add("gn4_udp_between", "a plain UDP datagram in between",
        train(4) + [vx.plain_udp()] + train(4, seq=gf.ISN + 4 * 1448,
                                            oid=1004, ipid=104))
    o6 = dict(v6=True)
    add("gn64_contig", "outer IPv6, inner TCPv4: contiguous segments merge",
        train(20, okw=o6, gkw=o2))
    add("gn66_contig", "outer IPv6, inner TCPv6: contiguous segments merge",
        train(20, v=6, okw=o6))
    add("gn64_opts_bytes", "outer IPv6, other option bytes: another flow",
        train(8, okw=o6, gkw=o2, gmods={i: dict(opts=OPT * 2 + OPT)
                                        for i in mid}))
    add("gn64_oam", "outer IPv6, OAM frame goes alone",
        train(8, okw=o6, gmods={4: dict(oam=True)}))
    add("gn66_proto_ip6", "outer IPv6, IPv6 without inner Ethernet: merges",
        train(12, v=6, okw=o6, gkw=dict(ip6, opts=OPT), no_eth=True))
    return t


# Where xrx and the kernel differ, with the reason (gro_oracle.py).
DOCUMENTED = {}


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
        vx.write_pcap(os.path.join(out, name + ".pcap"), frames)
        e = dict(name=name, rule=rule, proto="geneve", frames=len(frames),
                 needs=[])
        if name in DOCUMENTED:
            e["documented"] = DOCUMENTED[name]
        index.append(e)
    with open(os.path.join(out, "trains.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
