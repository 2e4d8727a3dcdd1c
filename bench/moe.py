"""moe.py: grouped_matmul (dsl/kernels/grouped_matmul.lua) and bias_dropout_add
checked on the GPU, then timed beside torch in the same process.

grouped_matmul: every library given is checked first against a float64
reference (ragged groups with empty ones, rows before the first group and
past the last that must keep their NaN poison, K not a multiple of the
tile), ||Y - ref|| / ||ref|| < 1e-2; then the first library is timed, bf16,
T = 8192 tokens, K = 4096, N in {14336, 4096}, G in {8, 64} groups of
uneven sizes (some empty), W as [G, K, N] (kn) and [G, N, K] (nk), beside
a loop of torch.matmul over the groups (group bounds on the host, outputs
written in place: Y[a:b] = X[a:b] @ W[g], or W[g].t()) and, where torch has
it, torch._grouped_mm (one launch, nk layout).  TFLOP/s = 2 T K N / time.

bias_dropout_add: the new library's Y checked against a torch float64
reference with its own Philox4x32-10 (the kernel file's mask rule), kept
fraction within 5 sigma; then the old and the new library timed (an A/B)
beside a device-to-device copy (16384 x 8192, 8192 x 4096 and the
ragged 12289 x 4104): GB/s = (X, R read, Y written) bytes / time;
copy: (read + written) / time of Y.copy_(X) on the same sizes.
BDA_SHAPES="MxN ..." replaces those timed shapes; BDA_TIME=ab times only the
BDAAB_ builds (each against BDA), not BDA against BDA_OLD.

usage: python3 bench/moe.py GM=LIB.so [GM80=LIB.so] BDA=LIB.so [BDA_OLD=LIB.so] [AB_name=LIB.so ...]
(AB_: a library of grouped_matmul_bf16_kn alone, in another config: checked, then timed on kn;
 BDAAB_: another build of bias_dropout_add, checked, then timed against BDA, in the dtypes of
 BDA_DT="bf16 f16 f32" (the default))
Times: triton.testing.do_bench, median; writes $OUT/moe.txt."""
import ctypes
import os
import sys

import torch
import triton.testing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moe_groups import groups  # noqa: E402

P, I, L64, F = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_float
libs = dict(a.split("=", 1) for a in sys.argv[1:])
lines = []


def say(s):
    print(s, flush=True)
    lines.append(s)


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def ptr(t):
    return ctypes.c_void_p(t.data_ptr())


fails = 0


def gm_fn(lib, dt, lay):
    f = getattr(lib, f"grouped_matmul_{dt}_{lay}")
    f.argtypes = [P] * 4 + [I] * 5 + [P]
    return f


def gm_call(f, X, W, offs, Y):
    T, K = X.shape
    G = offs.numel() - 1
    N = Y.shape[1]
    rc = f(ptr(X), ptr(W), ptr(offs), ptr(Y), T, K, G, N, G + 1, None)
    assert rc == 0, f"launcher returned {rc}"


def gm_check(name, lib, dts=("bf16", "f16"), layouts=("kn", "nk")):
    global fails
    gen = torch.Generator().manual_seed(1)
    for dt, t in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        if dt not in dts:
            continue
        for lay in layouts:
            f = gm_fn(lib, dt, lay)
            for T, K, N, G, pre, post in ((1000, 520, 768, 8, 0, 0), (777, 333, 264, 13, 5, 40), (4096, 1024, 1536, 64, 0, 3)):
                offs = groups(T, G, pre, post, gen)
                X = torch.randn(T, K, device="cuda", dtype=t)
                W = torch.randn(G, K, N, device="cuda", dtype=t) / K ** 0.5
                Wl = W if lay == "kn" else W.transpose(1, 2).contiguous()
                Y = torch.full((T, N), float("nan"), device="cuda", dtype=t)
                gm_call(f, X, Wl, offs.cuda(), Y)
                torch.cuda.synchronize()
                ref = torch.full((T, N), float("nan"), device="cuda", dtype=torch.float64)
                o = offs.tolist()
                for g in range(G):
                    ref[o[g]:o[g + 1]] = X[o[g]:o[g + 1]].double() @ W[g].double()
                inside = Y[o[0]:o[G]].double()
                r = ref[o[0]:o[G]]
                err = ((inside - r).norm() / r.norm()).item() if torch.isfinite(inside).all() else float("inf")
                untouched = bool(torch.isnan(Y[: o[0]]).all() and torch.isnan(Y[o[G]:]).all())
                ok = err < 1e-2 and untouched
                fails += not ok
                say(f"{'PASS' if ok else 'FAIL'} {name} grouped_matmul_{dt}_{lay} T={T} K={K} N={N} G={G} "
                    f"pre={pre} post={post}: rel err {err:.2e}{'' if untouched else ', rows outside the groups written'}")


