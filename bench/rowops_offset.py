"""rowops_offset.py: the row ops on tensors whose base is one element off the
16-byte grid (their 16-bit launchers then run the split twins at every row
length, and a bucket with an off_grid entry another bucket's config): each
output checked against float64, the output poisoned with NaN first.  Exit
status 1 if any fails.

usage: python3 bench/rowops_offset.py LIB.so...   (out/<target> built into each LIB)"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import Lib  # noqa: E402

bad = 0
for path in sys.argv[1:]:
    lib = Lib(path)
    for dt, t in (("bf16", torch.bfloat16), ("f16", torch.float16), ("f32", torch.float32)):
        for c in (7, 1000, 4096, 4099, 5121, 6145, 8191, 8192, 30001, 32768, 50257, 128259):
            r = 3
            g = torch.Generator(device="cuda").manual_seed(c)
            def off(n, randn=True):
                buf = (torch.randn if randn else torch.rand)(n + 1, device="cuda", dtype=t, generator=g)
                return buf[1:]
            x = off(r * c).view(r, c)
            y = off(r * c).view(r, c)
            w = off(c, False) + 0.5
            b = off(c)
            for op in ("softmax", "rmsnorm", "layernorm", "bias_gelu"):
                y.fill_(float("nan"))
                if op == "softmax":
                    rc = lib(f"softmax_{dt}", x, y, r, c); ref = torch.softmax(x.double(), -1)
                elif op == "rmsnorm":
                    rc = lib(f"rmsnorm_{dt}", x, w, y, r, c, 1e-5); ref = F.rms_norm(x.double(), (c,), w.double(), 1e-5)
                elif op == "layernorm":
                    rc = lib(f"layernorm_{dt}", x, w, b, y, r, c, 1e-5)
                    ref = F.layer_norm(x.double(), (c,), w.double(), b.double(), 1e-5)
                else:
                    rc = lib(f"bias_gelu_{dt}", x, b, y, r, c); ref = F.gelu(x.double() + b.double())
                torch.cuda.synchronize()
                err = ((y.double() - ref).norm() / ref.norm()).item()
                ok = rc == 0 and err <= (1e-4 if dt == "f32" else 1e-2)
                bad += not ok
                print(f"{'PASS' if ok else 'FAIL'} offset base {os.path.basename(path)} {op}_{dt} {r}x{c}: rc {rc}, rel err {err:.2e}")
print(f"offset checks: {bad} failed")
sys.exit(bad != 0)
