"""Finding, loading and calling the launchers of a built luatile library.

A library is build/lib/libluatile_<target>.so, built by `./build.sh lib
<target>` from out/<target>/, with build/lib/libluatile_<target>.h beside
it: one launcher prototype a line, the target named on the first line.
Nothing is built here: a missing library is an error that says how to
build it.

The launchers are called through the library's CPython call module where
`./build.sh lib` built one for this Python (build/lib/libluatile_<target>_calls
<EXT_SUFFIX>, python/luatile/_calls.py), else through ctypes; LUATILE_NO_CALLS=1
forces ctypes.  Each load of a library calls on_load() (set by _kernels, which
picks its fast calls then).
"""
import ctypes
import importlib.machinery
import importlib.util
import os
import threading

import torch

from . import _calls

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CTYPES = {
    "const void *": ctypes.c_void_p, "void *": ctypes.c_void_p, "int": ctypes.c_int,
    "int64_t": ctypes.c_int64, "float": ctypes.c_float, "double": ctypes.c_double,
}
_C_CODES = {1: "a bad argument (null or misaligned pointer, bad size or scalar, or grid too large)"}


class Error(RuntimeError):
    """A luatile library could not be found or loaded, or a launcher failed."""


class LibraryNotFound(Error):
    """No built library for a device type; the message says how to build one."""


