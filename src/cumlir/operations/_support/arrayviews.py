"""Array views: basic indexing (slices, None, Ellipsis, sub-arrays), ``.T``, ``reshape``, ``view``.

A view shares its array's memory: the same base buffer seen through a new offset,
sizes and strides, all computed here in signed i64 arithmetic (steps and strides
may be negative) and applied with ``memref.reinterpret_cast``. The layout of the
result is the one numba's typing gave; a C (F) result keeps a static innermost
(outermost) stride of 1.
"""

from . import slicing
from .elements import wrap_index
from .modules import arith, errors, ir, llvm, memref, nvvm, scf, types


def _i64():
    return ir.IntegerType.get_signless(64)


def _index():
    return ir.IndexType.get()


def to_i64(value):
    return arith.index_cast(_i64(), value) if isinstance(value.type, ir.IndexType) else value


def to_index(value):
    return value if isinstance(value.type, ir.IndexType) else arith.index_cast(_index(), value)


def parts(array, ndim):
    """(base buffer, offset, sizes, strides) of a memref; numbers as i64, counted in elements."""
    base, offset, *rest = memref.extract_strided_metadata(array)
    return base, to_i64(offset), [to_i64(v) for v in rest[:ndim]], [to_i64(v) for v in rest[ndim:]]


def make_view(lower, result_type, base, offset, sizes, strides):
    """The memref of Numba type *result_type* over *base* with the given offset, sizes and strides."""
    memref_type = ir.MemRefType(lower.get_mlir_type(result_type))
    static_strides = list(ir.StridedLayoutAttr(memref_type.layout).strides) if sizes else []
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    dynamic_strides = [to_index(s) for s, fixed in zip(strides, static_strides) if fixed == dynamic]
    return memref.reinterpret_cast(
        memref_type,
        base,
        [to_index(offset)],
        [to_index(s) for s in sizes],
        dynamic_strides,
        [dynamic],
        [ir.ShapedType.get_dynamic_size()] * len(sizes),
        static_strides,
    )


def aligned_pointer(array):
    """The array's data pointer (before its offset) as an !llvm.ptr."""
    address = to_i64(memref.extract_aligned_pointer_as_index(array))
    return llvm.inttoptr(llvm.PointerType.get(), address)


def _index_members(lower, index_type, index):
    if isinstance(index_type, types.BaseTuple):
        return list(index_type.types), [lower.extract(index, index_type, k) for k in range(len(index_type))]
    return [index_type], [index]


def select(lower, array_type, array, index_type, index):
    """Apply a basic index: (base, offset, sizes, strides) of what it selects (sizes empty for one element)."""
    base, offset, sizes, strides = parts(array, array_type.ndim)
    member_types, members = _index_members(lower, index_type, index)
    used = sum(1 for t in member_types if not isinstance(t, (types.NoneType, types.EllipsisType)))
    if used > array_type.ndim:
        raise IndexError(f"too many indices for a {array_type.ndim}-d array: {index_type}")
    axis, out_sizes, out_strides = 0, [], []
    for ty, value in zip(member_types, members):
        if isinstance(ty, types.EllipsisType):
            skipped = array_type.ndim - used
            out_sizes += sizes[axis : axis + skipped]
            out_strides += strides[axis : axis + skipped]
            axis += skipped
        elif isinstance(ty, types.NoneType):
            out_sizes.append(arith.constant(_i64(), 1))
            out_strides.append(arith.constant(_i64(), 0))
        elif isinstance(ty, types.Integer):
            position = to_i64(wrap_index(lower, sizes[axis], value, ty))
            offset = arith.addi(offset, arith.muli(position, strides[axis]))
            axis += 1
        elif isinstance(ty, types.SliceType):
            start, count, step = slicing.select(lower, ty, value, sizes[axis])
            offset = arith.addi(offset, arith.muli(start, strides[axis]))
            out_sizes.append(count)
            out_strides.append(arith.muli(strides[axis], step))
            axis += 1
        else:
            raise NotImplementedError(f"indexing an array with {ty} (advanced indexing) is not supported")
    return base, offset, out_sizes + sizes[axis:], out_strides + strides[axis:]


