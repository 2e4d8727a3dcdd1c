"""rowops_tune.py: from a sweep (bench/rowops_grid.py sweep's CSV), the
config of every row-length bucket (C rounded up to a power of two) of
every row-op variant, and the tuned-config files that carry them.

For a bucket, the config kept is the one whose worst ratio to the best
config measured at each of the bucket's points is highest (so a shape
anywhere in the bucket runs near its best).  Entries are keyed on the row
length alone (bucket "C=4096", "N=4096" for bias_gelu's row; add's one
entry covers every length): the launcher picks by the call's row length.
usage: python3 bench/rowops_tune.py SWEEP.csv... DEVICE TARGET > table.txt
       (rewrites dsl/tuned/{softmax,rmsnorm,layernorm,bias_gelu,add}.lua,
       keeping their entries for other targets)"""
import csv
import os
import re
import sys
from collections import defaultdict

KEY = {"softmax": "C", "rmsnorm": "C", "layernorm": "C", "bias_gelu": "N", "add": None}


def p2(c):
    return 1 << max(0, (c - 1).bit_length())


def choose(rows):
    """{(op, dtype, bucket): (config, worst ratio, [(C, gbs, copy, torch)])}."""
    best = defaultdict(float)
    for r in rows:
        best[(r["op"], r["dtype"], r["C"])] = max(best[(r["op"], r["dtype"], r["C"])], r["gbs"])
    by = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        b = p2(r["C"]) if KEY[r["op"]] else 0
        by[(r["op"], r["dtype"], b)][r["config"]][r["C"]] = r
    out = {}
    for key, cfgs in by.items():
        cs = {c for v in cfgs.values() for c in v}
        score = {}
        for cfg, pts in cfgs.items():
            if set(pts) == cs:
                score[cfg] = min(pts[c]["gbs"] / best[(key[0], key[1], c)] for c in cs)
        cfg = max(sorted(score), key=lambda k: score[k])
        out[key] = (cfg, score[cfg], [(c, cfgs[cfg][c]["gbs"], cfgs[cfg][c]["copy_gbs"], cfgs[cfg][c]["torch_gbs"])
                                      for c in sorted(cs)])
    return out


def lua_entry(target, device, variant, bucket, cfg, pts):
    kv = sorted((k, int(v)) for k, v in (p.split("=") for p in cfg.split(",")))
    c, g, cp, _ = max(pts, key=lambda p: p[0])
    lines = ["    {", f'      bucket = "{bucket}",', "      config = {"]
    lines += [f"        {k} = {v}," for k, v in kv]
    lines += ["      },", f'      device = "{device}",', f"      gbps = {g:.1f},",
              f'      shape = "{"C" if bucket.startswith("C") else "N"}={c}",', f'      target = "{target}",',
              f'      variant = "{variant}",', "    },"]
    return lines


def other_entries(path, target):
    """The entry blocks of an existing tuned file whose target is not `target`."""
    if not os.path.exists(path):
        return []
    text = open(path).read()
    blocks = re.findall(r"\n    \{\n.*?\n    \},", text, re.S)
    return [b.strip("\n").splitlines() for b in blocks if f'target = "{target}"' not in b]


def main():
    *srcs, device, target = sys.argv[1:]
    rows = [r for src in srcs for r in csv.DictReader(open(src))]
    for r in rows:
        for k in ("C", "R"):
            r[k] = int(r[k])
        for k in ("gbs", "copy_gbs", "torch_gbs"):
            r[k] = float(r[k])
    chosen = choose(rows)
    root = os.path.join(os.path.dirname(__file__), "..")
    print(f"# row-op configs on {device}, {target}: the bucket's config, its worst ratio to the best at each point,")
    print("# then each point: C, % of copy, x torch")
    for op in KEY:
        path = os.path.join(root, "dsl", "tuned", f"{op}.lua")
        lines = [f"-- Tuned configs of kernel {op}: for {target}, one entry a row-length bucket",
                 "-- (bench/rowops_tune.py from a bench/rowops_grid.py sweep; bench/results/).",
                 "-- gen uses the entries whose target, device and variant match; the launcher",
                 "-- runs the bucket nearest the call's sizes (docs/runtime.md).",
                 "return {", f'  kernel = "{op}",', "  entries = {"]
        for key in sorted(k for k in chosen if k[0] == op):
            _, dt, b = key
            cfg, worst, pts = chosen[key]
            bucket = f"{KEY[op]}={b}" if KEY[op] else "N=134217728"
            lines += lua_entry(target, device, f"{op}_{dt}", bucket, cfg, pts)
            print(f"{op:9} {dt:4} {bucket:9} {cfg:28} {worst:5.3f}  " +
                  "  ".join(f"{c}:{g / cp:.0%},{g / t:.2f}x" for c, g, cp, t in pts))
        for blk in other_entries(path, target):
            lines += blk
        lines += ["  },", "}", ""]
        open(path, "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
