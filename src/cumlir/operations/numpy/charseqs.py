"""NumPy's fixed-width strings in device code: the elements of ``"S4"`` arrays (numba's
``CharSeq``: bytes) and of ``"U4"`` arrays (``UnicodeCharSeq``: code points), and record
fields of those dtypes, as Numba-CUDA handles them.

A value is a vector of its code units, NUL-padded (typerecords/charseqs.py); an element is loaded
and stored whole. What kernels do with them:

* assignment, between arrays and record fields of any widths (a shorter value is padded with
  NULs, a longer one cut, as NumPy stores it), and from string literals and values (``"U"``,
  decoded from UTF-8) and bytes constants (``"S"``);
* ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` between two of one kind (bytes with bytes,
  unicode with unicode or a ``str``), comparing code units as NumPy does, with the shorter
  padded with NULs;
* ``len(s)`` (NumPy's: trailing NULs do not count), ``not s``, ``bool(s)``, and ``s[i]``: a
  unicode string's character (a one-character ``"U1"``), a bytes string's byte (``uint32``, as
  Numba-CUDA types it); a negative ``i`` counts from ``len(s)``, and with the index checks an
  ``i`` outside ``len(s)`` raises IndexError.
"""

import operator

import numpy as np

from .._support.api import cast, constant, declare
from .._support.elements import ELEMENT_ACCESS, check_bounds
from .._support.modules import arith, errors, ir, llvm, memref, scf, types
from .._support.strings import parts
from ..python.records import element_pointer
from .arrays import array_constant

# ---- values ---------------------------------------------------------------------------------


def _unit(ty):
    """Bytes per code unit: 1 for bytes, 4 for unicode (NumPy's UCS-4)."""
    return 1 if isinstance(ty, types.CharSeq) else 4


def _lane_type(ty):
    return ir.IntegerType.get_signless(8 * _unit(ty))


def _i32(value):
    return arith.constant(ir.IntegerType.get_signless(32), value)


def _lanes(value, count):
    """The vector's code units, each an integer value."""
    return [llvm.extractelement(value, _i32(k)) for k in range(count)]


def _nuls(lower, ty):
    """The value of *ty* holding only NULs: an empty string."""
    mlir_type = lower.get_mlir_type(ty)
    return arith.constant(mlir_type, ir.DenseElementsAttr.get_splat(mlir_type, ir.IntegerAttr.get(_lane_type(ty), 0)))


def _vector(lower, ty, lanes):
    """The value of *ty* holding *lanes* (at most its width), NUL-padded."""
    vector = _nuls(lower, ty)
    for k, lane in enumerate(lanes):
        vector = llvm.insertelement(vector, lane, _i32(k))
    return vector


def _load_element(lower, ty, target, indices):
    return llvm.load(lower.get_mlir_type(ty), element_pointer(target, indices), alignment=_unit(ty))


def _store_element(lower, ty, value, target, indices):
    llvm.store(value, element_pointer(target, indices), alignment=_unit(ty))


ELEMENT_ACCESS["CharSeq"] = (_load_element, _store_element)
ELEMENT_ACCESS["UnicodeCharSeq"] = (_load_element, _store_element)


# ---- conversions ----------------------------------------------------------------------------


@cast("CharSeq", "CharSeq")
@cast("UnicodeCharSeq", "UnicodeCharSeq")
def resized(lower, fromty, toty, value):
    """Another width: NUL-padded or cut, as NumPy stores a string into a narrower or wider one."""
    if fromty.count == toty.count:
        return value
    return _vector(lower, toty, _lanes(value, min(fromty.count, toty.count)))


@cast("StringLiteral", "UnicodeCharSeq")
def literal_to_unicode(lower, fromty, toty, value):
    points = [ord(c) for c in fromty.literal_value[: toty.count]]
    points += [0] * (toty.count - len(points))
    mlir_type = lower.get_mlir_type(toty)
    return arith.constant(mlir_type, ir.DenseElementsAttr.get(np.array(points, dtype=np.int32), type=mlir_type))


