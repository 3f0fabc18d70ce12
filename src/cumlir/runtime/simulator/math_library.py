"""libdevice's routines on the host: each ``__nv_*`` a simulated kernel calls, bound to the
C math library's function of the same meaning (docs/simulator.md, "Math": results may
differ from the GPU's by an ulp or two), or to a small Python function where the C library
has none. A routine with neither is refused by name before the code is compiled."""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import struct
from collections.abc import Callable
from typing import Any

from ...codegen.cpu.ir_text import NotSimulated

_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")

# libdevice's name (without __nv_) -> the C library's, where they differ
_RENAMED = {
    "fsqrt_rn": "sqrtf",
    "dsqrt_rn": "sqrt",
    "fast_expf": "expf",
    "fast_logf": "logf",
    "fast_log2f": "log2f",
    "fast_log10f": "log10f",
    "fast_sinf": "sinf",
    "fast_cosf": "cosf",
    "fast_tanf": "tanf",
    "fast_powf": "powf",
    "fast_exp10f": "exp10f",
    "fmaf_rn": "fmaf",
    "fma_rn": "fma",
    "llrintf": "llrintf",
    "saturatef": None,
}

_F = ctypes.c_float
_D = ctypes.c_double
_I = ctypes.c_int32
_L = ctypes.c_int64
_U = ctypes.c_uint32
_UL = ctypes.c_uint64


def _float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _rsqrt(x: float) -> float:
    return math.inf if x == 0 else (math.nan if x < 0 else 1.0 / math.sqrt(x))


def _pow(x: float, n: int) -> float:
    try:
        return math.pow(x, n)
    except (OverflowError, ValueError):
        return math.inf if x else math.copysign(math.inf, x) if n % 2 else math.inf


def _divide(a: float, b: float) -> float:
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _byte_perm(x: int, y: int, selector: int) -> int:
    """Four bytes of the eight of y:x, chosen by the low nibbles of *selector* (PTX's prmt)."""
    both = (y << 32) | x
    return sum(((both >> (8 * ((selector >> (4 * i)) & 7))) & 0xFF) << (8 * i) for i in range(4))


# routines the C library lacks: (restype, argtypes, function)
_PYTHON: dict[str, tuple[Any, tuple[Any, ...], Callable[..., Any]]] = {
    "saturatef": (_F, (_F,), lambda x: 0.0 if not x > 0 else min(x, 1.0)),
    "rsqrtf": (_F, (_F,), lambda x: _float32(_rsqrt(x))),
    "rsqrt": (_D, (_D,), _rsqrt),
    "frcp_rn": (_F, (_F,), lambda x: _float32(1.0 / x) if x else math.copysign(math.inf, x)),
    "drcp_rn": (_D, (_D,), lambda x: 1.0 / x if x else math.copysign(math.inf, x)),
    "isnanf": (_I, (_F,), lambda x: int(math.isnan(x))),
    "isnand": (_I, (_D,), lambda x: int(math.isnan(x))),
    "isinff": (_I, (_F,), lambda x: int(math.isinf(x))),
    "isinfd": (_I, (_D,), lambda x: int(math.isinf(x))),
    "finitef": (_I, (_F,), lambda x: int(math.isfinite(x))),
    "isfinited": (_I, (_D,), lambda x: int(math.isfinite(x))),
    "signbitf": (_I, (_F,), lambda x: int(math.copysign(1.0, x) < 0)),
    "signbitd": (_I, (_D,), lambda x: int(math.copysign(1.0, x) < 0)),
    "popc": (_I, (_U,), lambda x: bin(x).count("1")),
    "popcll": (_I, (_UL,), lambda x: bin(x).count("1")),
    "clz": (_I, (_U,), lambda x: 32 - x.bit_length()),
    "clzll": (_I, (_UL,), lambda x: 64 - x.bit_length()),
    "ffs": (_I, (_U,), lambda x: (x & -x).bit_length()),
    "ffsll": (_I, (_UL,), lambda x: (x & -x).bit_length()),
    "brev": (_U, (_U,), lambda x: int(f"{x:032b}"[::-1], 2)),
    "brevll": (_UL, (_UL,), lambda x: int(f"{x:064b}"[::-1], 2)),
    "mulhi": (_I, (_I, _I), lambda a, b: (a * b) >> 32),
    "umulhi": (_U, (_U, _U), lambda a, b: (a * b) >> 32),
    "mul64hi": (_L, (_L, _L), lambda a, b: (a * b) >> 64),
    "umul64hi": (_UL, (_UL, _UL), lambda a, b: (a * b) >> 64),
    "byte_perm": (_U, (_U, _U, _U), lambda x, y, s: _byte_perm(x, y, s)),
    "powif": (_F, (_F, _I), lambda x, n: _float32(_pow(x, n))),
    "powi": (_D, (_D, _I), lambda x, n: _pow(x, n)),
    "fdividef": (_F, (_F, _F), lambda a, b: _float32(_divide(a, b))),
    "fdiv_rn": (_F, (_F, _F), lambda a, b: _float32(_divide(a, b))),
    "ddiv_rn": (_D, (_D, _D), _divide),
}
_keep: list[Any] = []  # the ctypes callbacks, alive as long as the process


_bound: dict[str, int] = {}


def _address(name: str) -> int | None:
    routine = name[len("__nv_") :]
    if routine in _PYTHON:
        restype, argtypes, function = _PYTHON[routine]
        callback = ctypes.CFUNCTYPE(restype, *argtypes)(function)
        _keep.append(callback)
        return ctypes.cast(callback, ctypes.c_void_p).value
    c_name = _RENAMED.get(routine, routine)
    found = getattr(_libm, c_name, None) if c_name else None
    return ctypes.cast(found, ctypes.c_void_p).value if found is not None else None


def bind(binding: Any, module: Any) -> None:
    """Bind every ``__nv_*`` routine *module* declares; NotSimulated names one that has no
    host form."""
    for function in module.functions:
        name = function.name
        if not function.is_declaration or not name.startswith("__nv_") or name in _bound:
            continue
        address = _address(name)
        if address is None:
            raise NotSimulated(f"the math routine {name} has no host form in the simulator")
        binding.add_symbol(name, address)
        _bound[name] = address


def in_libm(name: str) -> bool:
    """Whether *name* is a function of the C math library (sinf, cos ...)."""
    return getattr(_libm, name, None) is not None
