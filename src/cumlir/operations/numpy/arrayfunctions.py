"""NumPy functions combining arrays element by element: ``np.where(condition, x, y)``,
``np.clip(a, a_min, a_max)`` / ``a.clip(...)``, and the inner product of two 1-d arrays
(``np.dot(a, b)``, ``a.dot(b)``, ``a @ b``).

``where`` and ``clip`` broadcast their operands (arrays or scalars) as NumPy does and make
a new array (arraycreation.allocate) of the broadcast shape; the result dtype is NumPy's
``np.result_type`` of the operands, a scalar typed int64, float64, complex128 or bool
counting as the Python number it stands for (NumPy 2's rules: ``np.clip(f32, 0, 1)`` is
float32). On scalars alone both give a scalar. Matrix products are refused by name.
"""

import inspect
import operator

import numpy as np

from .._support import fill
from .._support.api import declare, method
from .._support.elements import dim
from .._support.modules import arith, errors, ir, nvvm, scf, templates, types
from .arraycreation import allocate
from .npyfuncs import broadcast_sizes


def _scalars():
    return (types.Number, types.Boolean)


def _python_stand_in(scalar):
    """The Python number a scalar of this type stands for in NumPy 2's promotion, or None."""
    return {types.int64: 0, types.float64: 0.0, types.complex128: 0j, types.boolean: False}.get(scalar)


def _numpy_dtype(name, ty):
    try:
        return types.as_dtype(ty)
    except errors.NumbaNotImplementedError:  # bfloat16, vector types: NumPy has no promotion for them
        raise errors.TypingError(f"{name} of {ty}, which NumPy has no dtype for, is not supported") from None


def result_dtype(name, operands):
    """NumPy's result type of *operands* (arrays and scalars) as a numba type."""
    given = []
    for ty in operands:
        if isinstance(ty, types.Array):
            given.append(_numpy_dtype(name, ty.dtype))
        else:
            scalar = types.unliteral(ty)
            stand_in = _python_stand_in(scalar)
            given.append(_numpy_dtype(name, scalar) if stand_in is None else stand_in)
    return types.from_dtype(np.result_type(*given))


def _absent(ty):
    return isinstance(ty, (types.NoneType, types.Omitted))


def _operand(name, what, ty):
    """Refuse an operand that is neither a numeric array nor a number."""
    element = ty.dtype if isinstance(ty, types.Array) else ty
    if not isinstance(element, _scalars()):
        raise errors.TypingError(f"{name}: {what} must be a number, a bool or an array of them, got {ty}")


def _new_array_type(operands, dtype):
    arrays = [t for t in operands if isinstance(t, types.Array)]
    ndim = max(t.ndim for t in arrays)
    layout = "F" if ndim > 1 and all(t.layout == "F" for t in arrays) else "C"
    return types.Array(dtype, ndim, layout)


def _broadcast_into_new(lower, sig, args, what, element_of):
    """A new array of sig.return_type, the operands' broadcast shape, whose element at each
    index is element_of(loaded operands) (each loaded in its own dtype)."""
    out_type = sig.return_type
    sizes = broadcast_sizes(sig.args, args, out_type.ndim)
    out = allocate(lower, out_type, sizes, what)
    loads = [fill.source(lower, out_type.ndim, t, v) for t, v in zip(sig.args, args)]
    element_types = [t.dtype if isinstance(t, types.Array) else t for t in sig.args]
    fill.store_each(lower, out_type, out, lambda indices: element_of([load(indices) for load in loads], element_types))
    return lower.mark_fresh(out)


# ---- np.where(condition, x, y) --------------------------------------------------------------

np_where = declare(np.where, "NumPy_where", exclusive=True)


@np_where.generic
def _where_typing(context, args, kws):
    if kws:
        raise errors.TypingError(f"np.where takes its arguments by position, got keywords {sorted(kws)}")
    if len(args) == 1:
        raise errors.TypingError(
            "np.where(condition) with one argument (the indices where condition holds, arrays whose "
            "length is known only at run time) is not supported in device code; use "
            "np.where(condition, x, y) or a loop"
        )
    if len(args) != 3:
        raise errors.TypingError(f"np.where takes (condition, x, y), got {len(args)} arguments")
    for what, ty in zip(("condition", "x", "y"), args):
        _operand("np.where", what, ty)
    if not any(isinstance(t, types.Array) for t in args):
        # on scalars, a scalar of the type both branches unify to (numba's choice)
        result = context.unify_types(*args[1:])
        return None if result is None else templates.signature(result, *args)
    return templates.signature(_new_array_type(args, result_dtype("np.where", args[1:])), *args)


