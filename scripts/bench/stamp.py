#!/usr/bin/python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Name the run a benchmark's JSON came from.

    stamp.py --command CMD --commit REV FILE.json...

adds "command", "commit" and "when" (UTC, ISO 8601) to each file's top
level, keeping what a file already says (a benchmark that knows better,
or a file stamped before). scripts/bench/run.sh calls it on every JSON
a benchmark wrote; docs/bench/README.md says why every kept file needs
the three.
"""
import argparse
import json
import os
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--command", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for path in a.files:
        with open(path) as f:
            d = json.load(f)
        if not isinstance(d, dict):
            continue
        when = time.strftime("%Y-%m-%dT%H:%MZ",
                             time.gmtime(os.stat(path).st_mtime))
        for k, v in (("command", a.command), ("commit", a.commit),
                     ("when", when)):
            d.setdefault(k, v)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(d, f, indent=1)
        os.replace(tmp, path)


if __name__ == "__main__":
    main()
