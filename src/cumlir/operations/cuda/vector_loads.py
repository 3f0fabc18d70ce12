"""``cuda.vector.load`` and ``cuda.vector.store``: numba-cuda-mlir's loads and stores of
vectors, several elements of an array (or behind a raw pointer) along its last axis at once.

``load(array, index, shape, alignment=None)`` reads ``shape`` elements from ``array[index]``
on; ``store(array, index, vector, alignment=None)`` writes a vector's lanes there. The index
is an integer for a 1-d array or a pointer, else a tuple of one integer per axis. cumlir's
vectors are CUDA's vector types (typerecords/vectors.py): ``shape`` is a constant 1 to 4 and
the elements one of their base types, and the result has ``.x`` ... ``.w``; numba-cuda-mlir's
MLIR vectors of other shapes (8 float16s, 2-d blocks) and arithmetic on them are refused.

Without ``alignment`` each lane is loaded or stored on its own at the address the last axis's
stride gives, so any array works; with it (a constant power of two, at least the element's
size), the lanes are contiguous and their first aligned to it, and they move in accesses as
wide as it allows (one ``ld.v4.f32`` for four float32s at ``alignment=16``); a raw pointer
needs it, as in numba-cuda-mlir. With the index checks (``debug=True``, the simulator) the
last lane's index is checked against the axis, and an aligned access's contiguity and address.
"""

from .._support import arrayviews
from .._support.api import Namespace
from .._support.elements import check_bounds, dim, element_pointer, pointer_element, wrap_index
from .._support.modules import arith, errors, ir, llvm, nvvm, scf, types
from ..python.records import advance
from .vectors import load_vector, store_vector

vector = Namespace("vector", "numba-cuda-mlir's loads and stores of several array elements as one vector.")
load = vector.function(
    "load",
    "load(array, index, shape, alignment=None): the vector of `shape` elements from array[index] on.",
)
store = vector.function(
    "store",
    "store(array, index, vector, alignment=None): the vector's lanes into array[index] on.",
)
# the shape and alignment are constants: typed with their literal values first
load.prefer_literal = store.prefer_literal = True

_ELEMENTS = "int8 ... uint64, float16, float32, float64"


# ---- typing ---------------------------------------------------------------------------------


def _check_place(name, array, index):
    if isinstance(array, types.CPointer):
        if not isinstance(index, types.Integer):
            raise errors.TypingError(f"{name}: a pointer takes one integer index, got {index}")
        return
    if not isinstance(array, types.Array):
        raise errors.TypingError(f"{name} takes an array or a pointer, got {array}")
    if array.ndim == 1 and isinstance(index, types.Integer):
        return
    members = index.types if isinstance(index, types.BaseTuple) else (index,)
    if len(members) != array.ndim or not all(isinstance(t, types.Integer) for t in members):
        raise errors.TypingError(f"{name}: a {array.ndim}-d array takes {array.ndim} integer indices, got {index}")


def _alignment(name, array, alignment):
    """The alignment asked for, in bytes, or None."""
    if alignment is None or isinstance(alignment, (types.NoneType, types.Omitted)):
        if isinstance(array, types.CPointer):
            raise errors.TypingError(f"{name} through a pointer needs alignment=N (a constant), as numba-cuda-mlir's")
        return None
    if not isinstance(alignment, types.IntegerLiteral):
        raise errors.TypingError(f"{name}: alignment must be an int known at compile time, got {alignment}")
    value = alignment.literal_value
    size = array.dtype.bitwidth // 8
    if value <= 0 or value & (value - 1) or value < size:
        raise errors.TypingError(f"{name}: alignment must be a power of 2 of at least {size} bytes, got {value}")
    return value


def _vector_type(name, dtype, shape):
    lanes = shape.types if isinstance(shape, types.BaseTuple) else (shape,)
    if not all(isinstance(t, types.IntegerLiteral) for t in lanes):
        raise errors.TypingError(f"{name}: the shape must be an int known at compile time, got {shape}")
    counts = tuple(t.literal_value for t in lanes)
    base = str(dtype)
    if len(counts) != 1 or counts[0] not in (1, 2, 3, 4) or base not in types.BASE_TYPES:
        raise errors.TypingError(
            f"{name}: cumlir's vectors are CUDA's vector types, 1 to 4 lanes of {_ELEMENTS}; "
            f"{counts} elements of {dtype} is not one"
        )
    return types.vector_type(base, counts[0])


@load.typer
def _load_typing(array, index, shape, alignment=None):
    _check_place("cuda.vector.load", array, index)
    _alignment("cuda.vector.load", array, alignment)
    return _vector_type("cuda.vector.load", array.dtype, shape)


