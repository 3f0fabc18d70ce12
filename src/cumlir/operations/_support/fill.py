"""Assignment to a view (``a[1:5] = x``, ``a[:, 0] = b[2]``, a record's sub-array field
assigned whole): one loop nest over the view.

The value is a scalar, stored into every element, or an array broadcast against
the view as NumPy does (missing leading axes and axes of extent 1 repeat).
"""

from . import arrayviews as arrayviews
from .elements import load_element, store_element
from .modules import arith, ir, scf, types


def _loop_nest(extents, body):
    """Call body(indices) inside loops over 0 <= indices[k] < extents[k] (i64 extents)."""
    index = ir.IndexType.get()

    def level(k, indices):
        if k == len(extents):
            body(indices)
            return
        loop = scf.ForOp(arith.constant(index, 0), arrayviews.to_index(extents[k]), arith.constant(index, 1))
        with ir.InsertionPoint(loop.body):
            level(k + 1, indices + [arrayviews.to_i64(loop.induction_variable)])
            scf.YieldOp([])

    level(0, [])


def _offset(offset, strides, indices):
    for stride, position in zip(strides, indices):
        offset = arith.addi(offset, arith.muli(position, stride))
    return offset


def _broadcast_strides(sizes, strides):
    """Strides with the axes of extent 1 repeating (stride 0)."""
    one, zero = (arith.constant(ir.IntegerType.get_signless(64), v) for v in (1, 0))
    return [arith.select(arith.cmpi(arith.CmpIPredicate.eq, n, one), zero, s) for n, s in zip(sizes, strides)]


def source(lower, ndim, value_type, value):
    """A function of the indices of an *ndim*-d loop nest giving *value* broadcast against
    it as NumPy does: an array's element (missing leading axes and axes of extent 1
    repeat), or a scalar itself. Values keep their Numba type (the array's dtype)."""
    if not isinstance(value_type, types.Array):
        return lambda indices: value
    if value_type.ndim > ndim:
        raise ValueError(f"cannot broadcast a {value_type.ndim}-d array to {ndim} dimensions")
    base, offset, sizes, strides = arrayviews.parts(value, value_type.ndim)
    strides = _broadcast_strides(sizes, strides)
    skipped = ndim - value_type.ndim
    dtype = value_type.dtype

    def element(indices):
        where = _offset(offset, strides, indices[skipped:])
        return load_element(lower, dtype, *arrayviews.element_at(lower, dtype, base, where))

    return element


def store_each(lower, view_type, view, element):
    """Store element(indices) (of the view's dtype) into every element of the view."""
    dtype = view_type.dtype
    base, offset, sizes, strides = arrayviews.parts(view, view_type.ndim)

    def store(indices):
        target, at = arrayviews.element_at(lower, dtype, base, _offset(offset, strides, indices))
        store_element(lower, dtype, element(indices), target, at)

    _loop_nest(sizes, store)


def assign(lower, view_type, view, value_type, value):
    if isinstance(value_type, types.Array) and value_type.ndim > view_type.ndim:
        raise ValueError(f"cannot assign a {value_type.ndim}-d array to a {view_type.ndim}-d selection")
    item = source(lower, view_type.ndim, value_type, value)
    item_type = value_type.dtype if isinstance(value_type, types.Array) else value_type
    store_each(lower, view_type, view, lambda indices: lower.cast(item(indices), item_type, view_type.dtype))