def element_at(lower, dtype, base, offset):
    """A one-element memref at *offset* elements from *base*, and the indices to access it."""
    element = ir.MemRefType(base.type).element_type
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    view_type = ir.MemRefType.get([1], element, ir.StridedLayoutAttr.get(dynamic, [1]))
    view = memref.reinterpret_cast(view_type, base, [to_index(offset)], [], [], [dynamic], [1], [1])
    return view, [arith.constant(_index(), 0)]


def transpose(lower, array_type, array, result_type):
    base, offset, sizes, strides = parts(array, array_type.ndim)
    return make_view(lower, result_type, base, offset, sizes[::-1], strides[::-1])


def c_strides(sizes, unit=1):
    """Strides of a C-contiguous array of *sizes*, in units of which an element is *unit*
    (1, or the item size for arrays of records, whose strides count bytes)."""
    strides, step = [], arith.constant(_i64(), unit)
    for size in reversed(sizes):
        strides.insert(0, step)
        step = arith.muli(step, size)
    return strides


def strides_in_order(sizes, fortran, unit=1):
    """Strides of a contiguous array of *sizes* in C order, or in Fortran order where
    *fortran* is True; *fortran* may be an i1 known only at run time, which picks each."""
    c = c_strides(sizes, unit)
    f = c_strides(sizes[::-1], unit)[::-1]
    if isinstance(fortran, bool):
        return f if fortran else c
    return [arith.select(fortran, f_stride, c_stride) for f_stride, c_stride in zip(f, c)]


def _contiguous_in(sizes, strides, unit, axes):
    """Whether strides are those of a contiguous array with *axes* from the fastest varying
    (NumPy's flags: an axis of extent 1 may have any stride; an empty array is both)."""
    i1 = ir.IntegerType.get_signless(1)
    zero, one = arith.constant(_i64(), 0), arith.constant(_i64(), 1)
    holds, empty, expected = arith.constant(i1, 1), arith.constant(i1, 0), arith.constant(_i64(), unit)
    for axis in axes:
        single = arith.cmpi(arith.CmpIPredicate.eq, sizes[axis], one)
        matches = arith.cmpi(arith.CmpIPredicate.eq, strides[axis], expected)
        holds = arith.andi(holds, arith.ori(single, matches))
        empty = arith.ori(empty, arith.cmpi(arith.CmpIPredicate.eq, sizes[axis], zero))
        expected = arith.muli(expected, sizes[axis])
    return arith.ori(holds, empty)


def fortran_order_first(lower, array_type, array):
    """NumPy's order 'A' for *array*: whether it is Fortran-contiguous and not C-contiguous,
    from its type where that tells, else (layout A) from its strides at run time: True, False
    or an i1."""
    if array_type.ndim < 2 or array_type.layout == "C":
        return False
    if array_type.layout == "F":
        return True
    _, _, sizes, strides = parts(array, array_type.ndim)
    unit = lower.dmm.lookup(array_type.dtype).memref_element()[1]
    axes = list(range(array_type.ndim))
    fortran = _contiguous_in(sizes, strides, unit, axes)
    c = _contiguous_in(sizes, strides, unit, axes[::-1])
    return arith.andi(fortran, arith.xori(c, arith.constant(ir.IntegerType.get_signless(1), 1)))


