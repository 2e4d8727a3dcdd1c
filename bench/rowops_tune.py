"""rowops_tune.py: from a sweep (bench/rowops_grid.py sweep's CSV), the
config of every row-length bucket (C rounded up to a power of two) of
every row-op variant, and the tuned-config files that carry them; and a
rule, a model of a few parameters fitted to the same sweep, written as the
entries of device "any" that gen uses for a device without entries.

The row ops' model: rows up to 2^P one pass, BC = C rounded up, RB rows a
program so that it holds at least N0 elements, E1 elements a thread;
longer rows two passes over chunks of B2, E2 elements a thread.
bias_gelu's: tiles of T elements, BN = N rounded up but at most BNMAX, E
elements a thread.  add's: one config.  The fit keeps the parameters whose
configs, over every point the sweep measured (both 16-bit types together,
f32 apart), have the highest geometric mean of the ratio to the best
config at the point; parameters that call for a config the sweep did not
measure at some point are not candidates.

For a bucket, the config kept is the one whose worst ratio to the best
config measured at each of the bucket's points is highest (so a shape
anywhere in the bucket runs near its best).  Entries are keyed on the row
length alone (bucket "C=4096", "N=4096" for bias_gelu's row; add's one
entry covers every length): the launcher picks by the call's row length.
usage: python3 bench/rowops_tune.py SWEEP.csv... [--exclude SPILLS.txt] DEVICE TARGET > table.txt
       (SPILLS.txt: lines "OP DTYPE CONFIG ...", configs that spill registers,
       never chosen)
       (rewrites dsl/tuned/{softmax,rmsnorm,layernorm,bias_gelu,add}.lua:
       DEVICE's entries for TARGET, the rule's for RULE_TARGETS, and the
       entries of other targets kept; so are DEVICE's entries set by hand,
       see hand_entries)"""
import itertools
import math
import csv
import os
import re
import sys
from collections import defaultdict

KEY = {"softmax": "C", "rmsnorm": "C", "layernorm": "C", "bias_gelu": "N", "add": None}
RULE_TARGETS = ("sm80", "sm90a")   # the CUDA targets: the same row-op code on both
VEC = {"bf16": 8, "f16": 8, "f32": 4}
GROUPS = (("bf16", "f16"), ("f32",))
BUCKETS = [1 << k for k in range(7, 18)]


def p2(c):
    """c rounded up to a power of two (the bucket of a row length)."""
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


