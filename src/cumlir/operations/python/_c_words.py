"""A C struct or union held in registers: its bytes as an array of integers of its alignment
(at most 8 bytes each: its *words*), read and written with shifts and masks.

Every scalar a field holds lies within one word, since a field is aligned to its scalars'
size and the words to the value's alignment; so does a bit field, which never crosses its
type's alignment. A nested struct, union or C array is read word by word into its own words.
Values are little-endian, as on the device: the byte at offset k is bits 8k..8k+7.
"""

from __future__ import annotations

from .._support.api import lazy
from .._support.modules import arith, cx, ir, llvm, types

c_layout = lazy("cumlir.typerecords._c_layout")  # numba's types: imported on first use


def _int(bits):
    return ir.IntegerType.get_signless(bits)


def _constant(bits, value):
    """An iN constant of the unsigned *value*, as the signed integer MLIR takes."""
    value &= (1 << bits) - 1
    return arith.constant(_int(bits), value - (1 << bits) if value >> (bits - 1) else value)


def _at(index):
    return ir.DenseI64ArrayAttr.get([index])


def _position(ty, bit):
    """(the index of the word holding bit *bit* of a value of *ty*, the bit's place in it)"""
    return bit // (8 * ty.layout.word), bit % (8 * ty.layout.word)


def _word(words, ty, index):
    return llvm.extractvalue(_int(8 * ty.layout.word), words, _at(index))


def zero(lower, ty):
    """A value of *ty* whose bytes are all zero."""
    return llvm.mlir_zero(lower.get_mlir_type(ty))