@store.typer
def _store_typing(array, index, value, alignment=None):
    _check_place("cuda.vector.store", array, index)
    _alignment("cuda.vector.store", array, alignment)
    if not isinstance(value, types.VectorType):
        raise errors.TypingError(
            f"cuda.vector.store stores a vector (cuda.float32x4(...), cuda.vector.load), got {value}"
        )
    if not isinstance(array.dtype, (types.Integer, types.Float)) or str(array.dtype) not in types.BASE_TYPES:
        raise errors.TypingError(f"cuda.vector.store: the elements of {array} are not one of {_ELEMENTS}")
    if isinstance(array, types.Array) and not array.mutable:
        raise errors.TypingError(f"cuda.vector.store into a read-only array ({array})")
    return types.none


# ---- lowering -------------------------------------------------------------------------------


def _i64():
    return ir.IntegerType.get_signless(64)


def _first_lane(lower, array_type, array, index_type, index, count):
    """(address of the first lane, bytes from one lane to the next, or None where a raw
    pointer's lanes are contiguous)."""
    if isinstance(array_type, types.CPointer):
        return pointer_element(lower, array_type, array, index_type, index), None
    address = element_pointer(lower, array_type, array, index_type, index)
    axis = array_type.ndim - 1
    if lower.options.checks_indices and count > 1:  # element_pointer checked the first lane's index
        last = index if isinstance(index_type, types.Integer) else lower.extract(index, index_type, axis)
        last_type = index_type if isinstance(index_type, types.Integer) else index_type.types[axis]
        extent = dim(array, axis)
        first = arith.index_cast(_i64(), wrap_index(lower, extent, last, last_type))
        check_bounds(
            lower, arith.addi(first, arith.constant(_i64(), count - 1)), extent, "vector index is out of bounds"
        )
    stride = arrayviews.parts(array, array_type.ndim)[3][axis]
    step = arith.muli(stride, arith.constant(_i64(), arrayviews.unit_bytes(lower, array_type.dtype)))
    return address, step


def _check_aligned_access(lower, address, step, vty, alignment):
    """With the index checks: raise ValueError where an aligned access's lanes are not side by
    side or its first is not aligned."""
    if not lower.options.checks_indices:
        return
    misaligned = arith.cmpi(
        arith.CmpIPredicate.ne,
        arith.remui(llvm.ptrtoint(_i64(), address), arith.constant(_i64(), alignment)),
        arith.constant(_i64(), 0),
    )
    if step is not None and vty.count > 1:
        apart = arith.cmpi(arith.CmpIPredicate.ne, step, arith.constant(_i64(), vty.base_size))
        misaligned = arith.ori(misaligned, apart)
    branch = scf.IfOp(misaligned)
    with ir.InsertionPoint(branch.then_block):
        message = f"cuda.vector with alignment={alignment}: the {vty.count} elements are not contiguous and aligned"
        lower.record_raise(ValueError, (message,))
        nvvm.exit()
        scf.YieldOp([])


def _lane_addresses(address, step, count):
    return [address if k == 0 else advance(address, arith.muli(step, arith.constant(_i64(), k))) for k in range(count)]


def _given_alignment(sig, position):
    found = sig.args[position] if len(sig.args) > position else None
    return found.literal_value if isinstance(found, types.IntegerLiteral) else None


@load.lower
def _load(lower, sig, args):
    array_type, index_type = sig.args[0], sig.args[1]
    vty = sig.return_type
    address, step = _first_lane(lower, array_type, args[0], index_type, args[1], vty.count)
    alignment = _given_alignment(sig, 3)
    if alignment is not None:
        _check_aligned_access(lower, address, step, vty, alignment)
        return load_vector(lower, vty, address, alignment)
    model = lower.dmm.lookup(vty.base_type)
    lanes = [
        model.from_data(llvm.load(model.get_data_type(), lane, alignment=vty.base_size))
        for lane in _lane_addresses(address, step, vty.count)
    ]
    return lower.make_struct(vty, lanes)


@store.lower
def _store(lower, sig, args):
    array_type, index_type, value_type = sig.args[0], sig.args[1], sig.args[2]
    dtype = array_type.dtype
    address, step = _first_lane(lower, array_type, args[0], index_type, args[1], value_type.count)
    # the lanes as the array's elements, converted as assignment converts
    lanes = [
        lower.cast(lower.extract(args[2], value_type, k), value_type.base_type, dtype) for k in range(value_type.count)
    ]
    vty = types.vector_type(str(dtype), value_type.count)
    alignment = _given_alignment(sig, 3)
    if alignment is not None:
        _check_aligned_access(lower, address, step, vty, alignment)
        store_vector(lower, vty, lower.make_struct(vty, lanes), address, alignment)
        return None
    model = lower.dmm.lookup(dtype)
    for lane, value in zip(_lane_addresses(address, step, vty.count), lanes):
        llvm.store(model.as_data(value), lane, alignment=vty.base_size)
    return None
