#!/usr/bin/env python3
"""bench/torch_device.py: the luatile PyTorch package on a CUDA GPU (never CI).

    python3 bench/torch_device.py            (bench/torch_device.sh builds the library first)
    python3 bench/torch_device.py --overhead [--pkg DIR] [--label TEXT]
                                             the overhead table alone (4.), its cases checked first,
                                             then with the Python fast calls, through ctypes, and the
                                             CPU cost of a call's pieces; --pkg: the luatile package in
                                             DIR (another version)
    python3 bench/torch_device.py --quick    test_torch's fast-path checks on CUDA tensors, 2. and 3.

1. tests/python/test_torch.py on CUDA tensors, with the custom ops, then
   (--quick) with LUATILE_NO_CUSTOM_OP=1, the torch.autograd.Function path,
   and with LUATILE_NO_CALLS=1, the launchers through ctypes;
2. a small transformer block (rms_norm, matmul + bias, causal attention,
   layer_norm, matmul + gelu) under torch.compile(fullgraph=True): forward
   and gradients against eager, and the luatile ops in the captured graph;
3. the same block's forward captured in a CUDA graph and replayed on new
   inputs, against eager (direct calls, then through the operators);
4. per-call overhead (in a fresh process): wall time of many small eager calls minus the kernel
   time (the same calls replayed from a CUDA graph), and the host's CPU time a
   call, for the entry points (eager inference: direct calls), the same
   through the torch.library operators, torch's own ops, and a launcher alone
   (through the call module and through ctypes).

Prints PASS / FAIL / SKIP lines and a table; writes $OUT/torch_device.txt
(or build/torch_device.txt).
"""
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "python"))
# --pkg DIR: the luatile package from DIR (another version, to compare) rather than python/
sys.path.insert(0, sys.argv[sys.argv.index("--pkg") + 1] if "--pkg" in sys.argv else os.path.join(REPO, "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import luatile  # noqa: E402
import test_torch as T  # noqa: E402

LOG = []


def say(line=""):
    print(line, flush=True)
    LOG.append(line)


def result(ok, name, detail=""):
    say(f"{'PASS' if ok else 'FAIL'} device/{name}" + (f": {detail}" if detail else ""))


class Block(torch.nn.Module):
    """x + attn(rms_norm(x)), then + mlp(layer_norm(x)); every op a luatile one."""

    def __init__(self, d=512, heads=8, dtype=torch.bfloat16, device="cuda"):
        super().__init__()
        self.d, self.h = d, heads

        def p(*shape, s=None):
            s = s if s is not None else 1 / math.sqrt(shape[0])
            return torch.nn.Parameter((torch.randn(*shape, device=device) * s).to(dtype))

        self.n1 = p(d, s=1.0)
        self.wqkv, self.bqkv = p(d, 3 * d), p(3 * d, s=0.1)
        self.wo = p(d, d)
        self.n2w, self.n2b = p(d, s=1.0), p(d, s=0.1)
        self.w1, self.b1 = p(d, 4 * d), p(4 * d, s=0.1)
        self.w2 = p(4 * d, d)

    def forward(self, x):
        B, S, d = x.shape
        H, D = self.h, d // self.h
        h = luatile.rms_norm(x, (d,), self.n1, 1e-6)
        qkv = luatile.matmul(h, self.wqkv, self.bqkv)                        # [B, S, 3d]
        q, k, v = qkv.view(B, S, 3, H, D).permute(2, 0, 3, 1, 4).unbind(0)    # [B, H, S, D] views
        o = luatile.scaled_dot_product_attention(q, k, v, is_causal=True)    # [B, H, S, D]
        x = x + luatile.matmul(o.transpose(1, 2).reshape(B, S, d), self.wo)
        h = luatile.layer_norm(x, (d,), self.n2w, self.n2b, 1e-5)
        h = luatile.matmul(h, self.w1, self.b1, activation="gelu")
        return x + luatile.matmul(h, self.w2)

    def reference(self, x):
        """The same block with torch ops in float32."""
        f = {n: t.float() for n, t in self.named_parameters()}
        x = x.float()
        B, S, d = x.shape
        H, D = self.h, d // self.h
        h = F.rms_norm(x, (d,), f["n1"], 1e-6) if hasattr(F, "rms_norm") else \
            x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * f["n1"]
        qkv = h @ f["wqkv"] + f["bqkv"]
        q, k, v = qkv.view(B, S, 3, H, D).permute(2, 0, 3, 1, 4).unbind(0)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + o.transpose(1, 2).reshape(B, S, d) @ f["wo"]
        h = F.layer_norm(x, (d,), f["n2w"], f["n2b"], 1e-5)
        h = F.gelu(h @ f["w1"] + f["b1"])
        return x + h @ f["w2"]


def check_compile():
    torch.manual_seed(1)
    m = Block()
    x = (torch.randn(2, 256, 512, device="cuda")).to(torch.bfloat16)
    g = torch.randn(2, 256, 512, device="cuda").to(torch.bfloat16)
    xe = x.clone().requires_grad_()
    ye = m(xe)
    err = T.rel_err(ye, m.reference(x))
    result(err < 2e-2, "block eager vs torch f32", f"relative error {err:.1e}")
    (ye.float() * g.float()).sum().backward()
    ge = {n: p.grad.clone() for n, p in m.named_parameters()}
    gxe = xe.grad.clone()
    m.zero_grad()
    try:
        explain = torch._dynamo.explain(m)(x)
        ops = sorted({str(n.target) for gm in explain.graphs for n in gm.graph.nodes
                      if "luatile" in str(n.target)})
        result(explain.graph_break_count == 0 and len(explain.graphs) == 1, "compile graph breaks",
               f"{explain.graph_count} graph(s), {explain.graph_break_count} break(s); luatile ops in the "
               f"graph: {', '.join(ops)}")
    except Exception as e:  # noqa: BLE001
        result(False, "compile graph breaks", f"explain failed: {type(e).__name__}: {e}")
    torch._dynamo.reset()
    try:
        t0 = time.time()
        cm = torch.compile(m, fullgraph=True)
        xc = x.clone().requires_grad_()
        yc = cm(xc)
        (yc.float() * g.float()).sum().backward()
        torch.cuda.synchronize()
        say(f"# torch.compile(fullgraph=True): first forward + backward {time.time() - t0:.1f} s")
        err = T.rel_err(yc, ye)
        result(err < 1e-2, "compile forward vs eager", f"relative error {err:.1e}")
        worst = max([(T.rel_err(p.grad, ge[n]), n) for n, p in m.named_parameters()] +
                    [(T.rel_err(xc.grad, gxe), "x")])
        result(worst[0] < 2e-2, "compile gradients vs eager", f"worst relative error {worst[0]:.1e} ({worst[1]})")
        x2 = torch.randn_like(x)
        err = T.rel_err(cm(x2), m(x2))
        result(err < 1e-2, "compile on new input (no recompile error)", f"relative error {err:.1e}")
    except Exception as e:  # noqa: BLE001
        result(False, "compile", f"{type(e).__name__}: {str(e).splitlines()[0][:300]}")


def check_cuda_graph():
    torch.manual_seed(2)
    m = Block()
    for direct in (True, False):   # the entry points' direct calls, then the operators
        luatile.direct_calls = direct
        x = torch.randn(2, 256, 512, device="cuda").to(torch.bfloat16)
        what = "direct calls" if direct else "operators"
        try:
            with torch.no_grad():
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        m(x)
                torch.cuda.current_stream().wait_stream(s)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    y = m(x)
                ok = True
                for i in range(3):
                    new = torch.randn_like(x)
                    x.copy_(new)
                    graph.replay()
                    torch.cuda.synchronize()
                    ref = m(new)
                    same = torch.equal(y, ref)
                    err = T.rel_err(y, ref)
                    ok = ok and err < 1e-3
                    say(f"# CUDA graph ({what}) replay {i}: bitwise equal to eager: {same}, relative error {err:.1e}")
            result(ok, f"cuda graph capture + replay vs eager ({what})")
        except Exception as e:  # noqa: BLE001
            result(False, f"cuda graph ({what})", f"{type(e).__name__}: {str(e).splitlines()[0][:300]}")
        finally:
            luatile.direct_calls = True


def wall_per_call(fn, n=2000, reps=5):
    """(wall, CPU) microseconds a call, the best of reps rounds of n eager calls: the
    wall clock to the last kernel's end, and this thread's CPU time (the host's own
    cost: where it is below the wall, the GPU sets the pace)."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    best = (math.inf, math.inf)
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(n):
            fn()
        c1 = time.thread_time()
        torch.cuda.synchronize()
        best = min(best, ((time.perf_counter() - t0) / n * 1e6, (c1 - c0) / n * 1e6))
    return best


def kernel_per_call(fn, n=200):
    """Microseconds a call when n calls replay from one CUDA graph: the kernels' time."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    g.replay()
    torch.cuda.synchronize()
    best = math.inf
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b) * 1e3 / n)
    return best


