"""Arrays of values given in the code: ``np.linspace(start, stop, num=50, endpoint=True)``,
``np.array(t)`` / ``np.asarray(t)`` of a tuple of numbers (1-d) or of equal-length tuples
of numbers (2-d) or a number (0-d), with an optional ``dtype=``; of an array, ``np.array`` a
copy (F order for F arrays, else C) and ``np.asarray`` the array itself unless the dtype
asked for differs.

Typing as NumPy's: linspace gives float64; a tuple's array has NumPy's promoted dtype of
its members (``np.result_type`` of their types: a Python float is float64). The arrays
are new, C-ordered (arraycreation.allocate); a tuple's shape is known when compiling.
"""

import functools
import inspect

import numpy as np

from .._support import arrayviews as arrayviews
from .._support import fill
from .._support.api import declare
from .._support.elements import store_element
from .._support.modules import arith, errors, ir, templates, types
from .arraycreation import allocate, element_type


def _scalars():
    return (types.Number, types.Boolean)


def _bind(name, pysig, args, kws, result_of):
    """numba's signature for a call of *name*: arguments in the order of the parameters
    given, which the signature's pysig names for lowering."""
    try:
        bound = pysig.bind(*args, **kws)
    except TypeError as e:
        raise errors.TypingError(f"np.{name}: {e}") from None
    names = [p for p in pysig.parameters if p in bound.arguments]
    sig = templates.signature(result_of(bound.arguments), *(bound.arguments[p] for p in names))
    return sig.replace(pysig=inspect.Signature([pysig.parameters[p] for p in names]))


def _given(sig, args):
    return dict(zip(sig.pysig.parameters, zip(args, sig.args)))


# ---- np.linspace ----------------------------------------------------------------------------


def _linspace(start, stop, num=50, endpoint=True): ...


def _linspace_type(arguments):
    for what in ("start", "stop"):
        ty = types.unliteral(arguments[what])
        if not isinstance(ty, (types.Integer, types.Float, types.Boolean)):
            raise errors.TypingError(f"np.linspace: {what} must be a real number, got {arguments[what]}")
    num = arguments.get("num", types.int64)
    if not isinstance(num, types.Integer):
        raise errors.TypingError(f"np.linspace: num must be an integer, got {num}")
    endpoint = arguments.get("endpoint", types.boolean)
    if not isinstance(endpoint, (types.Boolean, types.Integer)):
        raise errors.TypingError(f"np.linspace: endpoint must be a bool, got {endpoint}")
    return types.Array(types.float64, 1, "C")


np_linspace = declare(np.linspace, "NumPy_linspace", exclusive=True)


@np_linspace.generic
def _linspace_typing(context, args, kws):
    return _bind("linspace", inspect.signature(_linspace), args, kws, _linspace_type)


def _linspace_fill(out, start, stop, endpoint):
    # NumPy's: y[i] = i * step + start, step = (stop - start) / div; the last is stop itself
    num = out.size
    div = num - 1 if endpoint else num
    if div > 0:
        step = (stop - start) / div
        for i in range(num):
            out[i] = i * step + start
        if endpoint:
            out[num - 1] = stop
    elif num > 0:
        out[0] = start


@np_linspace.lower("*Any")
def _np_linspace(lower, sig, args):
    given = _given(sig, args)
    start, stop = (lower.cast(given[p][0], given[p][1], types.float64) for p in ("start", "stop"))
    num = lower.constant(types.int64, 50) if "num" not in given else lower.cast(*given["num"], types.int64)
    endpoint = lower.constant(types.boolean, True)
    if "endpoint" in given:
        endpoint = lower.cast(*given["endpoint"], types.boolean)
    array = allocate(lower, sig.return_type, [num], "np.linspace")
    fill_sig = templates.signature(types.none, sig.return_type, types.float64, types.float64, types.boolean)
    lower.call_python(_linspace_fill, fill_sig, [array, start, stop, endpoint])
    return lower.mark_fresh(array)


# ---- np.array(tuple), np.asarray(tuple) -----------------------------------------------------


def _array(object, dtype=None): ...


