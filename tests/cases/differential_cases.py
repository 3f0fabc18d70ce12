"""The scalar differential test: every operator and builtin on every ordered pair of
numeric types, with operands from arrays and as literals, against a host reference.

The reference follows Numba's semantics: numba's typing picks the signature (read
from the compiled kernel itself), operands are converted to the signature's types
as numba converts them, integer results wrap, and the numba-cuda error model
without debug applies (integer division by zero gives 0). Floating-point results
are NumPy's in the same precision; where the GPU legitimately rounds differently
(libdevice routines, fused multiply-add in complex products) a tolerance says so.
"""

import math
import operator

import numpy as np

from cumlir import cuda
from cumlir.compiler import type_function

from .. import support

TYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]

BINARY = {
    "add": "{a} + {b}",
    "sub": "{a} - {b}",
    "mul": "{a} * {b}",
    "truediv": "{a} / {b}",
    "floordiv": "{a} // {b}",
    "mod": "{a} % {b}",
    "pow": "{a} ** {b}",
    "and": "{a} & {b}",
    "or": "{a} | {b}",
    "xor": "{a} ^ {b}",
    "lshift": "{a} << {b}",
    "rshift": "{a} >> {b}",
    "eq": "{a} == {b}",
    "ne": "{a} != {b}",
    "lt": "{a} < {b}",
    "le": "{a} <= {b}",
    "gt": "{a} > {b}",
    "ge": "{a} >= {b}",
    "chained": "{a} < {b} <= {a}",
    "max": "max({a}, {b})",
    "min": "min({a}, {b})",
    "builtin_pow": "pow({a}, {b})",
    "divmod_q": "divmod({a}, {b})[0]",
    "divmod_r": "divmod({a}, {b})[1]",
}

UNARY = {
    "neg": "-{a}",
    "pos": "+{a}",
    "invert": "~{a}",
    "not": "not {a}",
    "abs": "abs({a})",
    "bool": "bool({a})",
    "int": "int({a})",
    "float": "float({a})",
    "complex": "complex({a})",
    "round": "round({a})",
    "round2": "round({a}, 2)",
    "real": "{a}.real",
    "imag": "{a}.imag",
    "conjugate": "{a}.conjugate()",
}

# a few literal operands per type, for the constant-folded path
LITERALS = {
    "bool": [True],
    "int": [3, -7, 2**31, 2**40 + 3],
    "float": [2.5, -0.0],
    "complex": [1.5 - 2j],
}


def literal_kind(value):
    if isinstance(value, bool):
        return "bool"
    return type(value).__name__


_kernels = {}


def make_kernel(expression):
    """A kernel ``out[i] = <expression>`` over operand arrays a and b (b may go unused)."""
    kernel = _kernels.get(expression)
    if kernel is None:
        source = f"def case(a, b, out):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = {expression}\n"
        namespace = {"cuda": cuda}
        exec(compile(source, f"<{expression}>", "exec"), namespace)
        kernel = _kernels[expression] = namespace["case"]
    return kernel


def expression_for(name, right_literal=None, left_literal=None):
    template = BINARY.get(name) or UNARY[name]
    a = repr(left_literal) if left_literal is not None else "a[i]"
    b = repr(right_literal) if right_literal is not None else "b[i]"
    return template.format(a=a, b=b)


def array_type(name):
    from numba.core import types

    return types.Array(support.numba_type(name), 1, "C")


_scalar_cases = {}


def scalar_case(expression_template, left, right, right_literal=None):
    """Type ``f(x, y) = <expression>`` for scalar operand types; returns (signature of the
    operation on x and y, result type), or None where numba does not type it."""
    from numba.core import ir
    from numba.core.errors import TypingError

    expression = expression_template.format(a="x", b=repr(right_literal) if right_literal is not None else "y")
    key = (expression, left, right)
    if key not in _scalar_cases:
        namespace = {}
        exec(f"def f(x, y):\n    return {expression}\n", namespace)
        try:
            typed = type_function(namespace["f"], (support.numba_type(left), support.numba_type(right)))
        except TypingError:
            _scalar_cases[key] = None
        else:
            sig = None
            for block in typed.func_ir.blocks.values():
                for stmt in block.body:
                    if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr):
                        if stmt.value.op in ("binop", "unary", "call") and typed.calltypes.get(stmt.value) is not None:
                            sig = sig or typed.calltypes[stmt.value]
            _scalar_cases[key] = (sig, typed.return_type)
    return _scalar_cases[key]