def overhead_cases():
    """(name, luatile entry point, torch's own op, the result in float32 by torch) of the overhead table."""
    bf = torch.bfloat16
    x = torch.randn(16, 1024, device="cuda").to(bf)
    w = torch.randn(1024, device="cuda").to(bf)
    a = torch.randn(64, 256, device="cuda").to(bf)
    b = (torch.randn(256, 256, device="cuda") / 16).to(bf)
    bias = torch.randn(256, device="cuda").to(bf)
    q = torch.randn(1, 8, 128, 64, device="cuda").to(bf)
    eps = 1e-6
    xf, wf, af, bf_, biasf, qf = (t.float() for t in (x, w, a, b, bias, q))
    rms = (lambda: F.rms_norm(x, (1024,), w, eps)) if hasattr(F, "rms_norm") else None
    return [
        ("rms_norm bf16 16x1024", lambda: luatile.rms_norm(x, (1024,), w, eps), rms,
         lambda: xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * wf),
        ("layer_norm bf16 16x1024", lambda: luatile.layer_norm(x, (1024,), w, w),
         lambda: F.layer_norm(x, (1024,), w, w), lambda: F.layer_norm(xf, (1024,), wf, wf)),
        ("softmax bf16 16x1024", lambda: luatile.softmax(x, -1), lambda: torch.softmax(x, -1),
         lambda: torch.softmax(xf, -1)),
        ("matmul+bias+gelu bf16 64x256x256", lambda: luatile.matmul(a, b, bias, "gelu"),
         lambda: F.gelu(torch.addmm(bias, a, b)), lambda: F.gelu(af @ bf_ + biasf)),
        ("attention bf16 1x8x128x64 causal", lambda: luatile.scaled_dot_product_attention(q, q, q, is_causal=True),
         lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True),
         lambda: F.scaled_dot_product_attention(qf, qf, qf, is_causal=True)),
    ]


