"""wavespick_check.py: the sm90a GEMM launcher's pick among a bucket's configs
(docs/runtime.md, "alternative"; gen/pass/waves.c) against every point the
results files measured each config at, single-config builds side by side
(x cuBLAS, medians over rounds), no device needed:

  bench/results/2026-11-26-h200-matmul-alt-buckets.txt  run 1: 128 x 256 (b256),
      128 x 128 (c128), 64 x 192 (w192), 128 x 192 (c192) at M 384-2048 x
      N 3072-13824 (the M > 256 buckets), and 64 x 128 (w128), w192, c128 at
      M 96, 128 (the 64 < M <= 128 bucket)
  bench/results/2026-11-26-h200-matmul-midm-configs.txt  parts 1, 2: 128 x 128
      in 7 stages (c7) and w192 at M 144-256 x N 5120-8192 (128 < M <= 256)

A rule weighs each config at each point (132 SMs, K = 4096) and runs the
least, ties to the first listed (the bucket's own); a pick is wrong where it
ran more than --tol (default 0.02) below the best of the bucket's configs.
Rules: area (ceil(tiles / SMs) x BM x BN, the launcher's until 2026-11-26),
fixed (a fixed part of PAR elements a program added to its tile; the
launcher's since, PAR 4096), traffic (PAR x (BM + BN) a program added: its
operands' rows a K step).  Each line: the bucket's
configs, the rule, the wrong picks, the flips (points where an alternative
runs) and their gain over the bucket's own, the geometric mean x cuBLAS of
the picks, of the bucket's own config alone and of the best config each
point, and the picks against those of the two configs the launcher had
before (the bucket's own and its first alternative, by area): the least and
the most ratio, and how many fall below 1 - tol.  --show prints every point
under the launcher's rule (fixed 4096, gen/pass/waves.c).
usage: python3 bench/wavespick_check.py [--tol 0.02] [--show]"""
import math
import os
import sys

R = os.path.join(os.path.dirname(__file__), "results")
SMS = 132
# name: BM, BN (the tile), as the builds of the results files
TILE = {"b256": (128, 256), "c128": (128, 128), "c7": (128, 128), "w192": (64, 192), "c192": (128, 192),
        "w128": (64, 128)}


def parse(path, start, stop):
    """{(layout, M, N, build): x cuBLAS} of the tables between the lines
    holding start and stop."""
    rows, hdr, on = {}, None, False
    for line in open(path):
        if start in line:
            on = True
            continue
        if on and stop in line:
            break
        if not on:
            continue
        if line.startswith("| variant"):
            hdr = [c.strip().replace(" vs cuBLAS", "") for c in line.strip().strip("|").split("|")]
        elif line.startswith("| matmul") and hdr:
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            lay = c[0].split("_")[-1]
            m, n, _ = map(int, c[1].split("x"))
            for h, v in zip(hdr[2:-1], c[2:-1]):
                rows[(lay, m, n, h)] = float(v.split("x")[0])
    return rows


def work(cfg, m, n, rule, par):
    bm, bn = TILE[cfg]
    waves = math.ceil(math.ceil(m / bm) * math.ceil(n / bn) / SMS)
    if rule == "area":
        return waves * bm * bn
    if rule == "fixed":
        return waves * (bm * bn + par)
    return waves * (bm * bn + par * (bm + bn))   # traffic


def gmean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def check(data, configs, rule, par, tol, show, base):
    points = sorted({(l, m, n) for (l, m, n, _) in data})
    wrong, flips, got, own, best, vs = [], [], [], [], [], []
    for l, m, n in points:
        if any((l, m, n, c) not in data for c in configs):
            continue
        pick = min((work(c, m, n, rule, par), i, c) for i, c in enumerate(configs))[2]
        t = {c: data[(l, m, n, c)] for c in configs}
        b = max(t.values())
        got.append(t[pick]), own.append(t[configs[0]]), best.append(b)
        was = min((work(c, m, n, "area", 0), i, c) for i, c in enumerate(base))[2]   # the launcher before
        vs.append(t[pick] / data[(l, m, n, was)])
        if pick != configs[0]:
            flips.append(t[pick] / t[configs[0]])
        if t[pick] < b * (1 - tol):
            wrong.append(f"{l} {m}x{n} {pick} {t[pick]:.2f} ({' '.join(f'{c} {t[c]:.2f}' for c in configs)})")
        if show:
            print(f"  {l} {m}x{n}: {' '.join(f'{c} {t[c]:.2f}' for c in configs)} -> {pick}")
    gain = f"{min(flips):.2f}-{max(flips):.2f}" if flips else "-"
    print(f"{' '.join(configs)} | {rule} {par} | {len(got)} points, {len(wrong)} wrong, {len(flips)} flips "
          f"({gain} the own) | geomean {gmean(got):.3f}, own alone {gmean(own):.3f}, best each point {gmean(best):.3f}"
          f" | against {'+'.join(base)} by area {min(vs):.2f}-{max(vs):.2f}, {sum(v < 1 - tol for v in vs)} below")
    for w in wrong:
        print("    wrong: " + w)


def main():
    tol = float(sys.argv[sys.argv.index("--tol") + 1]) if "--tol" in sys.argv else 0.02
    show = "--show" in sys.argv
    alt = os.path.join(R, "2026-11-26-h200-matmul-alt-buckets.txt")
    big = parse(alt, "run 1, candidates (a.txt)", "run 1, 64 < M")
    small = parse(alt, "run 1, 64 < M <= 128 (b.txt)", "---- run 2")
    mid = parse(os.path.join(R, "2026-11-26-h200-matmul-midm-configs.txt"), "==== part1.txt", "## part 3")
    rules = [("area", 0), ("fixed", 4096), ("fixed", 8192), ("traffic", 32), ("traffic", 64)]
    for data, base, sets in [(big, ["b256", "c128"], [["b256", "c128"], ["b256", "w192"], ["b256", "c192"], ["b256", "c128", "w192"],
                              ["b256", "c128", "c192"], ["b256", "c128", "w192", "c192"]]),
                       (mid, ["c7", "w192"], [["c7", "w192"]]), (small, ["w128", "w192"], [["w128", "w192"]])]:
        for configs in sets:
            for rule, par in rules:
                check(data, configs, rule, par, tol, show and (rule, par) == ("fixed", 4096), base)


if __name__ == "__main__":
    main()
