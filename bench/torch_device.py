#!/usr/bin/env python3
"""bench/torch_device.py: the luatile PyTorch package on a CUDA GPU (never CI).

    python3 bench/torch_device.py            (bench/torch_device.sh builds the library first)
    python3 bench/torch_device.py --overhead [--pkg DIR] [--label TEXT]
                                             the overhead table alone (4.), also through ctypes;
                                             --pkg: the luatile package in DIR (another version)

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


def wall_per_call(fn, n=3000):
    """(wall, CPU) microseconds a call of n eager calls: the wall clock to the last
    kernel's end, and this thread's CPU time (the host's own cost: where it is
    below the wall, the GPU sets the pace)."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t0, c0 = time.perf_counter(), time.thread_time()
    for _ in range(n):
        fn()
    c1 = time.thread_time()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6, (c1 - c0) / n * 1e6


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


def overhead(label=""):
    """The per-call overhead table; returns the worst entry point's time above its kernel."""
    bf = torch.bfloat16
    x = torch.randn(16, 1024, device="cuda").to(bf)
    w = torch.randn(1024, device="cuda").to(bf)
    a = torch.randn(64, 256, device="cuda").to(bf)
    b = torch.randn(256, 256, device="cuda").to(bf)
    bias = torch.randn(256, device="cuda").to(bf)
    q = torch.randn(1, 8, 128, 64, device="cuda").to(bf)
    eps = 1e-6
    has_rms = hasattr(F, "rms_norm")
    cases = [
        ("rms_norm bf16 16x1024", lambda: luatile.rms_norm(x, (1024,), w, eps),
         (lambda: F.rms_norm(x, (1024,), w, eps)) if has_rms else None),
        ("layer_norm bf16 16x1024", lambda: luatile.layer_norm(x, (1024,), w, w),
         lambda: F.layer_norm(x, (1024,), w, w)),
        ("softmax bf16 16x1024", lambda: luatile.softmax(x, -1), lambda: torch.softmax(x, -1)),
        ("matmul+bias+gelu bf16 64x256x256", lambda: luatile.matmul(a, b, bias, "gelu"),
         lambda: F.gelu(torch.addmm(bias, a, b))),
        ("attention bf16 1x8x128x64 causal", lambda: luatile.scaled_dot_product_attention(q, q, q, is_causal=True),
         lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True)),
    ]
    lib = luatile.library(x.device)
    say("")
    say(f"per-call overhead{label} (us a call; wall = 3000 eager calls / 3000, cpu = this thread's CPU time over them, "
        "kernel = 200 calls replayed from a CUDA graph; over = wall - kernel)")
    say(f"# {lib}")
    say(f"{'op':34} {'kernel':>7} {'luatile':>8} {'over':>6} {'cpu':>6} {'via op':>7} {'over':>6} {'cpu':>6} "
        f"{'torch':>7} {'tkern':>7} {'over':>6} {'cpu':>6}")
    worst = 0.0
    for name, friendly, ref in cases:
        k = kernel_per_call(friendly)
        wf, cf = wall_per_call(friendly)
        luatile.direct_calls = False
        try:
            wo, co = wall_per_call(friendly)
        finally:
            luatile.direct_calls = True
        if ref is not None:
            tk, (tw, tc) = kernel_per_call(ref), wall_per_call(ref)
            tcols = f"{tw:7.1f} {tk:7.1f} {tw - tk:6.1f} {tc:6.1f}"
        else:
            tcols = f"{'-':>7} {'-':>7} {'-':>6} {'-':>6}"
        worst = max(worst, wf - k)
        say(f"{name:34} {k:7.1f} {wf:8.1f} {wf - k:6.1f} {cf:6.1f} {wo:7.1f} {wo - k:6.1f} {co:6.1f} {tcols}")
    y = torch.empty_like(x)
    px, pw, py = x.data_ptr(), w.data_ptr(), y.data_ptr()
    st = torch.cuda.current_stream().cuda_stream
    for how, f in [("", lib.fn("rmsnorm_bf16"))] + (
            [(", ctypes", lib.ctypes_fn("rmsnorm_bf16"))] if hasattr(lib, "ctypes_fn") else []):
        raw, rawc = wall_per_call(lambda: f(px, pw, py, 16, 1024, eps, st))
        k = kernel_per_call(lambda: f(px, pw, py, 16, 1024, eps, torch.cuda.current_stream().cuda_stream))
        say(f"{'rmsnorm_bf16 launcher alone' + how:34} {k:7.1f} {raw:8.1f} {raw - k:6.1f} {rawc:6.1f}")
    say("(luatile: the entry point in eager inference, which calls the kernel directly; via op: the same through")
    say(" the operator, as under autograd (luatile.direct_calls = False); torch: torch's own op, tkern its kernels'")
    say(" time; inputs need no grad; launcher alone: the launcher called with its arguments ready)")
    return worst


def main(argv):
    out = os.environ.get("OUT") or os.path.join(REPO, "build")
    os.makedirs(out, exist_ok=True)
    dev = torch.cuda.get_device_name(0)
    say(f"# {dev}, torch {torch.__version__}, CUDA {torch.version.cuda}, luatile custom ops: {luatile.HAVE_CUSTOM_OP}")
    say(f"# library: {luatile.library(torch.device('cuda'))}, package {os.path.dirname(luatile.__file__)}")
    if "--overhead" in argv:   # the overhead table alone (--label TEXT names it)
        label = argv[argv.index("--label") + 1] if "--label" in argv else ""
        worst = overhead(label)
        if "--pkg" in argv:   # another version: for comparison, not a check
            say(f"# worst entry point: {worst:.1f} us above its kernel{label}")
        else:
            result(worst < 10.0, f"per-call overhead under 10 us above the kernel{label}", f"worst {worst:.1f} us")
        if hasattr(luatile.Library, "ctypes_fn") and luatile.library(torch.device("cuda")).calls is not None:
            os.environ["LUATILE_NO_CALLS"] = "1"   # the same through ctypes
            luatile.load_library(luatile.library(torch.device("cuda")).path)
            overhead(label + ", launchers through ctypes (LUATILE_NO_CALLS=1)")
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
