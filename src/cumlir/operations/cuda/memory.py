"""Memory spaces: ``cuda.shared.array`` (static, and dynamic with shape 0),
``cuda.local.array`` and ``cuda.const.array_like`` (see docs/memory.md).

Shapes, dtypes and alignments are compile-time constants; every array is an ordinary
C-layout ``Array`` so kernels index it like any other.

A shared or constant array is a memref.global in its NVPTX address space, cast to
the generic space so that it has the ordinary array type; LLVM's address-space
inference turns the accesses back into ld.shared/st.shared. Dynamic shared arrays
all view one zero-length external global, which PTX places in the launch's
dynamic shared memory (``extern __shared__`` in CUDA C++).
"""

from __future__ import annotations

import math
import weakref

from ... import launch_needs
from ...marks import DYNAMIC_SHARED_ROUNDED
from .. import Namespace
from .._support.arrayviews import itemsize
from .._support.dtypes import named_dtype
from .._support.modules import arith, errors, ir, memref, nvvm, types

shared = Namespace("shared", "Arrays in the block's shared memory.")
local = Namespace("local", "Arrays private to each thread.")
const = Namespace("const", "Arrays in constant memory.")

shared_array = shared.function(
    "array",
    "array(shape, dtype, alignment=None): a C-layout array in shared memory, one per "
    "block and call site; shape 0 makes it use the launch's dynamic shared memory.",
)
local_array = local.function("array", "array(shape, dtype, alignment=None): a C-layout array private to the thread.")
const_array_like = const.function(
    "array_like", "array_like(ndarray): a copy of a module-level NumPy array in constant memory."
)

# NVVM 7 has no intrinsic for this register: the LLVM 7 printer reads it with inline PTX

SHARED_MEMORY = 3  # the NVPTX address space of __shared__ data
STATIC_SHARED_LIMIT = 48 * 1024  # what CUDA allows for static __shared__ data in one kernel
DEFAULT_SHARED_ALIGNMENT = 16  # as CUDA C++ aligns __shared__ arrays: room for vector accesses
DYNAMIC_SHARED_SYMBOL = "cumlir_dynamic_shared"


# ---- the array specification, shared by typing and lowering -----------------------------


def _shape(name, shape):
    """The extents of a constant shape: an int or a tuple of ints known at compile time."""
    extents = shape.types if isinstance(shape, types.BaseTuple) else (shape,)
    if not isinstance(shape, (types.Integer, types.BaseTuple)) or not all(
        isinstance(e, types.IntegerLiteral) for e in extents
    ):
        hint = (
            "; an array sized at run time is dynamic shared memory: cuda.shared.array(0, dtype), sized by "
            "the launch's fourth entry, kernel[grid, block, stream, nbytes]"
            if name == "cuda.shared.array"
            else "; its size is fixed when compiling (a device function's argument given a constant at each call is one)"
        )
        raise errors.TypingError(
            f"{name}: the shape must be an int or a tuple of ints known at compile time, got {shape}{hint}"
        )
    values = tuple(e.literal_value for e in extents)
    for extent in values:
        if extent < 0:
            raise errors.TypingError(f"{name}: the shape {values} has a negative extent")
    return values


_ELEMENTS = ("Number", "Boolean", "NPDatetime", "NPTimedelta", "CAggregate", "VectorType")


def _dtype(name, dtype):
    try:
        nb_dtype = named_dtype(dtype)
    except errors.TypingError as e:
        raise errors.TypingError(f"{name}: {e}") from None
    if not isinstance(nb_dtype, tuple(getattr(types, kind) for kind in _ELEMENTS)):
        raise errors.TypingError(
            f"{name}: the dtype must be a numeric, boolean, datetime64 or timedelta64 type such as float32, "
            f"a C struct or union, or a CUDA vector type such as cuda.float32x4, got {dtype}"
        )
    return nb_dtype


def alignment_of(name, alignment, dtype):
    """The requested alignment in bytes, or None; a power of two at least the item size (a C
    struct's: its alignment)."""
    if alignment is None or isinstance(alignment, (types.NoneType, types.Omitted)):
        return None
    if not isinstance(alignment, types.IntegerLiteral):
        raise errors.TypingError(f"{name}: alignment must be an int known at compile time, got {alignment}")
    value = alignment.literal_value
    if value <= 0 or value & (value - 1):
        raise errors.TypingError(f"{name}: alignment must be a power of 2, got {value}")
    if isinstance(dtype, (types.CAggregate, types.VectorType)):
        if value < dtype.alignment:
            raise errors.TypingError(f"{name}: alignment {value} is less than {dtype!r}'s ({dtype.alignment} bytes)")
    elif value < itemsize(dtype):
        raise errors.TypingError(
            f"{name}: alignment {value} is less than the item size of {dtype} ({itemsize(dtype)} bytes)"
        )
    return value


