#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Read pcap files of Ethernet frames and compare what two GRO engines made
of the same train.

    xrxpcap.py summary FILE              one line per packet
    xrxpcap.py count FILE                "PACKETS BYTES" (frame bytes)
    xrxpcap.py compare EXPECTED ACTUAL   per-flow comparison; exit 1 if they differ
    xrxpcap.py split CAPTURE OUTDIR      cut a capture at marker frames
    xrxpcap.py check-payload IN OUT      OUT carries exactly IN's payload bytes
    xrxpcap.py stream FILE PORT          the TCP stream to PORT put together
                                         again: its length, gaps, and the
                                         hash tests/helpers/tcp_hash prints
    xrxpcap.py comments FILE             each packet's pcapng comment, a line each
    xrxpcap.py tcp-count FILE... PORT    "RECORDS PAYLOAD_BYTES WIRE_BYTES" of the
                                         TCP/IPv4 packets to PORT (pcap or pcapng,
                                         read as a stream: files of gigabytes)

FILE may be pcap or pcapng (Section Header, Interface Description and
Enhanced Packet Blocks; every block's two lengths and its padding are
checked).

Only the standard library: no scapy, so multi-megabyte captures and
512 KiB aggregates read quickly.

Comparison is per flow and by sequence number, not in delivery order: the
kernel delivers a segment it refused (bad checksum) right away, ahead of
the aggregate it is still holding, and flushes held flows in its own
order. Within a flow the packets are sorted by (seq, length, headers), so
any difference in aggregate boundaries, segment counts, payload bytes or a
header field shows as a difference.
"""
import hashlib
import mmap
import os
import struct
import sys

MARKER_MAGIC = b"xrx-train "   # ICMP echo payload of a train separator
LINKTYPE_ETHERNET = 1
# UDP destination ports whose payload parse() reads as VXLAN (RFC 7348):
# empty unless a caller (gro_oracle.py --vxlan-port) fills it in.
VXLAN_PORTS = set()
# ... and as GENEVE (RFC 8926): a header of version 0 without OAM and of
# protocol type 0x6558 leads to the inner frame, of type IPv4 or IPv6 to
# an inner IP packet without Ethernet header (read as a frame of zero
# MACs); the whole header, its options included, is part of the flow
# (geneve_gro_receive()).
GENEVE_PORTS = set()


class PcapError(Exception):
    pass


PCAPNG_SHB = 0x0a0d0d0a


def _pcapng_blocks(path, data):
    """(block type, byte order, offset, length) of every block of a pcapng
    file in @data (bytes or an mmap), both lengths and the byte-order
    magic checked: the one walk over blocks both readers below use."""
    off, e, n = 0, "<", len(data)
    while off < n:
        if off + 12 > n:
            raise PcapError("%s: truncated block header at %d" % (path, off))
        btype = struct.unpack_from(e + "I", data, off)[0]
        if btype == PCAPNG_SHB:
            bom = bytes(data[off + 8:off + 12])
            if bom == b"\x4d\x3c\x2b\x1a":
                e = "<"
            elif bom == b"\x1a\x2b\x3c\x4d":
                e = ">"
            else:
                raise PcapError("%s: bad byte-order magic %s" % (path, bom.hex()))
        blen = struct.unpack_from(e + "I", data, off + 4)[0]
        if blen % 4 or blen < 12 or off + blen > n:
            raise PcapError("%s: block at %d has length %d" % (path, off, blen))
        if struct.unpack_from(e + "I", data, off + blen - 4)[0] != blen:
            raise PcapError("%s: block at %d: trailing length differs" %
                            (path, off))
        yield btype, e, off, blen
        off += blen


def read_pcapng(path, data):
    """Return [(frame bytes, wire length, comment or None)] of a pcapng file
    of one LINKTYPE_ETHERNET interface."""
    out = []
    for btype, e, off, blen in _pcapng_blocks(path, data):
        body = data[off + 8:off + blen - 4]
        if btype == 1:
            if struct.unpack(e + "H", body[:2])[0] != LINKTYPE_ETHERNET:
                raise PcapError("%s: interface not Ethernet" % path)
        elif btype == 6:
            caplen, wirelen = struct.unpack(e + "II", body[12:20])
            pad = (caplen + 3) & ~3
            if 20 + pad > len(body):
                raise PcapError("%s: packet at %d overruns its block" %
                                (path, off))
            frame, comment, o = body[20:20 + caplen], None, 20 + pad
            while o + 4 <= len(body):
                code, olen = struct.unpack(e + "HH", body[o:o + 4])
                if code == 0:
                    break
                if o + 4 + olen > len(body):
                    raise PcapError("%s: option overruns block at %d" %
                                    (path, off))
                if code == 1:
                    comment = body[o + 4:o + 4 + olen].decode()
                o += 4 + ((olen + 3) & ~3)
            out.append((frame, wirelen, comment))
    return out


def _pcap_endian(magic, path, what):
    """struct's byte order of a pcap file (microsecond or nanosecond
    timestamps) from its magic number."""
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        return "<"
    if magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        return ">"
    raise PcapError("%s: not %s (magic %s)" % (path, what, magic.hex()))


def read_pcap(path):
    """Return [(frame bytes, wire length)] of a LINKTYPE_ETHERNET pcap (or
    pcapng)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == struct.pack("<I", PCAPNG_SHB):
        return [(f, w) for f, w, _ in read_pcapng(path, data)]
    if len(data) < 24:
        raise PcapError("%s: not a pcap file (too short)" % path)
    e = _pcap_endian(data[:4], path, "a pcap file")
    linktype = struct.unpack(e + "I", data[20:24])[0] & 0x0fffffff
    if linktype != LINKTYPE_ETHERNET:
        raise PcapError("%s: linktype %d, not Ethernet" % (path, linktype))
    out = []
    off = 24
    while off < len(data):
        if off + 16 > len(data):
            raise PcapError("%s: truncated record header at %d" % (path, off))
        _, _, caplen, wirelen = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        if off + caplen > len(data):
            raise PcapError("%s: truncated packet at %d" % (path, off))
        out.append((data[off:off + caplen], wirelen))
        off += caplen
    return out


