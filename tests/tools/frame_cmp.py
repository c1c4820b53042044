#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compare the frames of two captures exactly: the input a lossless
capture was made from, and what xrx-replay --split rebuilt from it.

    frame_cmp.py [--no-time] [--prefix] EXPECTED ACTUAL [EXPECTED ACTUAL...]

Both files are pcap (us or ns) or pcapng (Enhanced Packet Blocks, any
if_tsresol of 10^-6 or 10^-9). Frames are compared flow by flow, in the
order each file holds them (the order within a flow is the original
order; flows interleave differently once aggregated): the same number of
frames, and each the same wire length, captured length, bytes and, unless
--no-time, timestamp in ns. --prefix: ACTUAL's bytes need only be a prefix
of EXPECTED's (an aggregate cut by the capture's snaplen). The first
difference is printed with its flow, frame numbers in both files and byte
offset; exit 1. Exit 0 prints "N frames identical" (per pair).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xrxpcap  # noqa: E402


def frames(path):
    """[(ts_ns, wirelen, bytes)] of @path."""
    with open(path, "rb") as f:
        d = f.read()
    out = []
    if d[:4] == struct.pack("<I", 0x0a0d0d0a):
        e, off, res = "<", 0, []
        while off + 12 <= len(d):
            bt, bl = struct.unpack_from("<II", d, off)
            if bt == 0x0a0d0d0a:
                e = "<" if d[off + 8:off + 12] == struct.pack(
                    "<I", 0x1a2b3c4d) else ">"
                bt, bl = struct.unpack_from(e + "II", d, off)
            else:
                bt, bl = struct.unpack_from(e + "II", d, off)
            if bl < 12 or off + bl > len(d):
                raise xrxpcap.PcapError("%s: bad block at %d" % (path, off))
            body = d[off + 8:off + bl - 4]
            if bt == 1:
                r, o = 6, 8
                while o + 4 <= len(body):
                    code, ol = struct.unpack_from(e + "HH", body, o)
                    if code == 0:
                        break
                    if code == 9:
                        r = body[o + 4]
                    o += 4 + ((ol + 3) & ~3)
                res.append(r)
            elif bt == 6:
                ifid, th, tl, cap, wire = struct.unpack_from(e + "IIIII",
                                                             body, 0)
                ts = (th << 32 | tl) * (1000 if res[ifid] == 6 else 1)
                out.append((ts, wire, body[20:20 + cap]))
            off += bl
        return out
    e = xrxpcap._pcap_endian(d[:4], path, "a pcap file")
    ns = d[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    off = 24
    while off + 16 <= len(d):
        s, frac, cap, wire = struct.unpack_from(e + "IIII", d, off)
        out.append((s * 1000000000 + frac * (1 if ns else 1000), wire,
                    d[off + 16:off + 16 + cap]))
        off += 16 + cap
    return out


def by_flow(fr):
    flows = {}
    for i, f in enumerate(fr):
        flows.setdefault(xrxpcap.parse(f[2])["key"], []).append((i + 1, f))
    return flows


def main(argv):
    no_time = "--no-time" in argv
    prefix = "--prefix" in argv
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args or len(args) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for i in range(0, len(args), 2):
        if cmp_pair(args[i:i + 2], no_time, prefix):
            print("  (%s vs %s)" % (args[i], args[i + 1]))
            bad = 1
    return bad


def cmp_pair(args, no_time, prefix):
    exp, act = frames(args[0]), frames(args[1])
    fe, fa = by_flow(exp), by_flow(act)
    if len(exp) != len(act):
        print("%d frames expected, %d rebuilt" % (len(exp), len(act)))
    for k in fe:
        a, b = fe[k], fa.get(k, [])
        for j in range(max(len(a), len(b))):
            if j >= len(b):
                print("flow %s: frame %d of %s (input frame %d) missing" %
                      (xrxpcap.fmt_key(k), j + 1, args[1], a[j][0]))
                return 1
            if j >= len(a):
                print("flow %s: extra frame %d (output frame %d)" %
                      (xrxpcap.fmt_key(k), j + 1, b[j][0]))
                return 1
            (ie, (te, we, de)), (ia, (ta, wa, da)) = a[j], b[j]
            where = "flow %s, frame %d of the flow (input frame %d, output frame %d)" % (
                xrxpcap.fmt_key(k), j + 1, ie, ia)
            if we != wa:
                print("%s: wire length %d, rebuilt %d" % (where, we, wa))
                return 1
            if not no_time and te != ta:
                print("%s: time %d ns, rebuilt %d ns" % (where, te, ta))
                return 1
            n = min(len(de), len(da))
            for o in range(n):
                if de[o] != da[o]:
                    print("%s: byte %d is 0x%02x, rebuilt 0x%02x" %
                          (where, o, de[o], da[o]))
                    return 1
            if len(da) > len(de) or (len(da) < len(de) and not prefix):
                print("%s: %d bytes captured, rebuilt %d" %
                      (where, len(de), len(da)))
                return 1
    for k in fa:
        if k not in fe:
            print("flow %s: not in the input" % xrxpcap.fmt_key(k))
            return 1
    if len(exp) != len(act):
        return 1
    print("%d frames identical" % len(exp))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