def reshape(lower, array_type, array, shape, result_type, order="C"):
    """Contiguous arrays only (numba's typing refuses others); one extent may be -1. The
    elements are read and placed in *order* ("C" or "F"), which must be the array's own
    memory order: another is a copy in NumPy, refused here."""
    if array_type.ndim > 1 and array_type.layout != order:  # a 1-d contiguous array is in both orders
        ordered = {"C": "C order", "F": "Fortran order"}
        raise errors.UnsupportedError(
            f"reshape() in {ordered[order]} of an array in {ordered[array_type.layout]} needs a copy (numba "
            "raises at run time); reshape the transposed array, or pass the array's own order (order='A')",
            lower.loc,
        )
    base, offset, sizes, _ = parts(array, array_type.ndim)
    total = arith.constant(_i64(), 1)
    for s in sizes:
        total = arith.muli(total, s)
    known = arith.constant(_i64(), 1)
    for s in shape:
        known = arith.muli(known, s)
    # with one -1 the product of the others is -known; the missing extent is total / that.
    # A 0 among the extents (an empty array) makes it 0: divided by 1 instead, since a
    # division by zero is undefined (and traps on the simulator's CPU)
    zero = arith.constant(_i64(), 0)
    divisor = arith.subi(zero, known)
    divisor = arith.select(arith.cmpi(arith.CmpIPredicate.eq, divisor, zero), arith.constant(_i64(), 1), divisor)
    missing = arith.divsi(total, divisor)
    minus_one = arith.constant(_i64(), -1)
    shape = [arith.select(arith.cmpi(arith.CmpIPredicate.eq, s, minus_one), missing, s) for s in shape]
    unit = lower.dmm.lookup(array_type.dtype).memref_element()[1]
    return make_view(lower, result_type, base, offset, shape, strides_in_order(shape, order == "F", unit))


