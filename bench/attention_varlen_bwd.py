"""attention_varlen_bwd.py: checks the generated variable-length backward
(dsl/kernels/attention_varlen_bwd.lua, passes dq and dkdv, with
attention_bwd_pre for Delta and attention_varlen for O and LSE) on the GPU
against a torch float64 reference, then times it beside the dense
backward (attention_bwd_dq / attention_bwd_dkdv) and SDPA over nested
tensors, in the same process.

Checks (every library given, each dtype and head dim it holds): the
forward, attention_bwd_pre (B = 1, Sq = total_q) and the two passes run
as a training step would; the reference computes dQ, dK and dV in float64
from Q, K, V and dO as stored (P from the exact scores, dS = P (dP -
rowsum(dO * O)), dK and dV summed over the GQA group).  Cases: lengths
{12, 37, 1000, 4096, 8191} causal and full (Hq 32 / Hkv 8), {0, 1, 12, 37,
1000} with GQA 4:1 causal and 1:1 full, Sk above and below Sq and an empty
key sequence (bottom-right causal), a left window of 20, 300 sequences of 0
to 300 rows starting at row 9.  dQ, dK, dV poisoned (NaN) first: the rows
before the first sequence and past the last must stay NaN; every padding
row of Q, K, V, dO is NaN too (a read of one into a result would show).
Per sequence and tensor ||out - ref|| / ||ref|| < 2e-2 (where ref is 0,
out must be 0).  A library that fails is not timed.

Timing (the bf16 d128 of every library that passes but sm80's, built
for sm_90 and only checked): Hq 32 / Hkv 8, the mix {12, 37, 1000, 4096,
8191} (13336 tokens), causal and full: the varlen backward (pre + dq +
dkdv) beside the first library's dense backward of one sequence of the
same 13336 tokens, in rotated rounds (median of 5,
triton.testing.do_bench); TFLOP/s = 10 D Hq (visible
query-key pairs) / time (the backward's five products, the usual count),
so the two compare per unit of work.  SDPA: torch.nested jagged Q, K, V
of the same lengths, forward + backward, beside the first library's
forward + backward.

usage: python3 bench/attention_varlen_bwd.py LABEL=LIB.so [LABEL=LIB.so ...]
Appends to attention_varlen_bwd.txt in $OUT (else bench/results/<date>-attention-varlen-bwd.txt)."""
import ctypes
import datetime
import math
import os
import sys

import torch
import torch.nn.functional as F

P, I, L64, FL = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_float
DT = {"bf16": torch.bfloat16, "f16": torch.float16}
lines = []


def say(s):
    print(s, flush=True)
    lines.append(s)


