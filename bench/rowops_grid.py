"""rowops_grid.py: the row ops over a grid of row lengths, beside torch, the
Triton tutorials' softmax and LayerNorm (written here, tutorial style: one
row a program, the row padded to a power of two) and a device-to-device
copy of the same bytes, all timed in one run.

The grid: C in GRID_C, R = 2^27 / C rounded (at least 1), so every point
moves about the same bytes; softmax, rmsnorm, layernorm, add and bias_gelu
in bf16, f16 and f32.  GB/s counts the bytes an op must move (inputs read
once, outputs written once); "of copy" divides by the copy's GB/s at the
same point.  Every result (ours, torch's, Triton's) is first checked
against a float64 reference on the same inputs, the output poisoned with
NaN before the run; only then is it timed: CUDA events around a loop of
launches, the median of several loops.

usage:
  python3 bench/rowops_grid.py grid LIB.so        our launchers (out/<target> built into LIB)
      [--base OLD.so]                             and another build's, checked and timed in the
                                                  same run (an A/B: the xbase column is LIB / OLD)
      [--alt ALT.so]                              and a third build's the same way (xalt: ALT / OLD,
                                                  with --base; else ALT / LIB)
  python3 bench/rowops_grid.py sweep INDEX        the configs INDEX lists (bench/rowops_sweep.sh)
      [--every]                                   each at every point (else: those the rule below fits)
      [--base OLD.so]                             and a build's own launchers at each point, timed
                                                  before and after the configs, the faster kept (xbase)
Options: --ops a,b  --dtypes a,b  --c 128,4096  (subsets of the grid);
  --no-triton (the Triton columns left empty: no JIT compiles).
Writes rowops_grid.csv (or rowops_sweep.csv) and, for grid, one PNG a op,
to $OUT (default: the current directory)."""
import csv
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, Lib  # noqa: E402

try:
    import triton
    import triton.language as tl
except ImportError:   # the Triton columns stay empty
    triton = None

GRID_C = (128, 512, 1000, 3000, 4096, 5120, 8192, 12288, 16384, 32000, 50257, 128256)
OPS = ("softmax", "rmsnorm", "layernorm", "add", "bias_gelu")
ELEMS = 1 << 27
OUT = os.environ.get("OUT", ".")


def opt(name, default):
    """The value of --name, split at commas, or default."""
    a = sys.argv
    return a[a.index(name) + 1].split(",") if name in a else default


