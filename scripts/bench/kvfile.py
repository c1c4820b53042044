# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The "key value..." lines tests/helpers/afxdp_bench.c and the AF_XDP
benchmarks write per run, as a dict: one number a float, several a list
of floats, anything else the text. Imported by the benchmarks' report
code (bench_afxdp.sh, bench_busy_poll.sh), which runs from the top of the
tree."""


def kv(path):
    d = {}
    for line in open(path):
        p = line.split()
        if len(p) < 2:
            continue
        try:
            d[p[0]] = [float(x) for x in p[1:]] if len(p) > 2 else float(p[1])
        except ValueError:
            d[p[0]] = " ".join(p[1:])
    return d