def constant(lower, ty, data):
    """The value of *ty* whose bytes are *data*."""
    size = ty.layout.word
    value = zero(lower, ty)
    for k in range(ty.size // size):
        word = int.from_bytes(data[k * size : (k + 1) * size], "little")
        value = llvm.insertvalue(value, _constant(8 * size, word), _at(k))
    return value


def read_bits(words, ty, bit, width):
    """The *width* bits (8, 16, 32 or 64) from bit *bit* of the value *words* of *ty*, as an integer."""
    index, shift = _position(ty, bit)
    size = 8 * ty.layout.word
    word = _word(words, ty, index)
    if shift:
        word = arith.shrui(word, _constant(size, shift))
    return word if width == size else arith.trunci(_int(width), word)


def write_bits(words, ty, bit, width, value):
    """*words* with the *width* bits from bit *bit* replaced by the low *width* bits of the
    integer *value*."""
    index, shift = _position(ty, bit)
    size = 8 * ty.layout.word
    if ir.IntegerType(value.type).width < size:
        value = arith.extui(_int(size), value)
    mask = (1 << width) - 1
    if width < size:
        value = arith.andi(value, _constant(size, mask))
    if shift:
        value = arith.shli(value, _constant(size, shift))
    kept = arith.andi(_word(words, ty, index), _constant(size, ~(mask << shift)))
    return llvm.insertvalue(words, arith.ori(kept, value), _at(index))


# ---- a field's value at a bit position -------------------------------------------------------


def _members(ty):
    """(member type, count) of a C array (UniTuple) or a vector type."""
    return (ty.base_type, ty.count) if isinstance(ty, types.VectorType) else (ty.dtype, ty.count)


def read(lower, words, ty, field_type, bit):
    """The value of *field_type* whose bytes start at bit *bit* of *words* (a value of *ty*)."""
    if isinstance(field_type, types.CAggregate):
        inner = field_type.layout.word * 8
        result = zero(lower, field_type)
        for k in range(field_type.size * 8 // inner):
            result = llvm.insertvalue(result, read_bits(words, ty, bit + k * inner, inner), _at(k))
        return result
    if isinstance(field_type, types.Boolean):
        byte = read_bits(words, ty, bit, 8)
        return arith.cmpi(arith.CmpIPredicate.ne, byte, arith.constant(_int(8), 0))
    if isinstance(field_type, types.Integer):
        return read_bits(words, ty, bit, field_type.bitwidth)
    if isinstance(field_type, types.Complex):
        part = field_type.bitwidth // 2
        real = read(lower, words, ty, field_type.underlying_float, bit)
        imag = read(lower, words, ty, field_type.underlying_float, bit + part)
        return cx.create_(lower.get_mlir_type(field_type), real, imag)
    if isinstance(field_type, (types.Float, types.Bfloat16)):
        return arith.bitcast(lower.get_mlir_type(field_type), read_bits(words, ty, bit, field_type.bitwidth))
    member, count = _members(field_type)
    size = c_layout.size_and_alignment(member)[0] * 8
    return lower.make_struct(field_type, [read(lower, words, ty, member, bit + k * size) for k in range(count)])


def write(lower, words, ty, field_type, bit, value):
    """*words* (a value of *ty*) with the bytes from bit *bit* holding *value*, of *field_type*."""
    if isinstance(field_type, types.CAggregate):
        inner = field_type.layout.word * 8
        for k in range(field_type.size * 8 // inner):
            piece = llvm.extractvalue(_int(inner), value, _at(k))
            words = write_bits(words, ty, bit + k * inner, inner, piece)
        return words
    if isinstance(field_type, types.Boolean):
        return write_bits(words, ty, bit, 8, arith.extui(_int(8), value))
    if isinstance(field_type, types.Integer):
        return write_bits(words, ty, bit, field_type.bitwidth, value)
    if isinstance(field_type, types.Complex):
        part = field_type.bitwidth // 2
        words = write(lower, words, ty, field_type.underlying_float, bit, cx.re(value))
        return write(lower, words, ty, field_type.underlying_float, bit + part, cx.im(value))
    if isinstance(field_type, (types.Float, types.Bfloat16)):
        bits = arith.bitcast(_int(field_type.bitwidth), value)
        return write_bits(words, ty, bit, field_type.bitwidth, bits)
    member, count = _members(field_type)
    size = c_layout.size_and_alignment(member)[0] * 8
    for k in range(count):
        words = write(lower, words, ty, member, bit + k * size, lower.extract(value, field_type, k))
    return words


# ---- bit fields ---------------------------------------------------------------------------


def read_bit_field(lower, words, ty, field):
    """A bit field's value: its bits, sign-extended for a signed type."""
    index, shift = _position(ty, field.bit)
    size = 8 * ty.layout.word
    word = _word(words, ty, index)
    if isinstance(field.type, types.Boolean):
        bit = arith.andi(arith.shrui(word, _constant(size, shift)), _constant(size, 1))
        return arith.cmpi(arith.CmpIPredicate.ne, bit, _constant(size, 0))
    high = size - shift - field.width  # the bits above the field, shifted out first
    if high:
        word = arith.shli(word, _constant(size, high))
    if size - field.width:
        shift_right = arith.shrsi if field.type.signed else arith.shrui
        word = shift_right(word, _constant(size, size - field.width))
    target = field.type.bitwidth
    return word if target == size else arith.trunci(_int(target), word)


def write_bit_field(lower, words, ty, field, value):
    """*words* with the bit field holding the low bits of *value* (of the field's type), as C keeps them."""
    if isinstance(field.type, types.Boolean):
        value = arith.extui(_int(8), value)
    return write_bits(words, ty, field.bit, field.width, value)


# ---- values in memory ----------------------------------------------------------------------------
# a struct or union is loaded and stored piece by piece (its layout's chunks): the bytes its
# fields hold, never its padding, as C copies them, so that no padding byte is read before it
# is written (the simulator's checks) nor written over


def load_value(lower, ty, pointer):
    """The struct or union *ty* at *pointer* (aligned to it)."""
    value = zero(lower, ty)
    for offset, size in ty.layout.chunks:
        piece = llvm.load(_int(8 * size), _advance(pointer, offset), alignment=size)
        value = write_bits(value, ty, 8 * offset, 8 * size, piece)
    return value


def store_value(lower, ty, value, pointer):
    """Store the struct or union *value* of *ty* at *pointer* (aligned to it)."""
    for offset, size in ty.layout.chunks:
        llvm.store(read_bits(value, ty, 8 * offset, 8 * size), _advance(pointer, offset), alignment=size)


def load(lower, field_type, pointer):
    """The value of *field_type* at *pointer* (aligned to the type), one scalar at a time."""
    if isinstance(field_type, types.CAggregate):
        return load_value(lower, field_type, pointer)
    if isinstance(field_type, types.Boolean):
        byte = llvm.load(_int(8), pointer, alignment=1)
        return arith.cmpi(arith.CmpIPredicate.ne, byte, arith.constant(_int(8), 0))
    if isinstance(field_type, types.Complex):
        part = field_type.bitwidth // 16
        real = load(lower, field_type.underlying_float, pointer)
        imag = load(lower, field_type.underlying_float, _advance(pointer, part))
        return cx.create_(lower.get_mlir_type(field_type), real, imag)
    if isinstance(field_type, (types.Integer, types.Float, types.Bfloat16)):
        return llvm.load(lower.get_mlir_type(field_type), pointer, alignment=field_type.bitwidth // 8)
    member, count = _members(field_type)
    size = c_layout.size_and_alignment(member)[0]
    return lower.make_struct(field_type, [load(lower, member, _advance(pointer, k * size)) for k in range(count)])


def store(lower, field_type, value, pointer):
    """Store *value*, of *field_type*, at *pointer* (aligned to the type), one scalar at a time."""
    if isinstance(field_type, types.CAggregate):
        store_value(lower, field_type, value, pointer)
    elif isinstance(field_type, types.Boolean):
        llvm.store(arith.extui(_int(8), value), pointer, alignment=1)
    elif isinstance(field_type, types.Complex):
        part = field_type.bitwidth // 16
        llvm.store(cx.re(value), pointer, alignment=part)
        llvm.store(cx.im(value), _advance(pointer, part), alignment=part)
    elif isinstance(field_type, (types.Integer, types.Float, types.Bfloat16)):
        llvm.store(value, pointer, alignment=field_type.bitwidth // 8)
    else:
        member, count = _members(field_type)
        size = c_layout.size_and_alignment(member)[0]
        for k in range(count):
            store(lower, member, lower.extract(value, field_type, k), _advance(pointer, k * size))


def store_bit_field(lower, pointer, bit, field, value):
    """Store *value* into the bit field *field* whose lowest bit is bit *bit* past *pointer*:
    each aligned piece of the bytes holding it is read, changed and written back, and no other
    byte is touched (a neighbouring field of another type keeps its bytes)."""
    first, last = bit // 8, (bit + field.width - 1) // 8
    if isinstance(field.type, types.Boolean):
        value = arith.extui(_int(8), value)
    value = arith.extui(_int(64), value) if ir.IntegerType(value.type).width < 64 else value
    position = first
    while position <= last:
        size = next(c for c in (8, 4, 2, 1) if position % c == 0 and position + c <= last + 1)
        shift = bit - 8 * position  # where the field's bit 0 falls in this piece
        mask = ((1 << field.width) - 1) << shift if shift >= 0 else ((1 << field.width) - 1) >> -shift
        mask &= (1 << 8 * size) - 1
        piece = arith.shli(value, _constant(64, shift)) if shift > 0 else arith.shrui(value, _constant(64, -shift))
        if size < 8:
            piece = arith.trunci(_int(8 * size), piece)
        address = _advance(pointer, position)
        old = llvm.load(_int(8 * size), address, alignment=size)
        kept = arith.andi(old, _constant(8 * size, ~mask))
        llvm.store(arith.ori(kept, arith.andi(piece, _constant(8 * size, mask))), address, alignment=size)
        position += size


def load_bit_field(lower, pointer, bit, field):
    """The bit field *field* whose lowest bit is bit *bit* past *pointer*, from the bytes holding
    it alone, sign-extended for a signed type."""
    first, last = bit // 8, (bit + field.width - 1) // 8
    bits = arith.constant(_int(64), 0)
    position = first
    while position <= last:
        size = next(c for c in (8, 4, 2, 1) if position % c == 0 and position + c <= last + 1)
        piece = llvm.load(_int(8 * size), _advance(pointer, position), alignment=size)
        piece = arith.extui(_int(64), piece) if size < 8 else piece
        if position > first:
            piece = arith.shli(piece, _constant(64, 8 * (position - first)))
        bits = arith.ori(bits, piece)
        position += size
    low = bit - 8 * first  # the field's bits [low, low + width) of bits
    if 64 - low - field.width:
        bits = arith.shli(bits, _constant(64, 64 - low - field.width))
    if isinstance(field.type, types.Boolean):
        return arith.cmpi(arith.CmpIPredicate.ne, bits, _constant(64, 0))
    shift_right = arith.shrsi if field.type.signed else arith.shrui
    if 64 - field.width:
        bits = shift_right(bits, _constant(64, 64 - field.width))
    return bits if field.type.bitwidth == 64 else arith.trunci(_int(field.type.bitwidth), bits)


def _advance(pointer, offset):
    if offset == 0:
        return pointer
    return llvm.getelementptr(llvm.PointerType.get(), pointer, [], [offset], _int(8), 0)
