"""lt.py: loads a shared library of generated launchers and calls them on
torch tensors (device pointers, sizes, scalars, the current stream)."""
import ctypes

import torch


class I64(int):
    """An int passed as int64_t (strides)."""


class Lib:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)

    def __call__(self, name, *args):
        fn = getattr(self.lib, name)
        fn.restype = ctypes.c_int
        cargs = []
        for a in args:
            if isinstance(a, torch.Tensor):
                cargs.append(ctypes.c_void_p(a.data_ptr()))
            elif a is None:
                cargs.append(ctypes.c_void_p(0))
            elif isinstance(a, I64):
                cargs.append(ctypes.c_int64(a))
            elif isinstance(a, float):
                cargs.append(ctypes.c_float(a))
            else:
                cargs.append(ctypes.c_int(a))
        cargs.append(ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        return fn(*cargs)


def command_line(argv):
    """The positional arguments of argv and its "--name value" options (a dict)."""
    args, opts = [], {}
    it = iter(argv)
    for a in it:
        if a.startswith("--"):
            opts[a] = next(it)
        else:
            args.append(a)
    return args, opts


def named_libs(args):
    """[(NAME, Lib(PATH))] of NAME=PATH arguments: the builds a bench runs side by side."""
    return [(a.split("=", 1)[0], Lib(a.split("=", 1)[1])) for a in args]


DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