# ---- operand values -----------------------------------------------------------------------


def operands(name, left, right, rng, n=256):
    """Operand arrays: every pair of boundary values, then random pairs, adjusted per operator."""
    a_special, b_special = boundary(left), boundary(right)
    a = np.concatenate([np.repeat(a_special, len(b_special)), draw(left, n, rng)])
    b = np.concatenate([np.tile(b_special, len(a_special)), draw(right, n, rng)])
    if name in ("pow", "builtin_pow"):
        a, b = _power_operands(a, b, left, right, rng)
    if name in ("mul", "truediv") and "complex" in left + right:
        # products that overflow in one rounding order and not in another (with fused
        # multiply-adds) are not a semantic difference: keep operands well inside range
        a, b = _moderate(_finite(a)), _moderate(_finite(b))
    return a, b


def _moderate(values):
    if values.dtype.kind in "fc":
        limit = 1e15 if values.dtype in (np.float32, np.complex64, np.float16) else 1e150
        values = np.where(np.abs(values) > limit, values / np.abs(values).max() * limit, values).astype(values.dtype)
    return values


def _finite(values):
    if values.dtype.kind in "fc":
        values = values.copy()
        values[~np.isfinite(values)] = 1.5
    return values


def _power_operands(a, b, left, right, rng):
    if np.dtype(right).kind in "iub" and np.dtype(left).kind in "iub":
        # exponents that keep integer powers meaningful, negatives included
        b = (rng.integers(-5, 70, len(b)) if np.dtype(right).kind != "u" else rng.integers(0, 70, len(b))).astype(right)
    elif np.dtype(left).kind == "c" or np.dtype(right).kind == "c":
        # bases and exponents whose powers stay finite (Python raises on overflow)
        a, b = _finite(a).astype(np.complex128), _finite(b).astype(np.complex128)
        a = np.where(np.abs(a) > 10, a / np.abs(a) * 3, a)
        b = np.where(np.abs(b) > 8, b / np.abs(b) * 4, b)
        a = np.where(np.abs(a) < 1e-3, 1.25, a)
        a, b = a.astype(left) if np.dtype(left).kind == "c" else a.real.astype(left), b
        # exponents: integral ones (the exact path), and general ones
        b = np.where(rng.random(len(b)) < 0.3, np.round(b.real), b)
        b = b.astype(right) if np.dtype(right).kind == "c" else b.real.astype(right)
    elif np.dtype(right).kind in "iu":
        b = rng.integers(-8, 40, len(b)).astype(right)
    return a, b


def boundary(name):
    if name in ("complex64", "complex128"):
        part = "float32" if name == "complex64" else "float64"
        real = support.boundary_values(part)
        return (real[:, None] + 1j * np.array([0.0, -1.5, np.inf, np.nan])[None, :]).ravel().astype(name)
    if name == "float16":
        return np.array(
            [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 65504.0, -65504.0, 6.1e-5, np.inf, -np.inf, np.nan], np.float16
        )
    return support.boundary_values(name)


def draw(name, n, rng):
    if name in ("complex64", "complex128"):
        part = "float32" if name == "complex64" else "float64"
        return (support.random_values(part, n, rng) + 1j * support.random_values(part, n, rng)).astype(name)
    if name == "float16":
        return (rng.standard_normal(n) * 10.0 ** rng.integers(-2, 4, n)).astype(np.float16)
    return support.random_values(name, n, rng)


# ---- the host reference -------------------------------------------------------------------


