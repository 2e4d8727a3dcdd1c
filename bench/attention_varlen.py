"""attention_varlen.py: checks the generated variable-length prefill kernels
(dsl/kernels/attention_varlen.lua) on the GPU against a torch float64
reference, then times them beside the dense forward (attention.lua) and
torch SDPA over a nested (jagged) tensor, in the same process.

Checks (every library given, bf16 d128 and f16 d64): lengths {12, 37,
1000, 4096, 8191} causal and full, {0, 1, 12, 37, 1000} with GQA 4:1 and
1:1, Sk != Sq per sequence (bottom-right causal), and 300 sequences of 0
to 300 rows starting at row 9 (the kernel's search for a program's
sequence through all its rounds); O and LSE poisoned (NaN) first, with
the rows before the first sequence and 5 past the last that must stay NaN.  O by
||out - ref|| / ||ref|| < 1e-2 per sequence, LSE within 1e-3 (relative),
+inf where a row sees no key.  A library with NAME_ws (a persistent grid
taking its programs from a counter, k:grid's dynamic = true) is also
checked and timed through it (label +ws) with a 16-byte workspace, which
must be zero after every call, and once captured in a CUDA graph and
replayed (O and LSE bitwise a plain call's).  A library that fails is
not timed.

Timing (every library that passes, but sm80's: built for sm_90, it is
only checked): bf16, D 128 (VARIANT=f16_d64: f16, D 64), Hq 32 / Hkv 8, the mix {12, 37,
1000, 4096, 8191} (13336 tokens), causal and full; the dense kernel on
one sequence of the same 13336 tokens, timed in each round beside the
varlen builds (its time moves by up to 20% between runs); then each build
on that one sequence.  TFLOP/s = 4 D Hq (visible query-
key pairs) / median time (triton.testing.do_bench), so the two compare
per unit of work.  SDPA: torch.nested jagged Q, K, V of the same lengths.

usage: python3 bench/attention_varlen.py LABEL=LIB.so [LABEL=LIB.so ...]
Writes attention_varlen.txt to $OUT (else bench/results/<date>-attention-varlen.txt)."""
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


WS = {}   # the workspace of each NAME_ws: 16 zeroed bytes, which each call leaves zero


def varlen_fn(lib, dt, D, ws=False):
    """The launcher attention_varlen_DT_dD of lib, or (ws) NAME_ws with its
    workspace, called with NAME's arguments."""
    if not ws:
        f = getattr(lib, f"attention_varlen_{dt}_d{D}")
        f.argtypes = [P] * 7 + [I] * 5 + [L64] * 8 + [I, I, FL, I, I, P]
        return f
    g = getattr(lib, f"attention_varlen_{dt}_d{D}_ws")
    g.argtypes = [P] * 7 + [I] * 5 + [L64] * 8 + [I, I, FL, I, I, P, L64, P]
    w = WS.setdefault(id(lib), torch.zeros(4, dtype=torch.int32, device="cuda"))
    return lambda *a: g(*a[:-1], w.data_ptr(), 16, a[-1])


def ws_clean(lib):
    """Whether lib's workspace is back to zero (each call must leave it so)."""
    return id(lib) not in WS or not bool(WS[id(lib)].any())


def pack(lens, H, D, dt, extra, off=0):
    tot = off + sum(lens) + extra
    x = torch.randn(tot, H, D, device="cuda").to(dt)
    cu = torch.tensor([off] + [off + c for c in torch.tensor(lens).cumsum(0).tolist()], dtype=torch.int32,
                      device="cuda")
    return x, cu


def call(f, q, k, v, o, lse, cuq, cuk, mq, mk, scale, causal, wl=-1):
    TQ, Hq, D = q.shape
    TK, Hkv, _ = k.shape
    return f(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), cuq.data_ptr(), cuk.data_ptr(),
             Hq, TQ, Hkv, TK, cuq.numel(), D, Hq * D, D, Hkv * D, D, Hkv * D, D, Hq * D, mq, mk, scale, wl,
             0 if causal else -1, torch.cuda.current_stream().cuda_stream)