def parse(frame):
    """Decode one frame into a dict: 'key' (flow), 'fields' (compared
    header fields, in order), 'seq', 'plen', 'payload'."""
    p = {"fields": [], "seq": 0, "plen": 0, "payload": b"", "kind": "other"}
    F = p["fields"]
    if len(frame) < 14:
        p["key"] = ("runt",)
        F.append(("bytes", frame.hex()))
        return p
    F.append(("eth", frame[:12].hex()))
    etype = struct.unpack("!H", frame[12:14])[0]
    off = 14
    vlans = []
    while etype in (0x8100, 0x88a8) and off + 4 <= len(frame):
        tci, inner = struct.unpack("!HH", frame[off:off + 4])
        vlans.append("%04x:%d" % (etype, tci & 0xfff))
        etype = inner
        off += 4
    F.append(("vlan", ",".join(vlans)))
    if etype == 0x0800 and frame[off + 9:off + 10] == b"\x01" and \
       frame[off + 28:off + 28 + len(MARKER_MAGIC)] == MARKER_MAGIC:
        p["kind"] = "marker"
        p["key"] = ("marker",)
        p["marker"] = frame[off + 28 + len(MARKER_MAGIC):].decode("ascii",
                                                                 "replace")
        return p
    l4 = None
    end = len(frame)
    if etype == 0x0800 and off + 20 <= len(frame):
        b0, tos, tot, ipid, frag, ttl, proto, csum = struct.unpack(
            "!BBHHHBBH", frame[off:off + 12])
        ihl = (b0 & 0xf) * 4
        src, dst = frame[off + 12:off + 16], frame[off + 16:off + 20]
        if tot == 0:            # BIG TCP: length comes from the frame
            end = len(frame)
        else:
            end = min(off + tot, len(frame))
        F += [("ip.vihl", b0), ("ip.tos", tos), ("ip.tot_len", tot),
              ("ip.id", ipid), ("ip.frag", frag), ("ip.ttl", ttl),
              ("ip.proto", proto), ("ip.csum", csum),
              ("ip.opts", frame[off + 20:off + ihl].hex()),
              ("ip.pad", len(frame) - end)]
        key = (4, ",".join(vlans), src.hex(), dst.hex(), proto)
        if frag & 0x3fff:
            p["key"] = ("frag",) + key
            p["payload"] = frame[off + ihl:end]
            return p
        off += ihl
        l4 = proto
    elif etype == 0x86dd and off + 40 <= len(frame):
        w0, plen, nh, hlim = struct.unpack("!IHBB", frame[off:off + 8])
        src, dst = frame[off + 8:off + 24], frame[off + 24:off + 40]
        end = min(off + 40 + plen, len(frame)) if plen else len(frame)
        F += [("ip6.w0", "%08x" % w0), ("ip6.plen", plen), ("ip6.nh", nh),
              ("ip6.hlim", hlim), ("ip.pad", len(frame) - end)]
        ip6 = off
        off += 40
        exts = kexts = b""
        while nh in (0, 43, 60, 44) and off + 8 <= end:
            hl = 8 if nh == 44 else (frame[off + 1] + 1) * 8
            exts += frame[off:off + hl]
            if nh == 0 and hl == 8 and frame[off + 2:off + 4] == b"\xc2\x04":
                # RFC 2675 jumbo option (Linux 6.x IPv6 BIG TCP): the
                # length is in it, and it is not part of the flow
                jumbo = struct.unpack("!I", frame[off + 4:off + 8])[0]
                F.append(("ip6.jumbo", jumbo))
                if not plen:
                    end = min(ip6 + 40 + jumbo, len(frame))
            else:
                kexts += frame[off:off + hl]
            if nh == 44:
                F.append(("ip6.ext", exts.hex()))
                p["key"] = ("frag", 6, src.hex(), dst.hex())
                p["payload"] = frame[off + 8:end]
                return p
            nh = frame[off]
            off += hl
        F.append(("ip6.ext", exts.hex()))
        key = (6, ",".join(vlans), src.hex(), dst.hex(),
               "%05x" % (w0 & 0xfffff), kexts.hex(), nh)
        l4 = nh
    else:
        p["key"] = ("nonip", etype)
        F.append(("bytes", frame[14:].hex()))
        return p
    if l4 == 6 and off + 20 <= end:
        sp, dp, seq, ack, offfl, win, csum, urp = struct.unpack(
            "!HHIIHHHH", frame[off:off + 20])
        doff = (offfl >> 12) * 4
        F += [("tcp.ack", ack), ("tcp.doff", doff),
              ("tcp.flags", "%03x" % (offfl & 0x1ff)), ("tcp.win", win),
              ("tcp.csum", csum), ("tcp.urp", urp),
              ("tcp.opts", frame[off + 20:off + doff].hex())]
        p["kind"] = "tcp"
        p["key"] = key + ("tcp", sp, dp)
        p["seq"] = seq
        p["payload"] = frame[off + doff:end]
    elif l4 == 17 and off + 8 <= end:
        sp, dp, ulen, csum = struct.unpack("!HHHH", frame[off:off + 8])
        F += [("udp.len", ulen), ("udp.csum", csum)]
        p["kind"] = "udp"
        p["key"] = key + ("udp", sp, dp)
        p["payload"] = frame[off + 8:end]
        if dp in VXLAN_PORTS and off + 16 + 14 <= end:
            return _vxlan(p, key + ("udp", sp, dp, csum != 0),
                          frame[off + 8:off + 16], frame[off + 16:end])
        if dp in GENEVE_PORTS and off + 16 <= end:
            glen = 8 + 4 * (frame[off + 8] & 0x3f)
            gproto = frame[off + 10:off + 12]
            inner = frame[off + 8 + glen:end]
            if gproto in (b"\x08\x00", b"\x86\xdd"):
                inner = bytes(12) + gproto + inner
            if (frame[off + 8] >> 6 == 0 and not frame[off + 9] & 0x80 and
                    gproto in (b"\x65\x58", b"\x08\x00", b"\x86\xdd")
                    and off + 8 + glen + 14 <= end):
                return _vxlan(p, key + ("udp", sp, dp, csum != 0),
                              frame[off + 8:off + 8 + glen], inner)
    else:
        p["key"] = key + ("l4", l4)
        p["payload"] = frame[off:end]
    p["plen"] = len(p["payload"])
    return p