def model_config(op, v, prm, c):
    """The config string the model with parameters prm gives op (vector of
    v elements) at row length c, or None when it is no valid config."""
    b = p2(c)
    if op == "add":
        return prm
    if op == "bias_gelu":
        tile, bnmax, e = prm
        bn = min(b, bnmax)
        bm, t = tile // bn, tile // (e * v)
        return f"BM={bm},BN={bn},threads={t}" if bm >= 1 and 32 <= t <= 1024 else None
    pmax, n0, e1, b2, e2 = prm
    if b <= 1 << pmax:
        rb = max(1, n0 // b)
        bc, t = b, b * rb // (e1 * v)
    else:
        rb, bc, t = 1, b2, b2 // (e2 * v)
    return f"BC={bc},RB={rb},threads={t}" if 32 <= t <= 1024 and bc * rb >= t else None


def fit(rows, op, dts):
    """(parameters, geometric mean, worst ratio) of op's model over the
    sweep's points of dtypes dts."""
    pts = defaultdict(dict)
    for r in rows:
        if r["op"] == op and r["dtype"] in dts:
            pts[(r["dtype"], r["C"])][r["config"]] = r["gbs"]
    v = VEC[dts[0]]
    if op == "add":
        space = sorted({c for p in pts.values() for c in p})
    elif op == "bias_gelu":
        space = list(itertools.product((4096, 8192), BUCKETS[:8], (1, 2)))
    else:
        space = list(itertools.product(range(7, 16), (256, 512, 1024, 2048, 4096), (1, 2, 4),
                                       (512, 1024, 2048, 4096, 8192, 16384), (1, 2, 4)))
    best = None
    for prm in space:
        logs = []
        for (dt, c), got in pts.items():
            cfg = model_config(op, v, prm, c)
            if cfg not in got:
                break
            logs.append(math.log(got[cfg] / max(got.values())))
        else:
            g = math.exp(sum(logs) / len(logs))
            if best is None or g > best[1]:
                best = (prm, g, math.exp(min(logs)))
    return best


def run_ends(cfgs):
    """The buckets worth an entry, of (bucket, config) pairs smallest first:
    where runs of one config meet (the largest run by its first bucket, the
    smallest by its last).  The launcher runs the nearest bucket (ties: the
    larger), so every size still runs the config of its own bucket."""
    keep = []
    for i, (b, c) in enumerate(cfgs):
        first = i == 0 or cfgs[i - 1][1] != c
        last = i + 1 == len(cfgs) or cfgs[i + 1][1] != c
        bottom = all(x == c for _, x in cfgs[:i])   # in the smallest run
        top = all(x == c for _, x in cfgs[i:])      # in the largest run
        if (first and not bottom) or (last and not top) or (bottom and top and last):
            keep.append((b, c))
    return keep


def lua_entry(target, device, variant, bucket, cfg, pts):
    """The lines of one tuned-file entry; pts (the measured points, or None
    for the rule's) give the largest point's GB/s and shape, for people."""
    kv = sorted((k, int(v)) for k, v in (p.split("=") for p in cfg.split(",")))
    lines = ["    {", f'      bucket = "{bucket}",', "      config = {"]
    lines += [f"        {k} = {v}," for k, v in kv]
    lines += ["      },", f'      device = "{device}",']
    if pts:
        c, g, cp, _ = max(pts, key=lambda p: p[0])
        lines += [f"      gbps = {g:.1f},", f'      shape = "{"C" if bucket.startswith("C") else "N"}={c}",']
    lines += [f'      target = "{target}",', f'      variant = "{variant}",', "    },"]
    return lines


def entry_blocks(path):
    """The entry blocks of an existing tuned file (their text), or []."""
    if not os.path.exists(path):
        return []
    return re.findall(r"\n    \{\n.*?\n    \},", open(path).read(), re.S)


def other_entries(path, targets):
    """The entry blocks of an existing tuned file whose target is none of `targets`."""
    return [b.strip("\n").splitlines() for b in entry_blocks(path) if not any(f'target = "{t}"' in b for t in targets)]


HAND_FIELDS = ("keep_row", "off_grid")


def hand_entries(path, target, device):
    """The entries of TARGET on DEVICE in an existing tuned file that were set
    by hand: a bucket the sweeps do not measure (not a power of two) or a field
    this script never writes (HAND_FIELDS).  {(variant, bucket): lines}; the
    rewrite keeps them as they are, in place of its own entry for that key.
    Also the file's comment lines beyond the header this script writes (the
    notes that say why each was set)."""
    if not os.path.exists(path):
        return {}, []
    text = open(path).read()
    notes = [l for l in text.split("return {")[0].splitlines()[5:] if l.startswith("--")]
    out = {}
    for b in entry_blocks(path):
        if f'target = "{target}"' not in b or f'device = "{device}"' not in b:
            continue
        bucket = re.search(r'bucket = "(\w)=(\d+)"', b)
        variant = re.search(r'variant = "(\w+)"', b).group(1)
        odd = bucket and p2(int(bucket.group(2))) != int(bucket.group(2))
        if odd or any(f in b for f in HAND_FIELDS):
            out[(variant, f"{bucket.group(1)}={bucket.group(2)}")] = b.strip("\n").splitlines()
    return out, notes


def main():
    """Reads the sweeps, prints the table and rewrites the tuned files."""
    args = sys.argv[1:]
    bad = set()
    if "--exclude" in args:
        i = args.index("--exclude")
        bad = {tuple(l.split()[:3]) for l in open(args[i + 1]) if l.strip() and not l.startswith("#")}
        del args[i:i + 2]
    *srcs, device, target = args
    rows = [r for src in srcs for r in csv.DictReader(open(src)) if (r["op"], r["dtype"], r["config"]) not in bad]
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
        lines = [f"-- Tuned configs of kernel {op}: for {target} on {device}, one entry a row-length",
                 "-- bucket, and the rule (device \"any\", for devices without entries), written by",
                 "-- bench/rowops_tune.py from bench/rowops_grid.py sweeps (bench/results/).",
                 "-- gen uses the entries whose target, device and variant match; the launcher",
                 "-- runs the bucket nearest the call's sizes (docs/runtime.md)."]
        hand, notes = hand_entries(path, target, device)
        lines += notes + ["return {", f'  kernel = "{op}",', "  entries = {"]
        for key in sorted(k for k in chosen if k[0] == op):
            _, dt, b = key
            cfg, worst, pts = chosen[key]
            bucket = f"{KEY[op]}={b}" if KEY[op] else "N=134217728"
            same = sorted((k[2], chosen[k][0]) for k in chosen if k[:2] == key[:2])
            if (f"{op}_{dt}", bucket) in hand:
                print(f"# {op}_{dt} {bucket}: the entry set by hand is kept", file=sys.stderr)
            elif (b, cfg) in run_ends(same):
                lines += lua_entry(target, device, f"{op}_{dt}", bucket, cfg, pts)
            print(f"{op:9} {dt:4} {bucket:9} {cfg:28} {worst:5.3f}  " +
                  "  ".join(f"{c}:{g / cp:.0%},{g / t:.2f}x" for c, g, cp, t in pts))
        for blk in hand.values():
            lines += blk
        for dts in GROUPS:
            prm, g, worst = fit(rows, op, dts)
            print(f"rule {op:9} {'/'.join(dts):8} parameters {prm}: geometric mean {g:.3f} of the best, worst {worst:.3f}")
            for t in RULE_TARGETS:
                for dt in dts:
                    cfgs = [(b, model_config(op, VEC[dt], prm, b)) for b in BUCKETS] if KEY[op] else \
                        [(1 << 27, model_config(op, VEC[dt], prm, 1))]
                    for b, cfg in run_ends(cfgs):
                        bucket = f"{KEY[op]}={b}" if KEY[op] else "N=134217728"
                        lines += lua_entry(t, "any", f"{op}_{dt}", bucket, cfg, None)
        for blk in other_entries(path, (target,) + RULE_TARGETS):
            lines += blk
        lines += ["  },", "}", ""]
        open(path, "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