def check_cases(cases):
    """Each entry point's result against torch in float32, and bitwise against the general path
    (the fast calls off), before anything is timed."""
    K = luatile._kernels
    ok = True
    for name, friendly, _, ref in cases:
        got = friendly()
        err = T.rel_err(got, ref())
        saved = {n: getattr(K, n) for n in ("rows_fast", "add_fast", "matmul_fast", "attention_fast")}
        try:
            for n in saved:
                setattr(K, n, lambda *args: None)
            general = friendly()
        finally:
            for n, f in saved.items():
                setattr(K, n, f)
        same = torch.equal(got, general)
        ok = ok and err < 2e-2 and same
        say(f"# {name}: relative error {err:.1e} against torch in float32, bitwise equal to the general path: {same}")
    result(ok, "overhead cases checked before timing")


def _configs():
    """The ways of calling measured, as (name, setup): the C fast calls (the package's default where
    the library has a call module), the Python fast calls through the call module, and the Python
    fast calls through ctypes; those this package and library have."""
    K = luatile._kernels
    path = luatile.library(torch.device("cuda")).path

    def load(no_calls, use_c):
        def setup():
            os.environ["LUATILE_NO_CALLS"] = no_calls
            luatile.load_library(path)
            if hasattr(K, "bind_fast"):
                K.bind_fast(use_c=use_c)
        return setup
    configs = []
    has_calls = hasattr(luatile.Library, "ctypes_fn") and luatile.library(torch.device("cuda")).calls is not None
    if has_calls and hasattr(K, "bind_fast"):
        configs.append(("C fast calls (python/luatile/_fast.c), launchers through the call module", load("0", True)))
    if has_calls:
        configs.append(("Python fast calls (_kernels.*_fast), launchers through the call module", load("0", False)))
    configs.append(("Python fast calls, launchers through ctypes (LUATILE_NO_CALLS=1)", load("1", False)))
    return configs