def _vxlan(p, okey, vxh, inner):
    """A VXLAN packet: the flow is the outer one (with checksum zero or
    not), the VXLAN flags and VNI, and the inner flow; the fields are both
    headers' (inner ones prefixed "in."); sequence and payload the inner
    TCP's."""
    ip = parse(inner)
    p["fields"].append(("vxlan", vxh.hex()))
    p["fields"].extend(("in." + n, v) for n, v in ip["fields"])
    p["key"] = okey + ("vxlan", vxh.hex()) + ip["key"]
    for k in ("kind", "seq", "plen", "payload"):
        p[k] = ip[k]
    return p


def packets(path):
    return [parse(fr) for fr, _ in read_pcap(path)]


def _sortkey(p):
    return (p["seq"], p["plen"], hashlib.sha1(p["payload"]).hexdigest(),
            repr(p["fields"]))


def by_flow(pkts):
    """{flow key: packets sorted by sequence}, UDP in delivery order."""
    flows = {}
    for p in pkts:
        if p["kind"] == "marker":
            continue
        flows.setdefault(p["key"], []).append(p)
    for k, v in flows.items():
        if k[-3:-2] != ("udp",):
            v.sort(key=_sortkey)
    return flows


def fmt_key(k):
    if k[0] in (4, 6):
        vlan = "vlan %s " % k[1] if k[1] else ""
        return "%s %s%s" % ("IPv%d" % k[0], vlan,
                            " ".join(str(x) for x in k[-3:]))
    return " ".join(str(x) for x in k)


