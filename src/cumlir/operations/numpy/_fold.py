"""The one loop nest of every reduction: a fold over an array's elements in C order.

``fold`` emits one ``scf.for`` per axis (outermost first, so elements come in the order
of ``a.flat``), carries the accumulators through the loops as their ``iter_args`` and
calls the reduction's step in the innermost body. Element addresses are computed as
the views of ``_arrayviews`` do (signed i64 offsets), so arrays of every layout, views
with negative steps included, are read in place.
"""

from .._support import arrayviews as arrayviews
from .._support.elements import load_element
from .._support.modules import arith, ir, scf


def _i64():
    return ir.IntegerType.get_signless(64)


def size(array, ndim):
    """The number of elements of *array* as an i64."""
    total = arith.constant(_i64(), 1)
    for extent in arrayviews.parts(array, ndim)[2]:
        total = arith.muli(total, extent)
    return total


def fold(lower, array_type, array, initial, step, counted=False):
    """Fold ``step`` over every element of *array* (of Numba type *array_type*) in C order.

    *initial* is a list of MLIR values, the accumulators; ``step(accumulators, element)``
    returns their new values, the element given in its Numba type (``array_type.dtype``).
    With ``counted=True`` the step is ``step(accumulators, element, position)``, position
    being the element's i64 place in C order. Returns the accumulators' final values."""
    dtype = array_type.dtype
    base, offset, sizes, strides = arrayviews.parts(array, array_type.ndim)
    index = ir.IndexType.get()
    zero, one = arith.constant(index, 0), arith.constant(index, 1)
    carried = list(initial) + ([arith.constant(_i64(), 0)] if counted else [])

    def level(axis, where, values):
        if axis == array_type.ndim:
            element = load_element(lower, dtype, *arrayviews.element_at(lower, dtype, base, where))
            if not counted:
                return list(step(values, element))
            position = values[-1]
            after = list(step(values[:-1], element, position))
            return after + [arith.addi(position, arith.constant(_i64(), 1))]
        loop = scf.ForOp(zero, arrayviews.to_index(sizes[axis]), one, values)
        with ir.InsertionPoint(loop.body):
            position = arrayviews.to_i64(loop.induction_variable)
            inner = level(axis + 1, arith.addi(where, arith.muli(position, strides[axis])), list(loop.inner_iter_args))
            scf.YieldOp(inner)
        return list(loop.results)

    final = level(0, offset, carried)
    return final[: len(initial)]