def overhead(label="", rounds=15, n=400):
    """The per-call overhead tables, one for each way of calling (_configs), measured in
    turns: rounds rounds, each timing n calls of every case in every way and of torch's
    ops, each number the best of its rounds (a slower spell of the machine then weighs
    on all alike).  Returns the worst entry point's time above its kernel in the first way."""
    cases = overhead_cases()
    configs = _configs()
    kernels = [kernel_per_call(friendly) for _, friendly, _, _ in cases]
    tkernels = [kernel_per_call(ref) if ref is not None else None for _, _, ref, _ in cases]
    best = {}

    def keep(key, wc):
        best[key] = min(best.get(key, (math.inf, math.inf)), wc)

    x = torch.randn(16, 1024, device="cuda").to(torch.bfloat16)
    w = x[0].clone()
    y = torch.empty_like(x)
    px, pw, py = x.data_ptr(), w.data_ptr(), y.data_ptr()
    st = torch.cuda.current_stream().cuda_stream
    for _ in range(rounds):
        for ci, (_, setup) in enumerate(configs):
            setup()
            for i, (_, friendly, _, _) in enumerate(cases):
                keep((ci, i, "entry"), wall_per_call(friendly, n, 1))
                luatile.direct_calls = False
                try:
                    keep((ci, i, "op"), wall_per_call(friendly, n, 1))
                finally:
                    luatile.direct_calls = True
            lib = luatile.library(torch.device("cuda"))
            keep((ci, "launcher"), wall_per_call(lambda: lib.fn("rmsnorm_bf16")(px, pw, py, 16, 1024, 1e-6, st), n, 1))
        for i, (_, _, ref, _) in enumerate(cases):
            if ref is not None:
                keep(("torch", i), wall_per_call(ref, n, 1))
    k_launcher = kernel_per_call(lambda: luatile.library(torch.device("cuda")).fn("rmsnorm_bf16")(
        px, pw, py, 16, 1024, 1e-6, torch.cuda.current_stream().cuda_stream))
    worst = None
    for ci, (how, _) in enumerate(configs):
        say("")
        say(f"per-call overhead{label}, {how} (us a call; wall = the best of {rounds} rounds of {n} eager calls, "
            "the ways of calling and torch's ops in turns; cpu = this thread's CPU time over them; kernel = 200 "
            "calls replayed from a CUDA graph; over = wall - kernel)")
        say(f"{'op':34} {'kernel':>7} {'luatile':>8} {'over':>6} {'cpu':>6} {'via op':>7} {'over':>6} {'cpu':>6} "
            f"{'torch':>7} {'tkern':>7} {'over':>6} {'cpu':>6}")
        w_ = 0.0
        for i, (name, _, ref, _) in enumerate(cases):
            k = kernels[i]
            (wf, cf), (wo, co) = best[(ci, i, "entry")], best[(ci, i, "op")]
            if ref is not None:
                tw, tc = best[("torch", i)]
                tcols = f"{tw:7.1f} {tkernels[i]:7.1f} {tw - tkernels[i]:6.1f} {tc:6.1f}"
            else:
                tcols = f"{'-':>7} {'-':>7} {'-':>6} {'-':>6}"
            w_ = max(w_, wf - k)
            say(f"{name:34} {k:7.1f} {wf:8.1f} {wf - k:6.1f} {cf:6.1f} {wo:7.1f} {wo - k:6.1f} {co:6.1f} {tcols}")
        raw, rawc = best[(ci, "launcher")]
        say(f"{'rmsnorm_bf16 launcher alone':34} {k_launcher:7.1f} {raw:8.1f} {raw - k_launcher:6.1f} {rawc:6.1f}")
        if worst is None:
            worst = w_
    say("(luatile: the entry point in eager inference, which calls the kernel directly; via op: the same through")
    say(" the operator, as under autograd (luatile.direct_calls = False); torch: torch's own op, tkern its kernels'")
    say(" time; inputs need no grad; launcher alone: the launcher called with its arguments ready)")
    configs[0][1]()   # back to the first way
    return worst