def check(label, f, lib, dt, D, lq, lk, Hq, Hkv, causal, off=0):
    q, cuq = pack(lq, Hq, D, DT[dt], 5, off)
    k, cuk = pack(lk, Hkv, D, DT[dt], 7, off)
    v = torch.randn_like(k.float()).to(DT[dt])
    o = torch.full_like(q, float("nan"))
    lse = torch.full((Hq, q.shape[0]), float("nan"), device="cuda")
    scale = 1 / math.sqrt(D)
    rc = call(f, q, k, v, o, lse, cuq, cuk, max(lq), max(lk), scale, causal)
    torch.cuda.synchronize()
    lens = f"lq={lq} lk={lk}" if len(lq) <= 8 else f"{len(lq)} sequences from row {off}, {sum(lq)} rows"
    what = f"{label} {dt} d{D} {lens} Hq={Hq} Hkv={Hkv} {'causal' if causal else 'full'}"
    if rc != 0:
        say(f"FAIL {what}: launcher returned {rc}")
        return False
    G = Hq // Hkv
    worst, wl = 0.0, 0.0
    for b in range(len(lq)):
        q0, k0 = int(cuq[b]), int(cuk[b])
        Sq, Sk = lq[b], lk[b]
        if Sq == 0:
            continue
        for h0 in range(0, Hq, 8):
            hs = range(h0, min(Hq, h0 + 8))
            qq = q[q0:q0 + Sq, h0:h0 + len(hs)].double().transpose(0, 1)
            kk = k[k0:k0 + Sk, [h // G for h in hs]].double().transpose(0, 1)
            vv = v[k0:k0 + Sk, [h // G for h in hs]].double().transpose(0, 1)
            s = qq @ kk.transpose(1, 2) * scale
            if causal:
                i = torch.arange(Sq, device="cuda")[:, None]
                j = torch.arange(Sk, device="cuda")[None, :]
                s = s.masked_fill(j > i + (Sk - Sq), float("-inf"))
            ref_lse = torch.logsumexp(s, -1)
            p = torch.exp(s - ref_lse[..., None]).nan_to_num(0.0)
            ref = p @ vv
            out = o[q0:q0 + Sq, h0:h0 + len(hs)].double().transpose(0, 1)
            err = ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()
            got = lse[h0:h0 + len(hs), q0:q0 + Sq].double()
            fin = torch.isfinite(ref_lse)
            le = ((got - ref_lse).abs() / ref_lse.abs().clamp_min(1.0))[fin].max().item() if fin.any() else 0.0
            if not torch.equal(torch.isinf(got) & (got > 0), ~fin) or math.isnan(err):
                le = float("inf")
            worst, wl = max(worst, err), max(wl, le)
    end = off + sum(lq)
    tail_ok = bool(torch.isnan(o[end:].float()).all() and torch.isnan(lse[:, end:]).all() and
                   torch.isnan(o[:off].float()).all() and torch.isnan(lse[:, :off]).all())
    clean = ws_clean(lib)
    ok = worst < 1e-2 and wl < 1e-3 and tail_ok and clean
    say(f"{'PASS' if ok else 'FAIL'} {what}: O rel err {worst:.2e}, LSE rel err {wl:.2e}, rows outside the "
        f"sequences {'untouched' if tail_ok else 'WRITTEN'}{'' if clean else ', workspace NOT zero after the call'}")
    return ok


def graph_check(label, f, lib, dt, D):
    """f captured in a CUDA graph on the mix, causal, replayed 3 times: O and
    LSE bitwise those of a plain call (a program's result does not depend on
    the block that runs it), the workspace zero after each replay."""
    lens = [12, 37, 1000, 4096, 8191]
    q, cuq = pack(lens, 32, D, DT[dt], 0)
    k, cuk = pack(lens, 8, D, DT[dt], 0)
    v = torch.randn_like(k.float()).to(DT[dt])
    o, lse = torch.zeros_like(q), torch.zeros(32, q.shape[0], device="cuda")
    scale = 1 / math.sqrt(D)
    call(f, q, k, v, o, lse, cuq, cuk, max(lens), max(lens), scale, True)
    o0, lse0 = o.clone(), lse.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    g = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s), torch.cuda.graph(g, stream=s):
        call(f, q, k, v, o, lse, cuq, cuk, max(lens), max(lens), scale, True)
    torch.cuda.current_stream().wait_stream(s)
    ok = True
    for _ in range(3):
        o.zero_(), lse.zero_()
        g.replay()
        torch.cuda.synchronize()
        ok &= bool(torch.equal(o, o0) and torch.equal(lse, lse0)) and ws_clean(lib)
    say(f"{'PASS' if ok else 'FAIL'} {label} {dt} d{D} in a CUDA graph, replayed 3 times: O and LSE bitwise a plain "
        f"call's, workspace zero after each")
    return ok


def pairs(lens, causal):
    return sum(s * (s + 1) // 2 if causal else s * s for s in lens)


def bench(timed, lib, variant):
    """Times the launcher `variant` (bf16_d128, f16_d64) of each (label,
    lib) of `timed` beside the dense kernel of `lib` and SDPA, in rotated
    rounds."""
    import triton.testing as tt
    name, D = variant.split("_d")[0], int(variant.split("_d")[1])
    Hq, Hkv, dt = 32, 8, DT[name]
    lens = [12, 37, 1000, 4096, 8191]
    N = sum(lens)
    dense = getattr(lib, f"attention_{variant}")
    dense.argtypes = [P] * 5 + [I] * 5 + [L64] * 12 + [FL, I, I, P]
    q, cuq = pack(lens, Hq, D, dt, 0)
    k, cuk = pack(lens, Hkv, D, dt, 0)
    v = torch.randn_like(k.float()).to(dt)
    o = torch.empty_like(q)
    lse = torch.empty(Hq, N, device="cuda")
    scale = 1 / math.sqrt(D)
    stream = torch.cuda.current_stream().cuda_stream
    for causal in (True, False):
        flops = 4 * D * Hq * pairs(lens, causal)
        t_vs = {label: [] for label, _, _ in timed}
        t_ds = []
        # dense: one sequence of the same N tokens, [1, N, H, D] as [B, H, S, D] strides
        run_dense = lambda: dense(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(),  # noqa: E731
                                  1, Hq, N, Hkv, N, N * Hq * D, D, Hq * D, N * Hkv * D, D, Hkv * D,
                                  N * Hkv * D, D, Hkv * D, N * Hq * D, D, Hq * D, scale, -1,
                                  0 if causal else -1, stream)
        for r in range(5):   # rounds: the dense kernel and each build timed once a round, the order rotated
            order = [("dense", None, False)] + timed
            order = order[r % len(order):] + order[:r % len(order)]
            for label, lb, *ws in order:
                if lb is None:
                    t_ds.append(tt.do_bench(run_dense))
                    continue
                f = varlen_fn(lb, name, D, ws[0])
                t_vs[label].append(tt.do_bench(
                    lambda: call(f, q, k, v, o, lse, cuq, cuk, max(lens), max(lens), scale, causal)))
        fd = 4 * D * Hq * pairs([N], causal)
        t_d = sorted(t_ds)[2]
        td = fd / t_d / 1e9
        say(f"{name} d{D} Hq 32 Hkv 8 lengths {lens} {'causal' if causal else 'full'}: dense on one sequence of "
            f"{N} tokens {t_d * 1e3:.1f} us {td:.1f} TFLOP/s (rounds {', '.join(f'{t * 1e3:.0f}' for t in t_ds)} us)")
        for label, ts in t_vs.items():
            t_v = sorted(ts)[2]
            tv = flops / t_v / 1e9
            say(f"  varlen {label}: {t_v * 1e3:.1f} us {tv:.1f} TFLOP/s (rounds {', '.join(f'{t * 1e3:.0f}' for t in ts)} us); "
                f"ratio to dense {tv / td:.3f}")
        # where the gap comes from: each build on the one sequence of N tokens (no mix)
        cu1 = torch.tensor([0, N], dtype=torch.int32, device="cuda")
        for label, lb, ws in timed:
            f = varlen_fn(lb, name, D, ws)
            t_1 = tt.do_bench(lambda: call(f, q, k, v, o, lse, cu1, cu1, N, N, scale, causal))
            say(f"  varlen {label} on one sequence of {N} tokens: {t_1 * 1e3:.1f} us {fd / t_1 / 1e9:.1f} TFLOP/s "
                f"(ratio to dense {t_d / t_1:.3f})")
        try:
            nq = torch.nested.nested_tensor([q[int(cuq[i]):int(cuq[i + 1])].transpose(0, 1) for i in range(len(lens))],
                                            layout=torch.jagged)
            kv = [k[int(cuk[i]):int(cuk[i + 1])].repeat_interleave(Hq // Hkv, 1).transpose(0, 1)
                  for i in range(len(lens))]
            nk = torch.nested.nested_tensor(kv, layout=torch.jagged)
            nv = torch.nested.nested_tensor(kv, layout=torch.jagged)
            t_s = tt.do_bench(lambda: F.scaled_dot_product_attention(nq, nk, nv, is_causal=causal, scale=scale))
            t_v = sorted(t_vs[timed[0][0]])[1]
            say(f"  SDPA (jagged nested tensors, K/V heads repeated): {t_s * 1e3:.1f} us {flops / t_s / 1e9:.1f} "
                f"TFLOP/s; {timed[0][0]} / SDPA speed {t_s / t_v:.2f}x")
        except Exception as e:  # noqa: BLE001
            say(f"  SDPA jagged: did not run ({type(e).__name__}: {str(e)[:120]})")


def main():
    libs = [a.split("=", 1) for a in sys.argv[1:]]
    say(f"# attention_varlen on {torch.cuda.get_device_name()}, torch {torch.__version__}, "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    good = []
    for label0, path in libs:
        lib = ctypes.CDLL(path)
        # each library's NAME, and NAME_ws (labelled +ws) where it has one: with a workspace, its persistent grid
        # hands the programs out as blocks free up; NAME runs one program a block
        for ws in (False, True):
            if ws and not hasattr(lib, f"attention_varlen_{os.environ.get('VARIANT', 'bf16_d128')}_ws"):
                continue
            label = label0 + ("+ws" if ws else "")
            ok = True
            for dt, D in (("bf16", 128), ("f16", 64)):
                if not hasattr(lib, f"attention_varlen_{dt}_d{D}" + ("_ws" if ws else "")):
                    continue
                f = varlen_fn(lib, dt, D, ws)
                torch.manual_seed(0)
                lm = [12, 37, 1000, 4096, 8191]
                ok &= check(label, f, lib, dt, D, lm, lm, 32, 8, True)
                ok &= check(label, f, lib, dt, D, lm, lm, 32, 8, False)
                ok &= check(label, f, lib, dt, D, [0, 1, 12, 37, 1000], [5, 1, 12, 37, 1000], 8, 2, True)
                ok &= check(label, f, lib, dt, D, [0, 1, 12, 37, 1000], [5, 1, 12, 37, 1000], 4, 4, False)
                ok &= check(label, f, lib, dt, D, [37, 100, 1], [200, 50, 0], 4, 1, True)
                ok &= check(label, f, lib, dt, D, [1], [1], 4, 4, True)   # fewer programs than SMs
                g = torch.Generator().manual_seed(1)
                many = [0 if i % 7 == 3 else int(torch.randint(0, 301, (1,), generator=g)) for i in range(300)]
                ok &= check(label, f, lib, dt, D, many, [max(0, n + i % 5 - 2) for i, n in enumerate(many)], 8, 2,
                            True, 9)
                if ws:
                    ok &= graph_check(label, f, lib, dt, D)
            good.append((label, lib, ws, ok))
    timed = [(label, lib, ws) for label, lib, ws, ok in good if ok and not label.startswith("sm80")]
    if good and good[0][3]:
        bench(timed, good[0][1], os.environ.get("VARIANT", "bf16_d128"))
    else:
        say("not timed: the first library failed its check")
    out = os.environ.get("OUT")
    path = os.path.join(out, "attention_varlen.txt") if out else os.path.join(
        os.path.dirname(__file__), "results", f"{datetime.date.today()}-attention-varlen.txt")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


main()
