"""rowops_ncu.py: one launch of a row op at one point, for Nsight Compute
(what the kernel waits on, how many bytes reach DRAM): the inputs of
bench/rowops_grid.py at R = 2^27 / C, a warm-up launch, then the profiled one.

usage: ncu --kernel-name regex:^OP_ --launch-skip 1 --launch-count 1 [sections] \\
         python3 bench/rowops_ncu.py LIB.so OP DTYPE C
(--kernel-name: the inputs are made by torch's kernels, one to four of them,
which --launch-skip would count too)"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from rowops_grid import point  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "gpu"))
from lt import Lib  # noqa: E402

lib_path, op, dt, c = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lib = Lib(lib_path)
x, y, ref, theirs, tri, nbytes, ours = point(op, dt, c)
for _ in range(2):   # the warm-up, then the profiled launch
    rc = ours(lib, f"{op}_{dt}")
    if rc != 0:
        sys.exit(f"{op}_{dt} C={c}: launcher returned {rc}")
torch.cuda.synchronize()
print(f"{op}_{dt} {x.shape[0]}x{c}: {nbytes / 1e6:.1f} MB to move")
