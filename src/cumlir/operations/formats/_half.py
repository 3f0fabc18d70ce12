"""The half-precision intrinsics ``cuda.fp16`` and ``cuda.bf16`` have in common, declared
from one table for a 16-bit float type (float16 or bfloat16).

Semantics (those of CUDA's cuda_fp16.h / cuda_bf16.h as Numba-CUDA binds them):

- ``hadd hsub hmul hdiv`` and their ``_rn`` forms round once to nearest even; ``hadd hsub
  hmul`` may be contracted into an fma with a neighbouring operation (as any ``a * b + c``
  is, unless ``fma=False``), the ``_rn`` forms never are unless fastmath asks for it (as
  in CUDA, where they exist for that: they are marked UNCONTRACTED); ``_sat`` forms clamp the result
  to [0, 1], NaN and -0 giving +0; ``hfma`` rounds once; ``hfma_relu`` gives +0 for a negative
  result and keeps NaN.
- ``hmax``/``hmin`` ignore a NaN operand (C's fmax/fmin); ``hmax_nan``/``hmin_nan``
  return NaN if either operand is NaN.
- ``heq hne hlt hle hgt hge`` are false when an operand is NaN, their ``u`` forms
  (``hequ`` ...) true. ``hisnan`` gives a bool, ``hisinf`` an int32: 1 for +inf, -1 for
  -inf, 0 otherwise.
- The functions (``hsqrt hrcp hexp hsin`` ...) compute in float32, where the 16-bit value
  is exact, with libdevice's float32 routine, and round once to the 16-bit type:
  ``hsqrt``, ``hrcp``, ``hceil``, ``hfloor``, ``htrunc`` and ``hrint`` are exact or
  correctly rounded, the others within an ulp of the 16-bit type (CUDA's own are
  approximations of about the same accuracy).
- Conversions name their rounding: ``_rn`` nearest even, ``_rz`` toward zero, ``_rd``
  down, ``_ru`` up; to an integer they saturate to its range, NaN giving 0 (PTX's cvt).
"""

import operator

from ...marks import UNCONTRACTED
from .._support.api import declare
from .._support.modules import arith, ir, llvm, templates, types

# the C names of the integer types in the conversions' names
C_INTS = {
    "char": "int8",
    "uchar": "uint8",
    "short": "int16",
    "ushort": "uint16",
    "int": "int32",
    "uint": "uint32",
    "ll": "int64",
    "ull": "uint64",
}
MODES = ("rn", "rz", "rd", "ru")
PTX_MODE = {"rn": "rn", "rz": "rz", "rd": "rm", "ru": "rp"}

# the unary functions computed in float32: name -> libdevice routine
FLOAT32_FUNCTIONS = {
    "hsqrt": "__nv_fsqrt_rn",
    "hrsqrt": "__nv_rsqrtf",
    "hrcp": "__nv_frcp_rn",
    "hceil": "__nv_ceilf",
    "hfloor": "__nv_floorf",
    "htrunc": "__nv_truncf",
    "hrint": "__nv_rintf",
    "hexp": "__nv_expf",
    "hexp2": "__nv_exp2f",
    "hexp10": "__nv_exp10f",
    "hlog": "__nv_logf",
    "hlog2": "__nv_log2f",
    "hlog10": "__nv_log10f",
    "hsin": "__nv_sinf",
    "hcos": "__nv_cosf",
    "htanh": "__nv_tanhf",
    "htanh_approx": "__nv_tanhf",
}

_BINARY = {"hadd": "addf", "hsub": "subf", "hmul": "mulf", "hdiv": "divf"}
# name -> (arith op, whether a NaN operand gives NaN)
_MINMAX = {
    "hmax": ("maxnumf", False),
    "hmin": ("minnumf", False),
    "hmax_nan": ("maxnumf", True),
    "hmin_nan": ("minnumf", True),
}
_COMPARE = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


def _nbtype(name):
    return getattr(types, name)


def _const(mlir_type, value):
    return arith.constant(mlir_type, value)


# ---- helpers shared by the rules (and by bfloat16's casts) ---------------------------------


def _i(bits):
    return ir.IntegerType.get_signless(bits)


_CONSTRAINT = {16: "h", 32: "r", 64: "l"}


def ptx_convert(instruction, result_bits, value):
    """One PTX ``cvt`` (``cvt.rzi.s32.f32``) of an integer or float32 *value*, giving an
    integer of *result_bits* (8-bit results come in a 16-bit register)."""
    register = max(result_bits, 16)
    source = value.type
    letter = "f" if isinstance(source, ir.F32Type) else "d" if isinstance(source, ir.F64Type) else None
    if letter is None:
        letter = _CONSTRAINT[source.width]
    out = llvm.inline_asm(_i(register), [value], f"{instruction} $0, $1;", f"={_CONSTRAINT[register]},{letter}")
    return arith.trunci(_i(result_bits), out) if register != result_bits else out


