"""Fragments of the warp's tensor-core instructions (mma.py, ldmatrix.py): the elements a thread
holds, kept in a 1-d local array and moved into the 32-bit registers PTX wants, and back.

Elements are read and written at constant indices, so that LLVM keeps the local arrays in
registers; the registers pack 16-bit elements in pairs and 8-bit ones in fours, the element
of the lower index in the lower bits (as PTX's ``.f16x2`` and ``.b16`` registers hold them)."""

from .._support.elements import load_element, store_element
from .._support.modules import arith, errors, ir, types


def i32():
    return ir.IntegerType.get_signless(32)


def bits(dtype):
    """The bits an element of the Numba type *dtype* takes in a register."""
    return 8 if isinstance(dtype, types.NarrowFloat) else dtype.bitwidth


def _branch_operands(terminator):
    """[(successor block, operands passed to it)] of a branch made by lowering."""
    operands = list(terminator.operands)
    successors = list(terminator.successors)
    if terminator.name in ("cf.br", "llvm.br"):
        return [(successors[0], operands)]
    if terminator.name in ("cf.cond_br", "llvm.cond_br"):
        sizes = list(ir.DenseI32ArrayAttr(terminator.attributes["operandSegmentSizes"]))
        return [(successors[0], operands[1 : 1 + sizes[1]]), (successors[1], operands[1 + sizes[1] :])]
    return None


def _passed_in(argument):
    """The values the branches lowered so far pass to a block argument; None where one is unknown."""
    block = argument.owner
    found = []
    for other in block.region.blocks:
        ops = list(other.operations)
        if not ops:
            continue
        edges = _branch_operands(ops[-1].operation)
        if edges is None:
            continue
        found += [operands[argument.arg_number] for target, operands in edges if target == block]
    return found


_ON_THE_WAY = object()  # a block argument met again: a loop passing the array round to itself


def known_length(array, depth=0, visiting=None):
    """The element count of a 1-d memref where its allocation can be seen (a local array, through
    casts and the blocks it is passed to, loops too), else None."""
    if depth > 16:
        return None
    if isinstance(array, ir.BlockArgument):
        visiting = set() if visiting is None else visiting
        if array in visiting:
            return _ON_THE_WAY
        visiting.add(array)
        lengths = {known_length(value, depth + 1, visiting) for value in _passed_in(array)} - {_ON_THE_WAY}
        if not lengths:  # every edge comes round from a block being followed
            return _ON_THE_WAY if depth else None
        return lengths.pop() if len(lengths) == 1 else None
    op = array.owner
    if op.name == "memref.cast":
        return known_length(op.operands[0], depth + 1, visiting)
    if op.name == "memref.alloca":
        shape = ir.MemRefType(array.type).shape
        return shape[0] if len(shape) == 1 and shape[0] >= 0 else None
    return None


def check_length(lower, what, array_type, array, expected):
    """A clear error where the local array *array* is known to hold other than *expected* elements."""
    length = known_length(array)
    if length is not None and length != expected:
        raise errors.TypingError(
            f"{what} must hold {expected} elements of {array_type.dtype}, got a local array of {length}", lower.loc
        )


def _constant_index(k):
    return [arith.constant(ir.IndexType.get(), k)]


def load(lower, array_type, array, count):
    """Elements 0 .. count-1 of the 1-d array."""
    return [load_element(lower, array_type.dtype, array, _constant_index(k)) for k in range(count)]


def store(lower, array_type, array, values):
    for k, value in enumerate(values):
        store_element(lower, array_type.dtype, value, array, _constant_index(k))


def _as_integer(value, width):
    integer = ir.IntegerType.get_signless(width)
    return value if value.type == integer else arith.bitcast(integer, value)


def pack(dtype, values):
    """32-bit registers holding *values* (elements of *dtype*, 8, 16 or 32 bits), lowest first."""
    width = bits(dtype)
    per_register = 32 // width
    registers = []
    for start in range(0, len(values), per_register):
        register = None
        for k, value in enumerate(values[start : start + per_register]):
            part = arith.extui(i32(), _as_integer(value, width)) if width < 32 else _as_integer(value, 32)
            if k:
                part = arith.shli(part, arith.constant(i32(), k * width))
            register = part if register is None else arith.ori(register, part)
        registers.append(register)
    return registers


def unpack(lower, dtype, registers):
    """The elements of *dtype* the 32-bit registers hold, lowest first."""
    width = bits(dtype)
    element_type = lower.dmm.lookup(dtype).get_value_type()
    integer = ir.IntegerType.get_signless(width)
    values = []
    for register in registers:
        for k in range(32 // width):
            part = arith.shrui(register, arith.constant(i32(), k * width)) if k else register
            part = arith.trunci(integer, part) if width < 32 else part
            values.append(part if element_type == integer else arith.bitcast(element_type, part))
    return values
