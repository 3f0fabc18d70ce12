"""Typing of the ``math`` module on the CUDA target.

The signatures are Numba-CUDA's: unlike numba's CPU target, floor/ceil/trunc
return floats, float32 stays float32, and integer arguments are computed in
float64. The functions marked "half" also take and return float16.
"""

import math
import sys

from numba.core import types
from numba.core.typing.templates import ConcreteTemplate, signature

from .registry import register_global

f16, f32, f64 = types.float16, types.float32, types.float64
i32, i64, u64 = types.int32, types.int64, types.uint64

_UNARY = [signature(f64, i64), signature(f64, u64), signature(f32, f32), signature(f64, f64)]
_UNARY_HALF = _UNARY + [signature(f16, f16)]
_BINARY_INT_TOO = [signature(f64, i64, i64), signature(f64, u64, u64), signature(f32, f32, f32), signature(f64, f64, f64)]
_BINARY_FLOAT = [signature(f32, f32, f32), signature(f64, f64, f64)]
_PREDICATE = [signature(types.boolean, t) for t in (i64, u64, f32, f64)]

_DECLARATIONS = {
    "unary": (
        _UNARY,
        "acos acosh asin asinh atan atanh cosh degrees erf erfc expm1 gamma lgamma log1p radians sinh tanh tan",
    ),
    "unary_half": (_UNARY_HALF, "sin cos ceil floor sqrt log log2 log10 exp fabs trunc"),
    "binary_int_too": (_BINARY_INT_TOO, "atan2 hypot"),
    "binary_float": (_BINARY_FLOAT, "copysign fmod nextafter remainder"),
    "predicate": (_PREDICATE, "isinf isnan isfinite"),
    "pow": (_BINARY_FLOAT + [signature(f32, f32, i32), signature(f64, f64, i32)], "pow"),
    "frexp": ([signature(types.Tuple([t, i32]), t) for t in (f32, f64)], "frexp"),
    "ldexp": ([signature(t, t, i32) for t in (f32, f64)], "ldexp"),
    "modf": ([signature(types.UniTuple(t, 2), t) for t in (f32, f64)], "modf"),
}
if sys.version_info >= (3, 11):
    _DECLARATIONS["exp2"] = (_UNARY_HALF, "exp2")


def _declare():
    for kind, (cases, names) in _DECLARATIONS.items():
        for name in names.split():
            fn = getattr(math, name)
            template = type(f"Math_{name}", (ConcreteTemplate,), {"key": fn, "cases": cases})
            register_global(fn, types.Function(template))


_declare()
