#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Write the seed corpora of the fuzz targets in tests/fuzz/.

    scripts/fuzz-seeds.py            (re)write tests/fuzz/TARGET/seed-*
    scripts/fuzz-seeds.py OUTDIR     write OUTDIR/TARGET/seed-* instead

Seeds are small, well-formed starting points that let libFuzzer reach the
deep paths quickly: one frame of every kind the parser tells apart, GRO
trains in the engine target's operation encoding (see the comment at the
top of tests/fuzz/fuzz_engine.c), configs, state files and captures.
Regression inputs (regress-*) sit next to them and are never rewritten.
"""
import os
import struct
import sys
import tempfile
import zlib

from scapy.all import (ARP, Dot1AD, Dot1Q, Ether, ICMP, ICMPv6EchoRequest,
                       IP, IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, Raw, SCTP, TCP,
                       UDP, PcapNgWriter, PcapWriter)

S4, D4 = "198.18.0.1", "198.18.0.2"
S6, D6 = "2001:db8::1", "2001:db8::2"
MACS = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def eth(**kw):
    return Ether(**MACS, **kw)


def payload(n, seed=0):
    return Raw(bytes((seed + i * 7) & 0xff for i in range(n)))


def tcp4(seq=1000, n=64, **kw):
    return eth() / IP(src=S4, dst=D4, id=seq & 0xffff) / TCP(
        sport=40000, dport=5001, seq=seq, flags="A", **kw) / payload(n)


def parse_seeds():
    ts = [("Timestamp", (1, 0))]
    frames = {
        "tcp4": tcp4(),
        "tcp4-opts": eth() / IP(src=S4, dst=D4, options=b"\x94\x04\x00\x00")
        / TCP(sport=1, dport=2, options=ts) / payload(20),
        "tcp6": eth() / IPv6(src=S6, dst=D6) / TCP(sport=1, dport=5001)
        / payload(40),
        "tcp6-ext": eth() / IPv6(src=S6, dst=D6) / IPv6ExtHdrHopByHop()
        / IPv6ExtHdrRouting() / IPv6ExtHdrDestOpt() / TCP() / payload(8),
        "tcp6-frag": eth() / IPv6(src=S6, dst=D6)
        / IPv6ExtHdrFragment(m=1, id=7) / TCP() / payload(8),
        "tcp6-frag2": eth() / IPv6(src=S6, dst=D6)
        / IPv6ExtHdrFragment(offset=100, id=7) / payload(16),
        "udp4": eth() / IP(src=S4, dst=D4) / UDP(sport=7, dport=5001)
        / payload(30),
        "udp6": eth() / IPv6(src=S6, dst=D6) / UDP() / payload(30),
        "vlan-tcp4": eth() / Dot1Q(vlan=100) / IP(src=S4, dst=D4) / TCP()
        / payload(10),
        "qinq-tcp6": eth() / Dot1AD(vlan=10) / Dot1Q(vlan=20)
        / IPv6(src=S6, dst=D6) / TCP() / payload(10),
        "vlan3": eth() / Dot1Q(vlan=1) / Dot1Q(vlan=2) / Dot1Q(vlan=3)
        / IP(src=S4, dst=D4) / UDP(),
        "arp": eth() / ARP(psrc=S4, pdst=D4),
        "icmp4": eth() / IP(src=S4, dst=D4) / ICMP() / payload(8),
        "icmp6": eth() / IPv6(src=S6, dst=D6) / ICMPv6EchoRequest(),
        "sctp4": eth() / IP(src=S4, dst=D4) / SCTP() / payload(4),
        "frag4-first": eth() / IP(src=S4, dst=D4, flags="MF") / TCP()
        / payload(24),
        "frag4-next": eth() / IP(src=S4, dst=D4, frag=185) / payload(24),
        # 14 + 40 + 2 * 96 + 20 > the 256-byte parse window
        "tcp6-window": eth() / IPv6(src=S6, dst=D6)
        / IPv6ExtHdrDestOpt(len=11, nh=60) / IPv6ExtHdrDestOpt(len=11)
        / TCP() / payload(64),
        "tcp4-long": tcp4(n=1400),
        "short": bytes(eth() / IP(src=S4, dst=D4))[:30],
    }
    return {k: bytes(v) for k, v in frames.items()}


def engine_seeds():
    # Header: b0 flows maxagg-index max_segs pkts [timeout]; see fuzz_engine.c
    def hdr(b0=0, flows=16, agg=5, segs=0, pkts=0):
        return bytes([b0, flows, agg, segs, pkts])

    def tmpl(flow=0, kind=0, p=0, extra=b""):
        return bytes([0x40 + (kind << 2) + flow, p]) + extra

    batch = b"\xa0"
    seeds = {}
    seeds["tcp4-train"] = hdr() + tmpl() * 12 + batch
    seeds["tcp6-train"] = hdr(b0=1) + tmpl(kind=1) * 12 + batch
    seeds["two-flows"] = hdr(b0=2) + (tmpl(0, 0) + tmpl(1, 0)) * 8 + batch
    seeds["udp-gro"] = hdr(b0=8) + tmpl(kind=2) * 10 + tmpl(kind=3) * 10 + batch
    seeds["vlan-qinq"] = hdr(b0=8) + tmpl(kind=4) * 6 + tmpl(kind=7) * 6 + batch
    seeds["ext-noopt"] = hdr() + tmpl(kind=5) * 6 + tmpl(kind=6) * 6 + batch
    # PSH ends, a gap, a retransmit, a short segment (0x80: length bytes)
    seeds["flush-rules"] = (hdr() + tmpl() * 3 + tmpl(p=4, extra=b"\x18")
                            + tmpl() * 2 + tmpl(p=1, extra=b"\x00")
                            + tmpl() + tmpl(p=2) + tmpl(p=0x80, extra=b"\x00\x64")
                            + batch)
    # held packets, xrx_meta, a timeout, table pressure, flush calls
    seeds["hold-meta-timeout"] = (hdr(b0=0x10 | 0x20 | 0x80, flows=2)
                                  + b"\x05" + (tmpl(0) + tmpl(1) + tmpl(2)) * 4
                                  + b"\xa3" + tmpl(3) * 3 + b"\xe1\xf0"
                                  + tmpl(0) * 3 + b"\xc0")
    seeds["big-tcp"] = hdr(b0=2, agg=8) + tmpl() * 60 + batch
    # 0x3e: the next frame in pieces (first piece byte, chunk bytes);
    # byte 1 bits 6-7 allow up to 18 pieces. 0x80 + 2 bytes: payload length.
    chain = b"\x3e" + tmpl(p=0x80, extra=b"\x23\x28") + b"\x20\x40\x10"
    seeds["multi-buffer"] = hdr(flows=0x80 | 16) + chain * 6 + batch
    seeds["multi-buffer-udp"] = (hdr(b0=8, flows=0x40 | 16)
                                 + (b"\x3e" + tmpl(kind=2, p=0x80,
                                                   extra=b"\x0f\xa0")
                                    + b"\x30\x30") * 4 + batch)
    raw = bytes(tcp4(seq=5000, n=100))
    seeds["raw-frames"] = (hdr() + b"\x00" + struct.pack(">H", len(raw)) + raw
                           + b"\x00" + struct.pack(">H", 20) + raw[:20]
                           + b"\x3f" + batch)
    return seeds


def vnet_seeds():
    # b0: 1 vxlan, 2 ipv6_jumbo hbh, 4 UDP GRO, (agg << 3), 0x20 timeout;
    # b1: max_segs; see tests/fuzz/fuzz_vnet.c
    def hdr(b0=0, segs=0):
        return bytes([b0, segs])

    def f(kind=0, flow=0, p=0, extra=b""):
        return bytes([0x40 + (flow << 3) + kind, p]) + extra

    batch = b"\x80"
    big = 2 << 3 | 0x20              # max_aggregate 185000, kept 1 ms
    seeds = {}
    seeds["tcp4-train"] = hdr() + f() * 40 + batch
    seeds["tcp6-big-hbh"] = hdr(big | 2) + f(1) * 140 + batch + f(1, 1) * 60
    seeds["tcp6-big-zero"] = hdr(big) + f(1) * 140 + batch
    seeds["tcp4-big"] = hdr(3 << 3 | 0x20, 200) + f() * 200 + batch
    seeds["udp"] = hdr(4) + f(2) * 30 + f(3) * 30 + batch
    seeds["vxlan"] = (hdr(1) + f(4) * 30 + f(5) * 30 + f(6) * 30
                      + f(4, 1, 1) + batch)
    seeds["ext-hdr"] = hdr(big | 2) + f(7) * 60 + batch
    # PSH, a gap, CWR, a short segment, a bad checksum, a changed byte
    seeds["flags"] = (hdr() + f() * 5 + f(p=1) + f() * 3 + f(p=2) + f() * 3
                      + f(p=8) + f() * 3 + f(p=4, extra=b"\x20") + f() * 2
                      + f(p=16) + f() * 2 + f(p=32, extra=b"\x30\x01")
                      + f() * 3 + batch)
    return seeds


def conf_seeds(top):
    with open(os.path.join(top, "etc/xrx/example.conf"), "rb") as f:
        example = f.read()
    return {
        "example": example,
        "minimal": b"interface = xd0\n",
        "rules": b"interface = eth0\nqueues = 2\naccelerate = tcp/5001, "
                 b"udp/0@198.18.0.0/15, tcp/443@2001:db8::/32\n"
                 b"default = accel\ncopy = max-head\ncsum = trust\n"
                 b"udp_gro = on\nsink = pcap:/tmp/x.pcap\n",
        "offload": b"interface = eth0\n[offload]\nlro = off!\n"
                   b"gro_max_size = 131072\nrx_ring = max\nchannels = 4\n"
                   b"header_split = on\n",
        "rule-line": b"tcp/5001@198.18.0.0/15\n",
    }


def state_body():
    return (b"# xrx: original settings of xd0\n"
            b"xrx-state 1\ninterface xd0\nifindex 7\npid 100\n"
            b"feature rx-gro-hw off\nfeature rx-lro on\n"
            b"gro_max_size 65536\ngso_ipv4_max_size 65536\nrx_ring 1024\n"
            b"tcp_data_split 2\nchannels_rx 0\nchannels_combined 4\n")


def state_seeds():
    body = state_body()
    full = body + b"end %08x\n" % zlib.crc32(body)
    # First byte odd: the target appends the end line itself.
    return {"body": b"\x01" + body, "full": b"\x00" + full,
            "minimal": b"\x01xrx-state 1\ninterface xd0\nifindex 1\npid 1\n"}


def pcap_bytes(frames, ng=False):
    with tempfile.NamedTemporaryFile(suffix=".pcap") as tmp:
        w = PcapNgWriter(tmp.name) if ng else PcapWriter(tmp.name, linktype=1)
        for i, fr in enumerate(frames):
            fr.time = 1700000000 + i / 1000   # fixed: the seeds do not change
            w.write(fr)
        w.close()
        with open(tmp.name, "rb") as f:
            return f.read()


def replay_seeds():
    train = [tcp4(seq=1000 + i * 1000, n=1000) for i in range(6)]
    mix = [tcp4(seq=1, n=10), eth() / IP(src=S4, dst=D4) / UDP() / payload(20),
           eth() / ARP()] + [eth() / IPv6(src=S6, dst=D6) / TCP(seq=i * 50)
                             / payload(50) for i in range(4)]
    return {"tcp4-train": b"\x02" + pcap_bytes(train),
            "mix-ng": b"\x21" + pcap_bytes(mix, ng=True),
            "empty": b"\x00" + pcap_bytes([])}


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "tests/fuzz")
    sets = {"fuzz_parse": parse_seeds(), "fuzz_engine": engine_seeds(),
            "fuzz_conf": conf_seeds(top), "fuzz_state": state_seeds(),
            "fuzz_replay": replay_seeds(), "fuzz_vnet": vnet_seeds()}
    for target, seeds in sets.items():
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for name in os.listdir(d):
            if name.startswith("seed-"):
                os.unlink(os.path.join(d, name))
        for name, data in seeds.items():
            with open(os.path.join(d, "seed-" + name), "wb") as f:
                f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
