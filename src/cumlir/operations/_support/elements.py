"""Array elements: wrapping and checking an index into an axis, and loading or storing
the element at a position (records are held by reference: see ELEMENT_ACCESS).

Shared by the array rules (arrays.py), views (arrayviews.py), assignment to views
(fill.py), iteration (iterators.py), atomics and the builder's ``element_pointer``.
"""

from __future__ import annotations

from collections.abc import Callable

from .modules import arith, ir, llvm, memref, nvvm, scf, types

# a failed bounds check ends the thread (as lowering's ``raise`` does, lowering/exceptions.py)


def _index_type():
    return ir.IndexType.get()


def i64():
    return ir.IntegerType.get_signless(64)


def element_offset(lower, offset, positions, strides):
    """The offset (i64, in elements) of the element at *positions* (MLIR indices, in bounds)
    of a view whose own offset and strides are the i64s *offset* and *strides*.

    With index_bits=32 every array the kernel reaches spans less than 2**31 bytes, so each
    partial sum, the offset of an element of the array the view is taken from, fits in an
    int32: the sum is computed in 32 bits (no signed wrap) and widened once, as C's int
    indices are; LLVM then narrows the index arithmetic feeding it."""
    # a 1-d offset is its index times one stride: nothing to narrow, and a loop's i64 counter
    # truncated and widened again at each access costs LLVM its unrolling (nbody's loop)
    if not lower.options.narrow_addresses or len(positions) < 2:
        for position, stride in zip(positions, strides):
            offset = arith.addi(offset, arith.muli(arith.index_cast(i64(), position), stride))
        return offset
    i32 = ir.IntegerType.get_signless(32)
    nsw = ir.Attribute.parse("#arith.overflow<nsw>")
    # the truncations lose nothing (nsw): LLVM may then widen a loop's i32 index back to the
    # i64 it came from instead of sign-extending it again at each access

    def narrowed(value):
        return arith.trunci(i32, value, overflow_flags=nsw)

    total = narrowed(offset)
    for position, stride in zip(positions, strides):
        term = arith.muli(narrowed(arith.index_cast(i64(), position)), narrowed(stride), overflow_flags=nsw)
        total = arith.addi(total, term, overflow_flags=nsw)
    return arith.extsi(i64(), total)


def dim(array, axis):
    """The extent of *axis* as an i64."""
    extent = memref.dim(array, arith.constant(_index_type(), axis))
    return arith.index_cast(i64(), extent)


def wrap_index(lower, length, index, index_type):
    """An index into an axis of *length* (i64) as an MLIR index: negative signed indices count
    from the end (numba's wraparound); with debug=True, or the simulator's checks, an index outside
    the axis raises IndexError."""
    if isinstance(index_type, types.Integer) and index_type.signed:
        index = lower.cast(index, index_type, types.int64)
        negative = arith.cmpi(arith.CmpIPredicate.slt, index, arith.constant(i64(), 0))
        index = arith.select(negative, arith.addi(index, length), index)
    else:
        index = lower.cast(index, index_type, types.uint64)
    if lower.options.checks_indices:
        check_bounds(lower, index, length)
    return arith.index_cast(_index_type(), index)


def check_bounds(lower, index, length, message="index is out of bounds"):
    """Raise IndexError(*message*) where the i64 *index* is not below *length* (with
    debug=True, or the simulator's checks: Options.checks_indices)."""
    # one unsigned comparison also catches indices still negative after wrapping
    outside = arith.cmpi(arith.CmpIPredicate.uge, index, length)
    branch = scf.IfOp(outside)
    with ir.InsertionPoint(branch.then_block):
        lower.record_raise(IndexError, (message,))
        nvvm.exit()
        scf.YieldOp([])


_GEP_DYNAMIC = -(2**31)  # llvm.getelementptr's marker for an index taken from the operands


def complex_pair(complex_type):
    """The LLVM struct a complex number of MLIR type *complex_type* is in memory: (real, imag)."""
    part = complex_type.element_type
    return llvm.StructType.get_literal([part, part])