def describe(p):
    if p["kind"] == "tcp":
        return "seq %d len %d" % (p["seq"], p["plen"])
    return "len %d" % p["plen"]


def compare(exp, act, ignore=()):
    """Differences between two packet lists, as text lines ([] = same)."""
    diffs = []
    fe, fa = by_flow(exp), by_flow(act)
    for k in sorted(set(fe) | set(fa), key=repr):
        le, la = fe.get(k, []), fa.get(k, [])
        se = [describe(p) for p in le]
        sa = [describe(p) for p in la]
        if se != sa:
            diffs.append("flow %s: expected [%s], got [%s]" %
                         (fmt_key(k), ", ".join(se), ", ".join(sa)))
            continue
        for pe, pa in zip(le, la):
            if pe["payload"] != pa["payload"]:
                diffs.append("flow %s %s: payload bytes differ" %
                             (fmt_key(k), describe(pe)))
            de, da = dict(pe["fields"]), dict(pa["fields"])
            for name, ve in pe["fields"]:
                if name in ignore:
                    continue
                if da.get(name) != ve:
                    diffs.append("flow %s %s: %s expected %s, got %s" %
                                 (fmt_key(k), describe(pe), name, ve,
                                  da.get(name)))
            for name in da:
                if name not in de and name not in ignore:
                    diffs.append("flow %s %s: unexpected field %s" %
                                 (fmt_key(k), describe(pe), name))
    return diffs


