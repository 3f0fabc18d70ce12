"""Array methods that keep or copy an array's elements: ``a.fill(v)``, ``a.ravel()`` and
``np.ravel(a)``, ``a.flatten()``, ``a.astype(dtype)``.

``fill`` stores into the array itself (any layout, no allocation). ``ravel`` of an array
contiguous in the order asked (``order=``, NumPy's: _order.py; C by default) is a 1-d view
of the same memory, as a reshape is; of any other array, and ``flatten`` always, a new
array of its elements in that order. ``astype`` makes a new array of the same
shape (F order for F arrays, else C, as NumPy's default ``order="K"`` gives for contiguous
inputs), each element converted as assignment converts it (floats to integers truncate).
New arrays come from the device runtime (arraycreation.allocate).
"""

import inspect

import numpy as np

from .._support import arrayviews as arrayviews
from .._support import fill
from .._support.api import declare, method
from .._support.modules import arith, errors, npydecl, templates, types
from . import _order
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


# ---- ravel, flatten: one axis, in C order or another ------------------------------------------


def _count(lower, sizes):
    count = lower.constant(types.int64, 1)
    for size in sizes:
        count = arith.muli(count, size)
    return count


def _flat_copy(lower, source_type, source, result_type, what, fortran=False):
    """A new 1-d array holding *source*'s elements in C order (Fortran order where *fortran*,
    a bool or an i1, holds): the source is copied into a view of the new array with the
    source's own shape and the strides of that order."""
    sizes = arrayviews.parts(source, source_type.ndim)[2]
    count = _count(lower, sizes)
    flat = allocate(lower, result_type, [count], what)
    layout = "A" if not isinstance(fortran, bool) else "F" if fortran else "C"
    shaped_type = types.Array(result_type.dtype, source_type.ndim, layout)
    base, offset, _, _ = arrayviews.parts(flat, 1)
    strides = arrayviews.strides_in_order(sizes, fortran)
    shaped = arrayviews.make_view(lower, shaped_type, base, offset, sizes, strides)
    fill.assign(lower, shaped_type, shaped, source_type, source)
    return lower.mark_fresh(flat)


def _raveled_order(name, array_type, order):
    """The order ("C", "F", or None: the strides tell at run time) *order* reads *array_type*
    in. "K" (memory order) of a layout-A array would need its axes sorted by their strides."""
    order = _order.order_of(name, order, "CFAK", "C")
    found = _order.known(order, array_type)
    if found is None and order == "K":
        raise errors.TypingError(
            f"{name}: order='K' of {array_type}, whose memory order is known only at run time, is not supported; "
            "use 'C', 'F' or 'A'"
        )
    return order, found


def _is_view(array_type, found):
    """Whether ravel in the order *found* reads *array_type*'s memory as it lies."""
    return found is not None and array_type.layout in "CF" and (array_type.ndim < 2 or array_type.layout == found)


def _ravel_type(name, array_type, order):
    _, found = _raveled_order(name, array_type, order)
    view = _is_view(array_type, found)
    return array_type.copy(ndim=1, layout="C", readonly=view and not array_type.mutable)


def _ravel(lower, array_type, array, result_type, order, what):
    order, found = _raveled_order(what, array_type, order)
    sizes = arrayviews.parts(array, array_type.ndim)[2]
    if _is_view(array_type, found):
        return arrayviews.reshape(lower, array_type, array, [_count(lower, sizes)], result_type, array_type.layout)
    fortran = _order.fortran(lower, order, array_type, array)
    return _flat_copy(lower, array_type, array, result_type, what, fortran)


def _ravel_stub(order="C"): ...


def _method_typing(name, result_type):
    """The typing of ``a.<name>(order="C")``: the signature holds the order where given."""
    pysig = inspect.signature(_ravel_stub)

    def typer(receiver, *args, **kws):
        try:
            given = pysig.bind(*args, **kws).arguments
        except TypeError as e:
            raise errors.TypingError(f"array.{name}: {e}") from None
        sig = templates.signature(result_type(receiver, given.get("order")), *given.values(), recvr=receiver)
        return sig.replace(pysig=inspect.Signature([pysig.parameters[p] for p in given]))

    return typer


def _given_order(sig):
    return sig.args[1] if len(sig.args) > 1 else None


array_ravel_method = method("Array", "ravel")
array_ravel_method.typer(_method_typing("ravel", lambda a, order: _ravel_type("array.ravel", a, order)))


@array_ravel_method.lower("Array", "*Any")
def array_ravel(lower, sig, args):
    return _ravel(lower, sig.args[0], args[0], sig.return_type, _given_order(sig), "arr.ravel()")


np_ravel = declare(np.ravel, "NumPy_ravel", exclusive=True)


@np_ravel.typer
def _np_ravel_typing(a, order=None):
    if not isinstance(a, types.Array):
        raise errors.TypingError(f"np.ravel takes an array, got {a}")
    return _ravel_type("np.ravel", a, order)


@np_ravel.lower("Array", "*Any")
def _np_ravel(lower, sig, args):
    return _ravel(lower, sig.args[0], args[0], sig.return_type, _given_order(sig), "np.ravel")


def _flatten_type(array_type, order):
    _raveled_order("array.flatten", array_type, order)
    # a new array, always: writable whatever the source
    return array_type.copy(ndim=1, layout="C", readonly=False)


array_flatten_method = method("Array", "flatten")
array_flatten_method.typer(_method_typing("flatten", _flatten_type))


@array_flatten_method.lower("Array", "*Any")
def array_flatten(lower, sig, args):
    array_type = sig.args[0]
    order, _ = _raveled_order("arr.flatten()", array_type, _given_order(sig))
    fortran = _order.fortran(lower, order, array_type, args[0])
    return _flat_copy(lower, array_type, args[0], sig.return_type, "arr.flatten()", fortran)


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
