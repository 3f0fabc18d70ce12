"""Strings in device code: literals, and values holding one of them (a variable assigned
either of two literals, a device function's argument), compared, measured, indexed and
printed, as Numba-CUDA and numba-cuda-mlir allow.

A string value is the struct of models.StringModel: a pointer to its UTF-8 bytes in the
module's constant data, their count and the count of code points. Equality compares the
bytes (UTF-8 equality is string equality); ``s[i]`` is the one-character string at code
point *i* (found by counting the bytes that start a code point, or directly where every
code point is one byte); ``ord`` decodes one code point; ``print`` writes the bytes with
``%.*s``. Device code makes no new strings: no concatenation or formatting (numba's typing
refuses them), and no string kernel arguments.
"""

import operator

from .._support.api import cast, constant, declare
from .._support.elements import check_bounds
from .._support.modules import arith, errors, ir, llvm, scf, templates, types
from .._support.strings import literal, parts

# ---- typing ---------------------------------------------------------------------------------


def _is_string(ty):
    return isinstance(ty, (types.UnicodeType, types.StringLiteral))


@declare(len, "string len").typer
def _len_typing(s):
    return types.intp if _is_string(s) else None


_NO_SLICES = (
    "slicing a string known only at run time is not supported in device code (a constant's slice is "
    "computed while compiling); index one character: s[i]"
)


@declare(operator.getitem, "string getitem").typer
def _getitem_typing(s, index):
    if isinstance(s, types.StringLiteral) and isinstance(index, (types.IntegerLiteral, types.SliceLiteral)):
        return constant_item(s.literal_value, index.literal_value)  # folded while compiling
    if _is_string(s) and isinstance(index, types.Integer):
        return types.unicode_type
    if _is_string(s) and isinstance(index, types.SliceType):
        raise errors.TypingError(_NO_SLICES)
    return None


def constant_item(text, index):
    try:
        return types.literal(text[index])
    except IndexError:
        raise errors.TypingError(f"string index {index} out of range for the constant {text!r}") from None


@declare(operator.getitem).lower("UnicodeType", "SliceType")
@declare(operator.getitem).lower("StringLiteral", "SliceType")
def string_slice(lower, sig, args):
    if isinstance(sig.return_type, types.StringLiteral):  # a constant's slice, folded
        return literal(lower, sig.return_type.literal_value)
    # reached where numba's own typing of str slices answered first
    raise errors.UnsupportedError(_NO_SLICES, lower.loc)


@declare(ord, "ord").typer
def _ord_typing(c):
    if _is_string(c):
        return types.int32
    raise errors.TypingError(f"ord() takes a one-character string, got {c}")


def _comparison_typing(a, b):
    return types.boolean if _is_string(a) and _is_string(b) else None


for _op in (operator.eq, operator.ne):
    declare(_op, f"string {_op.__name__}").typer(_comparison_typing)


# ---- values -----------------------------------------------------------------------------------


@constant("UnicodeType")
def string_constant(lower, ty, pyval):
    return literal(lower, str(pyval))


@cast("StringLiteral", "UnicodeType")
def literal_to_string(lower, fromty, toty, value):
    return literal(lower, fromty.literal_value)


def _byte(data, offset):
    i8 = ir.IntegerType.get_signless(8)
    address = llvm.getelementptr(llvm.PointerType.get(), data, [offset], [-(2**31)], i8, 0)
    return arith.extui(ir.IntegerType.get_signless(32), llvm.load(i8, address))


# ---- len, ==, != --------------------------------------------------------------------------------


@declare(len).lower("UnicodeType")
@declare(len).lower("StringLiteral")
def string_len(lower, sig, args):
    return parts(lower, args[0], sig.args[0])[2]


def _equal(lower, sig, args):
    (data_a, nbytes_a, _), (data_b, nbytes_b, _) = (parts(lower, v, t) for v, t in zip(args, sig.args))
    same_size = arith.cmpi(arith.CmpIPredicate.eq, nbytes_a, nbytes_b)
    check = scf.IfOp(same_size, [ir.IntegerType.get_signless(1)], has_else=True)
    with ir.InsertionPoint(check.then_block):
        index = ir.IndexType.get()
        zero, one = arith.constant(index, 0), arith.constant(index, 1)
        count = arith.index_cast(index, nbytes_a)
        loop = scf.ForOp(zero, count, one, [arith.constant(ir.IntegerType.get_signless(1), 1)])
        with ir.InsertionPoint(loop.body):
            offset = arith.index_cast(ir.IntegerType.get_signless(64), loop.induction_variable)
            same = arith.cmpi(arith.CmpIPredicate.eq, _byte(data_a, offset), _byte(data_b, offset))
            scf.YieldOp([arith.andi(loop.inner_iter_args[0], same)])
        scf.YieldOp([loop.results[0]])
    with ir.InsertionPoint(check.else_block):
        scf.YieldOp([arith.constant(ir.IntegerType.get_signless(1), 0)])
    return check.results[0]


def _literals_equal(sig):
    a, b = sig.args
    if isinstance(a, types.StringLiteral) and isinstance(b, types.StringLiteral):
        return a.literal_value == b.literal_value
    return None


@declare(operator.eq).lower("UnicodeType", "UnicodeType")
@declare(operator.eq).lower("UnicodeType", "StringLiteral")
@declare(operator.eq).lower("StringLiteral", "UnicodeType")
@declare(operator.eq).lower("StringLiteral", "StringLiteral")
def string_eq(lower, sig, args):
    known = _literals_equal(sig)
    if known is not None:
        return lower.constant(types.boolean, known)
    return _equal(lower, sig, args)