def pointer_element(lower, pointer_type, pointer, index_type, index):
    """The address of element *index* (an integer of Numba type *index_type*) past the raw
    pointer *pointer* (Numba type ``CPointer(dtype)``), as C's ``pointer + index``."""
    dtype = pointer_type.dtype
    element, unit = lower.dmm.lookup(dtype).memref_element()
    if isinstance(element, ir.ComplexType):  # a complex number in memory: a pair of floats
        element = complex_pair(element)
    offset = lower.cast(index, index_type, types.int64 if index_type.signed else types.uint64)
    if unit != 1:  # records: memref_element gives bytes and the record's size
        offset = arith.muli(offset, arith.constant(i64(), unit))
    return llvm.getelementptr(llvm.PointerType.get(), pointer, [offset], [_GEP_DYNAMIC], element, 0)


def element_pointer(lower, array_type, array, index_type, index):
    """The address of one element as an !llvm.ptr (generic address space): *index* is an
    integer or a tuple of one integer per axis, wrapped and checked as element access does.
    The offset is computed with signed arithmetic, so arrays of any layout and stride work.
    A raw pointer (``CPointer``) takes one integer, unchecked (``pointer_element``)."""
    if isinstance(array_type, types.CPointer):
        return pointer_element(lower, array_type, array, index_type, index)
    if isinstance(index_type, types.BaseTuple):
        members = [lower.extract(index, index_type, k) for k in range(len(index_type))]
        member_types = index_type.types
    else:
        members, member_types = [index], [index_type]
    if len(members) != array_type.ndim:
        raise TypeError(f"{array_type} needs {array_type.ndim} indices, got {index_type}")
    base, offset, *rest = memref.extract_strided_metadata(array)
    strides = [arith.index_cast(i64(), s) for s in rest[array_type.ndim :]]
    positions = [
        wrap_index(lower, dim(array, axis), member, member_type)
        for axis, (member, member_type) in enumerate(zip(members, member_types))
    ]
    offset = element_offset(lower, arith.index_cast(i64(), offset), positions, strides)
    address = arith.index_cast(i64(), memref.extract_aligned_pointer_as_index(base))
    pointer = llvm.inttoptr(llvm.PointerType.get(), address)
    element, _ = lower.dmm.lookup(array_type.dtype).memref_element()  # bytes, for arrays counting bytes
    return llvm.getelementptr(llvm.PointerType.get(), pointer, [offset], [_GEP_DYNAMIC], element, 0)


# element types whose elements are not a plain load and store: the name of a type class in
# cumlir.types -> (load, store) with load(lower, dtype, target, indices) and
# store(lower, dtype, value, target, indices)
ELEMENT_ACCESS: dict[str, tuple[Callable[..., object], Callable[..., None]]] = {}


# element types assigned by value (C structs) whose fields are read and written alone in an
# element: the name of a type class in cumlir.types -> (load, store) with load(lower, dtype,
# pointer, path) giving, and store(lower, dtype, pointer, path, value) storing, the field reached
# through the field names *path* of the element at *pointer* (lowering/places.py: ``a[i].x``
# and ``a[i].x = v`` read and write the bytes of x, and no other byte of a[i])
FIELD_ACCESS: dict[str, tuple[Callable[..., object], Callable[..., None]]] = {}


def _by_class(table, dtype):
    for cls in type(dtype).__mro__:
        if cls.__name__ in table and getattr(types, cls.__name__, None) is cls:
            return table[cls.__name__]
    return None


def _element_access(dtype):
    return _by_class(ELEMENT_ACCESS, dtype)


def field_access(dtype):
    """The (load, store) of FIELD_ACCESS for elements of *dtype*, or None."""
    return _by_class(FIELD_ACCESS, dtype)


def load_element(lower, dtype, target, indices):
    """The element of *target* at *indices* (records yield a reference to the element
    rather than its loaded value: see ELEMENT_ACCESS)."""
    access = _element_access(dtype)
    if access is not None:
        return access[0](lower, dtype, target, indices)
    return lower.dmm.lookup(dtype).from_data(memref.load(target, indices))


def store_element(lower, dtype, value, target, indices):
    access = _element_access(dtype)
    if access is not None:
        return access[1](lower, dtype, value, target, indices)
    memref.store(lower.dmm.lookup(dtype).as_data(value), target, indices)