def _decode_step(byte, code):
    """(code so far, whether *byte* starts a code point) after one UTF-8 byte (i32s): a lead
    byte starts a new code point with its payload bits, a continuation byte (10xxxxxx) adds
    six more."""
    lead = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(byte, _i32(0xC0)), _i32(0x80))
    # the payload of a lead byte: 7 bits below 0x80, 5 below 0xE0, 4 below 0xF0, else 3
    mask = arith.select(
        arith.cmpi(arith.CmpIPredicate.ult, byte, _i32(0x80)),
        _i32(0x7F),
        arith.select(
            arith.cmpi(arith.CmpIPredicate.ult, byte, _i32(0xE0)),
            _i32(0x1F),
            arith.select(arith.cmpi(arith.CmpIPredicate.ult, byte, _i32(0xF0)), _i32(0x0F), _i32(0x07)),
        ),
    )
    continued = arith.ori(arith.shli(code, _i32(6)), arith.andi(byte, _i32(0x3F)))
    return arith.select(lead, arith.andi(byte, mask), continued), lead


@cast("UnicodeType", "UnicodeCharSeq")
def string_to_unicode(lower, fromty, toty, value):
    """A string value's code points, decoded from its UTF-8 bytes, as many as fit."""
    data, nbytes, _ = parts(lower, value, fromty)
    i8, i32, i64 = (ir.IntegerType.get_signless(n) for n in (8, 32, 64))
    index = ir.IndexType.get()
    start = _nuls(lower, toty)
    loop = scf.ForOp(
        arith.constant(index, 0),
        arith.index_cast(index, nbytes),
        arith.constant(index, 1),
        [start, _i32(-1), _i32(0)],
    )
    with ir.InsertionPoint(loop.body):
        vector, position, code = loop.inner_iter_args
        offset = arith.index_cast(i64, loop.induction_variable)
        address = llvm.getelementptr(llvm.PointerType.get(), data, [offset], [-(2**31)], i8, 0)
        byte = arith.extui(i32, llvm.load(i8, address))
        code, lead = _decode_step(byte, code)
        position = arith.select(lead, arith.addi(position, _i32(1)), position)
        # past the width the code point is dropped (an index beyond a vector would be poison)
        fits = arith.cmpi(arith.CmpIPredicate.slt, position, _i32(toty.count))
        placed = llvm.insertelement(vector, code, arith.select(fits, position, _i32(0)))
        scf.YieldOp([arith.select(fits, placed, vector), position, code])
    return loop.results[0]


@cast("Bytes", "CharSeq")
def bytes_to_charseq(lower, fromty, toty, value):
    """A bytes constant's bytes (an array of uint8), as many as fit."""
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    index = ir.IndexType.get()
    length = arith.index_cast(i64, memref.dim(value, arith.constant(index, 0)))
    count = arith.minui(length, arith.constant(i64, toty.count))
    one = arith.constant(index, 1)
    loop = scf.ForOp(arith.constant(index, 0), arith.index_cast(index, count), one, [_nuls(lower, toty)])
    with ir.InsertionPoint(loop.body):
        k = loop.induction_variable
        byte = memref.load(value, [k])
        scf.YieldOp([llvm.insertelement(loop.inner_iter_args[0], byte, arith.index_cast(i32, k))])
    return loop.results[0]


@constant("Bytes")
def bytes_constant(lower, ty, pyval):
    """``b"XYZ"``: its bytes in constant memory, as a global NumPy array's are."""
    return array_constant(lower, types.Array(types.uint8, 1, "C"), np.frombuffer(bytes(pyval), dtype=np.uint8))


# ---- typing ---------------------------------------------------------------------------------

_FIXED = ("CharSeq", "UnicodeCharSeq")


def _is_fixed(ty):
    return isinstance(ty, (types.CharSeq, types.UnicodeCharSeq))


def _kind(ty):
    """ "bytes" or "str": what a fixed-width string compares with; None for anything else."""
    if isinstance(ty, (types.CharSeq, types.Bytes)):
        return "bytes"
    if isinstance(ty, (types.UnicodeCharSeq, types.UnicodeType, types.StringLiteral)):
        return "str"
    return None