def micro_costs():
    """CPU microseconds of the pieces of a call on CUDA tensors (best of 5 x 2000, this thread's CPU time)."""
    K = luatile._kernels
    bf = torch.bfloat16
    x = torch.randn(16, 1024, device="cuda").to(bf)
    w = x[0].clone()
    q = torch.randn(1, 8, 128, 64, device="cuda").to(bf)
    f32 = torch.float32
    lse0 = torch.empty(0, device="cuda")
    pieces = [
        ("torch.empty_like(x)", lambda: torch.empty_like(x)),
        ("x.new_empty((16, 1024))", lambda: x.new_empty((16, 1024))),
        ("torch.empty((16, 1024), dtype=x.dtype, device=x.device)",
         lambda: torch.empty((16, 1024), dtype=x.dtype, device=x.device)),
        ("q.new_empty((1, 8, 128), dtype=float32)", lambda: q.new_empty((1, 8, 128), dtype=f32)),
        ("f32.new_empty((1, 8, 128))", lambda: lse0.new_empty((1, 8, 128))),
        ("x.shape", lambda: x.shape), ("x.stride()", lambda: x.stride()), ("x.dtype", lambda: x.dtype),
        ("x.is_cuda", lambda: x.is_cuda), ("x.get_device()", lambda: x.get_device()),
        ("x.data_ptr()", lambda: x.data_ptr()), ("torch.is_grad_enabled()", torch.is_grad_enabled),
        ("torch.compiler.is_compiling()", K._compiling),
        ("current device + raw stream", lambda: K._current_stream(K._current_device())),
        ("rows_fast rmsnorm (the fast call alone)", lambda: K.rows_fast("rmsnorm", x, (1024,), w, None, 1e-6, True)),
        ("luatile.rms_norm (the entry point)", lambda: luatile.rms_norm(x, (1024,), w, 1e-6)),
        ("attention_fast (the fast call alone)", lambda: K.attention_fast(q, q, q, None, -1, 0, None, True, True)),
        ("nothing (a Python call of a lambda)", lambda: None),
    ]
    say("")
    say("CPU cost of the pieces of a call (us, CUDA tensors, best of 5 x 2000 calls, this thread's CPU time)")
    for name, f in pieces:
        torch.cuda.synchronize()
        say(f"{name:48} {wall_per_call(f)[1]:6.2f}")


