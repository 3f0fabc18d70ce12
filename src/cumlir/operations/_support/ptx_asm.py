"""Inline PTX for the instructions written as text rather than as NVVM dialect ops (the
cluster, mbarrier and cp.async instructions): both code generators print ``llvm.inline_asm``
as it is, so LLVM's NVPTX and libNVVM 7 (which lacks their intrinsics) take the same PTX.
Addresses are generic: a shared array's data pointer is a generic address (memory.py)."""

from ...marks import NEEDS_ARCH_SPECIFIC, NEEDS_CHIP, NEEDS_PTX
from .arrayviews import aligned_pointer, parts
from .modules import arith, errors, ir, llvm, types


def i32():
    return ir.IntegerType.get_signless(32)


def i64():
    return ir.IntegerType.get_signless(64)


def statement(ptx, operands=(), constraints=()):
    """PTX run for its effect on memory: never removed, merged or moved across memory accesses."""
    llvm.inline_asm(None, list(operands), ptx, ",".join([*constraints, "~{memory}"]), has_side_effects=True)


def read(result_type, ptx, operands=(), constraints=()):
    """PTX giving one register ($0) that depends only on its operands and the block."""
    return llvm.inline_asm(result_type, list(operands), ptx, ",".join(constraints))


def first_element_address(lower, array_type, array):
    """The generic address (i64) of the array's first element, the one its view starts at."""
    _, offset, _, _ = parts(array, array_type.ndim)
    start = llvm.ptrtoint(i64(), aligned_pointer(array))
    dtype = array_type.dtype
    # bfloat16 and the narrow floats have no NumPy dtype of numba's: their width gives the size
    itemsize = dtype.bitwidth // 8 if isinstance(dtype, types.Number) else types.as_dtype(dtype).itemsize
    size = arith.constant(i64(), itemsize)
    return arith.addi(start, arith.muli(offset, size))


def as_i32(lower, numba_type, value):
    return lower.cast(value, numba_type, types.int32)


def check_number_array(what, ty):
    if not isinstance(ty, types.Array) or not isinstance(ty.dtype, (types.Number, types.Boolean)):
        raise errors.TypingError(f"{what} must be an array of numbers, got {ty}")


def check_integer(what, ty):
    if not isinstance(ty, (types.Integer, types.Boolean)):
        raise errors.TypingError(f"{what} must be an integer, got {ty}")


def check_barrier(name, bar):
    if not (isinstance(bar, types.Array) and isinstance(bar.dtype, types.Integer) and bar.dtype.bitwidth == 64):
        raise errors.TypingError(
            f"intrin.{name}: the barrier must be an array of 64-bit integers in shared memory "
            f"(cuda.shared.array(1, np.uint64)), got {bar}"
        )


def require(lower, what, cc, ptx, arch_specific=False):
    """The code of the operation *what* runs on chips *cc* (major, minor) or newer and is PTX
    ISA *ptx* (80 for 8.0) or later; with *arch_specific*, on the architecture-specific target
    of *cc* only (sm_90a). Recorded on the module, checked against the target compiled for."""
    attributes = lower.mlir_gpu_module.attributes
    chip = cc[0] * 10 + cc[1]
    if arch_specific:
        attributes[NEEDS_ARCH_SPECIFIC] = ir.IntegerAttr.get(i32(), chip)
        attributes[f"{NEEDS_ARCH_SPECIFIC}_for"] = ir.StringAttr.get(what)
    for mark, level in ((NEEDS_CHIP, chip), (NEEDS_PTX, ptx)):
        if mark not in attributes or ir.IntegerAttr(attributes[mark]).value < level:
            attributes[mark] = ir.IntegerAttr.get(i32(), level)
            attributes[f"{mark}_for"] = ir.StringAttr.get(what)
