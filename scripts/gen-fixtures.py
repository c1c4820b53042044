#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Write crafted frame trains as pcap files, one train per rule of GRO.

    scripts/gen-fixtures.py OUTDIR            every train of one NAPI poll
    scripts/gen-fixtures.py OUTDIR NAME...    only these trains (also the
                                              longer ones --list shows)
    scripts/gen-fixtures.py --list            names and the rule each tests

Each train is OUTDIR/NAME.pcap (LINKTYPE_ETHERNET, at most 64 frames: one
NAPI budget, so the kernel sees the whole train in one poll) and
OUTDIR/trains.json describes them all: name, rule, protocol ("tcp" or
"udp": UDP trains need UDP GRO switched on), frame count, and what the
receiver must have ("vlan": VLAN GRO, CONFIG_VLAN_8021Q).

Every train exercises one merge/flush rule of the kernel's GRO
(net/ipv4/tcp_offload.c tcp_gro_receive(), net/ipv4/af_inet.c
inet_gro_receive(), net/ipv6/ip6_offload.c ipv6_gro_receive(),
net/ipv4/udp_offload.c udp_gro_receive_segment()), usually by changing one
segment in the middle of an otherwise mergeable train, so that both sides
of the rule's boundary show in the result.

Payload bytes are a function of the flow and the TCP sequence number (or
the UDP datagram index), so a reader can check that an aggregate holds
exactly the bytes of the segments it was built from.