def quick():
    """The fast calls on CUDA tensors (test_torch's fast-path checks, C and Python), the block
    in a CUDA graph and under torch.compile, with the variants those use."""
    T.DEV = "cuda"
    T.R.seed(7)
    torch.manual_seed(7)
    say("")
    say("## the fast calls on CUDA tensors (tests/python/test_torch.py's fast-path checks)")
    T.check("fast-path/c", T.fast_paths("c"))
    T.check("fast-path/python", T.fast_paths("python"))
    say("")
    say("## CUDA graph")
    check_cuda_graph()
    say("")
    say("## torch.compile")
    check_compile()


def main(argv):
    out = os.environ.get("OUT") or os.path.join(REPO, "build")
    os.makedirs(out, exist_ok=True)
    dev = torch.cuda.get_device_name(0)
    say(f"# {dev}, torch {torch.__version__}, CUDA {torch.version.cuda}, luatile custom ops: {luatile.HAVE_CUSTOM_OP}")
    say(f"# library: {luatile.library(torch.device('cuda'))}, package {os.path.dirname(luatile.__file__)}")
    if "--quick" in argv:
        quick()
        with open(os.path.join(out, "torch_device.txt"), "w") as f:
            f.write("\n".join(LOG) + "\n")
        return 0
    if "--overhead" in argv:   # the overhead table alone (--label TEXT names it)
        label = argv[argv.index("--label") + 1] if "--label" in argv else ""
        if "--pkg" not in argv:
            check_cases(overhead_cases())
        worst = overhead(label)
        if "--pkg" in argv:   # another version: for comparison, not a check
            say(f"# worst entry point: {worst:.1f} us above its kernel{label}")
        else:
            result(worst < 10.0, f"per-call overhead under 10 us above the kernel{label}", f"worst {worst:.1f} us")
            micro_costs()
        with open(os.path.join(out, "torch_overhead.txt"), "a") as f:
            f.write("\n".join(LOG) + "\n")
        return 0
    say("")
    say("## tests/python/test_torch.py --device cuda (custom ops)")
    T.main(["--device", "cuda"])
    say("## the same, --quick, with LUATILE_NO_CUSTOM_OP=1 (torch.autograd.Function path)")
    env = dict(os.environ, LUATILE_NO_CUSTOM_OP="1")
    p = subprocess.run([sys.executable, os.path.join(REPO, "tests", "python", "test_torch.py"), "--device", "cuda",
                        "--quick"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout.splitlines():
        say(line)
    if p.returncode not in (0, 1):
        say(f"FAIL device/fallback tests: exit {p.returncode}")
    say("## the same, --quick, with LUATILE_NO_CALLS=1 (the launchers through ctypes)")
    env = dict(os.environ, LUATILE_NO_CALLS="1")
    p = subprocess.run([sys.executable, os.path.join(REPO, "tests", "python", "test_torch.py"), "--device", "cuda",
                        "--quick"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout.splitlines():
        say(line.replace(" python/", " python/ctypes/") if line.startswith(("PASS", "FAIL", "SKIP")) else line)
    if p.returncode not in (0, 1):
        say(f"FAIL device/ctypes tests: exit {p.returncode}")
    say("")
    say("## torch.compile")
    check_compile()
    say("")
    say("## CUDA graph")
    check_cuda_graph()
    # the overhead table in a fresh process: after the tests and torch.compile, this one runs torch's own
    # small ops 1.4 to 2.5 times slower (2026-11-24 run 3)
    say("")
    say("## per-call overhead (python3 bench/torch_device.py --overhead, a fresh process)")
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--overhead"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    for line in p.stdout.splitlines():
        say(line)
    if p.returncode != 0:
        say(f"FAIL device/overhead: exit {p.returncode}")
    with open(os.path.join(out, "torch_device.txt"), "w") as f:
        f.write("\n".join(LOG) + "\n")
    # test_torch printed its own lines straight to stdout: count them from there too
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
