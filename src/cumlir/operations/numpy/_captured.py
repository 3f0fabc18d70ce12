"""A device array read as a global: the descriptor its ``__cuda_array_interface__`` gave at
compile time (address, shape, strides), as constants. Rebinding the global later changes no
kernel compiled before; the typed code holds the array object, so its memory lives as long
as the kernel does (as Numba-CUDA keeps it)."""

from .._support.arrayviews import itemsize, unit_bytes
from .._support.modules import arith, ir, llvm


def captured_array(lower, ty, interface):
    i64 = ir.IntegerType.get_signless(64)
    shape = [int(n) for n in interface["shape"]]
    size = itemsize(ty.dtype)
    strides = interface.get("strides")
    if strides is None:  # C order, as the interface means by None
        strides, step = [0] * len(shape), size
        for axis in reversed(range(len(shape))):
            strides[axis], step = step, step * max(shape[axis], 1)
    unit = unit_bytes(lower, ty.dtype)  # records, vectors and fixed-width strings count bytes (docs/abi.md)
    for stride in strides:
        if stride % unit:
            raise TypeError(f"a global device array's byte stride {stride} is not a multiple of its item size {unit}")
    if span(shape, strides, size) >= 2**31:
        lower.require_wide_addresses("a global device array of 2 GiB or more")
    address = arith.constant(i64, int(interface["data"][0] or 0))
    pointer = llvm.inttoptr(llvm.PointerType.get(), address)
    fields = [arith.constant(i64, v) for v in (0, *shape, *(s // unit for s in strides))]
    return lower.unowned(lower.memref_from_params(ty, [pointer, *fields]))


def span(shape, byte_strides, itemsize):
    """The bytes from an array's lowest element to the end of its highest (0 when empty)."""
    if 0 in shape:
        return 0
    return sum((n - 1) * abs(s) for n, s in zip(shape, byte_strides)) + itemsize