@np_where.lower("*Any")
def _where(lower, sig, args):
    if not isinstance(sig.return_type, types.Array):
        ty = sig.return_type
        condition = lower.cast(args[0], sig.args[0], types.boolean)
        return arith.select(condition, lower.cast(args[1], sig.args[1], ty), lower.cast(args[2], sig.args[2], ty))
    dtype = sig.return_type.dtype

    def element(values, element_types):
        condition = lower.cast(values[0], element_types[0], types.boolean)
        x, y = (lower.cast(v, t, dtype) for v, t in zip(values[1:], element_types[1:]))
        return arith.select(condition, x, y)

    return _broadcast_into_new(lower, sig, args, "np.where", element)


# ---- np.clip(a, a_min, a_max) and a.clip(a_min, a_max) --------------------------------------


def _clip_type(name, a, a_min, a_max, out):
    if out is not None and not _absent(out):
        raise errors.TypingError(
            f"{name}: out= is not supported in device code; assign the result instead (out[...] = {name}(...))"
        )
    bounds = [b for b in (a_min, a_max) if b is not None and not _absent(b)]
    if not bounds:
        raise errors.TypingError(f"{name}: give a_min, a_max or both (NumPy raises when both are None)")
    operands = [a, *bounds]
    for what, ty in zip(("a", "the bound", "the bound"), operands):
        _operand(name, what, ty)
    dtype = result_dtype(name, operands)
    if isinstance(dtype, types.Complex):
        raise errors.TypingError(f"{name} of complex numbers (ordered by NumPy lexicographically) is not supported")
    if not any(isinstance(t, types.Array) for t in operands):
        return dtype
    return _new_array_type(operands, dtype)


def _clip_element(lower, values, element_types, dtype):
    """NumPy's minimum(maximum(a, a_min), a_max), a missing bound skipped: NaN propagates."""
    a = lower.cast(values[0], element_types[0], dtype)
    for ufunc, bound, bound_type in zip((np.maximum, np.minimum), values[1:], element_types[1:]):
        if not _absent(bound_type):
            a, ty = lower.call_function(ufunc, (dtype, dtype), [a, _bound_in(lower, bound, bound_type, dtype)])
            a = lower.cast(a, ty, dtype)
    return a


def _bound_in(lower, bound, bound_type, dtype):
    """A bound as a value of *dtype*. An integer bound beyond an integer dtype's range (a
    Python int: ``np.clip(u8, -5, 300)``) becomes the nearest limit, where a cast would wrap
    it: NumPy 2 compares the values with it as it is."""
    source = types.unliteral(bound_type)
    if not (isinstance(dtype, types.Integer) and isinstance(source, types.Integer)):
        return lower.cast(bound, bound_type, dtype)
    wide, narrow = np.iinfo(types.as_dtype(source)), np.iinfo(types.as_dtype(dtype))
    low, high = max(wide.min, narrow.min), min(wide.max, narrow.max)
    value = lower.cast(bound, bound_type, source)
    larger, smaller = (arith.maxsi, arith.minsi) if source.signed else (arith.maxui, arith.minui)
    value = smaller(larger(value, lower.constant(source, low)), lower.constant(source, high))
    return lower.cast(value, source, dtype)


def _clip_rule(name):
    """clip's rule: the arguments given, named by the signature's pysig (a method's receiver
    first, unnamed); a missing bound is skipped."""

    def rule(lower, sig, args):
        names = list(sig.pysig.parameters)
        if len(names) < len(args):
            names.insert(0, "a")
        given = dict(zip(names, zip(args, sig.args)))
        none = (None, types.none)
        operands = [given["a"], given.get("a_min", given.get("min", none)), given.get("a_max", given.get("max", none))]
        values, operand_types = [v for v, _ in operands], [t for _, t in operands]
        result = sig.return_type
        if not isinstance(result, types.Array):
            return _clip_element(lower, values, operand_types, result)

        def element(loaded, element_types):
            return _clip_element(lower, loaded, element_types, result.dtype)

        clip_sig = templates.signature(result, *operand_types)
        return _broadcast_into_new(lower, clip_sig, values, name, element)

    return rule