def check_payload(inp, out):
    """Every flow's payload in @out is @inp's, each input byte exactly once.
    TCP: the bytes in sequence order; UDP and others (no sequence number):
    the concatenation in delivery order, or at least the same bytes when
    a refused datagram overtook an aggregate."""
    errs = []
    fi, fo = by_flow(inp), by_flow(out)
    for k in sorted(set(fi) | set(fo), key=repr):
        pi, po = fi.get(k, []), fo.get(k, [])
        if len(k) > 3 and k[-3] == "tcp":
            ci = b"".join(p["payload"] for p in sorted(pi, key=_sortkey))
            co = b"".join(p["payload"] for p in sorted(po, key=_sortkey))
            ok = ci == co
        else:
            ci = b"".join(p["payload"] for p in pi)
            co = b"".join(p["payload"] for p in po)
            ok = ci == co or sorted(ci) == sorted(co)
        if not ok:
            errs.append("flow %s: payload differs (%d bytes in, %d out)" %
                        (fmt_key(k), len(ci), len(co)))
    return errs


def split(capture, outdir):
    """Write one pcap per train of a capture whose trains are preceded by
    marker frames ("train NAME"); return the names in capture order."""
    frames = read_pcap(capture)
    names, cur, parts = [], None, {}
    for fr, wl in frames:
        p = parse(fr)
        if p["kind"] == "marker":
            cur = p["marker"]
            if cur == "END":
                cur = None
            if cur is not None:
                names.append(cur)
                parts[cur] = []
            continue
        if cur is not None:
            parts[cur].append(fr)
    for n in names:
        write_pcap(os.path.join(outdir, n + ".pcap"), parts[n])
    return names


