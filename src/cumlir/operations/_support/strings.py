"""Strings in device code as the compiler's ``print()`` and the string operations
(python/strings.py) both hold them: a string's parts (data pointer, bytes, code points), a
constant made into a value, and a NUL-terminated copy for printf's ``%s``."""

from .modules import arith, ir, llvm, scf, types


def _i64(lower, value):
    return lower.constant(types.int64, value)


def literal(lower, text):
    """The string value of the constant *text*."""
    symbol = lower.module.string_constant(text)
    data = llvm.AddressOfOp(llvm.PointerType.get(), symbol).result
    return lower.make_struct(types.unicode_type, [data, _i64(lower, len(text.encode())), _i64(lower, len(text))])


def parts(lower, value, ty):
    """(data pointer, bytes, code points) of a string value of type *ty*."""
    if isinstance(ty, types.StringLiteral):
        value = literal(lower, ty.literal_value)
    string = types.unicode_type
    return tuple(lower.extract(value, string, k) for k in range(3))


# ---- print() --------------------------------------------------------------------------------------

CHARACTER_BYTES = 4  # the most a UTF-8 code point takes


def printable(lower, value):
    """A NUL-terminated pointer to a string's bytes, for printf's ``%s`` (device printf takes
    no ``%.*s``). A string is a whole literal, whose bytes the module ends with a NUL, or one
    character of one (``s[i]``), copied here into a buffer of its own."""
    data, nbytes, _ = parts(lower, value, types.unicode_type)
    i8, i64 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(64)
    buffer = lower.alloca(i8, CHARACTER_BYTES + 1)
    count = arith.minsi(nbytes, arith.constant(i64, CHARACTER_BYTES))
    index = ir.IndexType.get()
    loop = scf.ForOp(arith.constant(index, 0), arith.index_cast(index, count), arith.constant(index, 1))
    with ir.InsertionPoint(loop.body):
        offset = arith.index_cast(i64, loop.induction_variable)
        byte = llvm.load(i8, llvm.getelementptr(llvm.PointerType.get(), data, [offset], [-(2**31)], i8, 0))
        llvm.store(byte, llvm.getelementptr(llvm.PointerType.get(), buffer, [offset], [-(2**31)], i8, 0))
        scf.YieldOp([])
    end = llvm.getelementptr(llvm.PointerType.get(), buffer, [count], [-(2**31)], i8, 0)
    llvm.store(arith.constant(i8, 0), end)
    one_character = arith.cmpi(arith.CmpIPredicate.sle, nbytes, arith.constant(i64, CHARACTER_BYTES))
    return llvm.select(one_character, buffer, data)