class Varlen:
    """The forward, pre, dq and dkdv launchers of one dtype and head dim of a library."""

    def __init__(self, lib, dt, D):
        self.D, self.dt = D, dt
        n = f"{dt}_d{D}"
        self.fwd = getattr(lib, f"attention_varlen_{n}")
        self.fwd.argtypes = [P] * 7 + [I] * 5 + [L64] * 8 + [I, I, FL, I, I, P]
        self.pre = getattr(lib, f"attention_bwd_pre_{n}")
        self.pre.argtypes = [P] * 3 + [I] * 3 + [L64] * 6 + [P]
        self.dq = getattr(lib, f"attention_varlen_bwd_{n}_dq")
        self.dq.argtypes = [P] * 9 + [I] * 5 + [L64] * 10 + [FL, I, I, P]
        self.dkdv = getattr(lib, f"attention_varlen_bwd_{n}_dkdv")
        self.dkdv.argtypes = [P] * 10 + [I] * 5 + [L64] * 12 + [FL, I, I, P]

    def forward(self, q, k, v, o, lse, cuq, cuk, mq, mk, scale, wl, wr):
        TQ, Hq, D = q.shape
        TK, Hkv, _ = k.shape
        return self.fwd(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), cuq.data_ptr(),
                        cuk.data_ptr(), Hq, TQ, Hkv, TK, cuq.numel(), D, Hq * D, D, Hkv * D, D, Hkv * D, D, Hq * D,
                        mq, mk, scale, wl, wr, stream())

    def backward(self, q, k, v, o, do, lse, delta, dq, dk, dv, cuq, cuk, scale, wl, wr):
        """pre, dq, dkdv; the first nonzero return code, else 0."""
        TQ, Hq, D = q.shape
        TK, Hkv, _ = k.shape
        rq, rk = Hq * D, Hkv * D
        r = self.pre(o.data_ptr(), do.data_ptr(), delta.data_ptr(), 1, Hq, TQ, TQ * rq, D, rq, TQ * rq, D, rq,
                     stream())
        r = r or self.dq(q.data_ptr(), k.data_ptr(), v.data_ptr(), do.data_ptr(), lse.data_ptr(), delta.data_ptr(),
                         cuq.data_ptr(), cuk.data_ptr(), dq.data_ptr(), Hq, TQ, Hkv, TK, cuq.numel(),
                         D, rq, D, rk, D, rk, D, rq, D, rq, scale, wl, wr, stream())
        r = r or self.dkdv(q.data_ptr(), k.data_ptr(), v.data_ptr(), do.data_ptr(), lse.data_ptr(), delta.data_ptr(),
                           cuq.data_ptr(), cuk.data_ptr(), dk.data_ptr(), dv.data_ptr(), Hq, TQ, Hkv, TK, cuq.numel(),
                           D, rq, D, rk, D, rk, D, rq, D, rk, D, rk, scale, wl, wr, stream())
        return r


def stream():
    return torch.cuda.current_stream().cuda_stream


def pack(lens, H, D, dt, extra, off=0, poison=True):
    """[off + sum(lens) + extra, H, D] random rows, NaN outside the sequences (poison); cu_seqlens."""
    tot = off + sum(lens) + extra
    x = torch.randn(tot, H, D, device="cuda").to(dt)
    if poison:
        x[:off] = float("nan")
        x[off + sum(lens):] = float("nan")
    cu = torch.tensor([off] + [off + c for c in torch.tensor(lens, dtype=torch.int64).cumsum(0).tolist()],
                      dtype=torch.int32, device="cuda")
    return x, cu


