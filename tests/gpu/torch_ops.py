"""torch_ops.py: the index ops' torch.library registration, checked by torch
itself, and a small model calling them under torch.compile(fullgraph=True).

    LUATILE_LIB_CUDA=build/lib/libluatile_sm90a.so python3 tests/gpu/torch_ops.py [--device cuda|cpu]

(the library: LT_LIB_KERNELS='embedding_* cross_entropy_*' ./build.sh lib
sm90a).  Needs torch 2.4 or later (torch.library.custom_op, opcheck); on an
older torch, one SKIP line.  For each op of python/luatile/_index.py
(luatile::embedding, embedding_backward, cross_entropy_forward,
cross_entropy_backward), torch.library.opcheck on ragged inputs of each
dtype and index dtype: the schema, the fake (meta) implementation against
the real outputs, the autograd registration, and an AOT-dispatch trace.
Then a model (an embedding, a projection, cross_entropy with ignored labels
and smoothing) compiled with fullgraph=True, whose loss and gradients must
match the same model run eagerly (and the eager one torch's own ops in
float64).  grouped_matmul and matmul_fp8 have no torch op (no
python/luatile entry point): nothing to check for them.  Prints PASS / FAIL
/ SKIP lines; exits 1 on any FAIL.
"""
import math
import os
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import luatile  # noqa: E402

DEV = sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else "cuda"
RESULTS = []
torch.manual_seed(34)


def check(name, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        RESULTS.append("FAIL")
        msg = " ".join(str(e).split())[:400] if str(e) else type(e).__name__
        print(f"FAIL torch_ops/{name}: {type(e).__name__}: {msg}", flush=True)
        if os.environ.get("VERBOSE"):
            traceback.print_exc()
    else:
        RESULTS.append("PASS")
        print(f"PASS torch_ops/{name}", flush=True)


def opcheck(op, args):
    """torch.library.opcheck of op on args; raises with the failing test's name."""
    res = torch.library.opcheck(op, args, raise_exception=False)
    bad = {k: v for k, v in res.items() if v != "SUCCESS"}
    if bad:
        k, v = next(iter(bad.items()))
        raise AssertionError(f"{k}: {' '.join(str(v).split())[:300]}")


def rel_err(got, ref):
    got, ref = got.double(), ref.double()
    if got.shape != ref.shape:
        raise AssertionError(f"shape {tuple(got.shape)}, expected {tuple(ref.shape)}")
    if not torch.isfinite(got).all():
        raise AssertionError("non-finite values")
    return (got - ref).norm().item() / max(ref.norm().item(), 1e-6)


def opchecks():
    ops = torch.ops.luatile
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        for it in (torch.int64, torch.int32):
            tag = f"{str(dt)[6:]}_{str(it)[6:]}"
            V, D = 37, 72
            w = torch.randn(V, D, dtype=dt, device=DEV, requires_grad=True)
            idx = torch.randint(0, V, (5, 3), dtype=it, device=DEV)
            check(f"opcheck/embedding/{tag}", lambda: opcheck(ops.embedding.default, (idx, w, 4, False)))
            g = torch.randn(5, 3, D, dtype=dt, device=DEV)
            check(f"opcheck/embedding_backward/{tag}",
                  lambda: opcheck(ops.embedding_backward.default, (g, idx, V, -1, True)))
            N, C = 9, 301
            x = (torch.randn(N, C, device=DEV) * 3).to(dt).requires_grad_(True)
            t = torch.randint(0, C, (N,), dtype=it, device=DEV)
            t[2] = -100
            check(f"opcheck/cross_entropy_forward/{tag}",
                  lambda: opcheck(ops.cross_entropy_forward.default, (x, t, -100, 0.1)))
            _, lse = ops.cross_entropy_forward(x.detach(), t, -100, 0.1)
            dl = torch.rand(N, device=DEV)
            check(f"opcheck/cross_entropy_backward/{tag}",
                  lambda: opcheck(ops.cross_entropy_backward.default, (dl, x.detach(), t, lse, -100, 0.1)))


class Model(torch.nn.Module):
    """An embedding, a projection to the vocabulary, cross_entropy: the index
    ops (luatile's or torch's) around one matmul."""

    def __init__(self, V, D, dt, ours):
        super().__init__()
        self.emb = torch.nn.Parameter(torch.randn(V, D, dtype=dt, device=DEV))
        self.proj = torch.nn.Parameter(torch.randn(D, V, dtype=dt, device=DEV) / math.sqrt(D))
        self.ours = ours

    def forward(self, ids, labels):
        if self.ours:
            h = luatile.embedding(ids, self.emb)
            return luatile.cross_entropy(h @ self.proj, labels, ignore_index=-100, label_smoothing=0.1)
        h = F.embedding(ids, self.emb)
        return F.cross_entropy(h @ self.proj, labels, ignore_index=-100, label_smoothing=0.1)


def compiled_model():
    for dt in (torch.float32, torch.bfloat16):
        V, D, N = 1000, 64, 77
        ids = torch.randint(0, V, (N,), device=DEV)
        labels = torch.randint(0, V, (N,), device=DEV)
        labels[::7] = -100

        def run(m):
            m.zero_grad(set_to_none=True)
            loss = m(ids, labels)
            loss.backward()
            return loss.detach(), m.emb.grad, m.proj.grad

        ours = Model(V, D, dt, True)
        ref = Model(V, D, torch.float64, False)
        ref.load_state_dict({k: v.double() for k, v in ours.state_dict().items()})
        eager = run(ours)
        torch._dynamo.reset()
        comp = run(torch.compile(ours, fullgraph=True))
        want = run(ref)
        tol = 1e-5 if dt == torch.float32 else 2e-2
        for name, a, b, c in zip(("loss", "d emb", "d proj"), comp, eager, want):
            e1, e2 = rel_err(a, b), rel_err(b, c)
            if e1 > tol or e2 > tol:
                raise AssertionError(f"{str(dt)[6:]} {name}: compiled vs eager {e1:.2e}, eager vs float64 {e2:.2e} "
                                     f"(tolerance {tol:g})")


def main():
    if not luatile.HAVE_CUSTOM_OP or not hasattr(torch.library, "opcheck"):
        print(f"SKIP torch_ops: torch {torch.__version__} has no torch.library.custom_op / opcheck")
        return 0
    print(f"torch {torch.__version__}, device {DEV}", flush=True)
    opchecks()
    check("compile/embedding+cross_entropy", compiled_model)
    print(f"{RESULTS.count('PASS')} passed, {RESULTS.count('FAIL')} failed")
    return 1 if "FAIL" in RESULTS else 0


if __name__ == "__main__":
    sys.exit(main())