def gm_time(lib, layouts=("kn", "nk"), label=""):
    gen = torch.Generator().manual_seed(2)
    say("")
    say(f"| grouped_matmul bf16 {label} | G | N | luatile | TFLOP/s | torch loop | vs loop | torch._grouped_mm | vs it |")
    say("|---|---|---|---|---|---|---|---|---|")
    T, K = 8192, 4096
    gmm = getattr(torch, "_grouped_mm", None)
    for lay in layouts:
        f = gm_fn(lib, "bf16", lay)
        for G in (8, 64):
            for N in (14336, 4096):
                offs = groups(T, G, gen=gen)
                o = offs.tolist()
                X = torch.randn(T, K, device="cuda", dtype=torch.bfloat16)
                W = torch.randn(G, K, N, device="cuda", dtype=torch.bfloat16) / K ** 0.5
                Wl = W if lay == "kn" else W.transpose(1, 2).contiguous()
                Y = torch.empty(T, N, device="cuda", dtype=torch.bfloat16)
                Yt = torch.empty_like(Y)
                od = offs.cuda()
                gm_call(f, X, Wl, od, Y)
                torch.cuda.synchronize()
                # the same numbers as torch's (both f32 accumulation; a loose check at this size)
                Wg = [Wl[g] if lay == "kn" else Wl[g].t() for g in range(G)]

                def loop():
                    for g in range(G):
                        if o[g + 1] > o[g]:
                            torch.matmul(X[o[g]:o[g + 1]], Wg[g], out=Yt[o[g]:o[g + 1]])
                loop()
                e = ((Y.float() - Yt.float()).norm() / Yt.float().norm()).item()
                ours = bench(lambda: gm_call(f, X, Wl, od, Y))
                theirs = bench(loop)
                gm_s = "-"
                vs = "-"
                if gmm is not None and lay == "nk":
                    try:
                        ends = od[1:].contiguous()
                        Z = gmm(X, Wl.transpose(1, 2), offs=ends, out_dtype=torch.bfloat16)
                        torch.cuda.synchronize()
                        t2 = bench(lambda: gmm(X, Wl.transpose(1, 2), offs=ends, out_dtype=torch.bfloat16))
                        gm_s, vs = f"{t2 * 1e3:.0f} us", f"{t2 / ours:.2f}x"
                    except Exception as ex:  # noqa: BLE001
                        gm_s = f"({type(ex).__name__})"
                tf = 2 * T * K * N / (ours * 1e-3) / 1e12
                say(f"| {lay} (vs torch {e:.1e}) | {G} | {N} | {ours * 1e3:.0f} us | {tf:.0f} | {theirs * 1e3:.0f} us | "
                    f"{theirs / ours:.2f}x | {gm_s} | {vs} |")
                del X, W, Wl, Y, Yt, Wg


# ---- bias_dropout_add ----
M32 = 0xFFFFFFFF


def philox_word(ctr, seed):
    """Word ctr % 4 of Philox4x32-10 on counter (ctr // 4 as two words, 0, 0), key the seed's two words,
    in int64 torch math (products of two 32-bit words fit 64 bits unsigned; done as two 16-bit halves)."""
    blk = ctr >> 2
    c0, c1 = blk & M32, (blk >> 32) & M32
    c2 = torch.zeros_like(c0)
    c3 = torch.zeros_like(c0)
    k0, k1 = seed & M32, (seed >> 32) & M32

    def mulhilo(a, m):
        lo16, hi16 = a & 0xFFFF, a >> 16
        p_lo = lo16 * m                      # < 2^48
        p_hi = hi16 * m                      # < 2^48
        full_lo = (p_lo + ((p_hi & 0xFFFF) << 16))
        lo = full_lo & M32
        hi = ((p_hi >> 16) + (full_lo >> 32)) & M32
        return hi, lo
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
        h0, l0 = mulhilo(c0, 0xD2511F53)
        h1, l1 = mulhilo(c2, 0xCD9E8D57)
        c0, c1, c2, c3 = h1 ^ c1 ^ k0, l1, h0 ^ c3 ^ k1, l0
    w = ctr & 3
    return torch.where(w == 0, c0, torch.where(w == 1, c1, torch.where(w == 2, c2, c3)))


def bda_fn(lib, dt):
    f = getattr(lib, f"bias_dropout_add_{dt}")
    f.argtypes = [P] * 4 + [I, I, F, L64, L64, P]
    return f