def _tuple_shape(name, ty):
    """The shape of the array a number or a (nested) tuple of numbers gives, and its members' types."""
    if isinstance(ty, _scalars()):
        return (), [ty]
    if not isinstance(ty, types.BaseTuple) or len(ty) == 0:
        raise errors.TypingError(
            f"np.{name} in device code takes an array, a number or a non-empty tuple of numbers, got {ty}"
        )
    if all(isinstance(t, _scalars()) for t in ty.types):
        return (len(ty),), list(ty.types)
    if all(isinstance(t, types.BaseTuple) for t in ty.types):
        rows = [_tuple_shape(name, t) for t in ty.types]
        if all(len(shape) == 1 for shape, _ in rows) and len({shape for shape, _ in rows}) == 1:
            return (len(ty), rows[0][0][0]), [m for _, members in rows for m in members]
        raise errors.TypingError(f"np.{name}: the rows of {ty} must be tuples of numbers of one length")
    raise errors.TypingError(f"np.{name}: {ty} mixes numbers and tuples, or holds something else")


def _checked(name, element, members):
    """*element*, refused where a complex member would lose its imaginary part."""
    if not isinstance(element, types.Complex) and any(isinstance(m, types.Complex) for m in members):
        raise errors.TypingError(
            f"np.{name}: complex values into dtype {element} (NumPy drops the imaginary part with a warning) "
            "is not supported"
        )
    return element


def _array_type(name):
    def result_of(arguments):
        source = arguments["object"]
        dtype = arguments.get("dtype")
        if isinstance(source, types.Array):
            if not isinstance(source.dtype, _scalars()):
                raise errors.TypingError(f"np.{name} of an array of {source.dtype} is not supported")
            element = _checked(name, element_type(name, dtype, source.dtype), [source.dtype])
            if name == "asarray" and element == source.dtype:
                return source  # the array itself, as NumPy gives it
            # a copy (NumPy's default order "K": F stays F)
            return types.Array(element, source.ndim, "F" if source.layout == "F" else "C")
        shape, members = _tuple_shape(name, source)
        try:
            default = types.from_dtype(np.result_type(*(types.as_dtype(types.unliteral(m)) for m in members)))
        except errors.NumbaNotImplementedError:  # bfloat16: NumPy has no dtype for it
            raise errors.TypingError(f"np.{name}: NumPy has no dtype for a member of {source}") from None
        return types.Array(_checked(name, element_type(name, dtype, default), members), len(shape), "C")

    return result_of


def _array_rule(name, lower, sig, args):
    given = _given(sig, args)
    value, source_type = given["object"]
    result = sig.return_type
    if name == "asarray" and result == source_type:
        return value  # an array of the dtype asked for: itself
    if isinstance(source_type, types.Array):
        sizes = arrayviews.parts(value, source_type.ndim)[2]
        array = allocate(lower, result, sizes, "np.array")
        fill.assign(lower, result, array, source_type, value)
        return lower.mark_fresh(array)
    shape, _ = _tuple_shape("array", source_type)
    i64 = ir.IntegerType.get_signless(64)
    # its shape is known while compiling: in the kernel's stack where it may be (allocate)
    array = allocate(lower, result, [arith.constant(i64, n) for n in shape], "np.array", list(shape))
    index = ir.IndexType.get()
    for position in np.ndindex(*shape):
        member, member_type = value, source_type
        for k in position:
            member, member_type = lower.extract(member, member_type, k), member_type.types[k]
        element = lower.cast(member, member_type, result.dtype)
        store_element(lower, result.dtype, element, array, [arith.constant(index, k) for k in position])
    return lower.mark_fresh(array)


def _array_typing(name):
    def generic(context, args, kws):
        return _bind(name, inspect.signature(_array), args, kws, _array_type(name))

    return generic


for _function, _name in ((np.array, "array"), (np.asarray, "asarray")):
    _operation = declare(_function, f"NumPy_{_name}", exclusive=True)
    _operation.generic(_array_typing(_name))
    _operation.lower("*Any")(functools.partial(_array_rule, _name))
