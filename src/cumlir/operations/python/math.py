"""The ``math`` module on the CUDA target: Numba-CUDA's typing, lowered to libdevice.

Typing: unlike numba's CPU target, floor/ceil/trunc return floats, float32 stays
float32, and integer arguments are computed in float64. The functions marked "half"
also take and return float16, and those Numba-CUDA's bf16 module overloads bfloat16.

Lowering: float64 calls ``__nv_<name>``, float32 ``__nv_<name>f`` (or, with fastmath,
the ``__nv_fast_<name>f`` approximations Numba-CUDA uses), float16 and bfloat16
compute in float32 and round back. Integer arguments were already converted to the
signature's float type by the cast rules.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

from .. import Operation, declare
from .._support.modules import arith, ir, llvm, mlir_math, templates, types

# ---- typing -------------------------------------------------------------------------------


# the functions Numba-CUDA's bf16 module overloads on bfloat16
_BFLOAT16 = frozenset("trunc ceil floor sqrt log log10 cos sin tanh exp exp2".split())


def _signatures(kind, name):
    sig = templates.signature
    f16, f32, f64 = types.float16, types.float32, types.float64
    i32, i64, u64 = types.int32, types.int64, types.uint64
    unary = [sig(f64, i64), sig(f64, u64), sig(f32, f32), sig(f64, f64)]
    binary_float = [sig(f32, f32, f32), sig(f64, f64, f64)]
    if name in _BFLOAT16:
        unary = unary + [sig(types.bfloat16, types.bfloat16)]
    return {
        "unary": lambda: unary,
        "unary_half": lambda: unary + [sig(f16, f16)],
        "binary_int_too": lambda: [sig(f64, i64, i64), sig(f64, u64, u64)] + binary_float,
        "binary_float": lambda: binary_float,
        "predicate": lambda: [sig(types.boolean, t) for t in (i64, u64, f32, f64)],
        "pow": lambda: binary_float + [sig(f32, f32, i32), sig(f64, f64, i32)],
        "frexp": lambda: [sig(types.Tuple([t, i32]), t) for t in (f32, f64)],
        "ldexp": lambda: [sig(t, t, i32) for t in (f32, f64)],
        "modf": lambda: [sig(types.UniTuple(t, 2), t) for t in (f32, f64)],
    }[kind]()


_TYPING = {
    "unary": "acos acosh asin asinh atan atanh cosh degrees erf erfc expm1 gamma lgamma log1p radians sinh tan",
    "unary_half": "sin cos ceil floor sqrt log log2 log10 exp fabs trunc tanh"
    + (" exp2" if sys.version_info >= (3, 11) else ""),
    "binary_int_too": "atan2 hypot",
    "binary_float": "copysign fmod nextafter remainder",
    "predicate": "isinf isnan isfinite",
    "pow": "pow",
    "frexp": "frexp",
    "ldexp": "ldexp",
    "modf": "modf",
}


def _cases(kind: str, name: str) -> Callable[[], list[Any]]:
    """The cases of the math function *name*, made when numba asks for them."""
    return lambda: _signatures(kind, name)


# the declarations of each math function, by name
functions: dict[str, Operation] = {}
for _kind, _names in _TYPING.items():
    for _name in _names.split():
        functions[_name] = declare(getattr(math, _name), f"math.{_name}")
        functions[_name].cases(_cases(_kind, _name))


def _lower(fn, *patterns):
    """The lowering decorator of the math function *fn* for *patterns*."""
    return functions[fn.__name__].lower(*patterns)


# ---- lowering -----------------------------------------------------------------------------

_LIBDEVICE_UNARY = {
    math.acos: "acos",
    math.acosh: "acosh",
    math.asin: "asin",
    math.asinh: "asinh",
    math.atan: "atan",
    math.atanh: "atanh",
    math.ceil: "ceil",
    math.cos: "cos",
    math.cosh: "cosh",
    math.erf: "erf",
    math.erfc: "erfc",
    math.exp: "exp",
    math.expm1: "expm1",
    math.fabs: "fabs",
    math.floor: "floor",
    math.gamma: "tgamma",
    math.lgamma: "lgamma",
    math.log: "log",
    math.log10: "log10",
    math.log1p: "log1p",
    math.log2: "log2",
    math.sin: "sin",
    math.sinh: "sinh",
    math.sqrt: "sqrt",
    math.tan: "tan",
    math.tanh: "tanh",
    math.trunc: "trunc",
}
if sys.version_info >= (3, 11):
    _LIBDEVICE_UNARY[math.exp2] = "exp2"

_LIBDEVICE_BINARY = {
    math.atan2: "atan2",
    math.copysign: "copysign",
    math.fmod: "fmod",
    math.hypot: "hypot",
    math.nextafter: "nextafter",
    math.pow: "pow",
    math.remainder: "remainder",
}

# float32 routines replaced by their fast approximations under fastmath=True
_FAST_FLOAT32 = {"sin", "cos", "tan", "exp", "log", "log2", "log10", "pow"}


# float32 routines whose plain libdevice form is approximate unless __CUDA_PREC_SQRT is
# set through nvvm-reflect, which LLVM's NVPTX pipeline only takes as a process-wide
# option: without fastmath they call the correctly rounded routine directly
_PRECISE_FLOAT32 = {"sqrt": "__nv_fsqrt_rn"}


def libdevice_name(name, ty, fastmath=False):
    """The libdevice symbol computing *name* for the float type *ty* (float16 uses float32's)."""
    if ty.bitwidth == 64:
        return f"__nv_{name}"
    if fastmath and name in _FAST_FLOAT32:
        return f"__nv_fast_{name}f"
    if not fastmath and name in _PRECISE_FLOAT32:
        return _PRECISE_FLOAT32[name]
    return f"__nv_{name}f"


def _widen_half(lower, values, ty):
    """float16 and bfloat16 operands are computed in float32: (values, type of the computation)."""
    if ty in (types.float16, types.bfloat16):
        return [lower.cast(v, ty, types.float32) for v in values], types.float32
    return values, ty


def call_libdevice(lower, name, ty, values, result_type=None):
    """Call the libdevice routine *name* on float *values* of Numba type *ty*."""
    values, compute_type = _widen_half(lower, values, ty)
    symbol = libdevice_name(name, compute_type, lower.options.approximate_functions)
    out_type = result_type or compute_type
    result = lower.call_external(symbol, lower.get_mlir_type(out_type), values)
    if result_type is None and compute_type != ty:
        return lower.cast(result, compute_type, ty)
    return result


def _as_float(lower, sig, args):
    return [lower.cast(v, t, sig.return_type) for v, t in zip(args, sig.args)]


def _register_libdevice():
    for fn, name in _LIBDEVICE_UNARY.items():

        def unary(lower, sig, args, name=name):
            return call_libdevice(lower, name, sig.return_type, _as_float(lower, sig, args))

        _lower(fn, "Number")(unary)

    for fn, name in _LIBDEVICE_BINARY.items():

        def binary(lower, sig, args, name=name):
            return call_libdevice(lower, name, sig.return_type, _as_float(lower, sig, args))

        _lower(fn, "Number", "Number")(binary)


_register_libdevice()


@_lower(math.pow, "Float", "Integer")
def pow_int(lower, sig, args):
    ty = sig.return_type
    symbol = "__nv_powi" if ty.bitwidth == 64 else "__nv_powif"
    exponent = lower.cast(args[1], sig.args[1], types.int32)
    return lower.call_external(symbol, lower.get_mlir_type(ty), [args[0], exponent])


@_lower(math.ldexp, "Float", "Integer")
def ldexp(lower, sig, args):
    ty = sig.return_type
    exponent = lower.cast(args[1], sig.args[1], types.int32)
    return lower.call_external(libdevice_name("ldexp", ty), lower.get_mlir_type(ty), [args[0], exponent])


def _call_with_out_pointer(lower, name, ty, value, out_type):
    """libdevice routines that return a second result through a pointer (frexp, modf)."""
    out_mlir = lower.get_mlir_type(out_type)
    with lower.alloca_insertion_point():
        one = arith.constant(ir.IntegerType.get_signless(32), 1)
        slot = llvm.AllocaOp(llvm.PointerType.get(), one, out_mlir).result
    result = lower.call_external(libdevice_name(name, ty), lower.get_mlir_type(ty), [value, slot])
    return result, llvm.load(out_mlir, slot)


@_lower(math.frexp, "Float")
def frexp(lower, sig, args):
    ty = sig.args[0]
    mantissa, exponent = _call_with_out_pointer(lower, "frexp", ty, args[0], types.int32)
    return lower.make_struct(sig.return_type, [mantissa, exponent])


@_lower(math.modf, "Float")
def modf(lower, sig, args):
    ty = sig.args[0]
    fraction, integral = _call_with_out_pointer(lower, "modf", ty, args[0], ty)
    return lower.make_struct(sig.return_type, [fraction, integral])


def _scale(factor):
    def rule(lower, sig, args):
        (value,) = _as_float(lower, sig, args)
        return arith.mulf(value, arith.constant(value.type, factor))

    return rule


_lower(math.degrees, "Number")(_scale(180.0 / math.pi))
_lower(math.radians, "Number")(_scale(math.pi / 180.0))


@_lower(math.isnan, "Float")
def isnan(lower, sig, args):
    return arith.cmpf(arith.CmpFPredicate.UNO, args[0], args[0])


@_lower(math.isinf, "Float")
def isinf(lower, sig, args):
    magnitude = mlir_math.absf(args[0])
    return arith.cmpf(arith.CmpFPredicate.OEQ, magnitude, arith.constant(magnitude.type, math.inf))


@_lower(math.isfinite, "Float")
def isfinite(lower, sig, args):
    magnitude = mlir_math.absf(args[0])
    return arith.cmpf(arith.CmpFPredicate.OLT, magnitude, arith.constant(magnitude.type, math.inf))


def _integer_predicate(answer):
    def rule(lower, sig, args):
        return arith.constant(ir.IntegerType.get_signless(1), int(answer))

    return rule


_lower(math.isnan, "Integer")(_integer_predicate(False))
_lower(math.isinf, "Integer")(_integer_predicate(False))
_lower(math.isfinite, "Integer")(_integer_predicate(True))