def _comparison_typing(name):
    def typer(a, b):
        if not (_is_fixed(a) or _is_fixed(b)):
            return None
        if _kind(a) is not None and _kind(b) is not None and _kind(a) != _kind(b) and name in ("eq", "ne"):
            return types.boolean  # as in Python (and numba): a str never equals bytes
        if _kind(a) is None or _kind(a) != _kind(b):
            raise errors.TypingError(f"cannot compare {a} with {b}: bytes compare with bytes, str with str")
        return types.boolean

    return typer


_COMPARISONS = {
    operator.eq: "eq",
    operator.ne: "ne",
    operator.lt: "lt",
    operator.le: "le",
    operator.gt: "gt",
    operator.ge: "ge",
}
for _op, _name in _COMPARISONS.items():
    declare(_op, f"fixed-width string {_name}").typer(_comparison_typing(_name))


@declare(len, "fixed-width string len").typer
def _len_typing(s):
    return types.intp if _is_fixed(s) else None


@declare(operator.not_, "fixed-width string not").typer
def _not_typing(s):
    return types.boolean if _is_fixed(s) else None


@declare(bool, "fixed-width string truth").typer
def _bool_typing(s):
    return types.boolean if _is_fixed(s) else None


def _refuse_conversion(name):
    def typer(s, *args, **kws):
        if _is_fixed(s):
            raise errors.TypingError(
                f"{name}() of the fixed-width string {s} would make a new string, which device code cannot: "
                "compare, measure (len) or index it as it is"
            )

    return typer


declare(str, "fixed-width string str").typer(_refuse_conversion("str"))
declare(bytes, "fixed-width string bytes").typer(_refuse_conversion("bytes"))


@declare(operator.getitem, "fixed-width string getitem").typer
def _getitem_typing(s, index):
    if not _is_fixed(s):
        return None
    if isinstance(index, types.SliceType):
        raise errors.TypingError(
            f"slicing the fixed-width string {s} is not supported in device code; index one character"
        )
    if not isinstance(index, types.Integer):
        raise errors.TypingError(f"a fixed-width string is indexed by an integer, got {index}")
    # a bytes string's byte is a number (uint32, as Numba-CUDA types it); a str's character a str of one
    return types.uint32 if isinstance(s, types.CharSeq) else types.UnicodeCharSeq(1)


# ---- len, truth, s[i] -----------------------------------------------------------------------


def _length(lower, ty, value):
    """len(s): one past the last code unit that is not NUL (NumPy's), an i64."""
    i64 = ir.IntegerType.get_signless(64)
    length = arith.constant(i64, 0)
    for k, lane in enumerate(_lanes(value, ty.count)):
        used = arith.cmpi(arith.CmpIPredicate.ne, lane, arith.constant(lane.type, 0))
        length = arith.select(used, arith.constant(i64, k + 1), length)
    return length


@declare(len).lower("CharSeq")
@declare(len).lower("UnicodeCharSeq")
def charseq_len(lower, sig, args):
    return _length(lower, sig.args[0], args[0])


@declare(operator.not_).lower("CharSeq")
@declare(operator.not_).lower("UnicodeCharSeq")
def charseq_not(lower, sig, args):
    return arith.cmpi(arith.CmpIPredicate.eq, _length(lower, sig.args[0], args[0]), lower.constant(types.int64, 0))


@declare(bool).lower("CharSeq")
@declare(bool).lower("UnicodeCharSeq")
def charseq_truth(lower, sig, args):
    return arith.cmpi(arith.CmpIPredicate.ne, _length(lower, sig.args[0], args[0]), lower.constant(types.int64, 0))


