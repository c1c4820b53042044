#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""An interface's NAPI instances and their deferral settings, read and set
through the kernel's netdev generic netlink family (napi-get, napi-set;
Linux 6.13+), with raw sockets only: an oracle for the tests that owes
nothing to xrx's own netlink code.

  napi.py get IFACE                   one line per NAPI instance:
                                      "ID DEFER_HARD_IRQS GRO_FLUSH_TIMEOUT"
  napi.py set IFACE DEFER TIMEOUT     both settings on every NAPI instance

Runs in the caller's network namespace. Exit 0; 1 on a netlink error (the
kernel's answer on stderr); 3 when the kernel has no netdev family or no
per-NAPI settings in it (too old).
"""
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3

# include/uapi/linux/netdev.h
NETDEV_CMD_NAPI_GET = 11
NETDEV_CMD_NAPI_SET = 14
A_IFINDEX, A_ID, A_DEFER, A_TIMEOUT = 1, 2, 5, 6


def attr(atype, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, atype) + payload + b"\0" * ((4 - n % 4) % 4)


def attrs(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        n, t = struct.unpack_from("HH", buf, off)
        if n < 4:
            break
        out[t & 0x3fff] = buf[off + 4:off + n]
        off += (n + 3) & ~3
    return out


def uint(b):
    return struct.unpack("I" if len(b) == 4 else "Q", b)[0]


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.seq = 0

    def talk(self, family, cmd, flags, payload):
        """The payloads of the answer's messages; raises OSError(errno)."""
        self.seq += 1
        body = struct.pack("BBH", cmd, 1, 0) + payload
        self.s.send(struct.pack("IHHII", 16 + len(body), family,
                                NLM_F_REQUEST | flags, self.seq, 0) + body)
        msgs = []
        while True:
            data = self.s.recv(1 << 16)
            off = 0
            while off + 16 <= len(data):
                n, t, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if t == NLMSG_DONE:
                    return msgs
                if t == NLMSG_ERROR:
                    err = struct.unpack_from("i", data, off + 16)[0]
                    if err:
                        raise OSError(-err, os.strerror(-err))
                    return msgs
                msgs.append(data[off + 20:off + n])
                off += (n + 3) & ~3
            if not flags & NLM_F_DUMP and not flags & NLM_F_ACK:
                return msgs

    def family(self, name):
        a = attrs(self.talk(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0,
                            attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))[0])
        return struct.unpack("H", a[CTRL_ATTR_FAMILY_ID][:2])[0]


def napis(g, fam, ifindex):
    out = []
    for m in g.talk(fam, NETDEV_CMD_NAPI_GET, NLM_F_DUMP,
                    attr(A_IFINDEX, struct.pack("I", ifindex))):
        a = attrs(m)
        if A_DEFER not in a or A_TIMEOUT not in a:
            raise LookupError("no per-NAPI settings in this kernel's netdev family")
        out.append((uint(a[A_ID]), uint(a[A_DEFER]), uint(a[A_TIMEOUT])))
    return sorted(out)


def main():
    if len(sys.argv) not in (3, 5) or sys.argv[1] not in ("get", "set") or \
       (sys.argv[1] == "set") != (len(sys.argv) == 5):
        print(__doc__, file=sys.stderr)
        return 2
    g = Genl()
    try:
        fam = g.family("netdev")
    except OSError as e:
        print("napi.py: no netdev netlink family: %s" % e, file=sys.stderr)
        return 3
    try:
        ifindex = socket.if_nametoindex(sys.argv[2])
        if sys.argv[1] == "get":
            for n in napis(g, fam, ifindex):
                print("%d %d %d" % n)
            return 0
        for n in napis(g, fam, ifindex):
            g.talk(fam, NETDEV_CMD_NAPI_SET, NLM_F_ACK,
                   attr(A_ID, struct.pack("I", n[0])) +
                   attr(A_DEFER, struct.pack("I", int(sys.argv[3]))) +
                   attr(A_TIMEOUT, struct.pack("Q", int(sys.argv[4]))))
        return 0
    except LookupError as e:
        print("napi.py: %s" % e, file=sys.stderr)
        return 3
    except OSError as e:
        print("napi.py: %s" % e, file=sys.stderr)
        return 1

if __name__ == "__main__":
    sys.exit(main())