def _clip_typing(name, pysig, receiver=None):
    """The typing of a clip whose parameters are *pysig*'s: the signature holds the arguments
    given, in the parameters' order, and a pysig naming them."""

    def typing(*args, **kws):
        if receiver is not None:
            args = (receiver, *args)
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError as e:
            raise errors.TypingError(f"{name}: {e}") from None
        given = bound.arguments
        bounds = [given.get(p, given.get(p.removeprefix("a_"))) for p in ("a_min", "a_max")]
        result = _clip_type(name, given.get("a", receiver), *bounds, given.get("out"))
        names = [p for p in pysig.parameters if p in given and (receiver is None or p != "a")]
        sig = templates.signature(result, *(given[p] for p in names), recvr=receiver)
        return sig.replace(pysig=inspect.Signature([pysig.parameters[p] for p in names]))

    return typing


def _np_clip(a, a_min=None, a_max=None, out=None): ...
def _array_clip(a, min=None, max=None, out=None): ...


np_clip = declare(np.clip, "NumPy_clip", exclusive=True)


@np_clip.generic
def _np_clip_typing(context, args, kws):
    return _clip_typing("np.clip", inspect.signature(_np_clip))(*args, **kws)


np_clip.lower("*Any")(_clip_rule("np.clip"))

array_clip = method("Array", "clip")


@array_clip.typer
def _array_clip_typing(receiver, *args, **kws):
    return _clip_typing("array.clip", inspect.signature(_array_clip), receiver)(*args, **kws)


array_clip.lower("Array", "*Any")(_clip_rule("array.clip"))


# ---- np.dot(a, b), a.dot(b), a @ b: two 1-d arrays ------------------------------------------


def _dot_type(name, a, b):
    arrays = [t for t in (a, b) if isinstance(t, types.Array)]
    if len(arrays) < 2:
        raise errors.TypingError(f"{name} takes two 1-d arrays, got ({a}, {b}); multiply by a scalar with a * b")
    if a.ndim != 1 or b.ndim != 1:
        raise errors.TypingError(
            f"{name} of a {a.ndim}-d and a {b.ndim}-d array: only two 1-d arrays (an inner product) are "
            f"supported in device code; write matrix products as loops of 1-d products, "
            f"e.g. out[i] = np.dot(m[i], v)"
        )
    _operand(name, "a", a)
    _operand(name, "b", b)
    return result_dtype(name, (a, b))


def _dot_loop(a, b, n, total):
    for i in range(n):
        total += a[i] * b[i]
    return total


def _accumulator(dtype):
    """Products are summed in the widest type of their kind, rounded once at the end."""
    if isinstance(dtype, types.Complex):
        return types.complex128
    if isinstance(dtype, types.Float):
        return types.float64
    # integers wrap as NumPy's do, modulo the result's width; an unsigned result has unsigned
    # operands, whose products numba types uint64 (an int64 sum would turn them to float64)
    return types.uint64 if isinstance(dtype, types.Integer) and not dtype.signed else types.int64


def _check_lengths(lower, n, m):
    """With debug=True, arrays of different lengths raise NumPy's ValueError; the loop covers
    the shorter one either way, so no element past an array's end is read."""
    if lower.options.debug:
        branch = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ne, n, m))
        with ir.InsertionPoint(branch.then_block):
            lower.record_raise(ValueError, ("np.dot: shapes (n,) and (m,) not aligned: n (dim 0) != m (dim 0)",))
            nvvm.exit()
            scf.YieldOp([])
    return arith.minsi(n, m)


def _dot(lower, sig, args):
    a_type, b_type = sig.args[:2]
    n = _check_lengths(lower, dim(args[0], 0), dim(args[1], 0))
    total = _accumulator(sig.return_type)
    loop_sig = templates.signature(sig.return_type, a_type, b_type, types.int64, total)
    return lower.call_python(_dot_loop, loop_sig, [args[0], args[1], n, lower.constant(total, 0)])


np_dot = declare(np.dot, "NumPy_dot", exclusive=True)


@np_dot.typer
def _np_dot_typing(a, b, out=None):
    if out is not None:
        raise errors.TypingError("np.dot: out= is not supported in device code (the inner product is a scalar)")
    return _dot_type("np.dot", a, b)


np_dot.lower("Array", "Array")(_dot)

array_dot = method("Array", "dot")


@array_dot.typer
def _array_dot_typing(receiver, other):
    return templates.signature(_dot_type("array.dot", receiver, other), other, recvr=receiver)


array_dot.lower("Array", "Array")(_dot)

matmul = declare(operator.matmul, "matmul")


@matmul.generic
def _matmul_typing(context, args, kws):
    if kws or len(args) != 2 or not all(isinstance(t, types.Array) for t in args):
        return None
    return templates.signature(_dot_type("a @ b", *args), *args)


matmul.lower("Array", "Array")(_dot)