@declare(operator.getitem).lower("CharSeq", "Integer")
@declare(operator.getitem).lower("UnicodeCharSeq", "Integer")
def charseq_getitem(lower, sig, args):
    string_type, index_type = sig.args
    length = _length(lower, string_type, args[0])
    wanted = lower.cast(args[1], index_type, types.int64)
    if index_type.signed:  # s[-1]: from the end of the string (its NULs left out)
        negative = arith.cmpi(arith.CmpIPredicate.slt, wanted, lower.constant(types.int64, 0))
        wanted = arith.select(negative, arith.addi(wanted, length), wanted)
    if lower.options.checks_indices:
        check_bounds(lower, wanted, length, "string index out of range")
    lane = llvm.extractelement(args[0], arith.trunci(ir.IntegerType.get_signless(32), wanted))
    if isinstance(string_type, types.CharSeq):
        return arith.extui(ir.IntegerType.get_signless(32), lane)
    return _vector(lower, sig.return_type, [lane])


# ---- comparisons ----------------------------------------------------------------------------


def _as_fixed(lower, value, ty, other):
    """(code units, count) of an operand compared with a fixed-width string of type *other*:
    a str or bytes value is converted to one code unit wider than *other*, so that a longer
    one differs at that place from *other*'s NUL padding."""
    if not _is_fixed(ty):
        target = (types.UnicodeCharSeq if _kind(ty) == "str" else types.CharSeq)(other.count + 1)
        value, ty = lower.cast(value, ty, target), target
    return _lanes(value, ty.count), ty.count


def _compare(lower, sig, args, name):
    (a, b), (ta, tb) = args, sig.args
    lanes_a, _ = _as_fixed(lower, a, ta, tb if _is_fixed(tb) else ta)
    lanes_b, _ = _as_fixed(lower, b, tb, ta if _is_fixed(ta) else tb)
    width = max(len(lanes_a), len(lanes_b))
    zero = arith.constant((lanes_a or lanes_b)[0].type, 0)
    lanes_a += [zero] * (width - len(lanes_a))
    lanes_b += [zero] * (width - len(lanes_b))
    i1 = ir.IntegerType.get_signless(1)
    # from the last place to the first: the first place that differs decides (code units unsigned)
    less, equal = arith.constant(i1, 0), arith.constant(i1, 1)
    for x, y in reversed(list(zip(lanes_a, lanes_b))):
        differs = arith.cmpi(arith.CmpIPredicate.ne, x, y)
        less = arith.select(differs, arith.cmpi(arith.CmpIPredicate.ult, x, y), less)
        equal = arith.andi(equal, arith.xori(differs, arith.constant(i1, 1)))
    greater = arith.xori(arith.ori(less, equal), arith.constant(i1, 1))
    results = {
        "eq": equal,
        "ne": arith.xori(equal, arith.constant(i1, 1)),
        "lt": less,
        "le": arith.ori(less, equal),
        "gt": greater,
        "ge": arith.xori(less, arith.constant(i1, 1)),
    }
    return results[name]


def _comparison_rule(name):
    def rule(lower, sig, args):
        return _compare(lower, sig, args, name)

    return rule


for _op, _name in _COMPARISONS.items():
    _declared = declare(_op)
    for _left, _right in (
        ("CharSeq", "CharSeq"),
        ("CharSeq", "Bytes"),
        ("Bytes", "CharSeq"),
        ("UnicodeCharSeq", "UnicodeCharSeq"),
        ("UnicodeCharSeq", "UnicodeType"),
        ("UnicodeType", "UnicodeCharSeq"),
        ("UnicodeCharSeq", "StringLiteral"),
        ("StringLiteral", "UnicodeCharSeq"),
    ):
        _declared.lower(_left, _right)(_comparison_rule(_name))


def _never_equal(name):
    def rule(lower, sig, args):
        return arith.constant(ir.IntegerType.get_signless(1), int(name == "ne"))

    return rule


for _op, _name in ((operator.eq, "eq"), (operator.ne, "ne")):
    for _left, _right in (
        ("UnicodeCharSeq", "CharSeq"),
        ("CharSeq", "UnicodeCharSeq"),
        ("UnicodeCharSeq", "Bytes"),
        ("Bytes", "UnicodeCharSeq"),
        ("CharSeq", "UnicodeType"),
        ("UnicodeType", "CharSeq"),
        ("CharSeq", "StringLiteral"),
        ("StringLiteral", "CharSeq"),
    ):
        declare(_op).lower(_left, _right)(_never_equal(_name))