def array_spec(name, shape, dtype, alignment):
    """(extents, Numba dtype, alignment or None) of an array allocation, validated."""
    nb_dtype = _dtype(name, dtype)
    return _shape(name, shape), nb_dtype, alignment_of(name, alignment, nb_dtype)


# ---- typing ---------------------------------------------------------------------------------


def _array_typer(name, dynamic_allowed):
    def typer(shape, dtype, alignment=None):
        extents, nb_dtype, _ = array_spec(name, shape, dtype, alignment)
        if 0 in extents and len(extents) > 1 and dynamic_allowed:
            raise errors.TypingError(f"{name}: a dynamic shared array (shape 0) is 1-D, got the shape {extents}")
        return types.Array(nb_dtype, len(extents), "C")

    return typer


shared_array.typer(_array_typer("cuda.shared.array", dynamic_allowed=True))
local_array.typer(_array_typer("cuda.local.array", dynamic_allowed=False))


@const_array_like.typer
def _const_array_like_type(ndarray):
    if not isinstance(ndarray, types.Array):
        raise errors.TypingError(f"cuda.const.array_like needs a module-level NumPy array, got {ndarray}")
    return ndarray


# ---- lowering -------------------------------------------------------------------------------

# static shared bytes allocated so far by each function of each module being built
_static_shared: weakref.WeakKeyDictionary[object, dict[str, int]] = weakref.WeakKeyDictionary()


def _i64_attr(value):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _spec(lower, name, sig):
    """(extents, MLIR element type, alignment or None, item size, whether the elements are the
    items' bytes) of an allocation: arrays of C structs and CUDA vectors count bytes, as their
    models say (an element of bytes, even where an item is one byte: a char1)."""
    shape, dtype, *alignment = sig.args
    extents, nb_dtype, align = array_spec(name, shape, dtype, alignment[0] if alignment else None)
    model = lower.dmm.lookup(nb_dtype)
    element, _ = model.memref_element()
    if element == model.get_data_type():
        return extents, element, align, itemsize(nb_dtype), False
    return extents, element, max(align or 1, nb_dtype.alignment), itemsize(nb_dtype), True


def _buffer_shape(extents, size, of_bytes):
    """The shape of a buffer holding *extents* items: their bytes, for items of bytes."""
    return [math.prod(extents) * size] if of_bytes else list(extents)


def _items(value, extents, size, of_bytes, space):
    """A buffer of bytes viewed as *extents* items of *size* bytes each (strides in bytes), or
    *value* itself for items that are not bytes."""
    if not of_bytes:
        return value
    strides = [math.prod(extents[k + 1 :]) * size for k in range(len(extents))]
    layout = ir.StridedLayoutAttr.get(0, strides)
    element = ir.MemRefType(value.type).element_type
    result = ir.MemRefType.get(list(extents), element, layout, memory_space=space)
    return memref.reinterpret_cast(result, value, [], [], [], [0], list(extents), strides)


def _as_array(lower, array_type, value, space_type):
    """A memref in another address space, as a value of the Numba *array_type*."""
    generic = memref.memory_space_cast(space_type, value)
    return lower.unowned(memref.cast(lower.get_mlir_type(array_type), generic))


def _count_static_shared(lower, nbytes):
    per_function = _static_shared.setdefault(lower.module, {})
    total = per_function.get(lower.symbol, 0) + nbytes
    if total > STATIC_SHARED_LIMIT:
        raise errors.LoweringError(
            f"cuda.shared.array: {total} bytes of static shared memory in one function is more than the "
            f"{STATIC_SHARED_LIMIT} bytes CUDA allows (use dynamic shared memory, shape 0, for more)",
            lower.loc,
        )
    per_function[lower.symbol] = total


def _static_shared_array(lower, sig, extents, element, alignment, size, of_bytes):
    nbytes = math.prod(extents) * size
    _count_static_shared(lower, nbytes)
    space = _i64_attr(SHARED_MEMORY)
    global_type = ir.MemRefType.get(_buffer_shape(extents, size, of_bytes), element, memory_space=space)
    symbol = lower.module._unique("cumlir_shared")
    with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(lower.module.body):
        memref.GlobalOp(
            symbol,
            ir.TypeAttr.get(global_type),
            sym_visibility="private",
            initial_value=ir.UnitAttr.get(),  # uninitialized, as __shared__ data is
            alignment=_i64_attr(alignment or DEFAULT_SHARED_ALIGNMENT),
        )
    value = _items(memref.get_global(global_type, symbol), extents, size, of_bytes, space)
    return _as_array(lower, sig.return_type, value, _generic(value.type))