def reference(q, k, v, do, Sq, Sk, G, scale, wl, wr):
    """float64 dQ [Sq, Hq, D], dK, dV [Sk, Hkv, D] of one sequence (inputs [S, H, D], any dtype)."""
    Hq, Hkv = q.shape[1], k.shape[1]
    dq = torch.zeros(Sq, Hq, q.shape[2], dtype=torch.float64, device="cuda")
    dk = torch.zeros(Sk, Hkv, q.shape[2], dtype=torch.float64, device="cuda")
    dv = torch.zeros_like(dk)
    i = torch.arange(Sq, device="cuda")[:, None] + (Sk - Sq)
    j = torch.arange(Sk, device="cuda")[None, :]
    vis = torch.ones(Sq, Sk, dtype=torch.bool, device="cuda")
    if wr >= 0:
        vis &= j <= i + wr
    if wl >= 0:
        vis &= j >= i - wl
    for h0 in range(0, Hq, 4):
        hs = list(range(h0, min(Hq, h0 + 4)))
        kh = [h // G for h in hs]
        qq = q[:, hs].double().transpose(0, 1)
        kk = k[:, kh].double().transpose(0, 1)
        vv = v[:, kh].double().transpose(0, 1)
        dd = do[:, hs].double().transpose(0, 1)
        s = (qq @ kk.transpose(1, 2) * scale).masked_fill(~vis, float("-inf"))
        p = torch.softmax(s, -1).nan_to_num(0.0)
        o = p @ vv
        dp = dd @ vv.transpose(1, 2)
        ds = p * (dp - (dd * o).sum(-1, keepdim=True))
        dq[:, hs] = (ds @ kk * scale).transpose(0, 1)
        for n, h in enumerate(kh):
            dk[:, h] += (ds[n].transpose(0, 1) @ qq[n]) * scale
            dv[:, h] += p[n].transpose(0, 1) @ dd[n]
    return dq, dk, dv


def rel(out, ref):
    """||out - ref|| / ||ref||, or ||out|| where ref is 0; inf where out has a NaN."""
    out = out.double()
    if torch.isnan(out).any():
        return float("inf")
    rn = ref.norm().item()
    return ((out - ref).norm().item() / rn) if rn > 0 else out.norm().item()


def check(label, fn, lq, lk, Hq, Hkv, wl, wr, off=0):
    dt, D = DT[fn.dt], fn.D
    q, cuq = pack(lq, Hq, D, dt, 5, off)
    do, _ = pack(lq, Hq, D, dt, 5, off)
    k, cuk = pack(lk, Hkv, D, dt, 7, off)
    v, _ = pack(lk, Hkv, D, dt, 7, off)
    o = torch.full_like(q, float("nan"))
    lse = torch.full((Hq, q.shape[0]), float("nan"), device="cuda")
    delta = torch.full_like(lse, float("nan"))
    dq = torch.full_like(q, float("nan"))
    dk = torch.full_like(k, float("nan"))
    dv = torch.full_like(k, float("nan"))
    scale = 1 / math.sqrt(D)
    mode = "causal" if wr == 0 else "full"
    if wl >= 0:
        mode += f" window {wl}"
    lens = f"lq={lq} lk={lk}" if len(lq) <= 8 else f"{len(lq)} sequences from row {off}, {sum(lq)} rows"
    what = f"{label} {fn.dt} d{D} {lens} Hq={Hq} Hkv={Hkv} {mode}"
    rc = fn.forward(q, k, v, o, lse, cuq, cuk, max(lq), max(lk), scale, wl, wr)
    rc = rc or fn.backward(q, k, v, o, do, lse, delta, dq, dk, dv, cuq, cuk, scale, wl, wr)
    torch.cuda.synchronize()
    if rc != 0:
        say(f"FAIL {what}: a launcher returned {rc}")
        return False
    worst = {"dQ": 0.0, "dK": 0.0, "dV": 0.0}
    for b in range(len(lq)):
        q0, k0, Sq, Sk = int(cuq[b]), int(cuk[b]), lq[b], lk[b]
        rq, rk, rv = reference(q[q0:q0 + Sq], k[k0:k0 + Sk], v[k0:k0 + Sk], do[q0:q0 + Sq], Sq, Sk, Hq // Hkv,
                               scale, wl, wr)
        worst["dQ"] = max(worst["dQ"], rel(dq[q0:q0 + Sq], rq))
        worst["dK"] = max(worst["dK"], rel(dk[k0:k0 + Sk], rk))
        worst["dV"] = max(worst["dV"], rel(dv[k0:k0 + Sk], rv))
    qe, ke = int(cuq[-1]), int(cuk[-1])
    outside = bool(torch.isnan(dq[:off].float()).all() and torch.isnan(dq[qe:].float()).all() and
                   torch.isnan(dk[:off].float()).all() and torch.isnan(dk[ke:].float()).all() and
                   torch.isnan(dv[:off].float()).all() and torch.isnan(dv[ke:].float()).all())
    ok = max(worst.values()) < 2e-2 and outside
    say(f"{'PASS' if ok else 'FAIL'} {what}: rel err " + ", ".join(f"{n} {e:.2e}" for n, e in worst.items()) +
        f"; rows outside the sequences {'untouched' if outside else 'WRITTEN'}")
    return ok


def check_dense(lib):
    """The dense backward (timed beside the varlen one) on one sequence of 1000 tokens, against the reference."""
    fn = dense_fns(lib)
    D, Hq, Hkv, S = 128, 8, 2, 1000
    q = torch.randn(S, Hq, D, device="cuda").bfloat16()
    do = torch.randn_like(q)
    k = torch.randn(S, Hkv, D, device="cuda").bfloat16()
    v = torch.randn_like(k)
    bufs = [torch.empty_like(q), torch.empty(Hq, S, device="cuda"), torch.empty(Hq, S, device="cuda"),
            torch.empty_like(q), torch.empty_like(k), torch.empty_like(k)]
    rc = run_dense(fn, q, k, v, do, *bufs, 1 / math.sqrt(D), True, fwd=True)
    torch.cuda.synchronize()
    rq, rk, rv = reference(q, k, v, do, S, S, Hq // Hkv, 1 / math.sqrt(D), -1, 0)
    errs = [rel(bufs[3], rq), rel(bufs[4], rk), rel(bufs[5], rv)]
    ok = rc == 0 and max(errs) < 2e-2
    say(f"{'PASS' if ok else 'FAIL'} dense bf16 d128 backward S=1000 Hq=8 Hkv=2 causal (rc {rc}): rel err dQ "
        f"{errs[0]:.2e}, dK {errs[1]:.2e}, dV {errs[2]:.2e}")
    return ok


def dense_fns(lib):
    f = lib.attention_bf16_d128
    f.argtypes = [P] * 5 + [I] * 5 + [L64] * 12 + [FL, I, I, P]
    pre = lib.attention_bwd_pre_bf16_d128
    pre.argtypes = [P] * 3 + [I] * 3 + [L64] * 6 + [P]
    dq = lib.attention_bwd_dq_bf16_d128
    dq.argtypes = [P] * 7 + [I] * 5 + [L64] * 15 + [FL, I, I, P]
    dkdv = lib.attention_bwd_dkdv_bf16_d128
    dkdv.argtypes = [P] * 8 + [I] * 5 + [L64] * 18 + [FL, I, I, P]
    return f, pre, dq, dkdv


def run_dense(fns, q, k, v, do, o, lse, delta, dq, dk, dv, scale, causal, fwd=False, bwd=True):
    """The dense kernels on one sequence [S, H, D] (as [1, H, S, D] strides): forward (fwd), pre + dq + dkdv (bwd)."""
    f, pre, fdq, fdkdv = fns
    S, Hq, D = q.shape
    Hkv = k.shape[1]
    Q, K = (S * Hq * D, D, Hq * D), (S * Hkv * D, D, Hkv * D)
    wr = 0 if causal else -1
    r = 0
    if fwd:
        r = f(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), 1, Hq, S, Hkv, S,
              *Q, *K, *K, *Q, scale, -1, wr, stream())
    if bwd:
        r = r or pre(o.data_ptr(), do.data_ptr(), delta.data_ptr(), 1, Hq, S, *Q, *Q, stream())
        r = r or fdq(q.data_ptr(), k.data_ptr(), v.data_ptr(), do.data_ptr(), lse.data_ptr(), delta.data_ptr(),
                     dq.data_ptr(), 1, Hq, S, Hkv, S, *Q, *K, *K, *Q, *Q, scale, -1, wr, stream())
        r = r or fdkdv(q.data_ptr(), k.data_ptr(), v.data_ptr(), do.data_ptr(), lse.data_ptr(), delta.data_ptr(),
                       dk.data_ptr(), dv.data_ptr(), 1, Hq, S, Hkv, S, *Q, *K, *K, *Q, *K, *K, scale, -1, wr, stream())
    return r


def pairs(lens, causal):
    return sum(s * (s + 1) // 2 if causal else s * s for s in lens)


def bench(timed, lib):
    """Times the bf16 d128 varlen backward of each (label, Varlen) of timed beside lib's dense backward (rotated
    rounds), then the first's passes alone and its forward + backward beside SDPA over nested tensors."""
    import triton.testing as tt
    D, Hq, Hkv = 128, 32, 8
    lens = [12, 37, 1000, 4096, 8191]
    N = sum(lens)
    q, cuq = pack(lens, Hq, D, torch.bfloat16, 0, poison=False)
    do, _ = pack(lens, Hq, D, torch.bfloat16, 0, poison=False)
    k, cuk = pack(lens, Hkv, D, torch.bfloat16, 0, poison=False)
    v = torch.randn_like(k)
    o, dq = torch.empty_like(q), torch.empty_like(q)
    dk, dv = torch.empty_like(k), torch.empty_like(k)
    lse, delta = torch.empty(Hq, N, device="cuda"), torch.empty(Hq, N, device="cuda")
    scale = 1 / math.sqrt(D)
    dense = dense_fns(lib)
    fn = timed[0][1]
    for causal in (True, False):
        wr = 0 if causal else -1
        mode = "causal" if causal else "full"
        t = {label: [] for label, _ in [("dense", None)] + timed}
        for r in range(5):   # rounds: the dense backward and each build once a round, the order rotated
            order = [("dense", None)] + timed
            order = order[r % len(order):] + order[:r % len(order)]
            for label, f in order:
                if f is None:
                    run_dense(dense, q, k, v, do, o, lse, delta, dq, dk, dv, scale, causal, fwd=True, bwd=False)
                    t[label].append(tt.do_bench(
                        lambda: run_dense(dense, q, k, v, do, o, lse, delta, dq, dk, dv, scale, causal)))
                else:
                    f.forward(q, k, v, o, lse, cuq, cuk, max(lens), max(lens), scale, -1, wr)
                    t[label].append(tt.do_bench(
                        lambda: f.backward(q, k, v, o, do, lse, delta, dq, dk, dv, cuq, cuk, scale, -1, wr)))
        td = sorted(t["dense"])[2]
        fd = 10 * D * Hq * pairs([N], causal) / td / 1e9
        say(f"bf16 d128 Hq 32 Hkv 8 lengths {lens} {mode}: backward (pre + dq + dkdv); dense on one sequence of "
            f"{N} tokens {td * 1e3:.1f} us {fd:.1f} TFLOP/s (rounds {', '.join(f'{x * 1e3:.0f}' for x in t['dense'])})")
        for label, _ in timed:
            tv = sorted(t[label])[2]
            fv = 10 * D * Hq * pairs(lens, causal) / tv / 1e9
            say(f"  varlen {label}: {tv * 1e3:.1f} us {fv:.1f} TFLOP/s (rounds "
                f"{', '.join(f'{x * 1e3:.0f}' for x in t[label])}); ratio to dense {fv / fd:.3f}")
        # the first build's passes alone
        fn.forward(q, k, v, o, lse, cuq, cuk, max(lens), max(lens), scale, -1, wr)
        a = (q.data_ptr(), k.data_ptr(), v.data_ptr(), do.data_ptr(), lse.data_ptr(), delta.data_ptr(),
             cuq.data_ptr(), cuk.data_ptr())
        st = (D, Hq * D, D, Hkv * D, D, Hkv * D, D, Hq * D)
        t_dq = tt.do_bench(lambda: fn.dq(*a, dq.data_ptr(), Hq, N, Hkv, N, cuq.numel(), *st, D, Hq * D, scale, -1,
                                         wr, stream()))
        t_kv = tt.do_bench(lambda: fn.dkdv(*a, dk.data_ptr(), dv.data_ptr(), Hq, N, Hkv, N, cuq.numel(), *st,
                                           D, Hkv * D, D, Hkv * D, scale, -1, wr, stream()))
        say(f"  varlen {timed[0][0]} passes: dq {t_dq * 1e3:.1f} us, dkdv {t_kv * 1e3:.1f} us")
        # forward + backward beside SDPA over nested tensors (dO of ones there)
        fb = lambda: (fn.forward(q, k, v, o, lse, cuq, cuk, max(lens), max(lens), scale, -1, wr),  # noqa: E731
                      fn.backward(q, k, v, o, do, lse, delta, dq, dk, dv, cuq, cuk, scale, -1, wr))
        t_fb = tt.do_bench(fb)
        try:
            sl = [slice(int(cuq[i]), int(cuq[i + 1])) for i in range(len(lens))]
            G = Hq // Hkv
            nq = torch.nested.nested_tensor([q[s].transpose(0, 1) for s in sl], layout=torch.jagged,
                                            requires_grad=True)
            nk = torch.nested.nested_tensor([k[s].repeat_interleave(G, 1).transpose(0, 1) for s in sl],
                                            layout=torch.jagged, requires_grad=True)
            nv = torch.nested.nested_tensor([v[s].repeat_interleave(G, 1).transpose(0, 1) for s in sl],
                                            layout=torch.jagged, requires_grad=True)

            def sdpa():   # dO of ones: the time does not depend on its values
                out = F.scaled_dot_product_attention(nq, nk, nv, is_causal=causal, scale=scale)
                torch.autograd.grad(out, (nq, nk, nv), torch.ones_like(out))
            t_s = tt.do_bench(sdpa)
            say(f"  forward + backward: luatile varlen {timed[0][0]} {t_fb * 1e3:.1f} us; SDPA (jagged nested "
                f"tensors, K/V heads repeated) {t_s * 1e3:.1f} us; luatile / SDPA speed {t_s / t_fb:.2f}x")
        except Exception as e:  # noqa: BLE001
            say(f"  forward + backward: luatile varlen {t_fb * 1e3:.1f} us; SDPA jagged backward did not run "
                f"({type(e).__name__}: {str(e)[:160]})")


def main():
    libs = [a.split("=", 1) for a in sys.argv[1:]]
    say(f"# attention_varlen backward on {torch.cuda.get_device_name()}, torch {torch.__version__}, "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    results = []
    for label, path in libs:
        lib = ctypes.CDLL(path)
        ok = True
        for dt, D in (("bf16", 128), ("f16", 64), ("bf16", 64), ("f16", 128)):
            if not hasattr(lib, f"attention_varlen_bwd_{dt}_d{D}_dq"):
                continue
            fn = Varlen(lib, dt, D)
            torch.manual_seed(0)
            mix = [12, 37, 1000, 4096, 8191]
            if D == 128 and dt == "bf16":
                ok &= check(label, fn, mix, mix, 32, 8, -1, 0)
                ok &= check(label, fn, mix, mix, 32, 8, -1, -1)
            ok &= check(label, fn, [0, 1, 12, 37, 1000], [5, 1, 12, 37, 1000], 8, 2, -1, 0)
            ok &= check(label, fn, [0, 1, 12, 37, 1000], [5, 1, 12, 37, 1000], 4, 4, -1, -1)
            ok &= check(label, fn, [37, 100, 1], [200, 50, 0], 4, 1, -1, 0)
            ok &= check(label, fn, [37, 140, 12], [200, 70, 12], 4, 4, 20, 0, 3)
            g = torch.Generator().manual_seed(1)
            many = [0 if i % 7 == 3 else int(torch.randint(0, 301, (1,), generator=g)) for i in range(300)]
            ok &= check(label, fn, many, [max(0, n + i % 5 - 2) for i, n in enumerate(many)], 8, 2, -1, 0, 9)
        results.append((label, lib, ok))
    first = results[0] if results else None
    timed = [(label, Varlen(lib, "bf16", 128)) for label, lib, ok in results
             if ok and label != "sm80" and hasattr(lib, "attention_varlen_bwd_bf16_d128_dq")]
    if first and first[2] and hasattr(first[1], "attention_bwd_dq_bf16_d128") and check_dense(first[1]):
        bench(timed, first[1])
    else:
        say("not timed: the first library or the dense backward failed its check")
    out = os.environ.get("OUT")
    path = os.path.join(out, "attention_varlen_bwd.txt") if out else os.path.join(
        os.path.dirname(__file__), "results", f"{datetime.date.today()}-attention-varlen-bwd.txt")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    sys.exit(0 if all(ok for _, _, ok in results) else 1)


main()
