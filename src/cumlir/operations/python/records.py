"""Records (NumPy structured scalars).

Typing: an unknown field name is a typing error naming the field (numba's own record
templates look fields up unchecked, and a bare KeyError would escape type inference);
these come first and reject unknown names, then leave known ones to numba.

A record is held by reference, as an ``!llvm.ptr`` to its bytes (models.RecordModel):
reading a field loads from the pointer at the field's offset, writing a field stores
there, and a record taken from an array is a pointer into the array, so writes
through it land in the array, as in Numba. Arrays of records are memrefs of bytes
with byte strides.

Records may be packed (``align=False``): every load and store states the alignment
it can rely on, the largest power of two dividing both the record's alignment and
the field's offset, so that no access is misaligned.
"""

import operator

from .._support import fill, subarrays
from .._support.api import attribute, declare
from .._support.elements import ELEMENT_ACCESS
from .._support.modules import arith, cx, errors, ir, llvm, memref, templates, types

# ---- typing ---------------------------------------------------------------------------------


def _check_field(record, name):
    if isinstance(name, str) and name not in record.fields:
        raise errors.TypingError(f"the record {record} has no field '{name}' (fields: {', '.join(record.fields)})")
    if isinstance(name, int) and not -len(record.fields) <= name < len(record.fields):
        raise errors.TypingError(f"the record {record} has no field at position {name}")


@attribute("Record").typer
def _field_typing(record, attr):
    _check_field(record, attr)
    return None  # a known field: numba's template types it


def _item_typing(arity):
    def generic(context, args, kws):
        if len(args) == arity and isinstance(args[0], types.Record):
            _check_field(args[0], args[1])
            if arity == 3:
                return _subarray_typing(context, *args)
        return None

    return generic


def _subarray_typing(context, record, name, value):
    """``r["v"] = x`` into a sub-array field: the value keeps its type (subarrays.py); other
    fields are left to numba."""
    field = record.typeof(name) if isinstance(name, str) else record.typeof(list(record.fields)[name])
    if not isinstance(field, types.NestedArray):
        return None
    refused = subarrays.refusal(context, field, value)
    if refused is not None:
        raise errors.TypingError(f"cannot assign {refused} (the field {name!r})")
    return templates.signature(types.void, record, types.literal(name), value)


declare("static_getitem", "record field check").generic(_item_typing(2))
declare("static_setitem", "record field check").generic(_item_typing(3))


# ---- lowering -------------------------------------------------------------------------------


def _i64():
    return ir.IntegerType.get_signless(64)


def _i8():
    return ir.IntegerType.get_signless(8)


_GEP_DYNAMIC = -(2**31)  # llvm.getelementptr's marker: take this index from the operands


def advance(pointer, offset):
    """*pointer* + *offset* bytes; *offset* is a Python int or an i64 value."""
    if isinstance(offset, int):
        if offset == 0:
            return pointer
        return llvm.getelementptr(llvm.PointerType.get(), pointer, [], [offset], _i8(), 0)
    return llvm.getelementptr(llvm.PointerType.get(), pointer, [offset], [_GEP_DYNAMIC], _i8(), 0)


