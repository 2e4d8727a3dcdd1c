"""check.py: every generated CUDA kernel and variant against a float64
reference on fresh random inputs (never zeros), ragged shapes included,
outputs poisoned with NaN first.  Metric: ||out - ref|| / ||ref|| under a
per-dtype bound, no NaN, and every element written.
usage: python3 tests/gpu/check.py LIB.so TARGETNAME"""
import math
import sys

import torch
import torch.nn.functional as F

from lt import DTYPES, Lib

BOUND = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2}
lib, target = Lib(sys.argv[1]), sys.argv[2]
gen = torch.Generator(device="cuda")
gen.manual_seed(1234)
results = []


def rand(shape, dt, lo=-3.0, hi=3.0):
    x = torch.rand(shape, device="cuda", dtype=torch.float64, generator=gen) * (hi - lo) + lo
    x = torch.where(x.abs() < 1e-3, torch.full_like(x, 0.5), x)
    return x.to(DTYPES[dt])


def verdict(name, out, ref, dt):
    o = out.double()
    if torch.isnan(o).any():
        results.append((False, name, f"{int(torch.isnan(o).sum())} NaN (unwritten or wrong)"))
        return
    err = ((o - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    results.append((err <= BOUND[dt], name, f"rel err {err:.2e} (bound {BOUND[dt]:.0e})"))


for dt in ("f32", "f16", "bf16"):
    for n in (1, 4097, 1000003):
        x, y = rand((n,), dt), rand((n,), dt)
        z = torch.full((n,), float("nan"), device="cuda", dtype=DTYPES[dt])
        rc = lib(f"add_{dt}", x, y, z, n)
        torch.cuda.synchronize()
        verdict(f"{target} add_{dt} N={n} rc={rc}", z, x.double() + y.double(), dt)
    for m, n in ((1, 1), (129, 1000), (1024, 4096), (3, 5000)):
        x, b = rand((m, n), dt), rand((n,), dt, -1, 1)
        y = torch.full((m, n), float("nan"), device="cuda", dtype=DTYPES[dt])
        rc = lib(f"bias_gelu_{dt}", x, b, y, m, n)
        torch.cuda.synchronize()
        h = x.double() + b.double()
        verdict(f"{target} bias_gelu_{dt} {m}x{n} rc={rc}", y, 0.5 * h * (1 + torch.special.erf(h / math.sqrt(2))), dt)
    # out/sm90a's bf16 row ops dispatch on the shape (dsl/tuned/): 1x1, 7x1000
    # and 64x77 run the C=1024 bucket's kernel, 16385x4096 the C=4096's,
    # 3x20000 the C=16384's, the rest the C=8192's
    for r, c in ((1, 1), (7, 1000), (33, 4096), (5, 4097), (3, 20000), (257, 8192), (64, 77), (16385, 4096)):
        x = rand((r, c), dt, -6, 6)
        x[1::2] += torch.linspace(0, 12, c, device="cuda", dtype=torch.float64).to(DTYPES[dt])
        w, b = rand((c,), dt, 0.5, 1.5), rand((c,), dt, -1, 1)
        y = torch.full((r, c), float("nan"), device="cuda", dtype=DTYPES[dt])
        rc = lib(f"softmax_{dt}", x, y, r, c)
        torch.cuda.synchronize()
        verdict(f"{target} softmax_{dt} {r}x{c} rc={rc}", y, torch.softmax(x.double(), -1), dt)
        xs = rand((r, c), dt)
        y.fill_(float("nan"))
        rc = lib(f"rmsnorm_{dt}", xs, w, y, r, c, 1e-5)
        torch.cuda.synchronize()
        xd = xs.double()
        verdict(f"{target} rmsnorm_{dt} {r}x{c} rc={rc}", y, xd * torch.rsqrt((xd * xd).mean(-1, keepdim=True) + 1e-5) * w.double(), dt)
        # odd rows around an offset, where E[x^2] - mean^2 would cancel
        xs[1::2] += 10 if dt == "f32" else 1000
        xd = xs.double()
        y.fill_(float("nan"))
        rc = lib(f"layernorm_{dt}", xs, w, b, y, r, c, 1e-5)
        torch.cuda.synchronize()
        verdict(f"{target} layernorm_{dt} {r}x{c} rc={rc}", y, F.layer_norm(xd, (c,), w.double(), b.double(), 1e-5), dt)
    # argument checks: a null pointer and a size <= 0 are refused, nothing runs
    x = rand((16,), dt)
    bad = [lib(f"add_{dt}", None, x, x, 16), lib(f"add_{dt}", x, x, x, 0), lib(f"softmax_{dt}", x, x, 4, -1)]
    results.append((all(b != 0 for b in bad), f"{target} {dt} launchers refuse bad arguments", f"codes {bad}"))

for ok, name, why in results:
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why), flush=True)
print(f"{sum(r[0] for r in results)} passed, {sum(not r[0] for r in results)} failed")