def itemsize(dtype):
    """Bytes per element as arrays hold them: booleans one, datetimes eight, and the types
    NumPy has no dtype for (bfloat16, the narrow floats, complex32) their ml_dtypes size, the
    4- and 6-bit floats a byte each, CUDA's vector types their CUDA size."""
    if isinstance(dtype, types.Boolean):
        return 1
    if isinstance(dtype, (types.NPDatetime, types.NPTimedelta)):
        return 8
    if isinstance(dtype, types.Number):
        return max(1, dtype.bitwidth // 8)
    if isinstance(dtype, (types.CAggregate, types.VectorType)):  # NumPy has no dtype of these
        return dtype.size
    return types.as_dtype(dtype).itemsize


def unit_bytes(lower, dtype):
    """Bytes per unit of the offset and strides of an array of *dtype*'s memref: 1 where the
    memref counts bytes (records, vectors: models' memref_element gives i8 and the item size),
    else the item size."""
    _, unit = lower.dmm.lookup(dtype).memref_element()
    return 1 if unit != 1 else itemsize(dtype)


def data_pointer(lower, array_type, array):
    """The address of the array's first element (its base pointer moved by its offset), an
    !llvm.ptr."""
    _, offset, _, _ = parts(array, array_type.ndim)
    start = arith.muli(offset, arith.constant(_i64(), unit_bytes(lower, array_type.dtype)))
    i8 = ir.IntegerType.get_signless(8)
    return llvm.getelementptr(llvm.PointerType.get(), aligned_pointer(array), [start], [-(2**31)], i8, 0)


def view_as(lower, array_type, array, result_type):
    """``arr.view(dtype)``: the same bytes read as another dtype. With another item size the
    contiguous axis changes length and the other strides scale, as numba does: the last axis
    of a C array, the first of an F array, and for layout A whichever has unit stride at run
    time (the last where both do). Offsets and strides are converted through bytes: arrays of
    records and vector types count bytes (unit_bytes). With the index checks (debug=True, the
    simulator), that axis not contiguous, or its bytes not divided by the new item size, or a
    view of a vector type whose data is not aligned to it, raises ValueError as NumPy's view
    or CUDA's load would fail."""
    if isinstance(array_type.dtype, types.Record) or isinstance(result_type.dtype, types.Record):
        raise errors.UnsupportedError(f"viewing {array_type} as {result_type.dtype} (records) is not supported yet")
    old, new = itemsize(array_type.dtype), itemsize(result_type.dtype)
    from_unit, to_unit = unit_bytes(lower, array_type.dtype), unit_bytes(lower, result_type.dtype)
    _, offset, sizes, source_strides = parts(array, array_type.ndim)

    def scaled(value, by, over):
        if by == over:
            return value
        return arith.divsi(arith.muli(value, arith.constant(_i64(), by)), arith.constant(_i64(), over))

    strides = [scaled(s, from_unit, to_unit) for s in source_strides]
    if array_type.ndim and old != new:
        contiguous = old // from_unit  # the stride of a contiguous axis, in the array's units

        def changed(axis):
            """(sizes, strides) of the view whose *axis* holds the new elements."""
            step = arith.constant(_i64(), new // to_unit)  # one new element further
            return (
                [scaled(n, old, new) if k == axis else n for k, n in enumerate(sizes)],
                [step if k == axis else s for k, s in enumerate(strides)],
            )

        if array_type.ndim == 1 or array_type.layout in "CF":
            axis = 0 if array_type.layout == "F" else array_type.ndim - 1
            extent, stride = sizes[axis], source_strides[axis]
            sizes, strides = changed(axis)
        else:
            last, first = changed(array_type.ndim - 1), changed(0)
            unit = arith.cmpi(arith.CmpIPredicate.eq, source_strides[-1], arith.constant(_i64(), contiguous))
            extent = arith.select(unit, sizes[-1], sizes[0])
            stride = arith.select(unit, source_strides[-1], source_strides[0])
            sizes = [arith.select(unit, a, b) for a, b in zip(last[0], first[0])]
            strides = [arith.select(unit, a, b) for a, b in zip(last[1], first[1])]
        if lower.options.checks_indices:
            _check_contiguous(lower, extent, stride, contiguous, array_type)
            _check_divides(lower, arith.muli(extent, arith.constant(_i64(), old)), new, array_type, result_type)
    offset = scaled(offset, from_unit, to_unit)
    view = lower.memref_from_params(result_type, [aligned_pointer(array), offset, *sizes, *strides])
    alignment = getattr(result_type.dtype, "alignment", 1)
    if lower.options.checks_indices and isinstance(result_type.dtype, types.VectorType) and alignment > 1:
        _check_divides(
            lower, llvm.ptrtoint(_i64(), data_pointer(lower, result_type, view)), alignment, array_type, result_type
        )
    return view


def _check_contiguous(lower, size, stride, expected, array_type):
    """Raise ValueError where the axis a view changes (of *size* elements) does not hold its
    elements side by side (its *stride*, in the array's units, is not *expected*)."""
    one = arith.constant(_i64(), 1)
    apart = arith.cmpi(arith.CmpIPredicate.ne, stride, arith.constant(_i64(), expected))
    bad = arith.andi(apart, arith.cmpi(arith.CmpIPredicate.sgt, size, one))
    branch = scf.IfOp(bad)
    with ir.InsertionPoint(branch.then_block):
        lower.record_raise(
            ValueError, (f"cannot view {array_type} as another item size: the axis it changes is not contiguous",)
        )
        nvvm.exit()
        scf.YieldOp([])


def _check_divides(lower, value, divisor, array_type, result_type):
    """Raise ValueError where *divisor* does not divide the i64 *value* (a byte count or address)."""
    what = (
        "the bytes of the axis it changes"
        if not isinstance(result_type.dtype, types.VectorType)
        else "its data's address"
    )
    message = f"cannot view {array_type} as {result_type.dtype}: {divisor} does not divide {what}"
    remainder = arith.remsi(value, arith.constant(_i64(), divisor))
    bad = arith.cmpi(arith.CmpIPredicate.ne, remainder, arith.constant(_i64(), 0))
    branch = scf.IfOp(bad)
    with ir.InsertionPoint(branch.then_block):
        lower.record_raise(ValueError, (message,))
        nvvm.exit()
        scf.YieldOp([])


def complex_part(lower, array_type, array, imaginary):
    """``arr.real`` / ``arr.imag`` of a complex array: a view of its float parts, with twice
    the strides in floats and, for the imaginary part, one float further in."""
    result_type = array_type.copy(dtype=array_type.dtype.underlying_float, layout="A")
    _, offset, sizes, strides = parts(array, array_type.ndim)
    two = arith.constant(_i64(), 2)
    offset = arith.addi(arith.muli(offset, two), arith.constant(_i64(), int(imaginary)))
    strides = [arith.muli(s, two) for s in strides]
    return lower.memref_from_params(result_type, [aligned_pointer(array), offset, *sizes, *strides])
