"""``cuda.fp16``: CUDA's half-precision intrinsics on float16, as Numba-CUDA's
``numba.cuda.fp16`` has them (names, types and semantics: see ``_half.py``).

Arithmetic on float16 is native on every chip cumlir compiles for (sm_75 and newer;
PTX's f16 instructions need sm_53), so nothing here is refused by chip. float16 is a
numba Float: its operators (``a + b``) are lowered as those of every float, and typed
here as Numba-CUDA types them (float16 operands give float16); the ``math`` functions on
float16 live in ``math.py``.
"""

from .._support.api import Namespace, declare
from .._support.modules import arith, ir, templates, types
from ._half import (
    PTX_MODE,
    HalfIntrinsics,
    declare_operators,
    half_abs,
    half_to_integer,
    ptx_convert,
)

fp16 = Namespace("fp16", "CUDA's half-precision intrinsics on float16 (cuda_fp16.h), e.g. cuda.fp16.hadd(a, b).")

# the names numba-cuda's fp16 module also has without the leading "__"
_PLAIN_TOO = "habs hadd hdiv heq hfma hge hgt hle hlt hmax hmin hmul hne hneg hsub".split()


def _to_half(lower, value, fromty, mode):
    if mode is None:
        return lower.cast(value, fromty, types.float16)
    kind = "f32" if fromty == types.float32 else f"{'s' if fromty.signed else 'u'}{fromty.bitwidth}"
    bits = ptx_convert(f"cvt.{PTX_MODE[mode]}.f16.{kind}", 16, value)
    return arith.bitcast(ir.F16Type.get(), bits)


def _from_half(lower, value, toty, mode):
    if mode is None:
        return lower.cast(value, types.float16, toty)
    return half_to_integer(lower, value, toty, mode)


declare_operators("float16")


@declare(abs, "abs on float16").generic
def _abs_typing(context, args, kws):
    # Numba-CUDA's: abs of a float16 is a float16 (of a bfloat16, a float32)
    if not kws and len(args) == 1 and args[0] == types.float16:
        return templates.signature(types.float16, types.float16)


declare(abs).lower("float16")(half_abs)

_table = HalfIntrinsics(fp16, "float16", "__", _PLAIN_TOO, "half", _to_half, _from_half)
_table.arithmetic()
_table.comparisons()
_table.conversions()

# the intrinsics' names and signatures (tests and documentation read them)
function_names = _table.function_names
signature = _table.signature
