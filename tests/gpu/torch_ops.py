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
float64).  The same for the MoE ops of python/luatile/_moe.py
(luatile::grouped_matmul, grouped_matmul_weight_grad, matmul_fp8): opcheck
on ragged groups (empty ones, rows outside the groups) of each dtype and
layout, x and w requiring grad (the autograd registration), and per-tensor
and per-row fp8 scales, the scales requiring grad; the gradients (dx, dw;
both scales, and a and b where a float8 tensor may require grad) against
float64 autograd of the same math, with a gradient that is not zero on the
rows outside the groups (dx's rows there must be zeros); then a mixture-of-experts
layer (a router's argsort, grouped_matmul over the sorted tokens, an fp8
projection) compiled with fullgraph=True against the same run eagerly and
against float64.  Prints PASS / FAIL / SKIP lines; exits 1 on any FAIL.
(Only the MoE ops: --moe; the library then needs only grouped_matmul_*
and matmul_fp8_*.)
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


def opcheck(op, args, schema=True):
    """torch.library.opcheck of op on args; raises with the failing test's name.
    schema=False leaves out test_schema, whose check of the inputs afterwards
    multiplies them, which torch 2.11 cannot do for float8_e4m3fn ("mul_cuda"
    not implemented): the fp8 op's inputs."""
    utils = ("test_schema",) * schema + ("test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
    res = torch.library.opcheck(op, args, test_utils=utils, raise_exception=False)
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


def moe_opchecks():
    ops = torch.ops.luatile
    for dt in (torch.bfloat16, torch.float16):
        for layout in ("kn", "nk"):
            T, K, N, G = 300, 136, 264, 5
            x = torch.randn(T, K, dtype=dt, device=DEV)
            w = torch.randn(G, K, N, dtype=dt, device=DEV) / math.sqrt(K)
            if layout == "nk":
                w = w.transpose(1, 2).contiguous()
            offs = torch.tensor([3, 90, 90, 200, 201, 290], dtype=torch.int32, device=DEV)   # an empty group
            check(f"opcheck/grouped_matmul/{str(dt)[6:]}_{layout}",
                  lambda: opcheck(ops.grouped_matmul.default, (x, w, offs, layout)))
            xg, wg = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
            check(f"opcheck/grouped_matmul/grad/{str(dt)[6:]}_{layout}",
                  lambda: opcheck(ops.grouped_matmul.default, (xg, wg, offs, layout)))
            dy = torch.randn(T, N, dtype=dt, device=DEV)
            check(f"opcheck/grouped_matmul_weight_grad/{str(dt)[6:]}_{layout}",
                  lambda: opcheck(ops.grouped_matmul_weight_grad.default, (x, dy, offs, G, layout)))
            check(f"grad/grouped_matmul/{str(dt)[6:]}_{layout}", lambda: grouped_grads(x, w, offs, layout, dy))
    f8 = torch.float8_e4m3fn
    M, K, N = 77, 96, 136
    a, b = torch.randn(M, K, device=DEV).to(f8), torch.randn(N, K, device=DEV).to(f8)
    for tag, sa, sb in (("tensor", torch.tensor(0.5, device=DEV), torch.tensor(2.0, device=DEV)),
                        ("row", torch.rand(M, 1, device=DEV) + 0.5, torch.rand(1, N, device=DEV) + 0.5)):
        check(f"opcheck/matmul_fp8/{tag}", lambda: opcheck(ops.matmul_fp8.default, (a, b, sa, sb, False), False))
        sag, sbg = sa.clone().requires_grad_(True), sb.clone().requires_grad_(True)
        check(f"opcheck/matmul_fp8/grad/{tag}", lambda: opcheck(ops.matmul_fp8.default, (a, b, sag, sbg, False), False))
        check(f"grad/matmul_fp8/{tag}", lambda: fp8_grads(a, b, sa, sb))


def grouped_grads(x, w, offs, layout, dy):
    """dx and dw through luatile.grouped_matmul's autograd against float64."""
    xg, wg = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    luatile.grouped_matmul(xg, wg, offs, layout).backward(dy)
    xr, wr = x.double().requires_grad_(True), w.double().requires_grad_(True)
    o = offs.tolist()
    ref = torch.zeros(dy.shape, dtype=torch.float64, device=DEV)
    for g in range(w.shape[0]):
        ref[o[g]:o[g + 1]] = xr[o[g]:o[g + 1]] @ (wr[g] if layout == "kn" else wr[g].t())
    ref.backward(dy.double())
    tol = 2e-2 if x.dtype == torch.bfloat16 else 3e-3
    for name, got, want in (("dx", xg.grad, xr.grad), ("dw", wg.grad, wr.grad)):
        e = rel_err(got, want)
        if got.dtype != x.dtype or e > tol:
            raise AssertionError(f"{name}: {got.dtype}, rel err {e:.2e} (tolerance {tol:g})")
    if (xg.grad[: o[0]] != 0).any() or (xg.grad[o[-1]:] != 0).any():
        raise AssertionError("dx is not zero on the rows outside the groups")


def fp8_grads(a, b, sa, sb):
    """matmul_fp8's gradients (both scales; a and b where torch lets a float8
    tensor require grad) against float64 autograd."""
    f8 = torch.float8_e4m3fn
    a, b, sa, sb = a.clone(), b.clone(), sa.clone().requires_grad_(True), sb.clone().requires_grad_(True)
    try:
        a.requires_grad_(True)
        b.requires_grad_(True)
    except RuntimeError:
        pass
    dc = torch.randn(a.shape[0], b.shape[0], device=DEV).to(torch.bfloat16)
    luatile.matmul_fp8(a, b, sa, sb).backward(dc)
    leaves = [t.detach().double().requires_grad_(True) for t in (a, b, sa, sb)]
    ((leaves[0] @ leaves[1].t()) * leaves[2] * leaves[3]).backward(dc.double())
    for name, t, leaf, tol in (("dscale_a", sa, leaves[2], 1e-4), ("dscale_b", sb, leaves[3], 1e-4),
                               ("da", a, leaves[0], 7e-2), ("db", b, leaves[1], 7e-2)):
        if not t.requires_grad:
            continue
        want = leaf.grad.clamp(-448, 448).to(f8) if t.dtype == f8 else leaf.grad
        if t.grad is None or t.grad.dtype != t.dtype:
            raise AssertionError(f"{name}: {None if t.grad is None else t.grad.dtype}, expected {t.dtype}")
        e = rel_err(t.grad.float(), want.float())
        if e > tol:
            raise AssertionError(f"{name}: rel err {e:.2e} (tolerance {tol:g})")


def moe_layer(x, router, w, proj, sa, sb, ours):
    """Tokens x [T, K] to their top expert (router), sorted by expert, each
    through its expert's w (grouped), then an fp8 projection; unsorted back."""
    T, G = x.shape[0], w.shape[0]
    expert = (x.float() @ router).argmax(-1)
    order = torch.argsort(expert, stable=True)
    counts = (expert[:, None] == torch.arange(G, device=x.device)).sum(0)   # bincount's size is data-dependent
    offs = torch.cat((counts.new_zeros(1), torch.cumsum(counts, 0))).to(torch.int32)
    xs = x[order]
    if ours:
        h = luatile.grouped_matmul(xs, w, offs, "kn")
        y = luatile.matmul_fp8(h.to(torch.float8_e4m3fn), proj, sa, sb)
    else:   # the float64 reference: a mask per expert, no host sync either
        h = torch.zeros(T, w.shape[2], dtype=torch.float64, device=x.device)
        rows = torch.arange(T, device=x.device)
        for g in range(G):
            m = ((rows >= offs[g]) & (rows < offs[g + 1]))[:, None]
            h = torch.where(m, xs.double() @ w[g].double(), h)
        y = (h.to(torch.bfloat16).to(torch.float8_e4m3fn).double() @ proj.double().t()) * sa.double() * sb.double()
    out = torch.empty_like(y)
    out[order] = y
    return out


def compiled_moe():
    T, K, N, P, G = 200, 128, 256, 72, 6
    x = torch.randn(T, K, dtype=torch.bfloat16, device=DEV)
    router = torch.randn(K, G, device=DEV)
    w = torch.randn(G, K, N, dtype=torch.bfloat16, device=DEV) / math.sqrt(K)
    proj = torch.randn(P, N, device=DEV).to(torch.float8_e4m3fn)
    sa, sb = torch.rand(T, 1, device=DEV) + 0.5, torch.rand(1, P, device=DEV) + 0.5
    eager = moe_layer(x, router, w, proj, sa, sb, True)
    torch._dynamo.reset()
    comp = torch.compile(moe_layer, fullgraph=True)(x, router, w, proj, sa, sb, True)
    want = moe_layer(x, router, w, proj, sa, sb, False)
    e1, e2 = rel_err(comp, eager), rel_err(eager, want)
    if e1 > 1e-6 or e2 > 5e-2:   # the reference rounds h to bf16 and fp8 as the kernels' inputs are; fp8 steps differ
        raise AssertionError(f"compiled vs eager {e1:.2e} (tolerance 1e-6), eager vs float64 {e2:.2e} (5e-2)")


def main():
    if not luatile.HAVE_CUSTOM_OP or not hasattr(torch.library, "opcheck"):
        print(f"SKIP torch_ops: torch {torch.__version__} has no torch.library.custom_op / opcheck")
        return 0
    print(f"torch {torch.__version__}, device {DEV}", flush=True)
    if "--moe" not in sys.argv:
        opchecks()
        check("compile/embedding+cross_entropy", compiled_model)
    moe_opchecks()
    check("compile/moe_layer", compiled_moe)
    print(f"{RESULTS.count('PASS')} passed, {RESULTS.count('FAIL')} failed")
    return 1 if "FAIL" in RESULTS else 0


if __name__ == "__main__":
    sys.exit(main())