def _dynamic_shared_buffer(lower, alignment):
    """The module's zero-length external i8 global that aliases all dynamic shared memory."""
    space = _i64_attr(SHARED_MEMORY)
    buffer_type = ir.MemRefType.get([0], ir.IntegerType.get_signless(8), memory_space=space)
    alignment = max(alignment or 0, DEFAULT_SHARED_ALIGNMENT)
    module = lower.module
    if not module.has_symbol(DYNAMIC_SHARED_SYMBOL):
        module.claim_symbol(DYNAMIC_SHARED_SYMBOL)
        with ir.Location.unknown(), ir.InsertionPoint.at_block_begin(module.body):
            memref.GlobalOp(DYNAMIC_SHARED_SYMBOL, ir.TypeAttr.get(buffer_type), alignment=_i64_attr(alignment))
    else:
        _raise_alignment(module, alignment)
    return memref.get_global(buffer_type, DYNAMIC_SHARED_SYMBOL)


def _raise_alignment(module, alignment):
    for op in module.body.operations:
        if (
            op.operation.name == "memref.global"
            and ir.StringAttr(op.attributes["sym_name"]).value == DYNAMIC_SHARED_SYMBOL
        ):
            if ir.IntegerAttr(op.attributes["alignment"]).value < alignment:
                op.attributes["alignment"] = _i64_attr(alignment)
            return


def _dynamic_shared_array(lower, sig, element, alignment, size, of_bytes):
    rounded = bool(alignment) and alignment > DEFAULT_SHARED_ALIGNMENT
    # an alignment past 16 bytes is not declared on the buffer: LLVM would take it as given
    # and drop the rounding up that makes it so
    buffer = _dynamic_shared_buffer(lower, None if rounded else alignment)
    index = ir.IndexType.get()
    space = _i64_attr(SHARED_MEMORY)
    i8_buffer = memref.cast(
        ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], buffer.type.element_type, memory_space=space), buffer
    )
    # the launch's dynamic shared bytes, in whole elements
    nbytes = arith.index_castui(index, nvvm.read_ptx_sreg_dynamic_smem_size(ir.IntegerType.get_signless(32)))
    start = arith.constant(index, 0)
    if rounded:
        start, nbytes = _aligned_start(lower, buffer, alignment, nbytes)
    length = arith.divui(nbytes, arith.constant(index, size))
    dynamic = [ir.ShapedType.get_dynamic_size()]
    view_type = ir.MemRefType.get(dynamic, element, memory_space=space)
    if of_bytes:  # the items' bytes, then the items
        whole = memref.view(view_type, i8_buffer, start, [arith.muli(length, arith.constant(index, size))])
        layout = ir.StridedLayoutAttr.get(0, [size])
        view_type = ir.MemRefType.get(dynamic, element, layout, memory_space=space)
        view = memref.reinterpret_cast(view_type, whole, [], [length], [], [0], dynamic, [size])
    else:
        view = memref.view(view_type, i8_buffer, start, [length])
    return _as_array(lower, sig.return_type, view, _generic(view.type))


def _generic(memref_type):
    """*memref_type* in the generic address space."""
    memref_type = ir.MemRefType(memref_type)
    return ir.MemRefType.get(memref_type.shape, memref_type.element_type, memref_type.layout)


def _aligned_start(lower, buffer, alignment, nbytes):
    """(the byte offset of the first *alignment*-aligned address of dynamic shared memory, the
    bytes from there): the dynamic memory starts where the kernel's static shared arrays end,
    which the driver aligns to 16 bytes only; each launch gives *alignment* bytes more for it
    (launch_needs.py, runtime/kernel.py)."""
    index = ir.IndexType.get()
    address = memref.extract_aligned_pointer_as_index(buffer)
    mask = arith.constant(index, alignment - 1)
    skip = arith.andi(arith.subi(arith.constant(index, 0), address), mask)
    left = arith.select(
        arith.cmpi(arith.CmpIPredicate.ugt, nbytes, skip), arith.subi(nbytes, skip), arith.constant(index, 0)
    )
    launch_needs.align_dynamic_shared_memory(alignment)
    lower.mlir_gpu_module.attributes[DYNAMIC_SHARED_ROUNDED] = ir.StringAttr.get(DYNAMIC_SHARED_SYMBOL)
    return skip, left


@shared_array.lower
def _shared_array(lower, sig, args):
    extents, element, alignment, size, of_bytes = _spec(lower, "cuda.shared.array", sig)
    if extents == (0,):
        return _dynamic_shared_array(lower, sig, element, alignment, size, of_bytes)
    return _static_shared_array(lower, sig, extents, element, alignment, size, of_bytes)


@local_array.lower
def _local_array(lower, sig, args):
    extents, element, alignment, size, of_bytes = _spec(lower, "cuda.local.array", sig)
    alloca_type = ir.MemRefType.get(_buffer_shape(extents, size, of_bytes), element)
    align = _i64_attr(alignment) if alignment else None
    with lower.alloca_insertion_point():
        buffer = _items(memref.alloca(alloca_type, [], [], alignment=align), extents, size, of_bytes, None)
    return memref.cast(lower.get_mlir_type(sig.return_type), buffer)


@const_array_like.lower("Array")
def _const_array_like(lower, sig, args):
    # a module-level array is already lowered into constant memory (rules/arrays.array_constant)
    return args[0]
