"""attention_bwd_ab.py: A/B timing of the attention backward from several
builds of the same launchers, next to SDPA's cuDNN backend, in one run.

The backward's counterpart of bench/attention_ab.py.  For each point of
bench/attention.py's grid (bf16, 16K tokens a batch, model dim 2048, Q, K,
V, dO in [B, S, H, D] memory) every build runs its forward and its
backward; its dQ, dK and dV are compared with cuDNN's
(torch.autograd.grad of SDPA under CUDNN_ATTENTION; relative Frobenius
difference under 2e-2) before anything is timed.  Then, in rotated rounds
(ROUNDS, each callable REPS times a round, the L2 flushed before each
call, CUDA events), it times each build's kernels and its forward +
backward, and cuDNN's forward + backward; it prints the median of the
round medians: kernels in milliseconds, forward + backward in TFLOP/s
(3.5 times the forward's FLOPs, halved when causal) with its ratio to
cuDNN, and the largest spread (max - min) / median of the round medians.

The backward is the deterministic one (pre, dkdv, dq; the dkdv and dq
kernels timed), or with --atomic the one with dQ by atomics
(pre_dq_atomic, dkdv_dq_atomic, post; the dkdv_dq_atomic kernel timed),
then beside the first build's deterministic forward + backward too.

usage: python3 bench/attention_bwd_ab.py [--atomic] LABEL=LIB.so [LABEL=LIB.so ...]
       (ROUNDS and REPS from the environment, default 6 and 3; DIMS, the
       head dims, default 64,128; SEQS, default 1024,4096,16384; KERNELS,
       the kernels timed apart, default dkdv,dq, or any of fwd,pre,dkdv,dq)"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gpu"))
sys.path.insert(0, HERE)
from lt import I64, named_libs  # noqa: E402
from attention_ab import interleaved  # noqa: E402

DIMS = [int(d) for d in os.environ.get("DIMS", "64,128").split(",")]
SEQS = [int(s) for s in os.environ.get("SEQS", "1024,4096,16384").split(",")]


def rel(a, b):
    """Relative Frobenius difference of a to b, in f32."""
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def backward(lib, atomic, D, q, k, v, do, o, lse, dq, dk, dv, shape, st, scalars):
    """{name: callable} of one build's forward + backward ("f+b"), its forward
    ("fwd") and its backward's kernels ("pre", "dkdv", and "dq" without
    atomic) into o, lse, dq, dk, dv."""
    B, H, S = shape
    delta = torch.empty(B, H, S, device="cuda")

    def fwd():
        return lib(f"attention_bf16_d{D}", q, k, v, o, lse, B, H, S, H, S, *st * 4, *scalars)
    if atomic:
        acc = torch.empty(B, H, S, D, device="cuda")

        def dkdv():
            return lib(f"attention_bwd_dkdv_dq_atomic_bf16_d{D}", q, k, v, do, lse, delta, dk, dv, acc,
                       B, H, S, H, S, *st * 6, *scalars)

        def fb():
            return [fwd(), lib(f"attention_bwd_pre_dq_atomic_bf16_d{D}", o, do, delta, acc, B, H, S, *st * 2), dkdv(),
                    lib(f"attention_bwd_post_bf16_d{D}", acc, dq, B, H, S, *st)]
        return {"fwd": fwd, "dkdv": dkdv, "f+b": fb}

    def pre():
        return lib(f"attention_bwd_pre_bf16_d{D}", o, do, delta, B, H, S, *st * 2)

    def dkdv():
        return lib(f"attention_bwd_dkdv_bf16_d{D}", q, k, v, do, lse, delta, dk, dv, B, H, S, H, S, *st * 6, *scalars)

    def dqk():
        return lib(f"attention_bwd_dq_bf16_d{D}", q, k, v, do, lse, delta, dq, B, H, S, H, S, *st * 5, *scalars)

    def fb():
        return [fwd(), pre(), dkdv(), dqk()]
    return {"fwd": fwd, "pre": pre, "dkdv": dkdv, "dq": dqk, "f+b": fb}


def main():
    args = sys.argv[1:]
    atomic = "--atomic" in args
    args = [a for a in args if a != "--atomic"]
    if not args or any("=" not in a for a in args):
        sys.exit(__doc__)
    libs = dict(named_libs(args))
    rounds, reps = int(os.environ.get("ROUNDS", 6)), int(os.environ.get("REPS", 3))
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    names = list(libs)
    kernels = ["dkdv"] if atomic else os.environ.get("KERNELS", "dkdv,dq").split(",")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, bf16; "
          f"{'dkdv_dq_atomic' if atomic else ', '.join(kernels)} in ms, forward + backward in TFLOP/s (ratio to cuDNN); "
          f"{rounds} rounds of {reps}")
    print(f"{'point':22}" + "".join("".join(f"{n + ' ' + x:>{12 if x == 'dkdv' else 10}}" for x in kernels) +
                                    f"{n + ' f+b':>16}" for n in names) +
          (f"{'determ. f+b':>16}" if atomic else "") + f"{'cudnn f+b':>10}   spread")
    for S in SEQS:
        for D in DIMS:
            for causal in (True, False):
                B, H = 16384 // S, 2048 // D
                g = torch.Generator(device="cuda")
                g.manual_seed(S + D + causal)
                q, k, v, do = (torch.randn(B, S, H, D, device="cuda", generator=g).to(torch.bfloat16) for _ in range(4))
                scalars = [1 / math.sqrt(D), -1, 0 if causal else -1]
                st = [I64(S * H * D), I64(D), I64(H * D)]
                flops = 3.5 * 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)
                qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))

                def cudnn():
                    o = F.scaled_dot_product_attention(qg.transpose(1, 2), kg.transpose(1, 2), vg.transpose(1, 2),
                                                       is_causal=causal, scale=scalars[0])
                    return torch.autograd.grad(o, (qg, kg, vg), do.transpose(1, 2))
                fns = {}
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    ref = list(cudnn())   # grads of qg, kg, vg: [B, S, H, D] as ours
                    fns["cudnn"] = cudnn
                    runs = [(n, lib, atomic) for n, lib in libs.items()]
                    if atomic:
                        runs.append(("det", libs[names[0]], False))
                    for n, lib, at in runs:
                        o, dq, dk, dv = (torch.full_like(q, float("nan")) for _ in range(4))
                        lse = torch.empty(B, H, S, device="cuda")
                        fs = backward(lib, at, D, q, k, v, do, o, lse, dq, dk, dv, (B, H, S), st, scalars)
                        rc = fs["f+b"]()
                        torch.cuda.synchronize()
                        errs = [rel(x, r) for x, r in zip((dq, dk, dv), ref)]
                        if any(rc) or not all(e < 2e-2 for e in errs):
                            sys.exit(f"{n} D={D} S={S} causal={causal}: WRONG (return codes {rc}, rel diff to cuDNN "
                                     f"dQ {errs[0]:.1e} dK {errs[1]:.1e} dV {errs[2]:.1e}); nothing timed")
                        if n == "det":
                            fns["det"] = fs["f+b"]
                        else:
                            fns.update({f"{n} {x}": fs[x] for x in kernels + ["f+b"]})
                    r = interleaved(fns, rounds, reps, flush)
                tf = {x: flops / r[x][0] / 1e9 for x in fns if x.endswith("f+b") or x in ("det", "cudnn")}
                cd = tf["cudnn"]
                print(f"D={D} S={S} {'causal' if causal else 'full':6}".ljust(22) +
                      "".join("".join(f"{r[n + ' ' + x][0]:{12 if x == 'dkdv' else 10}.3f}" for x in kernels) +
                              f"{tf[n + ' f+b']:10.0f} {tf[n + ' f+b'] / cd:.2f}x" for n in names) +
                      (f"{tf['det']:10.0f} {tf['det'] / cd:.2f}x" if atomic else "") +
                      f"{cd:10.0f}   {max(s for _, s in r.values()):.2f}", flush=True)


if __name__ == "__main__":
    main()