def _wrap(value, dtype):
    bits = dtype.itemsize * 8
    value &= (1 << bits) - 1
    if dtype.kind == "i" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _int_binary(name, x, y, dtype):
    bits = dtype.itemsize * 8
    minimum = -(1 << (bits - 1)) if dtype.kind == "i" else 0
    if name in ("floordiv", "mod", "divmod_q", "divmod_r"):
        if y == 0 or (x == minimum and y == -1 and dtype.kind == "i"):
            return 0
        return x // y if name in ("floordiv", "divmod_q") else x % y
    if name in ("pow", "builtin_pow"):
        if y < 0:
            return {1: 1, -1: -1 if y % 2 else 1, 0: minimum}.get(x, 0)
        return pow(x, y, 1 << 64)
    if name in ("lshift", "rshift"):
        amount = y & ((1 << bits) - 1)  # read unsigned
        if amount >= bits:
            return 0 if name == "lshift" or x >= 0 else -1
        return x << amount if name == "lshift" else x >> amount
    return {
        "add": operator.add,
        "sub": operator.sub,
        "mul": operator.mul,
        "and": operator.and_,
        "or": operator.or_,
        "xor": operator.xor,
    }[name](x, y)


def _float_divmod(x, y):
    """numba's float // and % on arrays of one float dtype: CPython's algorithm, and for a
    zero divisor (no exception) the quotient a / b and a NaN remainder."""
    with np.errstate(all="ignore"):
        mod = np.fmod(x, y)
        div = (x - mod) / y
        adjust = (mod != 0) & ((y < 0) != (mod < 0))
        mod = np.where(adjust, mod + y, mod)
        div = np.where(adjust, div - 1, div)
        mod = np.where(mod != 0, mod, np.copysign(np.zeros_like(y), y))
        floor = np.floor(div)
        floor = np.where(div - floor > 0.5, floor + 1, floor)
        floor = np.where(div != 0, floor, np.copysign(np.zeros_like(x), x / y))
        floor = np.where(y == 0, x / y, floor)
    return floor.astype(x.dtype), mod.astype(x.dtype)


def _real_int_power(x, y):
    # numba computes float ** int by repeated squaring; compare with the exact power
    with np.errstate(all="ignore"):
        return np.power(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)


def _minmax(name, x, y, floats):
    if floats:  # two float32/float64 operands: C's fmax/fmin, as Numba-CUDA lowers them
        return (np.fmax if name == "max" else np.fmin)(x, y)
    # Python keeps the first operand unless the second compares strictly better
    with np.errstate(invalid="ignore"):
        better = (y > x) if name == "max" else (y < x)
    return np.where(better, y, x)