def _records(path):
    """(caplen, wirelen, offset of the frame) of every packet record of a
    pcap or pcapng file of Ethernet frames, from the file's mmap; yields
    the mmap first."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    yield m
    n = len(m)
    magic = m[:4]
    if magic == struct.pack("<I", PCAPNG_SHB):
        for btype, e, off, blen in _pcapng_blocks(path, m):
            if btype == 6:			# enhanced packet block
                caplen, wirelen = struct.unpack_from(e + "II", m, off + 20)
                yield caplen, wirelen, off + 28
            elif btype == 3:			# simple packet block
                wirelen = struct.unpack_from(e + "I", m, off + 8)[0]
                yield min(wirelen, blen - 16), wirelen, off + 12
        return
    e = _pcap_endian(magic, path, "a pcap or pcapng file")
    off = 24
    while off + 16 <= n:
        caplen, wirelen = struct.unpack_from(e + "II", m, off + 8)
        if off + 16 + caplen > n:
            raise PcapError("%s: truncated packet at %d" % (path, off))
        yield caplen, wirelen, off + 16
        off += 16 + caplen


def tcp_count(paths, port):
    """[records, payload bytes, wire bytes] of the TCP/IPv4 packets to
    @port in @paths: the payload from each record's wire length, so a
    record cut by a snaplen still counts all of it."""
    res = [0, 0, 0]
    for path in paths:
        it = _records(path)
        m = next(it, None)
        for caplen, wirelen, off in it:
            if caplen < 34 or m[off + 12:off + 14] != b"\x08\x00" or m[off + 23] != 6:
                continue
            ihl = (m[off + 14] & 15) * 4
            t = off + 14 + ihl
            if caplen < 14 + ihl + 20 or (m[t + 2] << 8 | m[t + 3]) != port:
                continue
            res[0] += 1
            res[1] += wirelen - 14 - ihl - (m[t + 12] >> 4) * 4
            res[2] += wirelen
        if m is not None:
            m.close()
    return res


def csum(b):
    """The Internet checksum (RFC 1071) of @b."""
    if len(b) % 2:
        b = bytes(b) + b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), bytes(b)))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 524288 + 256,
                            LINKTYPE_ETHERNET))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 0, i, len(fr), len(fr)))
            f.write(fr)


FNV_OFF = 0xcbf29ce484222325
FNV_PRIME = 0x100000001b3
M64 = (1 << 64) - 1


def fnv_words(data):
    """FNV-1a 64 over 8-byte little-endian words, the tail byte-wise: the
    hash tests/helpers/tcp_hash.c prints."""
    h = FNV_OFF
    n8 = len(data) // 8 * 8
    for (w,) in struct.iter_unpack("<Q", memoryview(data)[:n8]):
        h = ((h ^ w) * FNV_PRIME) & M64
    for b in data[n8:]:
        h = ((h ^ b) * FNV_PRIME) & M64
    return h


def stream(path, port):
    """The TCP stream(s) to @port in a capture, put together by sequence
    number from the SYN's (or the lowest one seen): one line per flow with
    its packets, those of them above the SYN's MSS (aggregates), their
    payload bytes, how far the stream runs without a gap, and its hash."""
    flows = {}
    for p in packets(path):
        if p["kind"] != "tcp" or p["key"][-1] != port:
            continue
        f = flows.setdefault(p["key"], {"segs": [], "isn": None,
                                        "mss": 1460, "pkts": 0})
        fl = int(dict(p["fields"])["tcp.flags"], 16)
        if fl & 0x002:          # SYN: the stream starts after it
            f["isn"] = p["seq"]
            opts = bytes.fromhex(dict(p["fields"])["tcp.opts"])
            if len(opts) >= 4 and opts[0] == 2:
                f["mss"] = struct.unpack("!H", opts[2:4])[0]
        if p["plen"]:
            f["pkts"] += 1
            f["segs"].append((p["seq"], p["payload"]))
    out = []
    for key, f in flows.items():
        if not f["segs"]:
            continue
        base = (f["isn"] + 1) if f["isn"] is not None else \
            min(s for s, _ in f["segs"])
        segs = sorted(((s - base) & 0xffffffff, d) for s, d in f["segs"])
        parts, have, payload, aggs = [], 0, 0, 0
        for off, d in segs:
            payload += len(d)
            aggs += len(d) > f["mss"]
            if off > have:
                continue        # a gap: the stream ends at have
            if off + len(d) > have:
                parts.append(d[have - off:])
                have = off + len(d)
        data = b"".join(parts)
        out.append("flow %s packets %d aggregates %d payload %d stream %d hash 0x%016x"
                   % (fmt_key(key), f["pkts"], aggs, payload, have,
                      fnv_words(data)))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    cmd = argv[1]
    try:
        if cmd == "summary":
            for i, p in enumerate(packets(argv[2]), 1):
                f = dict(p["fields"])
                extra = ""
                if p["kind"] == "tcp":
                    extra = " flags %s win %s" % (f["tcp.flags"], f["tcp.win"])
                print("%3d %-40s %s%s" % (i, fmt_key(p["key"]), describe(p),
                                          extra))
        elif cmd == "count":
            fr = read_pcap(argv[2])
            print(len(fr), sum(len(f) for f, _ in fr))
        elif cmd == "compare":
            d = compare(packets(argv[2]), packets(argv[3]), argv[4:])
            for line in d:
                print(line)
            return 1 if d else 0
        elif cmd == "split":
            print(" ".join(split(argv[2], argv[3])))
        elif cmd == "stream":
            for line in stream(argv[2], int(argv[3])):
                print(line)
        elif cmd == "comments":
            with open(argv[2], "rb") as f:
                data = f.read()
            for _, _, c in read_pcapng(argv[2], data):
                print(c if c is not None else "")


        elif cmd == "tcp-count" and len(argv) > 3:
            print(*tcp_count(argv[2:-1], int(argv[-1])))
        elif cmd == "check-payload":
            e = check_payload(packets(argv[2]), packets(argv[3]))
            for line in e:
                print(line)
            return 1 if e else 0
        else:
            print("xrxpcap: unknown command %s" % cmd, file=sys.stderr)
            return 2
    except (PcapError, OSError) as e:
        print("xrxpcap: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