@declare(operator.ne).lower("UnicodeType", "UnicodeType")
@declare(operator.ne).lower("UnicodeType", "StringLiteral")
@declare(operator.ne).lower("StringLiteral", "UnicodeType")
@declare(operator.ne).lower("StringLiteral", "StringLiteral")
def string_ne(lower, sig, args):
    equal = string_eq(lower, sig, args)
    return arith.xori(equal, arith.constant(ir.IntegerType.get_signless(1), 1))


# ---- s[i] and ord -------------------------------------------------------------------------------


def _starts_code_point(byte):
    """Whether a byte (i32) starts a UTF-8 code point (is not a continuation byte 10xxxxxx)."""
    i32 = ir.IntegerType.get_signless(32)
    top = arith.andi(byte, arith.constant(i32, 0xC0))
    return arith.cmpi(arith.CmpIPredicate.ne, top, arith.constant(i32, 0x80))


def _code_point_bounds(lower, data, nbytes, wanted):
    """(first byte, end byte) of code point *wanted* (i64) of a string of *nbytes*."""
    i64 = ir.IntegerType.get_signless(64)
    index = ir.IndexType.get()
    minus_one = arith.constant(i64, -1)
    loop = scf.ForOp(
        arith.constant(index, 0), arith.index_cast(index, nbytes), arith.constant(index, 1), [minus_one, nbytes, nbytes]
    )
    with ir.InsertionPoint(loop.body):
        seen, start, end = loop.inner_iter_args
        offset = arith.index_cast(i64, loop.induction_variable)
        lead = _starts_code_point(_byte(data, offset))
        seen_now = arith.select(lead, arith.addi(seen, arith.constant(i64, 1)), seen)
        found = arith.andi(lead, arith.cmpi(arith.CmpIPredicate.eq, seen_now, wanted))
        after = arith.andi(
            lead, arith.cmpi(arith.CmpIPredicate.eq, seen_now, arith.addi(wanted, arith.constant(i64, 1)))
        )
        scf.YieldOp([seen_now, arith.select(found, offset, start), arith.select(after, offset, end)])
    return loop.results[1], loop.results[2]


@declare(operator.getitem).lower("UnicodeType", "Integer")
@declare(operator.getitem).lower("StringLiteral", "Integer")
def string_getitem(lower, sig, args):
    if isinstance(sig.return_type, types.StringLiteral):  # a constant's character, folded
        return literal(lower, sig.return_type.literal_value)
    string_type, index_type = sig.args
    data, nbytes, length = parts(lower, args[0], string_type)
    i64 = ir.IntegerType.get_signless(64)
    wanted = lower.cast(args[1], index_type, types.int64)
    if index_type.signed:  # s[-1]: from the end
        negative = arith.cmpi(arith.CmpIPredicate.slt, wanted, arith.constant(i64, 0))
        wanted = arith.select(negative, arith.addi(wanted, length), wanted)
    if lower.options.checks_indices:
        check_bounds(lower, wanted, length, "string index out of range")
    ascii_only = arith.cmpi(arith.CmpIPredicate.eq, nbytes, length)
    pick = scf.IfOp(ascii_only, [i64, i64], has_else=True)
    with ir.InsertionPoint(pick.then_block):
        scf.YieldOp([wanted, arith.addi(wanted, arith.constant(i64, 1))])
    with ir.InsertionPoint(pick.else_block):
        scf.YieldOp(list(_code_point_bounds(lower, data, nbytes, wanted)))
    start, end = pick.results
    address = llvm.getelementptr(llvm.PointerType.get(), data, [start], [-(2**31)], ir.IntegerType.get_signless(8), 0)
    return lower.make_struct(types.unicode_type, [address, arith.subi(end, start), arith.constant(i64, 1)])


@declare(ord).lower("UnicodeType")
@declare(ord).lower("StringLiteral")
def string_ord(lower, sig, args):
    (string_type,) = sig.args
    # numba's own typing of ord (an int64) may have answered first: the result is made its type
    if isinstance(string_type, types.StringLiteral) and len(string_type.literal_value) == 1:
        return lower.constant(sig.return_type, ord(string_type.literal_value))
    data, nbytes, _ = parts(lower, args[0], string_type)
    code = lower.call_python(decode_utf8, _decode_signature(), [_bytes_word(lower, data, nbytes), nbytes])
    return lower.cast(code, types.int32, sig.return_type)


def _bytes_word(lower, data, nbytes):
    """The first (up to four) bytes of a string as one little-endian i32 word."""
    i32 = ir.IntegerType.get_signless(32)
    word = arith.constant(i32, 0)
    for k in range(4):
        present = arith.cmpi(arith.CmpIPredicate.sgt, nbytes, lower.constant(types.int64, k))
        offset = arith.select(present, lower.constant(types.int64, k), lower.constant(types.int64, 0))
        byte = arith.select(present, _byte(data, offset), arith.constant(i32, 0))
        word = arith.ori(word, arith.shli(byte, arith.constant(i32, 8 * k)))
    return word


def _decode_signature():
    return templates.signature(types.int32, types.uint32, types.int64)


def decode_utf8(word, nbytes):
    """The code point of a UTF-8 sequence of *nbytes* held in *word*'s low bytes."""
    b0 = word & 0xFF
    b1 = (word >> 8) & 0x3F
    b2 = (word >> 16) & 0x3F
    b3 = (word >> 24) & 0x3F
    if nbytes == 1:
        return b0
    if nbytes == 2:
        return ((b0 & 0x1F) << 6) | b1
    if nbytes == 3:
        return ((b0 & 0x0F) << 12) | (b1 << 6) | b2
    return ((b0 & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3
