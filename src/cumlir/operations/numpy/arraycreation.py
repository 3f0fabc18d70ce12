"""Arrays made in device code (``np.empty``, ``np.zeros``, ``np.ones``, ``np.full``, their
``*_like`` forms, ``np.arange``, ``arr.copy()``), allocated by the device runtime (NRT).

Typing: as NumPy (and numba) type them: C-contiguous arrays, float64 unless a dtype is
given; typed whether or not NRT is on, and by these declarations alone (numba's CPU
overloads of the constructors must not accept what cannot be lowered). ``order=`` is
NumPy's (_order.py): "C" or "F" for the constructors, any of "CFAK" for the ``*_like``
forms and ``copy``.

Lowering: the memory is one heap block holding the runtime's MemInfo and then the data;
the memref's allocated pointer is the MemInfo, its aligned pointer the data
(lowering/refcount.py, docs/nrt.md). With NRT off these are refused at their line.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .._support import arrayviews as arrayviews
from .._support import fill
from .._support.api import declare, method
from .._support.modules import arith, errors, ir, memref, npydecl, templates, types
from . import _order

# ---- typing ---------------------------------------------------------------------------------

_PYTHON_DTYPES = {float: "float64", int: "int64", complex: "complex128", bool: "boolean"}


def _empty(shape, dtype=float, order="C"): ...
def _full(shape, fill_value, dtype=None, order="C"): ...
def _like(a, dtype=None, order="K"): ...
def _full_like(a, fill_value, dtype=None, order="K"): ...
def _arange(start, stop=None, step=None, dtype=None): ...


def element_type(name, dtype, default):
    """The numba element type a ``dtype=`` argument names (*default* where it is absent)."""
    if dtype is None or isinstance(dtype, (types.NoneType, types.Omitted)):
        return default
    if isinstance(dtype, types.Function) and dtype.typing_key in _PYTHON_DTYPES:
        return getattr(types, _PYTHON_DTYPES[dtype.typing_key])
    element = npydecl.parse_dtype(dtype)
    if element is None or not isinstance(element, (types.Number, types.Boolean)):
        raise errors.TypingError(f"np.{name}: the dtype must be a number or bool type, got {dtype}")
    return element


def _shape_ndim(name, shape):
    ndim = npydecl.parse_shape(shape)
    if ndim is None:
        raise errors.TypingError(f"np.{name}: the shape must be an integer or a tuple of integers, got {shape}")
    return ndim


def _like_type(name, a, dtype, order):
    """Without order=, numba's layout: F after an F array, else C. With it, NumPy's
    (_order.py): "A" and "K" after a layout-A array choose at run time."""
    if not isinstance(a, types.Array):
        raise errors.TypingError(f"np.{name} needs an array as its first argument, got {a}")
    element = element_type(name, dtype, a.dtype)
    if order is None:
        return types.Array(element, a.ndim, "F" if a.layout == "F" else "C")
    return types.Array(element, a.ndim, _order.layout_of(_order.order_of(f"np.{name}", order, "CFAK", "K"), a))


def _new_layout(name, order):
    return _order.order_of(f"np.{name}", order, "CF", "C")


def _arange_type(start, stop, step, dtype):
    bounds = [types.unliteral(b) for b in (start, stop, step) if b is not None and not isinstance(b, types.NoneType)]
    if any(not isinstance(b, (types.Integer, types.Float, types.Boolean)) for b in bounds):
        raise errors.TypingError(f"np.arange takes integer or float bounds, got {tuple(bounds)}")
    if any(isinstance(b, types.Float) for b in bounds):
        default = types.float64
    else:
        default = max([b for b in bounds if isinstance(b, types.Integer)] + [types.int64])
    return types.Array(element_type("arange", dtype, default), 1, "C")


def _result(name, bound):
    args = bound.arguments
    if name in ("empty", "zeros", "ones", "full"):
        default = types.unliteral(args["fill_value"]) if name == "full" else types.float64
        element = element_type(name, args.get("dtype"), default)
        return types.Array(element, _shape_ndim(name, args["shape"]), _new_layout(name, args.get("order")))
    if name in ("empty_like", "zeros_like", "ones_like", "full_like"):
        return _like_type(name, args["a"], args.get("dtype"), args.get("order"))
    return _arange_type(args["start"], args.get("stop"), args.get("step"), args.get("dtype"))


_CONSTRUCTORS: dict[Callable[..., Any], tuple[str, Callable[..., None]]] = {
    np.empty: ("empty", _empty),
    np.zeros: ("zeros", _empty),
    np.ones: ("ones", _empty),
    np.full: ("full", _full),
    np.empty_like: ("empty_like", _like),
    np.zeros_like: ("zeros_like", _like),
    np.ones_like: ("ones_like", _like),
    np.full_like: ("full_like", _full_like),
    np.arange: ("arange", _arange),
}


def _typing(name, stub):
    pysig = inspect.signature(stub)

    def generic(context, args, kws):
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError as e:
            raise errors.TypingError(f"np.{name}: {e}") from None
        # the arguments given, in the order of the parameters; the signature's pysig names
        # them, so that lowering knows which is which
        names = [p for p in pysig.parameters if p in bound.arguments]
        sig = templates.signature(_result(name, bound), *(bound.arguments[p] for p in names))
        return sig.replace(pysig=inspect.Signature([pysig.parameters[p] for p in names]))

    return generic


for _function, (_name, _stub) in _CONSTRUCTORS.items():
    # literal shapes are kept in the signature: an array of a size known at compile time
    # may live in the kernel's stack (allocate)
    declare(_function, f"NumPy_{_name}", exclusive=True, prefer_literal=True).generic(_typing(_name, _stub))


# ---- lowering -------------------------------------------------------------------------------


def _i64():
    return ir.IntegerType.get_signless(64)


# the largest array made in a kernel's stack (local memory) rather than the device heap
STACK_BYTES = 16 * 1024


def allocate(lower_, array_type, sizes, what, static_sizes=None, fortran=None):
    """A new array of *array_type* with i64 *sizes*, owning one reference: contiguous in its
    layout's order, or for layout A in Fortran order where the i1 *fortran* holds, else C.
    Where its extents are known at compile time (*static_sizes*), it is at most STACK_BYTES
    and the kernel makes it at most once per launch, it lives in a stack slot: no runtime,
    nothing to free, as a cuda.local.array (docs/nrt.md)."""
    if fortran is None:
        fortran = array_type.layout == "F"
    if static_sizes is not None and array_type.layout != "A" and _fits_stack(lower_, array_type, static_sizes):
        return _stack_array(lower_, array_type, static_sizes)
    lower_.require_nrt(what)
    itemsize = types.as_dtype(array_type.dtype).itemsize
    i64 = _i64()
    zero, one = arith.constant(i64, 0), arith.constant(i64, 1)
    count, negative = one, arith.constant(ir.IntegerType.get_signless(1), 0)
    for size in sizes:
        count = arith.muli(count, size)
        negative = arith.ori(negative, arith.cmpi(arith.CmpIPredicate.slt, size, zero))
    # a negative extent asks for more bytes than any heap holds: the runtime reports it
    nbytes = arith.select(negative, arith.constant(i64, -1), arith.muli(count, arith.constant(i64, itemsize)))
    align = arith.constant(ir.IntegerType.get_signless(32), max(itemsize, 16))
    meminfo = lower_.nrt_allocate(nbytes, align)
    return lower_.meminfo_array(array_type, meminfo, sizes, arrayviews.strides_in_order(sizes, fortran))


def _fits_stack(lower_, array_type, static_sizes):
    count = 1
    for size in static_sizes:
        count *= size
    nbytes = count * types.as_dtype(array_type.dtype).itemsize
    return min(static_sizes, default=1) >= 0 and nbytes <= STACK_BYTES and lower_.runs_once_per_array()


def _stack_array(lower_, array_type, static_sizes):
    element = lower_.dmm.lookup(array_type.dtype).get_data_type()
    alloca_type = ir.MemRefType.get(list(static_sizes), element)
    alignment = ir.IntegerAttr.get(_i64(), max(types.as_dtype(array_type.dtype).itemsize, 16))
    with lower_.alloca_insertion_point():
        buffer = memref.alloca(alloca_type, [], [], alignment=alignment)
    if array_type.layout == "F" and len(static_sizes) > 1:
        # the same slot seen in Fortran order (an alloca itself takes only the identity layout)
        strides = [1]
        for size in static_sizes[:-1]:
            strides.append(strides[-1] * size)
        fortran = ir.MemRefType.get(list(static_sizes), element, ir.StridedLayoutAttr.get(0, strides))
        buffer = memref.reinterpret_cast(fortran, buffer, [], [], [], [0], list(static_sizes), strides)
    return lower_.mark_fresh(memref.cast(lower_.get_mlir_type(array_type), buffer))


def _static_sizes(shape_type):
    """The extents of a shape known at compile time (an integer literal or a tuple of them), or None."""
    members = [shape_type] if not isinstance(shape_type, types.BaseTuple) else list(shape_type.types)
    if all(isinstance(m, types.IntegerLiteral) for m in members):
        return [m.literal_value for m in members]
    return None


def _shape_sizes(lower_, shape_type, shape):
    if isinstance(shape_type, types.Integer):
        return [lower_.cast(shape, shape_type, types.int64)]
    return [
        lower_.cast(lower_.extract(shape, shape_type, k), member, types.int64)
        for k, member in enumerate(shape_type.types)
    ]


def _arguments(sig, args):
    """{parameter name: (value, Numba type)} of a constructor call (the typer names them)."""
    return dict(zip(sig.pysig.parameters, zip(args, sig.args)))


def _new(lower_, sig, args, name):
    given = _arguments(sig, args)
    static = None
    if "shape" in given:
        shape, shape_type = given["shape"]
        sizes = _shape_sizes(lower_, shape_type, shape)
        static = _static_sizes(shape_type)
    else:
        array, array_type = given["a"]
        sizes = arrayviews.parts(array, array_type.ndim)[2]
        if sig.return_type.layout == "A":  # order "A" or "K" of a layout-A array: its strides tell
            fortran = arrayviews.fortran_order_first(lower_, array_type, array)
            return allocate(lower_, sig.return_type, sizes, f"np.{name}", fortran=fortran), given
    return allocate(lower_, sig.return_type, sizes, f"np.{name}", static), given


def _filled(lower_, sig, array, value_type, value):
    fill.assign(lower_, sig.return_type, array, value_type, value)
    return lower_.mark_fresh(array)


@declare(np.empty).lower("*Any")
@declare(np.empty_like).lower("*Any")
def np_empty(lower_, sig, args):
    array, _ = _new(lower_, sig, args, "empty")
    return array


def _constant_fill(value):
    def rule(lower_, sig, args):
        array, _ = _new(lower_, sig, args, "zeros" if value == 0 else "ones")
        return _filled(lower_, sig, array, types.int64, lower_.constant(types.int64, value))

    return rule


for _function, _value in ((np.zeros, 0), (np.zeros_like, 0), (np.ones, 1), (np.ones_like, 1)):
    declare(_function).lower("*Any")(_constant_fill(_value))


@declare(np.full).lower("*Any")
@declare(np.full_like).lower("*Any")
def np_full(lower_, sig, args):
    array, given = _new(lower_, sig, args, "full")
    value, value_type = given["fill_value"]
    return _filled(lower_, sig, array, value_type, value)


# ---- a.copy(order="C") -----------------------------------------------------------------------


def _copy(order="C"): ...


array_copy_method = method("Array", "copy")


@array_copy_method.typer
def _copy_typing(receiver, *args, **kws):
    pysig = inspect.signature(_copy)
    try:
        given = pysig.bind(*args, **kws).arguments
    except TypeError as e:
        raise errors.TypingError(f"array.copy: {e}") from None
    order = _order.order_of("array.copy", given.get("order"), "CFAK", "C")
    result = receiver.copy(layout=_order.layout_of(order, receiver), readonly=False)
    sig = templates.signature(result, *given.values(), recvr=receiver)
    return sig.replace(pysig=inspect.Signature([pysig.parameters[p] for p in given]))


@array_copy_method.lower("Array", "*Any")
def array_copy(lower_, sig, args):
    source_type = sig.args[0]
    order = _order.order_of("array.copy", sig.args[1] if len(sig.args) > 1 else None, "CFAK", "C")
    sizes = arrayviews.parts(args[0], source_type.ndim)[2]
    fortran = _order.fortran(lower_, order, source_type, args[0])
    array = allocate(lower_, sig.return_type, sizes, "arr.copy()", fortran=fortran)
    return _filled(lower_, sig, array, source_type, args[0])


# ---- np.arange: the length and the values, stated in Python -----------------------------


def _arange_length_float(start, stop, step):
    if step == 0:
        return -1  # NumPy raises; the allocation of a negative length fails instead
    n = (stop - start) / step
    whole = int(n)
    if whole < n:
        whole += 1
    return max(whole, 0)


def _arange_length_int(start, stop, step):
    if step == 0:
        return -1
    if step > 0:
        return max((stop - start + step - 1) // step, 0)
    return max((stop - start + step + 1) // step, 0)


def _arange_fill(array, start, step):
    for i in range(array.size):
        array[i] = start + i * step


@declare(np.arange).lower("*Any")
def np_arange(lower_, sig, args):
    lower_.require_nrt("np.arange")
    given = _arguments(sig, args)
    bounds = [given[name] for name in ("start", "stop", "step") if name in given]
    if len(bounds) == 1:
        bounds = [(lower_.constant(types.int64, 0), types.int64), bounds[0]]
    if len(bounds) == 2:
        bounds.append((lower_.constant(types.int64, 1), types.int64))
    bound_types = [types.unliteral(t) for _, t in bounds]
    floating = any(isinstance(t, types.Float) for t in bound_types)
    common = (
        types.float64 if floating else max([t for t in bound_types if isinstance(t, types.Integer)] + [types.int64])
    )
    values = [lower_.cast(v, t, common) for v, t in bounds]
    length_of = _arange_length_float if floating else _arange_length_int
    length = lower_.call_python(length_of, templates.signature(types.int64, common, common, common), values)
    array = allocate(lower_, sig.return_type, [length], "np.arange")
    fill_sig = templates.signature(types.none, sig.return_type, common, common)
    lower_.call_python(_arange_fill, fill_sig, [array, values[0], values[2]])
    return lower_.mark_fresh(array)