def compare(lower, predicate, a, b):
    """``arith.cmpf`` with the predicate named *predicate* ("OLT") of two 16-bit floats.

    With fastmath=True LLVM writes ``setp.ftz.bf16``, which ptxas rejects: bfloat16 is
    compared as float32 there (see ``widen``), where it is exact and denormals flush, as
    fastmath asks."""
    if lower.options.fast and isinstance(a.type, ir.BF16Type):
        a, b = widen(a), widen(b)
    return arith.cmpf(getattr(arith.CmpFPredicate, predicate), a, b)


def widen(value):
    """A 16-bit float as the float32 of the same value (exact).

    bfloat16 is the upper half of a float32, and is widened on its bits: LLVM folds a
    comparison of two ``fpext`` from bfloat16 back into a bfloat16 one, which under
    fastmath becomes ``setp.ftz.bf16``, an instruction ptxas rejects."""
    f32 = ir.F32Type.get()
    if not isinstance(value.type, ir.BF16Type):
        return arith.extf(f32, value)
    bits = arith.extui(_i(32), arith.bitcast(_i(16), value))
    return arith.bitcast(f32, arith.shli(bits, arith.constant(_i(32), 16)))


def clamp_unit(lower, value):
    """*value* clamped to [0, 1]; NaN and -0 give +0."""
    zero, one = _const(value.type, 0.0), _const(value.type, 1.0)
    positive = arith.select(compare(lower, "OGT", value, zero), value, zero)
    return arith.select(compare(lower, "OGE", value, one), one, positive)


def in_float32(lower, value, routine):
    """The libdevice float32 *routine* applied to a 16-bit float *value*, rounded back."""
    result = lower.call_external(routine, ir.F32Type.get(), [widen(value)])
    return arith.truncf(value.type, result)


# ---- the table ----------------------------------------------------------------------------


class HalfIntrinsics:
    """Declares the intrinsics of the 16-bit float type *type_name* in *namespace*.

    *prefix* starts the names CUDA spells with ``__`` (``cuda.fp16.__hadd_sat``; bf16
    has none); the names in *plain_too* are declared both with and without it
    (``cuda.fp16.hadd`` and ``cuda.fp16.__hadd``). *short* is the type's name in the
    conversions (``half``, ``bfloat16``); *to_half(lower, value, fromty, mode)* and
    *from_half(lower, value, toty, mode)* are the module's conversions with a rounding
    mode (None: the type's plain conversion)."""

    def __init__(self, namespace, type_name, prefix="", plain_too=(), short="half", to_half=None, from_half=None):
        self.namespace, self.type_name, self.prefix, self.short = namespace, type_name, prefix, short
        self.plain_too = frozenset(plain_too)
        self.to_half, self.from_half = to_half, from_half
        self._signatures = {}  # name -> signature builder

    def signature(self, name):
        """The signature of ``cuda.<namespace>.<name>`` (loads numba)."""
        return self._signatures[name]()

    def function_names(self):
        """The names declared so far, in order."""
        return list(self._signatures)

    def names(self, base):
        if self.prefix and base in self.plain_too:
            return (base, self.prefix + base)
        return (self.prefix + base,)

    def declare(self, names, signature, rule):
        """``cuda.<namespace>.<name>`` for each of *names*, with one signature
        (``signature()`` gives it, once numba is loaded) and its lowering rule."""
        for attr in names:
            self._signatures[attr] = signature
            stub = self.namespace.function(
                attr, f"{self.namespace.__name__}.{attr}: CUDA's {names[-1]} on {self.type_name}"
            )
            stub.cases(lambda: [signature()])
            stub.lower(rule)

    def sig(self, result, *args):
        def build():
            return templates.signature(_nbtype(self._name(result)), *[_nbtype(self._name(a)) for a in args])

        return build

    def _name(self, letter):
        return self.type_name if letter == "T" else letter

    def arithmetic(self):
        for name, op in _BINARY.items():
            self._binary(self.names(name), _arith(op))
            if name != "hdiv":
                self._binary(self.names(name + "_rn"), _arith(op, uncontracted=True))
                self._binary(self.names(name + "_sat"), _arith(op, saturate=True))
        for name, (op, nan) in _MINMAX.items():
            self._binary(self.names(name), _minmax(op, nan))
        self._ternary(self.names("hfma"), lambda lower, sig, args: _fma(args))
        self._ternary(self.names("hfma_sat"), lambda lower, sig, args: clamp_unit(lower, _fma(args)))
        self._ternary(self.names("hfma_relu"), _fma_relu)
        self._unary(self.names("hneg"), lambda lower, sig, args: arith.negf(args[0]))
        self._unary(self.names("habs"), half_abs)
        for name, routine in FLOAT32_FUNCTIONS.items():
            self._unary((name,), lambda lower, sig, args, routine=routine: in_float32(lower, args[0], routine))

    def comparisons(self):
        for name, predicate in _COMPARE.items():
            compare = self.sig("boolean", "T", "T")
            self.declare(self.names("h" + name), compare, _comparison("O" + predicate))
            self.declare(self.names("h" + name + "u"), compare, _comparison("U" + predicate))
        self.declare(self.names("hisnan"), self.sig("boolean", "T"), _isnan)
        self.declare(self.names("hisinf"), self.sig("int32", "T"), _isinf)

    def conversions(self):
        s = self.short
        for c_name, int_type in C_INTS.items():
            if int_type in ("int8", "uint8"):
                self._from(f"{s}2{c_name}_rz", int_type, "rz")
                continue
            for mode in MODES:
                self._to(f"{c_name}2{s}_{mode}", int_type, mode)
                self._from(f"{s}2{c_name}_{mode}", int_type, mode)
        for mode in MODES:
            self._to(f"float2{s}_{mode}", "float32", mode)
        self._to(f"float2{s}", "float32", None)
        self._to(f"double2{s}", "float64", None)
        self._from(f"{s}2float", "float32", None)
        for c_name, int_type in (("short", "int16"), ("ushort", "uint16")):
            self.declare(self.names(f"{c_name}_as_{s}"), self.sig("T", int_type), _reinterpret)
            self.declare(self.names(f"{s}_as_{c_name}"), self.sig(int_type, "T"), _reinterpret)

    # -- declaring by shape --

    def _unary(self, names, rule):
        self.declare(names, self.sig("T", "T"), rule)

    def _binary(self, names, rule):
        self.declare(names, self.sig("T", "T", "T"), rule)

    def _ternary(self, names, rule):
        self.declare(names, self.sig("T", "T", "T", "T"), rule)

    def _to(self, name, source, mode):
        def rule(lower, sig, args):
            return self.to_half(lower, args[0], sig.args[0], mode)

        self.declare(self.names(name), self.sig("T", source), rule)

    def _from(self, name, target, mode):
        def rule(lower, sig, args):
            return self.from_half(lower, args[0], sig.return_type, mode)

        self.declare(self.names(name), self.sig(target, "T"), rule)


