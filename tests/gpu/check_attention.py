"""check_attention.py: every attention variant (forward, and backward: pre,
dkdv, dq) of a shared library of generated launchers against float64 torch
on upcast inputs, the semantics of docs/attention.md.

The variants come from the headers out/TARGET/attention*.h.  Each case draws
fresh random inputs (never zeros), NaN-poisons the outputs and the gaps
between their rows and heads, runs the launcher and checks:
  O, dQ, dK, dV: every element |out - ref| <= 2 (u (M + |ref|) + tiny (N + 1)),
    M the sum of the absolute terms of its last product (O: sum P|V|; dV:
    sum P|dO|; dQ, dK: scale sum P (|dP| + |Delta| + sum|dO O|) |K|, |Q|,
    times 1 - tanh^2 with softcap), N the same without P (the absolute error
    of an f16 subnormal), u the dtype's unit roundoff, tiny half its subnormal
    spacing: the bound of tests/cpu/attention.c, which its f32 mock meets
    with a factor 2 to spare.  A row with no visible key must be exactly 0;
  LSE: +inf exactly where no key is visible, else |lse - ref| <= 1e-4 + 1e-5 |ref|;
  Delta: |Delta - ref| <= 2e-5 sum|dO O| (ref from the same stored O, dO);
  the gaps stay NaN, the inputs do not change, the backward is bitwise the
  same when run twice (no atomics), and the launchers refuse a null pointer
  and a zero size.
The backward gets the reference's O (rounded to the dtype) and LSE, so a
forward bug does not hide a backward one.  Prints PASS / FAIL / SKIP lines
and "N passed, N failed, N skipped".

usage: python3 tests/gpu/check_attention.py LIB.so TARGET [--headers DIR]
       python3 tests/gpu/check_attention.py LIB.so c --cpu --quick
  (--cpu: a c-target library on CPU tensors; --quick: the cases scaled down;
   together a dry run of this script on a machine without a GPU)"""
import argparse
import ctypes
import glob
import math
import os
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lt import DTYPES, I64, Lib  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("lib")
ap.add_argument("target")
ap.add_argument("--headers", help="folder of the attention*.h (default out/TARGET)")
ap.add_argument("--cpu", action="store_true")
ap.add_argument("--quick", action="store_true")
ap.add_argument("--only", default=".", help="a regex on the variant name: check those alone (attention.sh's ONLY)")
args = ap.parse_args()
DEV = "cpu" if args.cpu else "cuda"


class HostLib(Lib):
    """Lib for a c-target library: CPU tensors, a NULL stream."""

    def __call__(self, name, *a):
        fn = getattr(self.lib, name)
        fn.restype = ctypes.c_int
        conv = []
        for x in a:
            if isinstance(x, torch.Tensor):
                conv.append(ctypes.c_void_p(x.data_ptr()))
            elif x is None:
                conv.append(ctypes.c_void_p(0))
            elif isinstance(x, I64):
                conv.append(ctypes.c_int64(x))
            elif isinstance(x, float):
                conv.append(ctypes.c_float(x))
            else:
                conv.append(ctypes.c_int(x))
        return fn(*conv, ctypes.c_void_p(0))


lib = HostLib(args.lib) if args.cpu else Lib(args.lib)
gen = torch.Generator(device=DEV)
gen.manual_seed(20261122)
UNIT = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}
TINY = {"f16": 2.0 ** -25, "bf16": 2.0 ** -134}

