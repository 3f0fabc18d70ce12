"""Arrays made in device code (``np.empty``, ``np.zeros``, ``np.ones``, ``np.full``, their
``*_like`` forms, ``np.arange``, ``arr.copy()``), allocated by the device runtime (NRT).

The memory is one heap block holding the runtime's MemInfo and then the data; the memref's
allocated pointer is the MemInfo, its aligned pointer the data (refcount.py, docs/nrt.md).
With NRT off these are refused at their line.
"""

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm
from numba.core import types
from numba.core.typing.templates import signature
from numba.np import numpy_support

from ... import nrt
from .. import refcount
from ..registry import lower
from . import arrayviews, fill

def _i64():
    return ir.IntegerType.get_signless(64)


def allocate(lower_, array_type, sizes, what):
    """A new array of *array_type* (C or F layout) with i64 *sizes*, owning one reference."""
    refcount.require_nrt(lower_, what)
    itemsize = numpy_support.as_dtype(array_type.dtype).itemsize
    i64 = _i64()
    zero, one = arith.constant(i64, 0), arith.constant(i64, 1)
    count, negative = one, arith.constant(ir.IntegerType.get_signless(1), 0)
    for size in sizes:
        count = arith.muli(count, size)
        negative = arith.ori(negative, arith.cmpi(arith.CmpIPredicate.slt, size, zero))
    # a negative extent asks for more bytes than any heap holds: the runtime reports it
    nbytes = arith.select(negative, arith.constant(i64, -1), arith.muli(count, arith.constant(i64, itemsize)))
    align = arith.constant(ir.IntegerType.get_signless(32), max(itemsize, 16))
    meminfo = lower_.call_external(nrt.ALLOCATE, llvm.PointerType.get(), [nbytes, align])
    return refcount.meminfo_array(lower_, array_type, meminfo, sizes, _contiguous_strides(sizes, array_type.layout == "F"))


def _contiguous_strides(sizes, fortran):
    order = list(range(len(sizes)))
    if not fortran:
        order.reverse()
    strides = [None] * len(sizes)
    stride = arith.constant(_i64(), 1)
    for axis in order:
        strides[axis] = stride
        stride = arith.muli(stride, sizes[axis])
    return strides


def _shape_sizes(lower_, shape_type, shape):
    if isinstance(shape_type, types.Integer):
        return [lower_.cast(shape, shape_type, types.int64)]
    return [
        lower_.cast(lower_.extract(shape, shape_type, k), member, types.int64) for k, member in enumerate(shape_type.types)
    ]


def _arguments(sig, args):
    """{parameter name: (value, Numba type)} of a constructor call (the typer names them)."""
    return dict(zip(sig.pysig.parameters, zip(args, sig.args)))


def _new(lower_, sig, args, name):
    given = _arguments(sig, args)
    if "shape" in given:
        shape, shape_type = given["shape"]
        sizes = _shape_sizes(lower_, shape_type, shape)
    else:
        array, array_type = given["a"]
        sizes = arrayviews.parts(array, array_type.ndim)[2]
    return allocate(lower_, sig.return_type, sizes, f"np.{name}"), given


def _filled(lower_, sig, array, value_type, value):
    fill.assign(lower_, sig.return_type, array, value_type, value)
    return lower_.mark_fresh(array)


@lower(np.empty, types.VarArg(types.Any))
@lower(np.empty_like, types.VarArg(types.Any))
def np_empty(lower_, sig, args):
    array, _ = _new(lower_, sig, args, "empty")
    return array


def _constant_fill(value):
    def rule(lower_, sig, args):
        array, _ = _new(lower_, sig, args, "zeros" if value == 0 else "ones")
        return _filled(lower_, sig, array, types.int64, lower_.constant(types.int64, value))

    return rule


for _function, _value in ((np.zeros, 0), (np.zeros_like, 0), (np.ones, 1), (np.ones_like, 1)):
    lower(_function, types.VarArg(types.Any))(_constant_fill(_value))


@lower(np.full, types.VarArg(types.Any))
@lower(np.full_like, types.VarArg(types.Any))
def np_full(lower_, sig, args):
    array, given = _new(lower_, sig, args, "full")
    value, value_type = given["fill_value"]
    return _filled(lower_, sig, array, value_type, value)


@lower("array.copy", types.Array)
def array_copy(lower_, sig, args):
    (source_type,) = sig.args
    sizes = arrayviews.parts(args[0], source_type.ndim)[2]
    array = allocate(lower_, sig.return_type, sizes, "arr.copy()")
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


@lower(np.arange, types.VarArg(types.Any))
def np_arange(lower_, sig, args):
    refcount.require_nrt(lower_, "np.arange")
    given = _arguments(sig, args)
    bounds = [given[name] for name in ("start", "stop", "step") if name in given]
    if len(bounds) == 1:
        bounds = [(lower_.constant(types.int64, 0), types.int64), bounds[0]]
    if len(bounds) == 2:
        bounds.append((lower_.constant(types.int64, 1), types.int64))
    bound_types = [types.unliteral(t) for _, t in bounds]
    floating = any(isinstance(t, types.Float) for t in bound_types)
    common = types.float64 if floating else max([t for t in bound_types if isinstance(t, types.Integer)] + [types.int64])
    values = [lower_.cast(v, t, common) for v, t in bounds]
    length_of = _arange_length_float if floating else _arange_length_int
    length = lower_.call_python(length_of, signature(types.int64, common, common, common), values)
    array = allocate(lower_, sig.return_type, [length], "np.arange")
    fill_sig = signature(types.none, sig.return_type, common, common)
    lower_.call_python(_arange_fill, fill_sig, [array, values[0], values[2]])
    return lower_.mark_fresh(array)