def _arith(op, saturate=False, uncontracted=False):
    def rule(lower, sig, args):
        result = getattr(arith, op)(*args)
        if uncontracted:
            result.owner.attributes[UNCONTRACTED] = ir.UnitAttr.get()
        return clamp_unit(lower, result) if saturate else result

    return rule


def _comparison(predicate):
    def rule(lower, sig, args):
        return compare(lower, predicate, *args)

    return rule


def _fma(args):
    return llvm.intr_fma(*args)


def _minmax(op, propagate_nan):
    # arith.maximumf would need llvm.maximum, which LLVM 7 (the nvvm path) lacks
    def rule(lower, sig, args):
        result = getattr(arith, op)(*args)
        if propagate_nan:
            either_nan = compare(lower, "UNO", *args)
            result = arith.select(either_nan, arith.addf(*args), result)
        return result

    return rule


def _fma_relu(lower, sig, args):
    # not positive (-0 included) gives +0; NaN fails the ordered test and stays
    result = _fma(args)
    zero = _const(result.type, 0.0)
    return arith.select(compare(lower, "OLE", result, zero), zero, result)


def half_abs(lower, sig, args):
    # the sign bit cleared (the MLIR lowering refuses llvm.intr.fabs on 16-bit floats)
    value = args[0]
    bits = arith.bitcast(_i(16), value)
    return arith.bitcast(value.type, arith.andi(bits, arith.constant(_i(16), 0x7FFF)))


def _isnan(lower, sig, args):
    return compare(lower, "UNO", args[0], args[0])


def _reinterpret(lower, sig, args):
    return arith.bitcast(lower.get_mlir_type(sig.return_type), args[0])


def _isinf(lower, sig, args):
    value = args[0]
    i32 = _i(32)
    infinity = float("inf")
    plus = compare(lower, "OEQ", value, _const(value.type, infinity))
    minus = compare(lower, "OEQ", value, _const(value.type, -infinity))
    sign = arith.select(minus, arith.constant(i32, -1), arith.constant(i32, 0))
    return arith.select(plus, arith.constant(i32, 1), sign)


def half_to_integer(lower, value, toty, mode):
    """A 16-bit float converted to the integer type *toty* with the rounding *mode*,
    through float32 (exact), saturating as PTX's cvt does."""
    kind = "s" if toty.signed else "u"
    return ptx_convert(f"cvt.{PTX_MODE[mode]}i.{kind}{toty.bitwidth}.f32", toty.bitwidth, widen(value))


_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.truediv)
_INPLACE = (operator.iadd, operator.isub, operator.imul, operator.itruediv)
_COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)


def declare_operators(type_name):
    """The typing of ``+ - * /`` (and their in-place forms), negation and comparisons on the
    16-bit float type *type_name* as Numba-CUDA has it: two float16 (bfloat16) operands give
    float16 (bfloat16), where numba's own templates would convert them to float32 first.
    Generic templates, so that they are considered before numba's concrete ones."""

    def typing(result_name):
        def generic(context, args, kws):
            half = getattr(types, type_name)
            if not kws and args and all(a == half for a in args):
                return templates.signature(getattr(types, result_name or type_name), *args)

        return generic

    for op in _ARITHMETIC + _INPLACE + (operator.neg, operator.pos):
        declare(op, f"{op.__name__} on {type_name}").generic(typing(None))
    for op in _COMPARISONS:
        declare(op, f"{op.__name__} on {type_name}").generic(typing("boolean"))