class LaunchError(Error):
    """A launcher returned non-zero (code: its return value)."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def _parse_header(path):
    """target, {launcher: [C parameter types]} from a libluatile_<target>.h."""
    target, protos = _calls.parse_header(path)
    for name, types in protos.items():
        for ty in types:
            if ty not in _CTYPES:
                raise Error(f"{path}: launcher {name}: unknown parameter type '{ty}'")
    if target is None:
        raise Error(f"{path}: not a luatile library header (no 'luatile launchers, target T' line)")
    return target, protos


def _load_calls(path):
    """The call module beside library `path` for this Python, or None."""
    if os.environ.get("LUATILE_NO_CALLS", "") not in ("", "0"):
        return None
    mod_path = _calls.module_path(path)
    if not os.path.exists(mod_path):
        return None
    name = os.path.basename(mod_path).split(".")[0]
    try:
        loader = importlib.machinery.ExtensionFileLoader(name, mod_path)
        spec = importlib.util.spec_from_file_location(name, mod_path, loader=loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        return mod
    except (ImportError, OSError):   # built for another Python, or broken: ctypes it is
        return None


class Library:
    """One loaded libluatile_<target>.so: its launchers, with their prototypes."""

    def __init__(self, path):
        path = os.path.abspath(path)
        header = path[:-3] + ".h" if path.endswith(".so") else path + ".h"
        if not os.path.exists(path):
            raise LibraryNotFound(f"luatile: no library file {path}")
        if not os.path.exists(header):
            raise LibraryNotFound(f"luatile: {path} has no header {header} beside it (build it with ./build.sh lib)")
        self.path, self.header = path, header
        self.target, self._protos = _parse_header(header)
        self.backend = "cpu" if self.target == "c" else ("hip" if self.target.startswith("gfx") else "cuda")
        try:
            self._dll = ctypes.CDLL(path)
        except OSError as e:
            raise Error(f"luatile: cannot load {path}: {e}") from None
        #: the CPython call module (None: ctypes)
        self.calls = _load_calls(path)
        self._fns = {}
        self._lock = threading.Lock()
        #: the direct calls' launchers: (op variant, dtype) -> (ctypes function, launcher name)
        self.fast = {}

    def has(self, name):
        return name in self._protos

    def launchers(self):
        return sorted(self._protos)

    def ctypes_fn(self, name):
        """Launcher `name` as a ctypes function (argtypes and restype set)."""
        if name not in self._protos:
            raise Error(f"luatile: the {self.target} library {self.path} has no launcher {name} "
                        f"(not generated for {self.target}, or left out of the build by LT_LIB_KERNELS)")
        f = getattr(self._dll, name)
        f.restype = ctypes.c_int
        f.argtypes = [_CTYPES[t] for t in self._protos[name]]
        return f

    def fn(self, name):
        """Launcher `name` as a callable (ints, floats, None for NULL; returns its int):
        bound in the call module where there is one, else the ctypes function."""
        f = self._fns.get(name)
        if f is not None:
            return f
        with self._lock:
            f = self.ctypes_fn(name)
            if self.calls is not None:
                try:
                    f = self.calls.bind(ctypes.cast(f, ctypes.c_void_p).value, _calls.signature(self._protos[name]),
                                        self.backend == "cpu")
                except (KeyError, TypeError):   # a call module built before this prototype: ctypes
                    pass
            self._fns[name] = f
        return f

    def address(self, name):
        """(address, signature code) of launcher `name`, for a caller that calls it from C."""
        f = self.ctypes_fn(name)
        return ctypes.cast(f, ctypes.c_void_p).value, _calls.signature(self._protos[name])

    def fast_entry(self, key, name):
        """Caches launcher `name` under key in self.fast and returns (function, name)."""
        ent = self.fast[key] = (self.fn(name), name)
        return ent

    def workspace_bytes(self):
        """The split-K workspace bytes of this library's matmul launchers on the
        current device: the largest NAME_workspace() of the variants with a NAME_ws
        (sm90a, gen/lower/splitk.c); 0 where none has one.  Queried once."""
        n = getattr(self, "_ws_bytes", None)
        if n is None:
            n = 0
            for name in self._protos:
                if name.startswith("matmul_") and name.endswith("_ws"):
                    f = getattr(self._dll, name[:-3] + "_workspace")
                    f.restype, f.argtypes = ctypes.c_int64, []
                    n = max(n, f())
            self._ws_bytes = n
        return n

    def call(self, name, *args):
        """Calls launcher `name`; a non-zero return is a LaunchError."""
        f = self._fns.get(name) or self.fn(name)
        rc = f(*args)
        if rc != 0:
            self.fail(name, rc)

    def fail(self, name, rc):
        """Raises the LaunchError of launcher `name` returning rc."""
        raise LaunchError(f"luatile: {name} ({self.target}) returned {rc}: {self.error_string(rc)}", rc)

    def error_string(self, code):
        if self.backend == "cpu":
            return _C_CODES.get(code, "unknown error")
        try:
            return torch.cuda.cudart().cudaGetErrorString(code)
        except Exception:   # noqa: BLE001 -- only a message
            return "error code %d of the %s runtime" % (code, self.backend.upper())

    def __repr__(self):
        how = "call module" if self.calls is not None else "ctypes"
        return f"<luatile.Library {self.target} {self.path}: {len(self._protos)} launchers, {how}>"


_loaded = {}   # device type ("cpu", "cuda") -> Library
_load_lock = threading.Lock()
#: called (no arguments) after each library load, with _loaded updated
on_load = None


def _loaded_now(device_type, lib):
    """Records lib as the library for device_type (under _load_lock) and calls on_load."""
    _loaded[device_type] = lib
    if on_load is not None:
        on_load()


def _search_dirs():
    dirs = []
    if os.environ.get("LUATILE_LIB_DIR"):
        dirs.append(os.environ["LUATILE_LIB_DIR"])
    dirs.append(os.path.join(_REPO, "build", "lib"))
    return dirs


def _candidates(device):
    """The targets to look for, best first, for a tensor on `device`."""
    if device.type == "cpu":
        return ["c"]
    if device.type != "cuda":
        return []
    if torch.version.hip:
        arch = torch.cuda.get_device_properties(device).gcnArchName.split(":")[0]
        return [arch]
    major, minor = torch.cuda.get_device_capability(device)
    if (major, minor) == (9, 0):
        return ["sm90a", "sm80"]
    return ["sm80"] if major >= 8 else []


def load_library(path, device_type=None):
    """Loads a libluatile_<target>.so (its .h beside it) for tensors of
    `device_type` ("cpu" or "cuda"; default: the library's backend) and returns it."""
    lib = Library(path)
    dt = device_type or ("cpu" if lib.backend == "cpu" else "cuda")
    with _load_lock:
        _loaded_now(dt, lib)
    return lib


def library(device):
    """The library for tensors on `device`, loaded on first use."""
    lib = _loaded.get(device.type)
    if lib is not None:
        return lib
    with _load_lock:
        lib = _loaded.get(device.type)
        if lib is not None:
            return lib
        env = "LUATILE_LIB_" + device.type.upper()
        if os.environ.get(env):
            lib = Library(os.environ[env])
        else:
            tried = []
            for t in _candidates(device):
                for d in _search_dirs():
                    p = os.path.join(d, f"libluatile_{t}.so")
                    tried.append(p)
                    if os.path.exists(p):
                        lib = Library(p)
                        break
                if lib is not None:
                    break
            if lib is None:
                targets = _candidates(device)
                if not targets:
                    raise LibraryNotFound(f"luatile: no luatile target runs on {device} tensors "
                                          "(cpu: c; cuda: sm80 on compute capability 8.0 and later, sm90a on 9.0)")
                raise LibraryNotFound(
                    f"luatile: no library for {device.type} tensors (looked for {', '.join(tried)}). "
                    f"Build it with `./build.sh lib {targets[0]}` in the luatile repository "
                    f"({_REPO}), or set {env}=/path/to/libluatile_<target>.so, "
                    f"or call luatile.load_library(path)")
        _loaded_now(device.type, lib)
        return lib
