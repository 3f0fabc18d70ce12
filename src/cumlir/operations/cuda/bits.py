"""Bits and arithmetic of single values: ``popc``, ``brev``, ``clz``, ``ffs``, ``fma``,
``cbrt``, ``selp`` and the ``bit_count()`` method of integers.

Result types are Numba-CUDA's: popc and clz give the operand's type, ffs uint32, brev
uint32 (uint64 for 64-bit operands, where Numba-CUDA would truncate an int64 to 32
bits), fma and cbrt the float type, selp the operands' type. A bool operand of
popc/clz/ffs counts as the int8 Numba-CUDA converts it to; floats are refused.
"""

from .. import Stub, method
from .._support.modules import arith, errors, ir, llvm, mlir_math, templates, types


def signature(*args, **kws):
    return templates.signature(*args, **kws)  # numba is loaded on first use, not on import


def _integer_operand(name, x):
    """The operand type of popc/clz/ffs/brev: an integer (unliteral), a bool as int8."""
    if isinstance(x, types.Boolean):
        return types.int8
    if not isinstance(x, types.Integer):
        raise errors.TypingError(f"cuda.{name}(x) needs an integer, got {x}")
    return types.unliteral(x)


def _zero(value):
    return arith.constant(value.type, 0)


# ---- counting and reversing bits ------------------------------------------------------------

popc = Stub("popc", "popc(x): the number of bits set in the integer x, of x's type.")
clz = Stub("clz", "clz(x): the number of zero bits above the highest set bit of x, in x's width, of x's type.")
ffs = Stub("ffs", "ffs(x): the 1-based position of the lowest set bit of x, 0 if x is 0 (uint32).")
brev = Stub("brev", "brev(x): x's bits in reverse order; uint32, or uint64 for a 64-bit x.")


@popc.typer
def _popc_typing(x):
    x = _integer_operand("popc", x)
    return signature(x, x)


@clz.typer
def _clz_typing(x):
    x = _integer_operand("clz", x)
    return signature(x, x)


@ffs.typer
def _ffs_typing(x):
    return signature(types.uint32, _integer_operand("ffs", x))


@brev.typer
def _brev_typing(x):
    # the operand is converted (sign-extended if signed) to the result type, as in Numba-CUDA
    result = types.uint64 if _integer_operand("brev", x).bitwidth == 64 else types.uint32
    return signature(result, result)


@popc.lower("Integer")
def _popc(lower, sig, args):
    return llvm.intr_ctpop(args[0])


@clz.lower("Integer")
def _clz(lower, sig, args):
    # defined for 0: the operand's width
    return llvm.intr_ctlz(args[0], False)


def _i32():
    return ir.IntegerType.get_signless(32)


@ffs.lower("Integer")
def _ffs(lower, sig, args):
    # libdevice's ffs (0 for 0); narrower operands are zero-extended, which keeps the lowest set bit
    (x,) = args
    if sig.args[0].bitwidth == 64:
        return lower.call_external("__nv_ffsll", _i32(), [x])
    if sig.args[0].bitwidth < 32:
        x = arith.extui(_i32(), x)
    return lower.call_external("__nv_ffs", _i32(), [x])


def _libdevice(narrow, wide):
    """A rule calling libdevice's *narrow* routine for 32-bit results, *wide* for 64-bit ones."""

    def rule(lower, sig, args):
        (x,) = args
        return lower.call_external(wide if sig.return_type.bitwidth == 64 else narrow, x.type, [x])

    return rule


brev.lower("Integer")(_libdevice("__nv_brev", "__nv_brevll"))


# ---- floating point -------------------------------------------------------------------------

fma = Stub("fma", "fma(a, b, c): a * b + c rounded once (float32 or float64).")
cbrt = Stub("cbrt", "cbrt(x): the cube root of x (float32 or float64), from libdevice.")


@fma.cases
def _fma_cases():
    return [signature(t, t, t, t) for t in (types.float32, types.float64)]


@fma.lower("Float", "Float", "Float")
def _fma(lower, sig, args):
    return mlir_math.fma(*args)


@cbrt.cases
def _cbrt_cases():
    return [signature(t, t) for t in (types.float32, types.float64)]


cbrt.lower("Float")(_libdevice("__nv_cbrtf", "__nv_cbrt"))


# ---- selection ------------------------------------------------------------------------------

selp = Stub("selp", "selp(pred, a, b): a if pred is true (non-zero) else b; a and b of one numeric type.")


@selp.typer
def _selp_typing(pred, a, b):
    if not isinstance(pred, (types.Boolean, types.Integer)):
        raise errors.TypingError(f"cuda.selp(pred, a, b) needs a bool or integer pred, got {pred}")
    a, b = types.unliteral(a), types.unliteral(b)
    if not isinstance(a, (types.Integer, types.Float)) or a != b:
        raise errors.TypingError(f"cuda.selp(pred, a, b) needs a and b of one integer or float type, got {a} and {b}")
    return signature(a, types.unliteral(pred), a, a)


@selp.lower("Any", "Number", "Number")
def _selp(lower, sig, args):
    pred, a, b = args
    if sig.args[0] != types.boolean:
        pred = arith.cmpi(arith.CmpIPredicate.ne, pred, _zero(pred))
    return arith.select(pred, a, b)


# ---- int.bit_count() ------------------------------------------------------------------------

bit_count = method("Integer", "bit_count")


@bit_count.typer
def _bit_count_typing(receiver, *args):
    if args:
        raise errors.TypingError(f"int.bit_count() takes no arguments, got {len(args)}")
    # a Python int, as numba types the ints Python functions answer
    return signature(types.int64, recvr=types.unliteral(receiver))


@bit_count.lower("Integer")
def _bit_count(lower, sig, args):
    # Python counts the bits of |x|: (-1).bit_count() == 1
    (x,) = args
    if sig.args[0].signed:
        x = mlir_math.absi(x)
    count = llvm.intr_ctpop(x)  # |min| wraps to min, whose one set bit is still the answer
    i64 = ir.IntegerType.get_signless(64)
    return count if count.type == i64 else arith.extui(i64, count)