def element_pointer(array, indices):
    """The address of the record at *indices* of a byte-strided memref of records."""
    _, offset, *rest = memref.extract_strided_metadata(array)
    strides = rest[len(rest) // 2 :]
    linear = offset
    for index, stride in zip(indices, strides):
        linear = arith.addi(linear, arith.muli(index, stride))
    base = arith.index_cast(_i64(), memref.extract_aligned_pointer_as_index(array))
    return advance(llvm.inttoptr(llvm.PointerType.get(), base), arith.index_cast(_i64(), linear))


def _alignment(align, offset):
    """The alignment of the address *offset* bytes past one aligned to *align*."""
    while offset % align:
        align //= 2
    return align


def record_alignment(record):
    return record.dtype.alignment


def _layout_alignment(record):
    """The alignment of a record's address in an array of such records, whose allocation is
    aligned (device memory is, to 256 bytes): its dtype's, or for a packed record the largest
    power of two up to 16 that divides its size. Numba-CUDA's sub-array accesses assume as
    much; a packed record nested at an odd offset of another breaks it (a misaligned access
    error at run time, as under Numba-CUDA)."""
    size = record.size
    return max(record_alignment(record), min(16, size & -size) if size else 16)


# ---- scalar fields ---------------------------------------------------------------------------


def _natural(ty):
    """The alignment a field of *ty* needs: booleans one byte, fixed-width strings their code
    unit (bytes 1, unicode 4), numbers their size."""
    if isinstance(ty, (types.Boolean, types.CharSeq)):
        return 1
    if isinstance(ty, types.UnicodeCharSeq):
        return 4
    return ty.bitwidth // 8


def _load_scalar(lower, ty, pointer, align):
    model = lower.dmm.lookup(ty)
    if isinstance(ty, types.Complex):
        part = ir.ComplexType(model.get_value_type()).element_type
        size = ty.bitwidth // 16
        real = llvm.load(part, pointer, alignment=min(align, size))
        imag = llvm.load(part, advance(pointer, size), alignment=min(_alignment(align, size), size))
        return cx.create_(model.get_value_type(), real, imag)
    data = llvm.load(model.get_data_type(), pointer, alignment=min(align, _natural(ty)))
    return model.from_data(data)


_INT_CONSTRAINTS = {2: "h", 4: "r", 8: "l"}  # PTX inline-asm register classes by size


def _store(value, pointer, align):
    """Store *value*; a float narrower-aligned than its size is stored byte by byte from
    integer operations: ptxas stores a byte taken straight from a register written by a
    float instruction as the float converted to an integer, not as its low bits."""
    size = ir.FloatType(value.type).width // 8 if isinstance(value.type, ir.FloatType) else None
    if size is None or align >= size:
        llvm.store(value, pointer, alignment=align)
        return
    bits = ir.IntegerType.get_signless(8 * size)
    word = llvm.bitcast(bits, value)
    c = _INT_CONSTRAINTS[size]
    # an opaque integer op, which LLVM cannot fold back into the float register
    low = llvm.inline_asm(bits, [word], f"and.b{8 * size} $0, $1, 255;", f"={c},{c}")
    llvm.store(arith.trunci(_i8(), low), pointer, alignment=1)
    for k in range(1, size):
        byte = arith.trunci(_i8(), arith.shrui(word, arith.constant(bits, 8 * k)))
        llvm.store(byte, advance(pointer, k), alignment=1)


def _store_scalar(lower, ty, value, pointer, align):
    model = lower.dmm.lookup(ty)
    if isinstance(ty, types.Complex):
        size = ty.bitwidth // 16
        _store(cx.re(value), pointer, min(align, size))
        _store(cx.im(value), advance(pointer, size), min(_alignment(align, size), size))
        return
    _store(model.as_data(value), pointer, min(align, _natural(ty)))


def copy_record(record, source, destination):
    """Copy the bytes of one record to another, in the widest chunks their alignment allows."""
    chunk = min(8, _alignment(record_alignment(record), record.size))
    chunk_type = ir.IntegerType.get_signless(8 * chunk)
    for offset in range(0, record.size, chunk):
        value = llvm.load(chunk_type, advance(source, offset), alignment=chunk)
        llvm.store(value, advance(destination, offset), alignment=chunk)


def _load_record_element(lower, record, array, indices):
    return element_pointer(array, indices)  # a record is held by reference


def _store_record_element(lower, record, value, array, indices):
    copy_record(record, value, element_pointer(array, indices))


ELEMENT_ACCESS["Record"] = (_load_record_element, _store_record_element)


# ---- field access ----------------------------------------------------------------------------


def _field(lower, record, name):
    """(type, offset, alignment) of the field *name* (a field name or position) of *record*."""
    if isinstance(name, int):
        names = list(record.fields)
        if not -len(names) <= name < len(names):
            raise errors.LoweringError(f"{record} has no field at position {name}", lower.loc)
        name = names[name]
    if name not in record.fields:
        raise errors.LoweringError(f"{record} has no field '{name}'", lower.loc)
    offset = record.offset(name)
    return record.typeof(name), offset, _alignment(record_alignment(record), offset)


def _read_nested_record(lower, ty, pointer, align):
    if align < record_alignment(ty):
        raise errors.UnsupportedError(
            f"the aligned record {ty} sits at an offset that breaks its alignment in the enclosing record",
            lower.loc,
        )
    return pointer


def _read_nested_array(lower, ty, pointer, align):
    """A sub-array field: a memref over the record's bytes."""
    element = lower.dmm.lookup(ty.dtype)
    _, unit = element.memref_element()
    itemsize = ty.dtype.size if isinstance(ty.dtype, types.Record) else _natural(ty.dtype)
    if align < min(itemsize, 8) and unit == 1:
        raise errors.UnsupportedError(
            f"the sub-array field {ty} is not aligned to its elements in a packed record (its offset, or "
            "the record's size, is not a multiple of the element size): align the record (align=True) "
            "or pad it",
            lower.loc,
        )
    sizes = [arith.constant(_i64(), n) for n in ty.shape]
    strides = [arith.constant(_i64(), s * unit // itemsize) for s in ty.strides]
    return lower.memref_from_params(ty, [pointer, arith.constant(_i64(), 0), *sizes, *strides])


_READERS = {"Record": _read_nested_record, "NestedArray": _read_nested_array}


def _write_nested_record(lower, ty, value, pointer, align):
    copy_record(ty, value, pointer)


def _write_nested_array(lower, ty, value, pointer, align, value_type):
    """The field's elements from an array broadcast to its shape, or a scalar, as NumPy
    assigns ``r["v"] = x`` (Numba-CUDA copies the field's count of elements from the start of
    a C array): stored through a view of the field, converted as assignment converts."""
    fill.assign(lower, ty, _read_nested_array(lower, ty, pointer, align), value_type, value)


_WRITERS = {"Record": _write_nested_record}


def _handler(table, ty, default):
    for name, handler in table.items():
        if isinstance(ty, getattr(types, name)):
            return handler
    return default


def read_field(lower, record, pointer, name):
    ty, offset, align = _field(lower, record, name)
    if isinstance(ty, types.NestedArray):  # its elements are loaded at their natural alignment
        align = max(align, _alignment(_layout_alignment(record), offset))
    return _handler(_READERS, ty, _load_scalar)(lower, ty, advance(pointer, offset), align)


def write_field(lower, record, pointer, name, value, value_type):
    ty, offset, align = _field(lower, record, name)
    if isinstance(ty, types.NestedArray):  # its elements are loaded at their natural alignment
        align = max(align, _alignment(_layout_alignment(record), offset))
        _write_nested_array(lower, ty, value, advance(pointer, offset), align, value_type)
        return
    value = lower.cast(value, value_type, ty)
    _handler(_WRITERS, ty, _store_scalar)(lower, ty, value, advance(pointer, offset), align)


@attribute("Record").lower
def record_getattr(lower, ty, value, attr):
    return read_field(lower, ty, value, attr)


@attribute("Record").lower_set
def record_setattr(lower, sig, args, attr):
    write_field(lower, sig.args[0], args[0], attr, args[1], sig.args[1])


@attribute("Array").lower
def record_array_field(lower, ty, array, attr):
    """``records.x``: a strided view of one field of every record, in units of the field."""
    if not isinstance(ty.dtype, types.Record):
        raise errors.LoweringError(f"no lowering for the attribute {ty}.{attr}", lower.loc)
    field, offset, _ = _field(lower, ty.dtype, attr)
    if not isinstance(field, (types.Number, types.Boolean)):
        raise errors.UnsupportedError(f"a view of the field '{attr}' of type {field} is not supported", lower.loc)
    size = _natural(field) if not isinstance(field, types.Complex) else field.bitwidth // 8
    if ty.dtype.size % size or offset % size:
        raise errors.UnsupportedError(
            f"a view of the field '{attr}': records of {ty.dtype.size} bytes with the field at offset "
            f"{offset} do not hold it at multiples of its size {size}",
            lower.loc,
        )
    _, start, *rest = memref.extract_strided_metadata(array)
    sizes, strides = rest[: ty.ndim], rest[ty.ndim :]
    unit = arith.constant(ir.IndexType.get(), size)
    start = arith.divsi(arith.addi(start, arith.constant(ir.IndexType.get(), offset)), unit)
    strides = [arith.divsi(s, unit) for s in strides]
    base = arith.index_cast(_i64(), memref.extract_aligned_pointer_as_index(array))
    parts = [llvm.inttoptr(llvm.PointerType.get(), base)]
    parts += [arith.index_cast(_i64(), v) for v in (start, *sizes, *strides)]
    view_type = lower.typing_context.resolve_getattr(ty, attr)
    return lower.memref_from_params(view_type, parts)


@declare("static_getitem").lower("Record", "StringLiteral")
@declare("static_getitem").lower("Record", "IntegerLiteral")
def record_static_getitem(lower, sig, args):
    return read_field(lower, sig.args[0], args[0], args[1])


@declare(operator.setitem).lower("Record", "StringLiteral", "Any")
@declare(operator.setitem).lower("Record", "IntegerLiteral", "Any")
def record_setitem(lower, sig, args):
    record, index, value_type = sig.args
    write_field(lower, record, args[0], index.literal_value, args[2], value_type)