def binary_reference(name, sig, a, b):
    """Expected results and a relative tolerance (0 for exact)."""
    ta, tb, tr = (support.dtype_of(t) for t in (*sig.args, sig.return_type))
    with np.errstate(all="ignore"):
        x, y = a.astype(ta), b.astype(tb)
    if name in ("max", "min"):
        floats = ta in (np.float32, np.float64) and tb in (np.float32, np.float64)
        return _minmax(name, x.astype(tr), y.astype(tr), floats), 0
    if tr.kind in "iu" or (tr.kind == "b" and name in ("and", "or", "xor") and ta.kind != "b"):
        x, y = x.astype(tr), y.astype(tr) if name not in ("lshift", "rshift") else y.astype(tr)
        out = [_wrap(_int_binary(name, int(p), int(q), tr), tr) for p, q in zip(x.tolist(), y.tolist())]
        return np.array(out, dtype=tr), 0
    with np.errstate(all="ignore"):
        if name in ("eq", "ne", "lt", "le", "gt", "ge"):
            return {
                "eq": np.equal,
                "ne": np.not_equal,
                "lt": np.less,
                "le": np.less_equal,
                "gt": np.greater,
                "ge": np.greater_equal,
            }[name](x, y), 0
        if name in ("and", "or", "xor"):
            return {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[name](x, y), 0
        if tr.kind == "c":
            x, y = x.astype(tr), y.astype(tr)
            rtol = 2e-6 if tr == np.complex64 else 1e-14
            if name in ("add", "sub"):
                return (x + y if name == "add" else x - y), 0
            if name == "mul":
                return x * y, rtol
            if name == "truediv":
                return x / y, rtol
            # complex power follows Python (CPython's algorithm), computed in double
            powers = [complex(p) ** complex(q) for p, q in zip(x.tolist(), y.tolist())]
            return np.array(powers, dtype=np.complex128).astype(tr), (2e-6 if tr == np.complex64 else 1e-12)
        x, y = (x.astype(tr), y.astype(tr)) if ta.kind != "f" or tb.kind not in "iu" else (x, y)
        if name in ("add", "sub", "mul", "truediv"):
            return {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide}[name](x, y), 0
        if name in ("floordiv", "mod", "divmod_q", "divmod_r"):
            quotient, remainder = _float_divmod(x, y)
            return (quotient if name in ("floordiv", "divmod_q") else remainder), 0
        if tb.kind in "iu":
            # repeated squaring loses about one rounding per unit of the exponent's size:
            # the tolerance grows with |n|
            eps = np.finfo(tr).eps
            return _real_int_power(x, y), 4 * eps * np.maximum(1.0, np.abs(y.astype(np.float64)))
        return np.power(x, y), (4e-3 if tr == np.float16 else 2e-6 if tr == np.float32 else 1e-14)


def compare(actual, expected, rtol, label):
    """Assert equality (NaN equals NaN), or closeness within rtol: for complex numbers,
    each part within rtol of the whole number's magnitude."""
    if expected.dtype.kind == "c":
        scale = np.abs(expected.astype(np.complex128))
        atol = float(np.finfo(np.real(expected[:0]).dtype).tiny) if np.any(rtol) else 0.0
        with np.errstate(all="ignore"):
            for part in (np.real, np.imag):
                got, want = part(actual).astype(np.float64), part(expected).astype(np.float64)
                ok = (got == want) | (np.isnan(got) & np.isnan(want)) | (np.abs(got - want) <= atol + rtol * scale)
                _report(~ok, got, want, f"{label} ({part.__name__})")
        return
    if expected.dtype.kind == "f" or actual.dtype.kind == "f":
        float_type = expected.dtype if expected.dtype.kind == "f" else actual.dtype
        # with a tolerance, results below the smallest normal number may differ absolutely
        atol = float(np.finfo(float_type).tiny) if np.any(rtol) else 0.0
        expected = expected.astype(np.float64)
        actual = actual.astype(np.float64)
        both_nan = np.isnan(expected) & np.isnan(actual)
        with np.errstate(all="ignore"):
            close = (actual == expected) | both_nan | (np.abs(actual - expected) <= atol + rtol * np.abs(expected))
    else:
        close = actual == expected
    _report(~close, actual, expected, label)


def _report(wrong, actual, expected, label):
    bad = np.nonzero(wrong)[0]
    if len(bad):
        shown = ", ".join(f"[{i}] got {actual[i]!r} expected {expected[i]!r}" for i in bad[:6])
        raise AssertionError(f"{label}: {len(bad)} of {len(expected)} differ: {shown}")


__all__ = ["TYPES", "BINARY", "UNARY", "math"]


def unary_reference(name, sig, result, a):
    """Expected results of a unary operation or conversion, and a relative tolerance."""
    tr = support.dtype_of(result)
    ta = support.dtype_of(sig.args[0]) if sig is not None and sig.args else a.dtype
    with np.errstate(all="ignore"):
        x = a.astype(ta)
        if name in ("neg", "pos", "invert"):
            # unsigned negation and inversion happen in the operand's own width, then
            # widen; a signed operand is widened first (see lowering/rules/scalars.py)
            if x.dtype.kind == "b":
                x = x if name == "invert" else x.astype(np.int64)
            elif x.dtype.kind == "i" and name == "neg":
                x = x.astype(tr)
            return {"neg": np.negative, "pos": np.positive, "invert": np.invert}[name](x).astype(tr), 0
        if name == "not":
            return np.logical_not(a), 0
        if name == "abs":
            if tr.kind in "iu":
                return np.array([_wrap(abs(int(v)), tr) for v in x.astype(tr).tolist()], tr), 0
            return np.abs(x).astype(tr), (0 if ta.kind != "c" else 2e-7 if tr == np.float32 else 1e-15)
        if name == "round":
            return np.rint(x).astype(tr), 0
        if name == "round2":
            # as Python: a value whose scaling overflows is returned unchanged
            wide = x.astype(np.float64)
            return np.where(np.isinf(wide * 100) & np.isfinite(wide), wide, np.round(wide, 2)).astype(tr), 0
        if name == "real":
            return np.real(x).astype(tr), 0
        if name == "imag":
            return np.imag(x).astype(tr), 0
        if name == "conjugate":
            return np.conjugate(x).astype(tr), 0
        if name == "bool" and a.dtype.kind == "c":
            return (a != 0), 0
        return a.astype(tr), 0


def unary_operands(name, operand, rng, n=256):
    values = np.concatenate([boundary(operand), draw(operand, n, rng)])
    if name in ("int", "round"):
        # conversion to an integer is defined only for finite values that fit
        with np.errstate(invalid="ignore"):
            wide = values.astype(np.float64) if values.dtype.kind != "c" else values
            fits = np.isfinite(wide) & (np.abs(wide) < 2.0**62)
        values = values[fits]
    if name == "abs" and values.dtype.kind == "c":
        values = _moderate(values)  # hypot next to the largest float overflows in libdevice
    return values


def cases():
    """Every (operation, left type, right type, literal) that numba types, with its signature
    and result type; literal is None when both operands come from arrays."""
    found = []
    for name, template in BINARY.items():
        for left in TYPES:
            for right in TYPES:
                if name in ("max", "min") and "complex" in left + right:
                    continue  # complex numbers are not ordered
                typed = scalar_case(template, left, right)
                if typed is not None:
                    found.append((name, left, right, None) + typed)
            for kind, values in LITERALS.items():
                for value in values:
                    if name in ("max", "min") and "complex" in left + kind:
                        continue
                    if "pow" in name and "complex" in left and abs(value) > 100:
                        continue  # Python overflows: the power has no finite value to compare
                    right = {"bool": "bool", "int": "int64", "float": "float64", "complex": "complex128"}[kind]
                    typed = scalar_case(template, left, right, right_literal=value)
                    if typed is not None:
                        found.append((name, left, right, value) + typed)
    for name, template in UNARY.items():
        for operand in TYPES:
            typed = scalar_case(template, operand, operand)
            if typed is not None:
                found.append((name, operand, operand, None) + typed)
    return found


def case_id(case):
    name, left, right, literal = case[:4]
    if name in UNARY:
        return f"{name}-{left}"
    return f"{name}-{left}-{right}" + (f"-lit{literal!r}" if literal is not None else "")


def run_case(case, rng):
    """Run one case on the GPU; raises AssertionError on any mismatch."""
    name, left, right, literal, sig, result = case
    if name in UNARY:
        a = unary_operands(name, left, rng)
        b = a
        expected, rtol = unary_reference(name, sig, result, a)
        expression = UNARY[name].format(a="a[i]")
    else:
        a, b = operands(name, left, right, rng)
        if literal is not None:
            b = np.full(len(a), literal, dtype=support.dtype_of(support.numba_type(right)))
        expected, rtol = binary_reference_for(name, sig, result, a, b)
        expression = expression_for(name, right_literal=literal)
    out = support.poisoned(len(a), support.dtype_of(result))
    kernel = compiled(expression)
    kernel[(len(a) + 127) // 128, 128](a, b, out)
    compare(
        out, expected.astype(out.dtype) if expected.dtype != out.dtype else expected, rtol, f"{case_id(case)} {sig}"
    )


def binary_reference_for(name, sig, result, a, b):
    if name == "chained":
        lt = support.result_signature(operator.lt, str(a.dtype), str(b.dtype))
        le = support.result_signature(operator.le, str(b.dtype), str(a.dtype))
        first, _ = binary_reference("lt", lt, a, b)
        second, _ = binary_reference("le", le, b, a)
        return first & second, 0
    if name == "builtin_pow":
        return binary_reference("pow", sig, a, b)
    if name in ("divmod_q", "divmod_r"):
        element = sig.return_type.dtype
        from numba.core.typing.templates import signature

        return binary_reference(name, signature(element, *sig.args), a, b)
    expected, rtol = binary_reference(name, sig, a, b)
    return expected.astype(support.dtype_of(result)), rtol


_compiled = {}


def compiled(expression):
    if expression not in _compiled:
        _compiled[expression] = cuda.jit(make_kernel(expression))
    return _compiled[expression]
