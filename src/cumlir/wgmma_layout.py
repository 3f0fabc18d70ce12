"""The shared-memory side of Hopper's warpgroup tensor cores (wgmma, docs/tensor_cores.md):
the matrix descriptor's bit fields, packed by :func:`matrix_descriptor` (the kernel's
``intrin.wgmma_descriptor`` packs the same fields), and host helpers that arrange a matrix in
the orders wgmma reads, for K-major operands: A as M rows of K, B as N rows of K.

Both layouts are built from core matrices: 8 rows of 16 bytes (8 16-bit elements, 4 tf32,
16 float8). ``interleaved(matrix)`` stores each core matrix as 128 contiguous bytes, the ones
along K next to each other (the leading byte offset, 128) and each group of 8 rows after the
previous one (the stride byte offset). ``swizzled_128b(matrix)`` stores rows of 128 bytes, each
group of 8 rows one 1024-byte atom whose 16-byte chunks are permuted (chunk ``c`` of row ``r``
at ``c ^ (r % 8)``): K is padded with zeros to a multiple of 128 bytes, and the atoms along K
follow one another after all the rows. Either array goes to shared memory as it is (aligned to
1024 bytes for the swizzled one); ``k_step_offset`` gives, in elements, where the operand of
the k-th instruction (32 bytes of K each) starts.

Imports nothing but NumPy: usable on the host and below the compiler's layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

# field -> (first bit, width in bits) of the 64-bit matrix descriptor (PTX ISA, "Matrix
# Descriptor Format"); addresses and byte offsets are stored divided by 16
FIELDS = {"start_address": (0, 14), "leading_byte_offset": (16, 14), "stride_byte_offset": (32, 14),
          "base_offset": (49, 3), "swizzle": (62, 2)}  # fmt: skip

# the swizzle of the layout, in bytes (0: none, the interleaved core matrices) -> its code
SWIZZLE_CODES = {0: 0, 128: 1, 64: 2, 32: 3}

CORE_ROWS = 8
CHUNK_BYTES = 16  # one row of a core matrix
K_STEP_BYTES = 32  # the K of one instruction: k16 of 16-bit types, k8 of tf32, k32 of float8
ATOM_ROW_BYTES = 128  # a row of the 128-byte swizzle
ATOM_BYTES = CORE_ROWS * ATOM_ROW_BYTES


def matrix_descriptor(
    address: int, leading_byte_offset: int, stride_byte_offset: int, swizzle: int = 0, base_offset: int = 0
) -> int:
    """The 64-bit descriptor of a matrix starting at the shared-memory *address* (bytes, a
    multiple of 16), with the byte offsets between core matrices along the leading dimension
    (K, for K-major operands) and the strided one (M or N), multiples of 16 below 2**18, and
    the swizzle in bytes (0, 32, 64 or 128)."""
    if swizzle not in SWIZZLE_CODES:
        raise ValueError(f"the swizzle must be 0, 32, 64 or 128 bytes, got {swizzle}")
    for name, value in (("address", address), ("leading_byte_offset", leading_byte_offset),
                        ("stride_byte_offset", stride_byte_offset)):  # fmt: skip
        if value % 16 or not 0 <= value < 1 << 18:
            raise ValueError(f"{name} must be a multiple of 16 from 0 to 2**18 - 16, got {value}")
    if not 0 <= base_offset < 8:
        raise ValueError(f"base_offset must be 0 to 7, got {base_offset}")
    values = {
        "start_address": address >> 4,
        "leading_byte_offset": leading_byte_offset >> 4,
        "stride_byte_offset": stride_byte_offset >> 4,
        "base_offset": base_offset,
        "swizzle": SWIZZLE_CODES[swizzle],
    }
    return sum(values[name] << FIELDS[name][0] for name in FIELDS)


class Layout(NamedTuple):
    """A matrix in one of wgmma's shared-memory orders: the elements to copy, flat, and what its
    descriptors say (``intrin.wgmma_descriptor(smem[offset:], leading_byte_offset,
    stride_byte_offset, swizzle)``)."""

    data: np.ndarray
    rows: int
    leading_byte_offset: int
    stride_byte_offset: int
    swizzle: int

    def k_step_offset(self, step: int) -> int:
        """The element offset of the operand of the *step*-th instruction along K."""
        itemsize = self.data.itemsize
        if self.swizzle == 0:
            # two core matrices along K a step, each leading_byte_offset from the previous
            return step * (K_STEP_BYTES // CHUNK_BYTES) * self.leading_byte_offset // itemsize
        # within a row of the atom (the hardware swizzles the address it is given), then the
        # next column of atoms
        column, within = divmod(step * K_STEP_BYTES, ATOM_ROW_BYTES)
        return (column * self.rows * ATOM_ROW_BYTES + within) // itemsize


def _check(matrix: ArrayLike, k_multiple_bytes: int) -> np.ndarray:
    matrix = np.ascontiguousarray(matrix)
    if matrix.ndim != 2:
        raise ValueError(f"a wgmma operand is a 2-D matrix (rows, K), got shape {matrix.shape}")
    rows, k = matrix.shape
    if rows % CORE_ROWS or (k * matrix.itemsize) % k_multiple_bytes:
        raise ValueError(
            f"a wgmma operand has a multiple of {CORE_ROWS} rows and a multiple of {k_multiple_bytes} bytes "
            f"along K, got shape {matrix.shape} of {matrix.dtype}"
        )
    return matrix


def interleaved(matrix: ArrayLike) -> Layout:
    """*matrix* (rows, K) as interleaved core matrices, no swizzle: core matrix (i, j), rows
    8i to 8i + 7 and the j-th 16 bytes of K, is the 128 bytes at (i * (K bytes / 16) + j) * 128."""
    matrix = _check(matrix, K_STEP_BYTES)
    rows, k = matrix.shape
    per_chunk = CHUNK_BYTES // matrix.itemsize
    chunks = k // per_chunk
    # (row group, row, chunk, element) -> (row group, chunk, row, element)
    data = matrix.reshape(rows // CORE_ROWS, CORE_ROWS, chunks, per_chunk).transpose(0, 2, 1, 3)
    core_bytes = CORE_ROWS * CHUNK_BYTES
    return Layout(data.reshape(-1).copy(), rows, core_bytes, chunks * core_bytes, 0)


def swizzled_128b(matrix: ArrayLike) -> Layout:
    """*matrix* (rows, K) in the 128-byte swizzle: K padded with zeros to a multiple of 128
    bytes; the 128-byte column j of row r at (j * rows + r) * 128, its 16-byte chunk c moved to
    chunk c ^ (r % 8). Copy it to shared memory aligned to 1024 bytes."""
    matrix = _check(matrix, CHUNK_BYTES)
    rows, k = matrix.shape
    per_row = ATOM_ROW_BYTES // matrix.itemsize
    columns = -(-k // per_row)
    padded = np.zeros((rows, columns * per_row), matrix.dtype)
    padded[:, :k] = matrix
    per_chunk = CHUNK_BYTES // matrix.itemsize
    # (row, column, chunk, element) -> (column, row, chunk, element), then the chunks permuted
    data = padded.reshape(rows, columns, ATOM_ROW_BYTES // CHUNK_BYTES, per_chunk).transpose(1, 0, 2, 3).copy()
    chunk = np.arange(ATOM_ROW_BYTES // CHUNK_BYTES)
    for r in range(rows):
        data[:, r, chunk ^ (r % CORE_ROWS)] = data[:, r, chunk].copy()
    return Layout(data.reshape(-1), rows, 16, ATOM_BYTES, 128)
