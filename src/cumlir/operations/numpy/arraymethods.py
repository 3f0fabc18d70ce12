"""Array methods that keep or copy an array's elements: ``a.fill(v)``, ``a.ravel()`` and
``np.ravel(a)``, ``a.flatten()``, ``a.astype(dtype)``.

``fill`` stores into the array itself (any layout, no allocation). ``ravel`` of a
C-contiguous array is a 1-d view of the same memory, as a reshape is; of any other array,
and ``flatten`` always, a new C-ordered array. ``astype`` makes a new array of the same
shape (F order for F arrays, else C, as NumPy's default ``order="K"`` gives for contiguous
inputs), each element converted as assignment converts it (floats to integers truncate).
New arrays come from the device runtime (arraycreation.allocate).
"""

import numpy as np

from .._support import arrayviews as arrayviews
from .._support.api import declare, method
from .._support.modules import arith, errors, npydecl, templates, types
from . import _fill as fill
from .arraycreation import allocate


def _scalars():
    return (types.Number, types.Boolean)


# ---- a.fill(value) --------------------------------------------------------------------------

array_fill = method("Array", "fill")


@array_fill.typer
def _fill_typing(receiver, *args, **kws):
    if kws or len(args) != 1:
        raise errors.TypingError(f"array.fill() takes one value, got {len(args)} arguments and {sorted(kws)}")
    (value,) = args
    if not isinstance(value, _scalars()):
        raise errors.TypingError(f"array.fill() takes a number or a bool, got {value}")
    if not isinstance(receiver.dtype, _scalars()):
        raise errors.TypingError(f"array.fill() on an array of {receiver.dtype} is not supported")
    if isinstance(value, types.Complex) and not isinstance(receiver.dtype, types.Complex):
        raise errors.TypingError(
            f"array.fill() of a complex value into an array of {receiver.dtype} is not supported "
            "(NumPy drops the imaginary part with a warning): fill with value.real"
        )
    if not receiver.mutable:
        raise errors.TypingError(f"array.fill() on a read-only array ({receiver})")
    return templates.signature(types.none, value, recvr=receiver)


@array_fill.lower("Array", "Any")
def _fill(lower, sig, args):
    array_type, value_type = sig.args
    fill.assign(lower, array_type, args[0], value_type, args[1])


# ---- ravel, flatten: one C-ordered axis -----------------------------------------------------


def _count(lower, sizes):
    count = lower.constant(types.int64, 1)
    for size in sizes:
        count = arith.muli(count, size)
    return count


def _flat_copy(lower, source_type, source, result_type, what):
    """A new 1-d array holding *source*'s elements in C order: the source is copied into
    a C-ordered view of the new array with the source's own shape."""
    sizes = arrayviews.parts(source, source_type.ndim)[2]
    count = _count(lower, sizes)
    flat = allocate(lower, result_type, [count], what)
    shaped_type = types.Array(result_type.dtype, source_type.ndim, "C")
    base, offset, _, _ = arrayviews.parts(flat, 1)
    shaped = arrayviews.make_view(lower, shaped_type, base, offset, sizes, arrayviews.c_strides(sizes))
    fill.assign(lower, shaped_type, shaped, source_type, source)
    return lower.mark_fresh(flat)


def _ravel(lower, sig, args, what):
    (array_type,) = sig.args
    if array_type.layout != "C":
        return _flat_copy(lower, array_type, args[0], sig.return_type, what)
    sizes = arrayviews.parts(args[0], array_type.ndim)[2]
    return arrayviews.reshape(lower, array_type, args[0], [_count(lower, sizes)], sig.return_type)


@declare("array.ravel").lower("Array")
def array_ravel(lower, sig, args):
    return _ravel(lower, sig, args, "arr.ravel()")


np_ravel = declare(np.ravel, "NumPy_ravel", exclusive=True)


@np_ravel.typer
def _np_ravel_typing(a, order=None):
    if not isinstance(a, types.Array):
        raise errors.TypingError(f"np.ravel takes an array, got {a}")
    if order is not None and not (isinstance(order, types.StringLiteral) and order.literal_value == "C"):
        raise errors.TypingError(f"np.ravel: only order='C' is supported, got {order}")
    return a.copy(ndim=1, layout="C", readonly=not a.mutable and a.layout == "C")


@np_ravel.lower("Array", "*Any")
def _np_ravel(lower, sig, args):
    return _ravel(lower, sig.replace(args=sig.args[:1]), args[:1], "np.ravel")


@declare("array.flatten").lower("Array")
def array_flatten(lower, sig, args):
    (array_type,) = sig.args
    return _flat_copy(lower, array_type, args[0], sig.return_type, "arr.flatten()")


# ---- a.astype(dtype) ------------------------------------------------------------------------


def astype_target(dtype_type):
    """The element type *dtype_type* names, refused unless a number or bool."""
    element = npydecl.parse_dtype(dtype_type)
    if element is None or not isinstance(element, _scalars()):
        raise errors.TypingError(
            f"array.astype: cannot convert to {element or dtype_type}: only number and bool dtypes"
        )
    return element


@declare("array.astype").lower("Array", "Any")
def array_astype(lower, sig, args):
    source_type, dtype_type = sig.args
    astype_target(dtype_type)
    if not isinstance(source_type.dtype, _scalars()):
        raise errors.TypingError(f"array.astype: the elements of {source_type} are not numbers")
    sizes = arrayviews.parts(args[0], source_type.ndim)[2]
    array = allocate(lower, sig.return_type, sizes, "arr.astype()")
    fill.assign(lower, sig.return_type, array, source_type, args[0])
    return lower.mark_fresh(array)