def timed(fn, loops=5, ms=20):
    """Median over `loops` of the mean time (ms) of a run of fn, each loop
    enough launches for about `ms` ms; after a warm-up."""
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(3):
        fn()
    e.record()
    e.synchronize()
    n = max(3, min(200, int(ms / max(s.elapsed_time(e) / 3, 1e-3))))
    ts = []
    for _ in range(loops):
        s.record()
        for _ in range(n):
            fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) / n)
    return sorted(ts)[len(ts) // 2]


# ---------------------------------------------------------------------------
# the Triton tutorials' kernels, from their idea: one program a row

if triton is not None:
    @triton.jit
    def _tt_softmax(X, Y, C, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + row * C + cols, mask=cols < C, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(Y + row * C + cols, (e / tl.sum(e, axis=0)).to(Y.dtype.element_ty), mask=cols < C)

    @triton.jit
    def _tt_layernorm(X, W, B, Y, C, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, C, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            acc += tl.load(X + row * C + cols, mask=cols < C, other=0.).to(tl.float32)
        mean = tl.sum(acc, axis=0) / C
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, C, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            x = tl.load(X + row * C + cols, mask=cols < C, other=0.).to(tl.float32)
            d = tl.where(cols < C, x - mean, 0.)
            acc += d * d
        rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / C + eps)
        for off in range(0, C, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            m = cols < C
            x = tl.load(X + row * C + cols, mask=m, other=0.).to(tl.float32)
            w = tl.load(W + cols, mask=m).to(tl.float32)
            b = tl.load(B + cols, mask=m).to(tl.float32)
            tl.store(Y + row * C + cols, ((x - mean) * rstd * w + b).to(Y.dtype.element_ty), mask=m)


def tt_softmax(x, y):
    """The tutorial's launch: the row padded to a power of two, more warps for longer rows."""
    r, c = x.shape
    block = triton.next_power_of_2(c)
    warps = 4 if block < 2048 else 8 if block < 4096 else 16
    _tt_softmax[(r,)](x, y, c, BLOCK=block, num_warps=warps)


def tt_layernorm(x, w, b, y, eps):
    """The tutorial's launch: at most 64 KB of the row a chunk, warps by chunk width."""
    r, c = x.shape
    block = min(65536 // x.element_size(), triton.next_power_of_2(c))
    warps = min(max(block // 256, 1), 8)
    _tt_layernorm[(r,)](x, w, b, y, c, eps, BLOCK=block, num_warps=warps)


# ---------------------------------------------------------------------------
# one grid point

def point(op, dt, c):
    """Inputs, a float64 reference, torch's call, Triton's (or None), the
    bytes moved and a caller for a luatile launcher of this op (lib, name)."""
    r = max(1, round(ELEMS / c))
    t = DTYPES[dt]
    g = torch.Generator(device="cuda").manual_seed(c)
    x = torch.randn(r, c, device="cuda", dtype=t, generator=g)
    y = torch.empty_like(x)
    e = x.element_size()
    eps = 1e-5
    if op == "softmax":
        ref = lambda: torch.softmax(x.double(), -1)
        ours = lambda lib, name: lib(name, x, y, r, c)
        return x, y, ref, lambda: torch.softmax(x, -1), (lambda: tt_softmax(x, y)), 2 * r * c * e, ours
    if op == "rmsnorm":
        w = torch.rand(c, device="cuda", dtype=t, generator=g) + 0.5
        ref = lambda: F.rms_norm(x.double(), (c,), w.double(), eps)
        ours = lambda lib, name: lib(name, x, w, y, r, c, eps)
        return x, y, ref, lambda: F.rms_norm(x, (c,), w, eps), None, (2 * r * c + c) * e, ours
    if op == "layernorm":
        w = torch.rand(c, device="cuda", dtype=t, generator=g) + 0.5
        b = torch.randn(c, device="cuda", dtype=t, generator=g)
        x.add_(3)   # an offset mean, so a one-pass variance would show
        ref = lambda: F.layer_norm(x.double(), (c,), w.double(), b.double(), eps)
        ours = lambda lib, name: lib(name, x, w, b, y, r, c, eps)
        return (x, y, ref, lambda: F.layer_norm(x, (c,), w, b, eps), (lambda: tt_layernorm(x, w, b, y, eps)),
                (2 * r * c + 2 * c) * e, ours)
    if op == "add":
        x2 = torch.randn(r, c, device="cuda", dtype=t, generator=g)
        ref = lambda: x.double() + x2.double()
        ours = lambda lib, name: lib(name, x, x2, y, r * c)
        return x, y, ref, lambda: torch.add(x, x2, out=y), None, 3 * r * c * e, ours
    b = torch.randn(c, device="cuda", dtype=t, generator=g)
    ref = lambda: F.gelu(x.double() + b.double())
    ours = lambda lib, name: lib(name, x, b, y, r, c)
    return x, y, ref, lambda: F.gelu(x + b), None, (2 * r * c + c) * e, ours


def check(run, y, expect, what):
    """Runs `run` on a NaN-poisoned y; the relative error to expect, or
    raises when it is NaN or over the dtype's bound."""
    y.fill_(float("nan"))
    res = run()
    torch.cuda.synchronize()
    got = res if isinstance(res, torch.Tensor) else y
    if isinstance(res, int) and res != 0:
        raise RuntimeError(f"{what}: launcher returned {res}")
    err = ((got.double() - expect).norm() / expect.norm()).item()
    bound = 1e-4 if got.dtype == torch.float32 else 1e-2
    if not err <= bound:
        raise RuntimeError(f"{what}: relative error {err:.3g} over {bound}")
    return err


def copy_gbs(x):
    """GB/s of a device-to-device copy of x's bytes (read once, written once)."""
    src, dst = torch.empty_like(x), torch.empty_like(x)
    return 2 * x.numel() * x.element_size() / timed(lambda: dst.copy_(src)) / 1e6


def plot(rows):
    """One PNG a op: % of copy against C, ours / torch / Triton, a line a dtype."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no plots")
        return
    for op in sorted({r["op"] for r in rows}):
        fig, ax = plt.subplots(figsize=(9, 5))
        for dt, color in (("bf16", "C0"), ("f16", "C1"), ("f32", "C2")):
            pts = [r for r in rows if r["op"] == op and r["dtype"] == dt]
            if not pts:
                continue
            cs = [r["C"] for r in pts]
            ax.plot(cs, [r["ours_gbs"] / r["copy_gbs"] * 100 for r in pts], "-o", color=color, label=f"luatile {dt}")
            ax.plot(cs, [r["torch_gbs"] / r["copy_gbs"] * 100 for r in pts], "--", color=color, label=f"torch {dt}")
            tri = [(r["C"], r["triton_gbs"] / r["copy_gbs"] * 100) for r in pts if r["triton_gbs"]]
            if tri:
                ax.plot(*zip(*tri), ":", color=color, label=f"Triton tutorial {dt}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("row length C (R = 2^27 / C)")
        ax.set_ylabel("% of copy bandwidth")
        ax.set_ylim(0, 110)
        ax.axhline(85 if op != "layernorm" else 80, color="grey", lw=0.5)
        ax.set_title(f"{op} on {torch.cuda.get_device_name()}")
        ax.legend(fontsize=7, ncol=3)
        fig.savefig(os.path.join(OUT, f"rowops_grid_{op}.png"), dpi=90)
        plt.close(fig)


def grid(lib_path):
    """Ours, torch, Triton and copy at every point; a table, CSV and plots."""
    lib = Lib(lib_path)
    base = Lib(opt("--base", [None])[0]) if "--base" in sys.argv else None
    alt = Lib(opt("--alt", [None])[0]) if "--alt" in sys.argv else None
    rows = []
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    print(f"{'op':9} {'dt':4} {'R x C':>13} {'GB/s':>6} {'copy%':>6} {'xtorch':>7} {'xtriton':>8}"
          + (f" {'xbase':>6}" if base else "") + (f" {'xalt':>6}" if alt else ""))
    for op in opt("--ops", OPS):
        for dt in opt("--dtypes", ("bf16", "f16", "f32")):
            for c in [int(v) for v in opt("--c", GRID_C)]:
                x, y, ref, theirs, tri, nbytes, ours = point(op, dt, c)
                expect = ref()
                check(lambda: ours(lib, f"{op}_{dt}"), y, expect, f"{op}_{dt} C={c}")
                t_ours = timed(lambda: ours(lib, f"{op}_{dt}"), loops=3, ms=10)
                t_base = None
                if base:   # timed twice each, alternating, the faster kept: drift hits both alike
                    check(lambda: ours(base, f"{op}_{dt}"), y, expect, f"base {op}_{dt} C={c}")
                    t_base = timed(lambda: ours(base, f"{op}_{dt}"), loops=3, ms=10)
                    t_ours = min(t_ours, timed(lambda: ours(lib, f"{op}_{dt}"), loops=3, ms=10))
                    t_base = min(t_base, timed(lambda: ours(base, f"{op}_{dt}"), loops=3, ms=10))
                t_alt = None
                if alt:   # the same way: twice, alternating with ours, the faster kept
                    check(lambda: ours(alt, f"{op}_{dt}"), y, expect, f"alt {op}_{dt} C={c}")
                    t_alt = timed(lambda: ours(alt, f"{op}_{dt}"), loops=3, ms=10)
                    t_ours = min(t_ours, timed(lambda: ours(lib, f"{op}_{dt}"), loops=3, ms=10))
                    t_alt = min(t_alt, timed(lambda: ours(alt, f"{op}_{dt}"), loops=3, ms=10))
                check(theirs, y, expect, f"torch {op} {dt} C={c}")
                t_torch = timed(theirs, loops=3, ms=10)
                t_tri = None
                if tri is not None and triton is not None and "--no-triton" not in sys.argv:
                    try:
                        check(tri, y, expect, f"triton {op} {dt} C={c}")
                        t_tri = timed(tri, loops=3, ms=10)
                    except Exception as ex:   # the tutorials stop at rows too long for one block
                        print(f"  triton {op} {dt} C={c}: {str(ex).splitlines()[0][:100]}")
                del expect
                cp = copy_gbs(x)
                row = dict(op=op, dtype=dt, R=x.shape[0], C=c, ours_gbs=nbytes / t_ours / 1e6,
                           torch_gbs=nbytes / t_torch / 1e6, triton_gbs=nbytes / t_tri / 1e6 if t_tri else 0,
                           copy_gbs=cp)
                if base:
                    row["base_gbs"] = nbytes / t_base / 1e6
                if alt:
                    row["alt_gbs"] = nbytes / t_alt / 1e6
                rows.append(row)
                xt = f"{row['ours_gbs'] / row['triton_gbs']:7.2f}x" if t_tri else "       -"
                xb = f" {t_base / t_ours:5.2f}x" if base else ""
                xb += f" {(t_base if base else t_ours) / t_alt:5.2f}x" if alt else ""
                print(f"{op:9} {dt:4} {f'{x.shape[0]}x{c}':>13} {row['ours_gbs']:6.0f} "
                      f"{row['ours_gbs'] / cp:6.1%} {row['ours_gbs'] / row['torch_gbs']:6.2f}x {xt}{xb}", flush=True)
                del x, y
                torch.cuda.empty_cache()
    with open(os.path.join(OUT, "rowops_grid.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows)


def sweep(index):
    """Every config INDEX lists (lines: KERNEL DTYPE CONFIG LIB SYMBOL) at
    the grid points of its kernel and dtype whose row fits the config's
    rule (one pass: BC is C rounded up to a power of two; two passes: BC
    under C), or at every point with --every; with --base, that build's
    launcher too (checked, timed before and after the configs, the faster
    kept); writes rowops_sweep.csv."""
    cands = {}
    for line in open(index):
        k, dt, cfg, lib, sym = line.split()
        cands.setdefault((k, dt), []).append((cfg, os.path.join(os.path.dirname(index), "lib", lib), sym))
    libs = {}
    out = []
    every = "--every" in sys.argv
    base = Lib(opt("--base", [None])[0]) if "--base" in sys.argv else None
    print(f"device: {torch.cuda.get_device_name()}")
    for (op, dt), cs in sorted(cands.items()):
        if op not in opt("--ops", OPS) or dt not in opt("--dtypes", ("bf16", "f16", "f32")):
            continue
        for c in [int(v) for v in opt("--c", GRID_C)]:
            x, y, ref, theirs, _, nbytes, ours = point(op, dt, c)
            expect = ref()
            t_torch = timed(theirs, loops=3, ms=10)
            cp = copy_gbs(x)
            t_base = None
            if base:
                check(lambda: ours(base, f"{op}_{dt}"), y, expect, f"base {op}_{dt} C={c}")
                t_base = timed(lambda: ours(base, f"{op}_{dt}"), loops=3, ms=10)
            best = None
            for cfg, lib, sym in cs:
                kv = dict(p.split("=") for p in cfg.split(","))
                if not every and "BC" in kv:
                    bc = int(kv["BC"])
                    p2 = 1 << max(0, (c - 1).bit_length())
                    if not (bc == p2 or bc < c):
                        continue
                if not every and "BN" in kv and int(kv["BN"]) > 1 << max(0, (c - 1).bit_length()):
                    continue
                if lib not in libs:
                    libs[lib] = Lib(lib)
                try:
                    check(lambda: ours(libs[lib], sym), y, expect, f"{sym} C={c}")
                except RuntimeError as ex:
                    print(f"  FAIL {cfg}: {ex}")
                    continue
                t = timed(lambda: ours(libs[lib], sym), loops=3, ms=10)
                g = nbytes / t / 1e6
                out.append(dict(op=op, dtype=dt, R=x.shape[0], C=c, config=cfg, gbs=g, copy_gbs=cp,
                                torch_gbs=nbytes / t_torch / 1e6))
                if best is None or g > best[1]:
                    best = (cfg, g)
            if base:
                t_base = min(t_base, timed(lambda: ours(base, f"{op}_{dt}"), loops=3, ms=10))
                out.append(dict(op=op, dtype=dt, R=x.shape[0], C=c, config="base", gbs=nbytes / t_base / 1e6,
                                copy_gbs=cp, torch_gbs=nbytes / t_torch / 1e6))
            if best:
                xb = f", base {nbytes / t_base / 1e6 / cp:6.1%}, {best[1] * t_base / nbytes * 1e6:5.2f}x base" if base else ""
                print(f"{op:9} {dt:4} C={c:<6} best {best[0]:28} {best[1] / cp:6.1%} of copy, "
                      f"{best[1] / (nbytes / t_torch / 1e6):5.2f}x torch{xb}", flush=True)
            del x, y, expect
            torch.cuda.empty_cache()
    with open(os.path.join(OUT, "rowops_sweep.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("grid", "sweep"):
        sys.exit(__doc__)
    (grid if sys.argv[1] == "grid" else sweep)(sys.argv[2])