Frames go to a unicast MAC that is not the receiver's own, so a receiving
kernel runs GRO on them and then drops them instead of answering.
"""
import copy
import json
import os
import random
import struct
import sys

from scapy.layers.inet import IP, TCP, UDP, IPOption_NOP
from scapy.layers.inet6 import (IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                                PadN)
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether

SMAC = "02:00:00:00:00:01"
DMAC = "02:00:00:00:00:02"
IP4 = ("198.18.0.1", "198.18.0.2")
IP6 = ("2001:db8::1", "2001:db8::2")
MSS = 1448
ISN = 1000000
ACK = 5000000


_PATTERN = {}


def payload(salt, seq, n):
    """n bytes of the stream of flow @salt starting at sequence @seq: byte
    k of the stream is (7k + salt) mod 256, a pattern of period 256."""
    pat = _PATTERN.get(salt)
    if pat is None:
        pat = _PATTERN[salt] = bytes((k * 7 + salt) & 0xff
                                     for k in range(256)) * 260
    start = seq % 256
    if n <= len(pat) - start:
        return pat[start:start + n]
    return bytes(((seq + i) * 7 + salt) & 0xff for i in range(n))


class Seg:
    """One frame; every field has the value of a plain mergeable segment."""

    def __init__(self, **kw):
        self.v = 4
        self.proto = "tcp"
        self.sport = 40000
        self.dport = 5201
        self.smac = SMAC
        self.dmac = DMAC
        self.vlans = []          # [(tpid, vid), ...] outer first
        self.seq = ISN
        self.plen = MSS
        self.flags = "A"
        self.ack = ACK
        self.win = 512
        self.urgptr = 0
        self.opts = []           # TCP options (scapy form)
        self.ttl = 64
        self.tos = 0
        self.df = True
        self.ipid = 0
        self.ipopts = None
        self.frag = None         # (mf, offset in bytes) for IPv4
        self.flowlabel = 0
        self.ext = []            # IPv6 extension headers (scapy layers)
        self.bad_ipcsum = False
        self.bad_l4csum = False
        self.zero_l4csum = False
        self.pad = 0             # bytes after the IP datagram
        self.cut = 0             # bytes cut off the end (IP length kept)
        self.data = None         # payload override
        self.__dict__.update(kw)

    def build(self):
        l2 = Ether(src=self.smac, dst=self.dmac)
        for tpid, vid in self.vlans:
            l2 = l2 / (Dot1AD(vlan=vid) if tpid == 0x88a8 else Dot1Q(vlan=vid))
        salt = self.sport & 0xff
        data = self.data if self.data is not None else \
            payload(salt, self.seq, self.plen)
        if self.proto == "tcp":
            l4 = TCP(sport=self.sport, dport=self.dport, seq=self.seq,
                     ack=self.ack, flags=self.flags, window=self.win,
                     urgptr=self.urgptr, options=self.opts)
        else:
            l4 = UDP(sport=self.sport, dport=self.dport)
        if self.v == 4:
            l3 = IP(src=IP4[0], dst=IP4[1], ttl=self.ttl, tos=self.tos,
                    id=self.ipid, flags="DF" if self.df else 0)
            if self.ipopts:
                l3.options = self.ipopts
        else:
            l3 = IPv6(src=IP6[0], dst=IP6[1], hlim=self.ttl, tc=self.tos,
                      fl=self.flowlabel)
            for e in self.ext:
                l3 = l3 / e
        pkt = l2 / l3 / l4 / data
        if self.zero_l4csum:
            pkt[UDP].chksum = 0
        raw = bytearray(bytes(pkt))
        l3off = 14 + 4 * len(self.vlans)
        l4off = len(raw) - len(data) - len(l4)   # l4 alone: header only
        if self.bad_ipcsum and self.v == 4:
            raw[l3off + 10] ^= 0x5a
        if self.bad_l4csum:
            raw[l4off + (16 if self.proto == "tcp" else 6)] ^= 0x5a
        if self.frag is not None:
            raw = self._fragment(raw, l3off)
            return raw
        if self.cut:
            return [bytes(raw[:-self.cut])]
        return [bytes(raw) + b"\0" * self.pad]

    def _fragment(self, raw, l3off):
        """Split an IPv4 datagram in two fragments at byte @frag of its payload."""
        ihl = (raw[l3off] & 0xf) * 4
        body = bytes(raw[l3off + ihl:])
        cut = self.frag
        out = []
        for off, part, mf in ((0, body[:cut], True), (cut, body[cut:], False)):
            hdr = bytearray(raw[l3off:l3off + ihl])
            struct.pack_into("!H", hdr, 2, ihl + len(part))
            struct.pack_into("!H", hdr, 6, (0x2000 if mf else 0) | off // 8)
            struct.pack_into("!H", hdr, 10, 0)
            struct.pack_into("!H", hdr, 10, ipsum(hdr))
            out.append(bytes(raw[:l3off]) + bytes(hdr) + part)
        return out


def ipsum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), bytes(b)))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def tcp_train(n, mods=None, plens=None, v=4, **common):
    """n contiguous segments; mods[i] (1-based) overrides fields of segment i."""
    mods = mods or {}
    segs = []
    seq = common.pop("seq", ISN)
    ipid = common.pop("ipid", 100)
    for i in range(1, n + 1):
        kw = dict(common)
        kw.update(v=v, seq=seq, ipid=ipid + i - 1)
        if plens:
            kw["plen"] = plens[i - 1]
        kw.update(mods.get(i, {}))
        s = Seg(**kw)
        segs.append(s)
        seq = s.seq + s.plen
    return segs


def udp_train(n, plen=1400, mods=None, plens=None, v=4, **common):
    mods = mods or {}
    segs = []
    for i in range(1, n + 1):
        kw = dict(common)
        kw.update(v=v, proto="udp", plen=plens[i - 1] if plens else plen,
                  ipid=200 + i - 1, seq=i * 100000)
        kw.update(mods.get(i, {}))
        segs.append(Seg(**kw))
    return segs


def reorder(segs, order):
    return [segs[i - 1] for i in order]


def cut_copy(segs, after, of, cut=100):
    """Insert after segment @after a copy of segment @of (1-based) whose
    last @cut bytes are missing while its IP length still counts them.
    The stream itself stays contiguous, so only a flush the cut copy
    causes can split it."""
    c = copy.copy(segs[of - 1])
    c.cut = cut
    return segs[:after] + [c] + segs[after:]


TS = [("NOP", None), ("NOP", None), ("Timestamp", (1000, 2000))]
TS2 = [("NOP", None), ("NOP", None), ("Timestamp", (1001, 2000))]
DSTOPT = IPv6ExtHdrDestOpt(options=[PadN(optdata=b"\0\0\0\0")])
DSTOPT2 = IPv6ExtHdrDestOpt(options=[PadN(optdata=b"\1\1\1\1")])


def trains():
    """(name, rule, segments) for every train; names are stable."""
    t = []

    def add(name, rule, segs):
        t.append((name, rule, segs))

    # Merging, and the size limit (skb_gro_receive(): held + add >= 65536).
    add("tcp4_contig", "contiguous segments merge", tcp_train(20))
    add("tcp4_limit64k", "64 KiB limit: 50 x 1448 -> 45 + 5", tcp_train(50))
    add("tcp6_contig", "contiguous IPv6 segments merge", tcp_train(20, v=6))
    add("tcp6_limit64k", "64 KiB limit over IPv6", tcp_train(50, v=6))
    # tcp_gro_receive(): flag word, ack, options.
    add("tcp4_cwr", "CWR in a new segment flushes",
        tcp_train(8, {4: dict(flags="AC")}))
    add("tcp4_cwr_run", "consecutive CWR segments",
        tcp_train(8, {4: dict(flags="AC"), 5: dict(flags="AC")}))
    add("tcp4_ece", "ECE difference flushes",
        tcp_train(8, {4: dict(flags="AE"), 5: dict(flags="AE")}))
    add("tcp4_urg", "URG ends the aggregate",
        tcp_train(8, {4: dict(flags="AU", urgptr=10)}))
    add("tcp4_window", "window change flushes",
        tcp_train(8, {4: dict(win=1024), 5: dict(win=1024), 6: dict(win=1024)}))
    add("tcp4_ack", "ack_seq change flushes",
        tcp_train(8, {i: dict(ack=ACK + 1448) for i in range(4, 9)}))
    add("tcp4_ts_same", "identical timestamp options merge",
        tcp_train(10, opts=TS))
    add("tcp4_ts_change", "timestamp change flushes",
        tcp_train(8, {i: dict(opts=TS2) for i in range(4, 9)}, opts=TS))
    add("tcp4_opt_len", "option length (doff) change flushes",
        tcp_train(8, {4: dict(opts=[]), 5: dict(opts=[])}, opts=TS))
    add("tcp4_psh", "PSH ends the aggregate (merged first)",
        tcp_train(10, {4: dict(flags="PA")}))
    add("tcp4_fin", "FIN merges and ends the aggregate",
        tcp_train(6, {6: dict(flags="FA")}))
    add("tcp4_fin_mid", "FIN in the middle ends the aggregate",
        tcp_train(8, {3: dict(flags="FA")}))
    add("tcp4_short", "a segment shorter than mss merges and ends it",
        tcp_train(8, plens=[1448, 1448, 1448, 700, 1448, 1448, 1448, 1448]))
    add("tcp4_larger", "a segment larger than mss flushes",
        tcp_train(6, plens=[1000, 1000, 1448, 1448, 1000, 1000]))
    add("tcp4_pure_ack", "a pure ACK is never merged",
        tcp_train(8, plens=[1448, 1448, 1448, 0, 1448, 1448, 1448, 1448]))
    add("tcp4_syn", "SYN is never merged",
        tcp_train(6, {3: dict(flags="SA")}))
    add("tcp4_rst", "RST is never merged",
        tcp_train(6, {4: dict(flags="RA", plen=0)}))
    # Sequence: contiguous only (seq == aggregate seq + payload length).
    segs = tcp_train(10)
    add("tcp4_gap", "a sequence gap flushes", segs[:4] + segs[5:])
    add("tcp4_ooo", "out-of-order segments flush",
        reorder(tcp_train(8), [1, 2, 3, 5, 4, 6, 7, 8]))
    add("tcp4_dup", "a duplicate segment flushes",
        reorder(tcp_train(8), [1, 2, 3, 4, 4, 5, 6, 7, 8]))
    # inet_gro_receive() / inet_gro_flush(): TTL, TOS, DF, IP ID.
    add("tcp4_ttl", "TTL change flushes",
        tcp_train(8, {i: dict(ttl=63) for i in range(4, 9)}))
    add("tcp4_tos", "TOS change flushes",
        tcp_train(8, {i: dict(tos=0x10) for i in range(4, 9)}))
    add("tcp4_df", "DF change flushes",
        tcp_train(8, {i: dict(df=False) for i in range(4, 9)}))
    add("tcp4_id_fixed_df", "fixed IP ID with DF merges",
        tcp_train(10, {i: dict(ipid=7) for i in range(1, 11)}))
    add("tcp4_id_fixed_nodf", "fixed IP ID without DF",
        tcp_train(10, {i: dict(ipid=7, df=False) for i in range(1, 11)}))
    add("tcp4_id_inc_nodf", "incrementing IP ID without DF merges",
        tcp_train(10, {i: dict(df=False) for i in range(1, 11)}))
    rnd = random.Random(4)
    add("tcp4_id_random", "random IP IDs flush",
        tcp_train(8, {i: dict(ipid=rnd.randrange(65536)) for i in range(1, 9)}))
    add("tcp4_id_inc_then_fixed", "IP ID incrementing, then fixed, flushes",
        tcp_train(8, {i: dict(ipid=103) for i in range(5, 9)}))
    add("tcp4_id_jump", "IP ID jump flushes",
        tcp_train(8, {i: dict(ipid=500 + i) for i in range(5, 9)}))
    # Never aggregated.
    add("tcp4_ipopt", "IPv4 with options is never merged",
        tcp_train(6, ipopts=[IPOption_NOP()] * 4))
    add("tcp4_frag", "IPv4 fragments are never merged",
        tcp_train(8, {4: dict(frag=512)}))
    add("tcp4_bad_ipcsum", "bad IPv4 header checksum: delivered alone",
        tcp_train(8, {4: dict(bad_ipcsum=True)}))
    add("tcp4_bad_csum", "bad TCP checksum: delivered alone",
        tcp_train(8, {4: dict(bad_l4csum=True)}))
    add("tcp4_pad", "Ethernet padding (length mismatch) is never merged",
        tcp_train(8, {4: dict(pad=6)}))
    add("tcp4_pad_small", "padded short tail segment",
        tcp_train(6, plens=[1448] * 5 + [2], mods={6: dict(pad=4)}))
    add("tcp4_cut", "IP length past the frame flushes the held aggregate",
        cut_copy(tcp_train(8), 3, 2))
    # Flow identity.
    add("tcp4_vlan", "802.1Q tagged segments merge",
        tcp_train(12, vlans=[(0x8100, 100)]))
    add("tcp4_qinq", "QinQ tagged segments merge",
        tcp_train(12, vlans=[(0x88a8, 100), (0x8100, 200)]))
    # p->len counts in-band tags: 14 + 4 + 52 + 40 * 1637 = 65536 bytes
    # from the MAC header, so the 40th segment no longer fits.
    add("tcp4_vlan_limit64k", "64 KiB limit counts the VLAN tag (p->len)",
        tcp_train(41, plens=[1637] * 41, vlans=[(0x8100, 100)]))
    add("tcp4_vlan_change", "a different VLAN is a different flow",
        tcp_train(8, {i: dict(vlans=[(0x8100, 101)]) for i in range(4, 6)},
                  vlans=[(0x8100, 100)]))
    add("tcp4_mac_change", "a different Ethernet header is a different flow",
        tcp_train(8, {4: dict(smac="02:00:00:00:00:03")}))
    f1 = tcp_train(10, sport=40001)
    f2 = tcp_train(10, sport=40002, seq=7000000)
    f3 = tcp_train(10, sport=40003, v=6, seq=9000000)
    add("tcp_interleaved", "three interleaved flows aggregate independently",
        [s for trio in zip(f1, f2, f3) for s in trio])
    # IPv6: ipv6_gro_receive().
    add("tcp6_flowlabel", "IPv6 flow label change is a different flow",
        tcp_train(8, {i: dict(flowlabel=0x12345) for i in range(4, 6)}, v=6))
    add("tcp6_tclass", "IPv6 traffic class change flushes",
        tcp_train(8, {i: dict(tos=0x20) for i in range(4, 9)}, v=6))
    add("tcp6_hlim", "IPv6 hop limit change flushes",
        tcp_train(8, {i: dict(ttl=63) for i in range(4, 9)}, v=6))
    add("tcp6_ext_same", "IPv6 identical extension headers",
        tcp_train(10, v=6, ext=[DSTOPT]))
    add("tcp6_ext_diff", "IPv6 different extension headers: different flow",
        tcp_train(8, {i: dict(ext=[DSTOPT2]) for i in range(4, 6)}, v=6,
                  ext=[DSTOPT]))
    add("tcp6_frag", "IPv6 fragment header is never merged",
        tcp_train(6, {i: dict(ext=[IPv6ExtHdrFragment(id=9, offset=0, m=0)])
                      for i in range(3, 5)}, v=6))
    add("tcp6_bad_csum", "bad TCP checksum over IPv6: delivered alone",
        tcp_train(8, {4: dict(bad_l4csum=True)}, v=6))
    add("tcp6_pad", "IPv6 payload length mismatch is never merged",
        tcp_train(8, {4: dict(pad=6)}, v=6))
    add("tcp6_cut", "IPv6 payload length past the frame flushes",
        cut_copy(tcp_train(8, v=6), 3, 2))
    # UDP: udp_gro_receive_segment().
    add("udp4_equal", "equal-sized UDP datagrams merge", udp_train(20))
    add("udp4_short_tail", "a shorter UDP datagram merges and ends it",
        udp_train(14, plens=[1400] * 9 + [600] + [1400] * 4))
    add("udp4_larger", "a larger UDP datagram flushes",
        udp_train(10, plens=[1000] * 4 + [1400] + [1000] * 5))
    add("udp4_64segs", "64 UDP segments merge (UDP_GRO_CNT_MAX)",
        udp_train(64, plen=200))
    add("udp4_limit64k", "64 KiB limit for UDP",
        udp_train(50, plen=1400))
    add("udp4_zero_csum", "UDP with checksum 0 is never merged",
        udp_train(8, mods={i: dict(zero_l4csum=True) for i in range(1, 9)}))
    add("udp4_bad_csum", "bad UDP checksum: delivered alone",
        udp_train(10, mods={5: dict(bad_l4csum=True)}))
    add("udp6_equal", "equal-sized UDP/IPv6 datagrams merge",
        udp_train(20, v=6))
    add("udp4_cut", "UDP cut short (length mismatch): alone, held kept",
        cut_copy(udp_train(10), 4, 2))
    add("udp4_ttl", "TTL change flushes UDP",
        udp_train(8, mods={i: dict(ttl=63) for i in range(4, 9)}))
    return t


def extra_trains():
    """Trains too long for one NAPI poll, written only when named."""
    return [
        ("big_tcp4", "BIG TCP: 370 x 1448 -> 362 + 8 at 524280",
         tcp_train(370)),
        ("big_tcp6", "BIG TCP over IPv6: 370 x 1448",
         tcp_train(370, v=6)),
        # IPv6 BIG TCP with a receiver's gro_max_size above 64 KiB: at
        # most 64 frames, so the kernel sees each in one NAPI poll
        # (tests/integration/test_gro_oracle_big6.sh).
        ("big6_64", "IPv6 BIG TCP: 64 x 1448 in one aggregate, jumbo option",
         tcp_train(64, v=6)),
        ("big6_psh", "IPv6 BIG TCP: PSH at 50 ends a 72400-byte aggregate",
         tcp_train(60, {50: dict(flags="PA")}, v=6)),
        ("big6_ts", "IPv6 BIG TCP with timestamps: 64 x 1436",
         tcp_train(64, v=6, opts=TS, plen=1436)),
        ("big6_dstopt", "IPv6 BIG TCP: jumbo option before a destination "
         "options header", tcp_train(50, v=6, ext=[DSTOPT])),
        ("big6_limit", "IPv6 BIG TCP at gro_max_size 80000: 64 x 1448 -> "
         "55 + 9", tcp_train(64, v=6)),
        ("udp4_cap66", "66 UDP datagrams: 64 (UDP_GRO_CNT_MAX) + 2",
         udp_train(66, plen=200)),
        ("many_flows", "200 interleaved flows of 8 segments",
         [s for group in zip(*[tcp_train(8, sport=20000 + f, seq=f * 100000)
                               for f in range(200)]) for s in group]),
    ]


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000, i, len(fr), len(fr)))
            f.write(fr)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1])
        return 0 if len(argv) >= 2 else 2
    all_trains = trains()
    if argv[1] == "--list":
        for name, rule, _ in all_trains + extra_trains():
            print("%-24s %s" % (name, rule))
        return 0
    out = argv[1]
    only = set(argv[2:])
    extra = [t for t in extra_trains() if t[0] in only]
    all_trains += extra
    unknown = only - {n for n, _, _ in all_trains}
    if unknown:
        print("gen-fixtures: unknown train(s) %s; see --list" %
              " ".join(sorted(unknown)), file=sys.stderr)
        return 2
    os.makedirs(out, exist_ok=True)
    index = []
    for name, rule, segs in all_trains:
        if only and name not in only:
            continue
        frames = [fr for s in segs for fr in s.build()]
        write_pcap(os.path.join(out, name + ".pcap"), frames)
        assert len(frames) <= 64 or (name, rule, segs) in extra, name
        needs = ["vlan"] if any(s.vlans for s in segs) else []
        index.append(dict(name=name, rule=rule, proto=segs[0].proto,
                          frames=len(frames), needs=needs))
    with open(os.path.join(out, "trains.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
