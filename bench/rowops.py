"""rowops.py: times the generated row ops side by side with torch in the
same run, with the device-to-device copy bandwidth as the ceiling.
GB/s counts the bytes each op must move (inputs read once, outputs written
once).  Each result is first checked against torch (float64 upcast).
Times: triton.testing.do_bench, median, L2 flushed between runs.
A launcher tuned for several shape buckets runs the nearest bucket's
config (out/sm90a: dsl/tuned/*.lua's H100 entries).
usage: python3 bench/rowops.py LIB.so [--quick]   (prints a table; JSON to $OUT)"""
import json
import os
import sys

import torch
import torch.nn.functional as F
import triton.testing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import DTYPES, Lib  # noqa: E402

lib = Lib(sys.argv[1])
args = sys.argv[2:]


def bench(fn):
    return triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")


def rows(dt, r, c):
    t = DTYPES[dt]
    x = torch.randn(r, c, device="cuda", dtype=t)
    x2 = torch.randn(r, c, device="cuda", dtype=t)
    w = torch.rand(c, device="cuda", dtype=t) + 0.5
    b = torch.randn(c, device="cuda", dtype=t)
    y = torch.empty_like(x)
    e = x.element_size()
    cases = {
        "softmax": (lambda: lib(f"softmax_{dt}", x, y, r, c), lambda: torch.softmax(x, -1),
                    lambda: torch.softmax(x.double(), -1), 2 * r * c * e),
        "rmsnorm": (lambda: lib(f"rmsnorm_{dt}", x, w, y, r, c, 1e-5), lambda: F.rms_norm(x, (c,), w, 1e-5),
                    lambda: F.rms_norm(x.double(), (c,), w.double(), 1e-5), (2 * r * c + c) * e),
        "layernorm": (lambda: lib(f"layernorm_{dt}", x, w, b, y, r, c, 1e-5),
                      lambda: F.layer_norm(x, (c,), w, b, 1e-5),
                      lambda: F.layer_norm(x.double(), (c,), w.double(), b.double(), 1e-5), (2 * r * c + 2 * c) * e),
        "add": (lambda: lib(f"add_{dt}", x, x2, y, r * c), lambda: torch.add(x, x2, out=y),
                lambda: x.double() + x2.double(), 3 * r * c * e),
        "bias_gelu": (lambda: lib(f"bias_gelu_{dt}", x, b, y, r, c), lambda: F.gelu(x + b),
                      lambda: F.gelu(x.double() + b.double()), (2 * r * c + c) * e),
    }
    return x, y, cases


out = []
print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
print(f"{'op':10} {'dtype':5} {'shape':>12} {'luatile GB/s':>13} {'torch GB/s':>11} {'copy GB/s':>10} {'vs torch':>9} {'vs copy':>8}")
SHAPES = (("bf16", 32768, 4096), ("bf16", 8192, 8192), ("bf16", 65536, 1024), ("f16", 32768, 4096),
          ("f32", 32768, 4096), ("bf16", 4096, 16384))
if "--quick" in args:
    SHAPES = SHAPES[:1]
for dt, r, c in SHAPES:
    x, y, cases = rows(dt, r, c)
    src = torch.empty_like(x)
    copy_ms = bench(lambda: y.copy_(src))
    copy_gbs = 2 * x.numel() * x.element_size() / copy_ms / 1e6
    for op, (ours, theirs, ref, nbytes) in cases.items():
        y.fill_(float("nan"))
        assert ours() == 0
        torch.cuda.synchronize()
        expect = ref()
        err = ((y.double() - expect).norm() / expect.norm()).item()
        assert err < 2e-2 and not torch.isnan(y).any(), (op, dt, err)
        t_ours, t_torch = bench(ours), bench(theirs)
        g_ours, g_torch = nbytes / t_ours / 1e6, nbytes / t_torch / 1e6
        out.append(dict(op=op, dtype=dt, shape=[r, c], ms=t_ours, torch_ms=t_torch, gbs=g_ours,
                        torch_gbs=g_torch, copy_gbs=copy_gbs, rel_err=err))
        print(f"{op:10} {dt:5} {f'{r}x{c}':>12} {g_ours:13.0f} {g_torch:11.0f} {copy_gbs:10.0f} "
              f"{g_ours / g_torch:8.2f}x {g_ours / copy_gbs:7.0%}", flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "rowops.json"), "w") as f:
    json.dump(dict(device=torch.cuda.get_device_name(), results=out), f, indent=1)