def bda_check(lib):
    global fails
    for dt, t in (("bf16", torch.bfloat16), ("f16", torch.float16), ("f32", torch.float32)):
        f = bda_fn(lib, dt)
        for M, N, p, seed, off in ((37, 1000, 0.1, 1234, 0), (64, 4099, 0.5, -7, (1 << 33) + 3), (300, 2048, 0.9, 99, 12),
                                  (51, 3072, 0.3, 5, 7), (33, 4104, 0.2, 11, 5), (19, 5000, 0.1, 3, 1),
                                  (9, 4100, 0.3, 77, 3), (70, 1032, 0.4, 21, 2), (23, 2056, 0.1, 8, 9)):
            X = torch.rand(M, N, device="cuda", dtype=t) + 1
            B = torch.rand(N, device="cuda", dtype=t) * 0.5 + 0.5
            R = torch.rand(M, N, device="cuda", dtype=t) * 2 - 1
            Y = torch.full_like(X, float("nan"))
            rc = f(ptr(X), ptr(B), ptr(R), ptr(Y), M, N, p, seed, off, None)
            torch.cuda.synchronize()
            m = torch.arange(M, device="cuda", dtype=torch.int64)[:, None]
            n = torch.arange(N, device="cuda", dtype=torch.int64)[None, :]
            ctr = 4 * (off + m * ((N + 3) // 4)) + n
            u = (philox_word(ctr, seed & ((1 << 64) - 1)) >> 8).double() * 2.0 ** -24
            keep = u < torch.tensor(1 - p, dtype=torch.float32).double()
            h = X.double() + B.double()
            ref = R.double() + torch.where(keep, h / torch.tensor(1 - p, dtype=torch.float32).double(), 0)
            err = ((Y.double() - ref).norm() / ref.norm()).item() if torch.isfinite(Y).all() else float("inf")
            kept = ((Y.double() - R.double()) > 0.5 * h).double().mean().item()
            sigma = ((1 - p) * p / (M * N)) ** 0.5
            ok = rc == 0 and err < 1e-2 and abs(kept - (1 - p)) <= 5 * sigma + 1e-12
            fails += not ok
            say(f"{'PASS' if ok else 'FAIL'} bias_dropout_add_{dt} {M}x{N} p={p}: rel err {err:.2e}, kept {kept:.4f}")


def bda_shapes():
    """The timed [M, N]: BDA_SHAPES="MxN ..." or the two regular ones and 12289 x 4104 (partial tiles both ways)."""
    given = os.environ.get("BDA_SHAPES")
    if not given:
        return ((16384, 8192), (8192, 4096), (12289, 4104))
    return tuple(tuple(int(x) for x in s.split("x")) for s in given.split())


def bda_time(new, old, dts=("bf16", "f16", "f32")):
    say("")
    say("| bias_dropout_add | M x N | new | GB/s | vs copy |" + (" old | new vs old |" if old else ""))
    say("|---|---|---|---|---|" + ("---|---|" if old else ""))
    for dt, t in (("bf16", torch.bfloat16), ("f16", torch.float16), ("f32", torch.float32)):
        if dt not in dts:
            continue
        for M, N in bda_shapes():
            X = torch.randn(M, N, device="cuda", dtype=t)
            B = torch.randn(N, device="cuda", dtype=t)
            R = torch.randn(M, N, device="cuda", dtype=t)
            Y = torch.empty_like(X)
            fn, fo = bda_fn(new, dt), bda_fn(old, dt) if old else None
            tn = bench(lambda: fn(ptr(X), ptr(B), ptr(R), ptr(Y), M, N, 0.1, 5, 0, None))
            to = bench(lambda: fo(ptr(X), ptr(B), ptr(R), ptr(Y), M, N, 0.1, 5, 0, None)) if fo else None
            tc = bench(lambda: Y.copy_(X))
            nb = M * N * t.itemsize
            gbs = 3 * nb / (tn * 1e-3) / 1e9
            cbs = 2 * nb / (tc * 1e-3) / 1e9
            say(f"| {dt} | {M} x {N} | {tn * 1e3:.0f} us | {gbs:.0f} | {gbs / cbs:.2f}x ({cbs:.0f} GB/s) |"
                + (f" {to * 1e3:.0f} us | {to / tn:.2f}x |" if to else ""))


say(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
gml = {k: ctypes.CDLL(v) for k, v in libs.items() if k.startswith("GM")}
abl = {k[3:]: ctypes.CDLL(v) for k, v in libs.items() if k.startswith("AB_")}   # bf16 kn configs, an A/B
for k, lib in gml.items():
    gm_check(k, lib)
for k, lib in abl.items():
    gm_check(k, lib, ("bf16",), ("kn",))
bdaab = {k[6:]: ctypes.CDLL(v) for k, v in libs.items() if k.startswith("BDAAB_")}   # other builds, an A/B
if "BDA" in libs:
    bda_check(ctypes.CDLL(libs["BDA"]))
for k, lib in bdaab.items():
    say(f"bias_dropout_add build {k}:")
    bda_check(lib)
if fails:
    say(f"{fails} check(s) failed: nothing timed")
else:
    for k, lib in abl.items():
        gm_time(lib, ("kn",), k)
    if "GM" in gml:
        gm_time(gml["GM"])
    if "BDA" in libs and os.environ.get("BDA_TIME") != "ab":
        bda_time(ctypes.CDLL(libs["BDA"]), ctypes.CDLL(libs["BDA_OLD"]) if "BDA_OLD" in libs else None)
    for k, lib in bdaab.items():
        say(f"bias_dropout_add build {k} as 'new', the shipped build as 'old':")
        bda_time(lib, ctypes.CDLL(libs["BDA"]), os.environ.get("BDA_DT", "bf16 f16 f32").split())
out = os.environ.get("OUT")
if out:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "moe.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