# name, B, Hq, Hkv, Sq, Sk, window_left, window_right, layout, temp (S spreads about temp: scale = temp / sqrt(D))
CASES = [
    ("full ragged GQA", 2, 4, 2, 333, 517, -1, -1, "bhsd", 1.0),
    ("causal", 1, 4, 4, 1000, 1000, -1, 0, "bshd", 2.0),
    ("full Sk=1 MQA", 2, 4, 1, 77, 1, -1, -1, "bhsd", 1.0),
    ("causal Sq>Sk", 1, 4, 2, 700, 300, -1, 0, "gaps", 2.0),
    ("window (64,32)", 2, 4, 2, 1000, 1100, 64, 32, "bshd", 2.0),
    ("causal GQA 4", 2, 8, 2, 513, 513, -1, 0, "bshd", 2.0),
    ("causal Sq=1 MQA", 3, 8, 1, 1, 1000, -1, 0, "bshd", 2.0),
    ("full long keys", 1, 2, 1, 128, 4097, -1, -1, "gaps", 4.0),
    ("window (-1,3) Sq>Sk", 1, 2, 2, 300, 200, -1, 3, "gaps", 2.0),
]
SOFTCAP, CAP_TEMP = 30.0, 10.0   # _softcap variants: S spreads about 10, so the cap at 30 bites
if args.quick:
    CASES = [(n, b, hq, hkv, max(1, sq // 8), max(1, sk // 8), wl, wr, lay, t)
             for n, b, hq, hkv, sq, sk, wl, wr, lay, t in CASES]

results = []   # (status, label, why)


def record(ok, label, why=""):
    results.append(("PASS" if ok else "FAIL", label, why))
    print(("PASS " if ok else "FAIL ") + label + ("" if ok else ": " + why), flush=True)


def skip(label, why):
    results.append(("SKIP", label, why))
    print(f"SKIP {label}: {why}", flush=True)


# ---------------------------------------------------------------------------
# variants

NAME = re.compile(r"^attention_(?:bwd_(pre|dkdv|dq|post)_)?(dq_atomic_)?(f16|bf16)_d(32|64|96|128|256)(_softcap)?$")
hdir = args.headers or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "out", args.target)
# attention_decode_* and attention_varlen_* have checks of their own: bench/attention_decode.sh,
# bench/attention_varlen.sh
names = sorted(os.path.basename(h)[:-2] for h in glob.glob(os.path.join(hdir, "attention*.h"))
               if not os.path.basename(h).startswith(("attention_decode_", "attention_varlen_"))
               and re.search(args.only, os.path.basename(h)[:-2]))
sets = {}   # (dt, D, cap) -> {"fwd": name, "dkdv": ..., "dq": ..., "dkdva": ...}
pres = {}   # (dt, D) -> {"pre": ..., "prea": ..., "post": ...} (shared by cap and no cap)
for n in names:
    m = NAME.match(n)
    kind = m and (m.group(1) or "fwd") + ("a" if m.group(2) else "")
    if not m or kind not in ("fwd", "pre", "dkdv", "dq", "prea", "dkdva", "post") or (
            kind in ("pre", "prea", "post") and m.group(5)):
        record(False, f"{args.target} {n}", "the name does not follow the ABI (docs/attention.md)")
        continue
    dt, D, cap = m.group(3), int(m.group(4)), bool(m.group(5))
    if kind in ("pre", "prea", "post"):
        pres.setdefault((dt, D), {})[kind] = n
    else:
        sets.setdefault((dt, D, cap), {})[kind] = n
if not names:
    record(False, f"{args.target} attention", f"no attention*.h in {hdir}")

# ---------------------------------------------------------------------------
# tensors


def strides(lay, t, B, H, S, D):
    """Strides (b, h, s) and storage size of tensor number t (Q K V O dO dQ dK dV = 0..7)."""
    p = 8 * (t + 1) if lay == "gaps" else 0
    if lay in ("bhsd", "gaps"):
        ss = D + p
        sh = S * ss + p
        sb = H * sh + p
    else:
        sh = D + p
        ss = H * sh + p
        sb = S * ss + p
    return (sb, sh, ss), B * sb


def rand(n, dt):
    x = torch.randn(n, device=DEV, dtype=torch.float64, generator=gen)
    x = torch.where(x.abs() < 1e-3, torch.full_like(x, 0.5), x)
    return x.to(DTYPES[dt])


class T:
    """A [B, H, S, D] view of a storage in layout lay: random, or NaN when poisoned."""

    def __init__(self, lay, t, B, H, S, D, dt, poison=False):
        self.st, n = strides(lay, t, B, H, S, D)
        self.store = torch.full((n,), float("nan"), device=DEV, dtype=DTYPES[dt]) if poison else rand(n, dt)
        self.v = self.store.as_strided((B, H, S, D), self.st + (1,))
        self.shape = (B, H, S, D)

    def strides(self):
        return [I64(s) for s in self.st]

    def gaps_nan(self):
        B, H, S, D = self.shape
        used = torch.zeros(self.store.numel(), dtype=torch.bool, device=DEV)
        idx = (torch.arange(B, device=DEV)[:, None, None, None] * self.st[0] +
               torch.arange(H, device=DEV)[None, :, None, None] * self.st[1] +
               torch.arange(S, device=DEV)[None, None, :, None] * self.st[2] +
               torch.arange(D, device=DEV)[None, None, None, :])
        used[idx.reshape(-1)] = True
        return bool(torch.isnan(self.store[~used].float()).all())


# ---------------------------------------------------------------------------
# the reference


def visible(Sq, Sk, wl, wr):
    """[Sq, Sk] bool: key j visible to query i (bottom-right aligned)."""
    i = torch.arange(Sq, device=DEV)[:, None]
    j = torch.arange(Sk, device=DEV)[None, :]
    vis = torch.ones(Sq, Sk, dtype=torch.bool, device=DEV)
    if wl >= 0:
        vis &= j >= i + Sk - Sq - wl
    if wr >= 0:
        vis &= j <= i + Sk - Sq + wr
    return vis


def group_sum(x, Hkv):
    """[B, Hq, S, D] -> [B, Hkv, S, D], summed over the query heads of each kv head."""
    B, Hq, S, D = x.shape
    return x.reshape(B, Hkv, Hq // Hkv, S, D).sum(2)


def reference(q, k, v, do, scale, cap, wl, wr):
    """float64 forward (and backward when do is given) with the magnitudes of the bounds."""
    B, Hq, Sq, D = q.shape
    Hkv, Sk = k.shape[1], k.shape[2]
    g = Hq // Hkv
    kr, vr = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    s = scale * q @ kr.transpose(-1, -2)
    t = torch.tanh(s / cap) if cap else None
    if cap:
        s = cap * t
    vis = visible(Sq, Sk, wl, wr)
    empty = ~vis.any(-1)   # [Sq]: rows with no visible key
    s = s.masked_fill(~vis, float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - lse[..., None]).masked_fill(empty[:, None], 0.0)
    lse = lse.masked_fill(empty, float("inf"))
    visd = vis.double()
    r = {"o": p @ vr, "lse": lse, "mo": p @ vr.abs(), "no": (visd @ vr.abs())}
    if do is None:
        return r
    o = r["o"]
    dp = do @ vr.transpose(-1, -2)
    delta = (do * o).sum(-1, keepdim=True)
    a = (do * o).abs().sum(-1, keepdim=True)
    f = (1 - t * t) if cap else 1.0
    ds = p * (dp - delta) * f
    w = p * (dp.abs() + delta.abs() + a) * f
    r["dq"] = scale * ds @ kr
    r["dk"] = group_sum(scale * ds.transpose(-1, -2) @ q, Hkv)
    r["dv"] = group_sum(p.transpose(-1, -2) @ do, Hkv)
    r["mq"] = scale * w @ kr.abs()
    r["mk"] = group_sum(scale * w.transpose(-1, -2) @ q.abs(), Hkv)
    r["mv"] = group_sum(p.transpose(-1, -2) @ do.abs(), Hkv)
    r["nq"] = scale * visd @ kr.abs()
    r["nk"] = group_sum(scale * visd.transpose(-1, -2) @ q.abs(), Hkv)
    r["nv"] = group_sum(visd.transpose(-1, -2) @ do.abs(), Hkv)
    return r


def bound_ratio(out, ref, m, n, dt):
    """Worst |out - ref| / bound over the elements, the element, the relative Frobenius error."""
    o = out.double()
    err = (o - ref).abs()
    tol = 2 * (UNIT[dt] * (m + ref.abs()) + torch.where(n > 0, TINY[dt] * (n + 1), torch.zeros_like(n)))
    ratio = torch.where(err == 0, torch.zeros_like(err), err / tol)   # tol 0, err > 0: inf
    ratio = torch.where(torch.isnan(o), torch.full_like(err, float("inf")), ratio)
    worst = ratio.max()
    at = tuple(int(i) for i in torch.nonzero(ratio == worst)[0]) if worst > 0 else (0, 0, 0, 0)
    rel = ((o - ref).norm() / ref.norm().clamp_min(1e-300)).item()
    return worst.item(), at, o[at].item(), ref[at].item(), tol[at].item(), rel


def check_lse(lse, ref):
    """'' if the f32 lse matches ref, else why."""
    inf = ref == float("inf")
    x = lse.double()
    if not torch.equal(x[inf], ref[inf]):
        return "LSE of a row with no visible key is not +inf"
    bad = ~inf & ~((x - ref).abs() <= 1e-4 + 1e-5 * ref.abs())
    if bad.any():
        at = tuple(int(i) for i in torch.nonzero(bad)[0])
        return f"LSE{list(at)} = {x[at].item():.7g}, reference {ref[at].item():.7g}"
    return ""


# ---------------------------------------------------------------------------
# the checks


def case_label(name, what, c):
    n, B, Hq, Hkv, Sq, Sk, wl, wr, lay, _ = c
    return f"{args.target} {name} {what} {n} B{B} H{Hq}/{Hkv} Sq{Sq} Sk{Sk} {lay}"


def problem(s, c, D):
    n, B, Hq, Hkv, Sq, Sk, wl, wr, lay, temp = c
    cap = SOFTCAP if s else 0.0
    return (CAP_TEMP if s else temp) / math.sqrt(D), cap


def run_forward(name, dt, D, cap, c):
    _, B, Hq, Hkv, Sq, Sk, wl, wr, lay, _ = c
    scale, softcap = problem(cap, c, D)
    Q, K, V = T(lay, 0, B, Hq, Sq, D, dt), T(lay, 1, B, Hkv, Sk, D, dt), T(lay, 2, B, Hkv, Sk, D, dt)
    O = T(lay, 3, B, Hq, Sq, D, dt, poison=True)
    lse_store = torch.full((B * Hq * Sq + 16,), float("nan"), device=DEV, dtype=torch.float32)
    ins = [x.store.clone() for x in (Q, K, V)]
    rc = lib(name, Q.store, K.store, V.store, O.store, lse_store, B, Hq, Sq, Hkv, Sk, *Q.strides(), *K.strides(),
             *V.strides(), *O.strides(), scale, *([softcap] if cap else []), wl, wr)
    if DEV == "cuda":
        torch.cuda.synchronize()
    label = case_label(name, "fwd", c)
    if rc != 0:
        return record(False, label, f"the launcher returned {rc}")
    r = reference(Q.v.double(), K.v.double(), V.v.double(), None, scale, softcap, wl, wr)
    worst, at, got, want, tol, rel = bound_ratio(O.v, r["o"], r["mo"], r["no"], dt)
    why = check_lse(lse_store[:B * Hq * Sq].view(B, Hq, Sq), r["lse"])
    if worst > 1:
        why = f"O{list(at)} = {got:.6g}, reference {want:.6g} (bound {tol:.3g}); rel err {rel:.2e}"
    elif not O.gaps_nan():
        why = "O was written outside the tensor (a gap between rows or heads)"
    elif not torch.isnan(lse_store[B * Hq * Sq:]).all():
        why = "LSE was written past its end"
    elif not all(torch.equal(a, x.store) for a, x in zip(ins, (Q, K, V))):
        why = "an input (Q, K or V) was modified"
    record(not why, label + ("" if why else f" (error <= {worst:.2f} of the bound, rel {rel:.1e})"), why)


def bwd_call(names, cap, scale, softcap, Q, K, V, dO, lse, delta, dQ, dK, dV, B, Hq, Sq, Hkv, Sk, wl, wr,
             dqacc=None):
    """dkdv then dq; their return codes.  With dqacc (cleared by prea): the
    dq_atomic dkdv, then post."""
    tail = [scale] + ([softcap] if cap else []) + [wl, wr]
    if dqacc is not None:
        r1 = lib(names["dkdva"], Q.store, K.store, V.store, dO.store, lse, delta, dK.store, dV.store, dqacc, B, Hq, Sq,
                 Hkv, Sk, *Q.strides(), *K.strides(), *V.strides(), *dO.strides(), *dK.strides(), *dV.strides(), *tail)
        r2 = lib(names["post"], dqacc, dQ.store, B, Hq, Sq, *dQ.strides())
        if DEV == "cuda":
            torch.cuda.synchronize()
        return r1, r2
    r1 = lib(names["dkdv"], Q.store, K.store, V.store, dO.store, lse, delta, dK.store, dV.store, B, Hq, Sq, Hkv, Sk,
             *Q.strides(), *K.strides(), *V.strides(), *dO.strides(), *dK.strides(), *dV.strides(), *tail)
    r2 = lib(names["dq"], Q.store, K.store, V.store, dO.store, lse, delta, dQ.store, B, Hq, Sq, Hkv, Sk,
             *Q.strides(), *K.strides(), *V.strides(), *dO.strides(), *dQ.strides(), *tail)
    if DEV == "cuda":
        torch.cuda.synchronize()
    return r1, r2


def run_backward(names, dt, D, cap, c, twice, atomic=False):
    _, B, Hq, Hkv, Sq, Sk, wl, wr, lay, _ = c
    scale, softcap = problem(cap, c, D)
    Q, K, V = T(lay, 0, B, Hq, Sq, D, dt), T(lay, 1, B, Hkv, Sk, D, dt), T(lay, 2, B, Hkv, Sk, D, dt)
    O, dO = T(lay, 3, B, Hq, Sq, D, dt), T(lay, 4, B, Hq, Sq, D, dt)
    q, k, v, do = Q.v.double(), K.v.double(), V.v.double(), dO.v.double()
    r = reference(q, k, v, do, scale, softcap, wl, wr)
    O.v.copy_(r["o"].to(DTYPES[dt]))
    lse = r["lse"].float().contiguous()
    nr = B * Hq * Sq
    delta = torch.full((nr + 16,), float("nan"), device=DEV, dtype=torch.float32)
    dQ, dK, dV = (T(lay, 5, B, Hq, Sq, D, dt, True), T(lay, 6, B, Hkv, Sk, D, dt, True),
                  T(lay, 7, B, Hkv, Sk, D, dt, True))
    ins = [x.store.clone() for x in (Q, K, V, dO, O)] + [lse.clone()]
    sfx = f"{dt}_d{D}{'_softcap' if cap else ''}"
    label = case_label(f"attention_bwd_{{pre,dkdv}}_dq_atomic_{sfx} + post" if atomic else
                       f"attention_bwd_{{pre,dkdv,dq}}_{sfx}", "bwd", c)
    # dQacc's rows are as wide as the tiles: 128 at D = 96 (docs/attention.md)
    dqacc = torch.full((nr * (128 if D == 96 else D),), float("nan"), device=DEV, dtype=torch.float32) if atomic else None
    if atomic:
        rc = lib(names["prea"], O.store, dO.store, delta, dqacc, B, Hq, Sq, *O.strides(), *dO.strides())
    else:
        rc = lib(names["pre"], O.store, dO.store, delta, B, Hq, Sq, *O.strides(), *dO.strides())
    if DEV == "cuda":
        torch.cuda.synchronize()
    if rc != 0:
        return record(False, label, f"{names['prea' if atomic else 'pre']} returned {rc}")
    why = check_delta(delta, O, dO, nr)
    if why:
        return record(False, label, why)
    delta_copy = delta.clone()
    r1, r2 = bwd_call(names, cap, scale, softcap, Q, K, V, dO, lse, delta, dQ, dK, dV, B, Hq, Sq, Hkv, Sk, wl, wr,
                      dqacc)
    if r1 or r2:
        k1, k2 = ("dkdva", "post") if atomic else ("dkdv", "dq")
        return record(False, label, f"{names[k1]} returned {r1}, {names[k2]} returned {r2}")
    worst_all, rel_all = 0.0, 0.0
    for tn, X, key in (("dQ", dQ, "q"), ("dK", dK, "k"), ("dV", dV, "v")):
        worst, at, got, want, tol, rel = bound_ratio(X.v, r["d" + key], r["m" + key], r["n" + key], dt)
        worst_all, rel_all = max(worst_all, worst), max(rel_all, rel)
        if worst > 1:
            why = why or f"{tn}{list(at)} = {got:.6g}, reference {want:.6g} (bound {tol:.3g}); rel err {rel:.2e}"
        elif not X.gaps_nan():
            why = why or f"{tn} was written outside the tensor (a gap between rows or heads)"
    if not why and not all(torch.equal(a, x) for a, x in zip(ins, [x.store for x in (Q, K, V, dO, O)] + [lse])):
        why = "an input (Q, K, V, dO, O or LSE) was modified"
    if not why and not torch.equal(delta_copy[:nr], delta[:nr]):
        why = "Delta was modified by dkdv, dq or post"
    record(not why, label + ("" if why else f" (error <= {worst_all:.2f} of the bound, rel {rel_all:.1e})"), why)
    if twice and not why and not atomic:   # deterministic: a second run gives the same bits
        first = [x.store.clone() for x in (dQ, dK, dV)]
        for x in (dQ, dK, dV):
            x.store.fill_(float("nan"))
        bwd_call(names, cap, scale, softcap, Q, K, V, dO, lse, delta, dQ, dK, dV, B, Hq, Sq, Hkv, Sk, wl, wr)
        same = all(torch.equal(a.view(torch.int16), x.store.view(torch.int16)) for a, x in zip(first, (dQ, dK, dV)))
        record(same, case_label(f"attention_bwd_{{dkdv,dq}}_{dt}_d{D}{'_softcap' if cap else ''}",
                                "bwd twice: bitwise the same", c), "dQ, dK or dV differ between two runs")


def check_delta(delta, O, dO, nr):
    """'' if Delta = rowsum(dO * O) of the stored tensors within 2e-5 sum|dO O| and its tail is NaN."""
    prod = O.v.double() * dO.v.double()
    ref, a = prod.sum(-1).reshape(-1), prod.abs().sum(-1).reshape(-1)
    bad = ~((delta[:nr].double() - ref).abs() <= 2e-5 * a)
    if bad.any():
        i = int(torch.nonzero(bad)[0])
        return f"Delta[{i}] = {delta[i].item():.7g}, reference {ref[i].item():.7g}"
    if not torch.isnan(delta[nr:]).all():
        return "Delta was written past its end"
    return ""


def run_pre_only(name, dt, D, c):
    _, B, Hq, Hkv, Sq, Sk, wl, wr, lay, _ = c
    O, dO = T(lay, 3, B, Hq, Sq, D, dt), T(lay, 4, B, Hq, Sq, D, dt)
    nr = B * Hq * Sq
    delta = torch.full((nr + 16,), float("nan"), device=DEV, dtype=torch.float32)
    rc = lib(name, O.store, dO.store, delta, B, Hq, Sq, *O.strides(), *dO.strides())
    if DEV == "cuda":
        torch.cuda.synchronize()
    why = f"the launcher returned {rc}" if rc else check_delta(delta, O, dO, nr)
    record(not why, case_label(name, "pre", c), why)


def run_bad_args(names, dt, D, cap, with_pre):
    """Each launcher refuses a null pointer and a zero size."""
    x = rand(4 * D, dt)
    y = torch.full((4 * D,), float("nan"), device=DEV, dtype=DTYPES[dt])
    f = torch.ones(16, device=DEV, dtype=torch.float32)
    a, c = I64(4 * D), I64(D)
    st = [a, a, c]
    tail = [1.0] + ([5.0] if cap else []) + [-1, 0]
    calls = {
        "fwd": lambda z, n: lib(names["fwd"], x, z, x, y, f, 1, 1, n, 1, 4, *st * 4, *tail),
        "pre": lambda z, n: lib(names["pre"], x, z, f, 1, 1, n, *st * 2),
        "dkdv": lambda z, n: lib(names["dkdv"], x, x, x, x, f, z, y, y.clone(), 1, 1, n, 1, 4, *st * 6, *tail),
        "dq": lambda z, n: lib(names["dq"], x, x, x, x, f, z, y, 1, 1, n, 1, 4, *st * 5, *tail),
        "prea": lambda z, n: lib(names["prea"], x, x, f, z, 1, 1, n, *st * 2),
        "dkdva": lambda z, n: lib(names["dkdva"], x, x, x, x, f, f, y, y.clone(), z, 1, 1, n, 1, 4, *st * 6, *tail),
        "post": lambda z, n: lib(names["post"], z, y, 1, 1, n, *st),
    }
    for kind, call in calls.items():
        if kind not in names or (kind in ("pre", "prea", "post") and not with_pre):
            continue
        r1, r2 = call(None, 4), call(x, 0)
        if DEV == "cuda":
            torch.cuda.synchronize()
        record(r1 != 0 and r2 != 0, f"{args.target} {names[kind]} rejects a null pointer and a zero size",
               f"returned {r1} for a null pointer, {r2} for Sq = 0")


def selftest_reference():
    """The formula backward against autograd, the forward against SDPA (float64, Sq = Sk causal)."""
    B, Hq, Hkv, S, D = 1, 4, 2, 37, 16
    for cap in (0.0, 3.0):
        q = torch.randn(B, Hq, S, D, device=DEV, dtype=torch.float64, generator=gen).requires_grad_()
        k = torch.randn(B, Hkv, S, D, device=DEV, dtype=torch.float64, generator=gen).requires_grad_()
        v = torch.randn(B, Hkv, S, D, device=DEV, dtype=torch.float64, generator=gen).requires_grad_()
        do = torch.randn(B, Hq, S, D, device=DEV, dtype=torch.float64, generator=gen)
        r = reference(q.detach(), k.detach(), v.detach(), do, 0.5, cap, 5, 2)
        kr, vr = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
        s = 0.5 * q @ kr.transpose(-1, -2)
        if cap:
            s = cap * torch.tanh(s / cap)
        s = s.masked_fill(~visible(S, S, 5, 2), float("-inf"))
        o = torch.softmax(s, -1) @ vr
        o.backward(do)
        err = max((r[n] - x).abs().max().item() for n, x in
                  (("o", o.detach()), ("dq", q.grad), ("dk", k.grad), ("dv", v.grad)))
        record(err < 1e-10, f"{args.target} reference: backward formulas = autograd (float64, GQA, window"
               f"{', softcap' if cap else ''})", f"max difference {err:.3g}")
    sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if sdpa is None:
        return skip(f"{args.target} reference: forward = torch SDPA", f"torch {torch.__version__} has no SDPA")
    q, k, v = (torch.randn(2, 3, 50, 8, device=DEV, dtype=torch.float64, generator=gen) for _ in range(3))
    r = reference(q, k, v, None, 0.3, 0.0, -1, 0)
    err = (r["o"] - sdpa(q, k, v, is_causal=True, scale=0.3)).abs().max().item()
    record(err < 1e-10, f"{args.target} reference: forward = torch SDPA (float64, causal, Sq = Sk)",
           f"max difference {err:.3g}")


def main():
    try:
        selftest_reference()
        for dt, D in sorted({(k[0], k[1]) for k in sets} | set(pres)):
            shared, pre_used, pre_bad_args = pres.get((dt, D), {}), False, False
            pre = shared.get("pre")
            for cap in (False, True):
                names = dict(sets.get((dt, D, cap), {}))
                if not names:
                    continue
                names.update(shared)
                missing = [n for n in names.values() if not hasattr(lib.lib, n)]
                if missing:
                    record(False, f"{args.target} attention {dt} d{D}{' softcap' if cap else ''}",
                           f"not in {args.lib}: {', '.join(missing)} (did its file build?)")
                    continue
                full = all(k in names for k in ("pre", "dkdv", "dq"))
                if ("dkdv" in names or "dq" in names) and not full:
                    record(False, f"{args.target} attention {dt} d{D}{' softcap' if cap else ''}",
                           "the backward is incomplete: " + ", ".join(
                               f"{k} {'there' if k in names else 'missing'}" for k in ("pre", "dkdv", "dq")))
                for c in CASES:
                    if "fwd" in names:
                        run_forward(names["fwd"], dt, D, cap, c)
                full_a = all(k in names for k in ("prea", "dkdva", "post"))
                if "dkdva" in names and not full_a:
                    record(False, f"{args.target} attention {dt} d{D}{' softcap' if cap else ''}",
                           "the atomic-dQ backward is incomplete: " + ", ".join(
                               f"{k} {'there' if k in names else 'missing'}" for k in ("prea", "dkdva", "post")))
                for i, c in enumerate(CASES):
                    if full:
                        run_backward(names, dt, D, cap, c, twice=i == 1)
                    if full_a:
                        run_backward(names, dt, D, cap, c, twice=False, atomic=True)
                pre_used |= full
                run_bad_args(names, dt, D, cap, with_pre=full and not pre_bad_args)
                pre_bad_args |= full
            if pre and not pre_used:   # pre with no dkdv / dq beside it: checked alone
                for c in CASES:
                    run_pre_only(pre, dt, D, c)
                run_bad_args({"pre": pre}, dt, D, False, with_pre=True)
    except RuntimeError as e:   # a CUDA fault leaves the context unusable: report it and stop
        record(False, f"{args.target} attention check", f"stopped by {str(e).splitlines()[0][:200]}")
    p = sum(r[0] == "PASS" for r in results)
    f = sum(r[0] == "FAIL" for r in results)
    s = sum(r[0] == "SKIP" for r in results)
    print(f"{p} passed, {f} failed, {s} skipped")


main()
