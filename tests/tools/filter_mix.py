#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Write a pcap of mixed traffic for the capture filter tests: TCP trains
xrx aggregates (IPv4 and IPv6, in-band VLAN tags, several hosts, nets and
ports, SYN/FIN/RST/PSH flags, one flow whose payload starts "GET "), UDP,
ICMP and ICMPv6, of many lengths. Deterministic (no randomness, fixed
timestamps), addresses in 198.18.0.0/15 and 2001:db8::/32.

    filter_mix.py OUT.pcap
"""
import sys

from scapy.all import (Dot1Q, Ether, ICMP, ICMPv6EchoRequest, IP, IPv6, TCP,
                       UDP, Raw, wrpcap)

M1, M2, M3 = "02:00:00:00:00:01", "02:00:00:00:00:02", "02:00:00:00:00:03"


def pay(n, seed):
    return bytes((seed + i) % 251 for i in range(n))


def train(l2, l3, sport, dport, segs, mss, seq=1000, first=None, flags="A",
          last_flags=None):
    out = []
    for i in range(segs):
        p = pay(mss, sport + i)
        if first is not None and i == 0:
            p = first + p[len(first):]
        f = flags
        if last_flags and i == segs - 1:
            f = last_flags
        out.append(l2 / l3 / TCP(sport=sport, dport=dport, seq=seq + i * mss,
                                 ack=1, flags=f, window=512) / Raw(p))
    return out


def main():
    e = Ether(src=M1, dst=M2)
    e3 = Ether(src=M3, dst=M2)
    v10 = Ether(src=M1, dst=M2) / Dot1Q(vlan=10)
    v20 = Ether(src=M3, dst=M2) / Dot1Q(vlan=20)
    pk = []
    # handshakes and ends: flags that end or refuse aggregation
    pk.append(e / IP(src="198.18.0.1", dst="198.18.0.2") /
              TCP(sport=40000, dport=80, flags="S", seq=999))
    pk.append(e / IP(src="198.18.0.2", dst="198.18.0.1") /
              TCP(sport=80, dport=40000, flags="SA", seq=4999, ack=1000))
    pk += train(e, IP(src="198.18.0.1", dst="198.18.0.2", ttl=64), 40000,
                80, 12, 1448, first=b"GET /index.html HTTP/1.1\r\n",
                last_flags="PA")
    pk += train(e, IP(src="198.18.0.1", dst="198.18.0.2", ttl=64), 40000,
                80, 4, 1448, seq=1000 + 12 * 1448, last_flags="FA")
    pk += train(e3, IP(src="198.18.1.2", dst="198.19.0.7", ttl=32), 41000,
                5201, 16, 1448)
    pk += train(e3, IP(src="198.18.1.2", dst="198.19.0.7", ttl=32), 41001,
                1500, 6, 512, last_flags="PA")
    pk.append(e3 / IP(src="198.19.0.7", dst="198.18.1.2") /
              TCP(sport=5201, dport=41002, flags="R", seq=1))
    # VLAN-tagged trains (tags in the frame)
    pk += train(v10, IP(src="198.18.2.1", dst="198.18.2.9"), 42000, 443, 8,
                1000)
    pk += train(v20, IP(src="198.18.3.1", dst="198.18.3.9"), 42001, 22, 5,
                200)
    pk.append(v10 / IP(src="198.18.2.1", dst="198.18.2.9") /
              UDP(sport=5353, dport=53) / Raw(pay(40, 3)))
    # IPv6
    pk += train(e, IPv6(src="2001:db8::1", dst="2001:db8::2"), 43000, 80, 10,
                1428)
    pk += train(e3, IPv6(src="2001:db8:1::5", dst="2001:db8:2::6"), 43001,
                8080, 3, 700, last_flags="PA")
    pk.append(e / IPv6(src="2001:db8::1", dst="2001:db8::2") /
              UDP(sport=5000, dport=53) / Raw(pay(60, 9)))
    pk.append(e / IPv6(src="2001:db8::2", dst="2001:db8::1") /
              ICMPv6EchoRequest(id=1, seq=1) / Raw(pay(56, 1)))
    # UDP and ICMP of many lengths
    for i, n in enumerate((0, 1, 18, 100, 400, 1000, 1472)):
        pk.append(e / IP(src="198.18.0.1", dst="198.18.0.%d" % (10 + i)) /
                  UDP(sport=33000 + i, dport=53 if i % 2 else 123) /
                  Raw(pay(n, i)))
    for i in range(4):
        pk.append(e3 / IP(src="198.18.0.%d" % (20 + i), dst="198.18.0.1") /
                  ICMP(type=8 if i % 2 else 0, id=7, seq=i) /
                  Raw(pay(56 + 100 * i, i)))
    for i, p in enumerate(pk):
        p.time = 1700000000 + i / 1000.0
    wrpcap(sys.argv[1], pk)
    print(len(pk))


if __name__ == "__main__":
    main()
