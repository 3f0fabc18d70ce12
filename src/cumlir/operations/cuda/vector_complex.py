"""Two-lane vectors and complex numbers, one from the other, as numba-cuda-mlir converts them:
the lane ``x`` is the real part and ``y`` the imaginary part.

- ``complex(v)`` of a 2-lane vector is a complex64 when its lanes fit a float32 exactly (float
  lanes of 32 bits or fewer, integer lanes of 16 bits or fewer), a complex128 otherwise;
- ``np.complex64(v)`` and ``np.complex128(v)`` convert its lanes to that type's parts;
- ``cuda.float32x2(z)`` (any 2-lane vector type) is built by its constructor
  (``vectors.py``);
- an element of an array of a 2-lane vector type may be assigned a complex number, and an
  element of a complex array a 2-lane vector (``smem[i] = z``, ``out[i] = smem[i]``).

Vectors of 1, 3 or 4 lanes have no complex counterpart: a typing error naming the vector.
"""

import operator

from .._support.api import NUMBER_CLASS_CALL, cast, declare
from .._support.modules import arraydecl, cx, errors, templates, types


def _two_lanes(what, vector):
    if vector.count != 2:
        raise errors.TypingError(
            f"{what}: a complex number is made of a vector of 2 lanes (x real, y imaginary); "
            f"{vector} has {vector.count}"
        )


def _complex_of(vector):
    """The complex type holding a 2-lane vector's lanes exactly, as complex() chooses it."""
    lane = vector.base_type
    narrow = lane.bitwidth <= 32 if isinstance(lane, types.Float) else lane.bitwidth <= 16
    return types.complex64 if narrow else types.complex128


complex_of_vector = declare(complex, "complex() of a vector")


@complex_of_vector.generic
def _complex_typing(context, args, kws):
    if kws or len(args) != 1 or not isinstance(args[0], types.VectorType):
        return None
    _two_lanes(f"complex({args[0]})", args[0])
    return templates.signature(_complex_of(args[0]), args[0])


# numba's own typing of np.complex64(x) takes numbers only
number_class_of_vector = declare(NUMBER_CLASS_CALL, "np.complex64(v), np.complex128(v)")


@number_class_of_vector.generic
def _number_class_typing(context, args, kws):
    if kws or len(args) != 2 or not isinstance(args[1], types.VectorType):
        return None
    target, vector = args[0].instance_type, args[1]
    if not isinstance(target, types.Complex):
        raise errors.TypingError(f"np.{target}({vector}): a vector converts to a complex type only, not to {target}")
    _two_lanes(f"np.{target}({vector})", vector)
    return templates.signature(target, *args)


@complex_of_vector.lower("VectorType")
def complex_from_vector(lower, sig, args):
    return lower.cast(args[0], sig.args[0], sig.return_type)


@cast("VectorType", "Complex")
def vector_to_complex(lower, fromty, toty, value):
    part = toty.underlying_float
    real, imag = (lower.cast(lower.extract(value, fromty, k), fromty.base_type, part) for k in (0, 1))
    return cx.create_(lower.get_mlir_type(toty), real, imag)


@cast("Complex", "VectorType")
def complex_to_vector(lower, fromty, toty, value):
    part = fromty.underlying_float
    lanes = [lower.cast(p, part, toty.base_type) for p in (cx.re(value), cx.im(value))]
    return lower.make_struct(toty, lanes)


# ---- array elements -----------------------------------------------------------------------------


def _crosses(dtype, value):
    """Whether storing *value* into an array of *dtype* converts between a vector and a complex number."""
    if isinstance(dtype, types.VectorType) and isinstance(value, types.Complex):
        return True
    return isinstance(dtype, types.Complex) and isinstance(value, types.VectorType)


@declare(operator.setitem, "complex numbers and 2-lane vectors stored into each other's arrays").generic
def _setitem_typing(context, args, kws):
    if kws or len(args) != 3 or not isinstance(args[0], types.Array):
        return None
    array, index, value = args
    if not array.mutable or not _crosses(array.dtype, value):
        return None
    vector = array.dtype if isinstance(array.dtype, types.VectorType) else value
    _two_lanes(f"storing a {value} into an array of {array.dtype}", vector)
    selected = arraydecl.get_array_index_type(array, index)
    return None if selected is None else templates.signature(types.none, array, selected.index, value)
