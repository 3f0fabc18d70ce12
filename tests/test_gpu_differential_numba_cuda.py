"""Agreement with numba-cuda itself, where it is installed: the same kernels compiled by
both compilers must write the same bits, for the integer and float cases of the
differential test whose semantics are the subtle ones.

Compared are the inputs whose result numba's implementation defines. Left out are
those it leaves to undefined behaviour, where numba-cuda's answer depends on the code
NVVM happens to generate (docs/semantics.md states cumlir's): shifts by a negative
amount or by the width or more, integer powers with exponents above 65536 (numba
converts a float power back to the integer type), the negation of a narrow signed
minimum, and float ``//``, ``%`` and ``divmod`` where NVVM's ``frem`` is not C's
``fmod`` (infinite operands, subnormal divisors, quotients of 2**(mantissa bits - 8)
or more). Shift amounts are drawn inside the width for this comparison. Float
powers may differ by an ulp (NVVM contracts inside libdevice's ``pow``). Expressions
numba-cuda does not compile (``max(uint8, bool)``) are skipped."""

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda

from . import support
from .cases import differential_cases

# compares with numba-cuda itself, on the inputs where its results are defined
pytestmark = [pytest.mark.gpu, pytest.mark.numba_cuda_differs]

SUBTLE = {
    "floordiv",
    "mod",
    "pow",
    "lshift",
    "rshift",
    "truediv",
    "divmod_q",
    "divmod_r",
    "max",
    "min",
    "neg",
    "invert",
    "abs",
    "round",
    "int",
    "bool",
    "chained",
}
REAL = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"}

CASES = [
    c
    for c in differential_cases.cases()
    if c[0] in SUBTLE and c[1] in REAL and c[2] in REAL and (c[3] is None or not isinstance(c[3], complex))
]


def _numba_cuda_kernel(expression):
    ncuda = support.import_numba_cuda()

    source = f"def case(a, b, out):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = {expression}\n"
    namespace = {"cuda": ncuda}
    exec(compile(source, f"<{expression}>", "exec"), namespace)
    return ncuda.jit(namespace["case"])


@pytest.mark.parametrize("case", CASES, ids=[differential_cases.case_id(c) for c in CASES])
def test_same_bits_as_numba_cuda(case, rng, numba_cuda_usable):
    name, left, right, literal, sig, result = case
    if name in differential_cases.UNARY:
        a = differential_cases.unary_operands(name, left, rng)
        b = a
        expression = differential_cases.UNARY[name].format(a="a[i]")
    else:
        a, b = differential_cases.operands(name, left, right, rng)
        if literal is not None:
            b = np.full(len(a), literal, dtype=support.dtype_of(support.numba_type(right)))
        expression = differential_cases.expression_for(name, right_literal=literal)
    a, b = _within_numba(name, left, right, literal, result, a, b, rng)
    ours = support.poisoned(len(a), support.dtype_of(result))
    theirs = support.poisoned(len(a), support.dtype_of(result))
    blocks = (len(a) + 127) // 128
    cuda.jit(differential_cases.make_kernel(expression))[blocks, 128](a, b, ours)
    try:
        _numba_cuda_kernel(expression)[blocks, 128](a, b, theirs)
    except TypingError as error:
        pytest.skip(f"numba-cuda does not compile {expression} for {left}, {right}: {str(error).splitlines()[0]}")
    keep = _defined_in_numba(name, left, sig, result, a, b)
    rtol = 2 * np.finfo(support.dtype_of(result)).eps if name == "pow" and support.dtype_of(result).kind == "f" else 0
    label = f"{differential_cases.case_id(case)}: cumlir vs numba-cuda"
    differential_cases.compare(ours[keep], theirs[keep], rtol, label)


def _within_numba(name, left, right, literal, result, a, b, rng):
    """Operands for the comparison: shift amounts inside the width; cases numba leaves
    wholly undefined are skipped."""
    bits = 8 * support.dtype_of(result).itemsize
    if name in ("lshift", "rshift"):
        if literal is not None:
            if not 0 <= literal < bits:
                pytest.skip(f"a shift by {literal} is undefined in numba")
            return a, b
        high = min(bits, 2 if right == "bool" else np.iinfo(np.dtype(right)).max + 1)
        return a, rng.integers(0, high, len(b)).astype(b.dtype)
    if name == "pow" and literal is not None and support.dtype_of(result).kind in "iu" and literal > 0x10000:
        pytest.skip(f"numba computes integer powers with exponents above 65536 in floats ({literal})")
    return a, b


def _defined_in_numba(name, left, sig, result, a, b):
    """The inputs whose result numba's implementation defines (see the module's docstring)."""
    keep = np.ones(len(a), dtype=bool)
    out = support.dtype_of(result)
    if name == "pow" and out.kind in "iu":
        keep &= b.astype(np.float64) <= 0x10000
    elif name == "neg" and np.dtype(left).kind == "i":
        keep &= a != np.iinfo(np.dtype(left)).min
    elif name in ("floordiv", "mod", "divmod_q", "divmod_r") and out.kind == "f":
        operation = support.dtype_of(sig.args[0])
        with np.errstate(all="ignore"):
            x, y = a.astype(np.float64), b.astype(np.float64)
            info = np.finfo(operation)
            # NVVM's frem is x - y * trunc(x / y): its error grows with the quotient, about
            # quotient * 2**-mantissa of y, and must stay well below one unit of the quotient
            exact = np.abs(x / np.where(y == 0, 1, y)) < 2.0 ** (info.nmant - 8)
            keep &= np.isfinite(x) & np.isfinite(y) & ((y == 0) | (np.abs(y) >= info.tiny)) & exact
    return keep
