"""attention_bwd_kernels_ab.py: A/B timing of the dK/dV kernels that bench/attention_bwd_ab.py
does not run (d256, the softcap variants, dQ by atomics), from several builds of the same launchers.

For d256, d256 with a softcap, d128 with a softcap and dQ by atomics at d128 (bf16, Q, K, V, dO
in [B, S, H, D], 16K tokens a batch, model dim 2048, S 1K and 16K, causal and full), the first
build's forward and pre give LSE and Delta; every build's dK and dV are compared with the first
build's (relative Frobenius difference under 2e-2; the builds' correctness is
tests/gpu/check_attention.py's) before anything is timed; then, in rotated rounds (ROUNDS, default
4, each kernel REPS times a round, default 3, the L2 flushed before each call), each build's
dK/dV kernel.  Prints the median of the round medians in ms, each build's ratio to the first, and
the largest spread (max - min) / median of the round medians.

usage: python3 bench/attention_bwd_kernels_ab.py LABEL=LIB.so [LABEL=LIB.so ...]
       (VARS from the environment: the variants to run, comma-separated, default all four:
       d256,d256_softcap,d128_softcap,dq_atomic_bf16_d128)"""
import math
import os
import sys

import torch
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gpu"))
sys.path.insert(0, HERE)
from lt import I64, named_libs  # noqa: E402
from attention_ab import interleaved  # noqa: E402


def rel(a, b):
    """Relative Frobenius difference of a to b, in f32."""
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
    sys.exit(__doc__)
libs = dict(named_libs(sys.argv[1:]))
flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
rounds, reps = int(os.environ.get("ROUNDS", 4)), int(os.environ.get("REPS", 3))
print("bf16 dK/dV kernels, ms (median of round medians), spread; outputs vs the first build")
VARS = os.environ.get("VARS", "d256,d256_softcap,d128_softcap,dq_atomic_bf16_d128").split(",")
for var, D, cap, atomic in (("d256", 256, False, False), ("d256_softcap", 256, True, False),
                            ("d128_softcap", 128, True, False), ("dq_atomic_bf16_d128", 128, False, True)):
    if var not in VARS:
        continue
    for S in (1024, 16384):
        for causal in (True, False):
            B, H = 16384 // S, 2048 // D
            g = torch.Generator(device="cuda"); g.manual_seed(S + D)
            q, k, v, do = (torch.randn(B, S, H, D, device="cuda", generator=g).to(torch.bfloat16) for _ in range(4))
            scale, sc = 1 / math.sqrt(D), 30.0
            wl, wr = (-1, 0) if causal else (-1, -1)
            st = [I64(S * H * D), I64(D), I64(H * D)]
            first = next(iter(libs.values()))
            o = torch.empty_like(q); lse, delta = (torch.empty(B, H, S, device="cuda") for _ in range(2))
            fv = f"attention_bf16_d{D}" + ("_softcap" if cap else "")
            sca = [scale, sc] if cap else [scale]
            assert first(fv, q, k, v, o, lse, B, H, S, H, S, *st * 4, *sca, wl, wr) == 0
            assert first(f"attention_bwd_pre_bf16_d{D}", o, do, delta, B, H, S, *st * 2) == 0
            name = "attention_bwd_dkdv_" + (var if atomic else f"bf16_{var}")
            fns, outs = {}, {}
            for n, lib in libs.items():
                dk, dv = torch.full_like(q, float("nan")), torch.full_like(q, float("nan"))
                acc = torch.zeros(B, H, S, D, device="cuda") if atomic else None
                extra = [acc] if atomic else []
                def call(lib=lib, dk=dk, dv=dv, extra=extra):
                    return lib(name, q, k, v, do, lse, delta, dk, dv, *extra, B, H, S, H, S, *st * 6, *sca, wl, wr)
                assert call() == 0, n
                torch.cuda.synchronize()
                outs[n] = (dk.clone(), dv.clone())
                fns[n] = call
            ref = next(iter(outs.values()))
            errs = {n: max(rel(a, b) for a, b in zip(x, ref)) for n, x in outs.items()}
            if any(not e < 2e-2 for e in errs.values()):
                sys.exit(f"{name} S={S} causal={causal}: outputs differ {errs}")
            r = interleaved(fns, rounds, reps, flush)
            print(f"{name:36} S={S:5} {'causal' if causal else 'full  '}" +
                  "".join(f"  {n} {r[n][0]:7.3f}" for n in libs) +
                  "".join(f"  {n}/{list(libs)[0]} {r[n][0] / r[list(libs)[0]][0]:.2f}" for n in list(libs)[1:]) +
                  f"  spread {max(s for _, s in r.values()):.2f}", flush=True)
