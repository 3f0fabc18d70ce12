"""libdevice for MLIR's NVPTX serialization, read only by the modules that call it.

MLIR's NVVM target links the copy of libdevice built into the MLIR bindings into every
module it serializes, reading the module table of its 480 KB of bitcode each time: 1.5-2 ms
of every compilation (vadd's PTX 6.1 -> 4.4 ms, matmul's 23.6 -> 20.8 on the 2-core build
machine), though most kernels call none of it. So each MLIR context cumlir makes
(mlir/contexts.py) holds an empty bitcode module under the name MLIR looks its copy up by,
and a module that declares libdevice routines names the same bitcode in its target's
``link``, read from an in-memory file of this process (``/proc/self/fd/N``). Where that
file cannot be made (no ``memfd_create``, the bindings without the built-in copy), contexts
keep MLIR's own copy and nothing is named: every module links it, as before. A module of a
context made elsewhere links both copies, which is harmless: the second finds every routine
defined already.
"""

from __future__ import annotations

import ctypes
import os
import threading
from typing import TYPE_CHECKING

import numpy as np

from .lazy import lazy

if TYPE_CHECKING:
    from mlir import ir as mlir_ir

# the bindings: their library holds the built-in libdevice; an MLIR context holds the empty
# module (both reached only when a context is made, which loads MLIR anyway)
mlir_libs = lazy("mlir._mlir_libs")
ir = lazy("mlir.ir")

ROUTINE_PREFIX = "__nv_"  # the names of libdevice's routines begin so
# the name of the resource MLIR's NVVM target takes its built-in libdevice from
MLIR_RESOURCE = "_mlir_embedded_libdevice"
_lock = threading.Lock()
_file: tuple[int, int, int] | None = None  # (descriptor, device, inode) of the in-memory file
_unavailable = False
_empty: bytes | None = None
# an empty LLVM module's bitcode, as MLIR's serialization of an empty gpu.module writes it
# (made at run time it cost a first kernel 10-30 ms; tests/test_libdevice_link.py makes it
# again and compares)
EMPTY_MODULE = os.path.join(os.path.dirname(__file__), "empty_module.bc")


def path() -> str | None:
    """The path of libdevice's bitcode for this process, or None where there is none."""
    global _file, _unavailable
    with _lock:
        if _unavailable:
            return None
        if _file is not None and _still_ours(*_file):
            return f"/proc/self/fd/{_file[0]}"
        bitcode = _built_in_bitcode()
        if bitcode is None or not hasattr(os, "memfd_create"):
            _unavailable = True
            return None
        fd = os.memfd_create("cumlir-libdevice")
        os.write(fd, bitcode)
        st = os.fstat(fd)
        _file = (fd, st.st_dev, st.st_ino)
        return f"/proc/self/fd/{fd}"


def _still_ours(fd: int, device: int, inode: int) -> bool:
    """Whether descriptor *fd* is still the file made here (a program may close descriptors)."""
    try:
        st = os.fstat(fd)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (device, inode)


def _built_in_bitcode() -> bytes | None:
    """The libdevice built into the MLIR bindings (exported by their C API library)."""
    try:
        library = ctypes.CDLL(os.path.join(mlir_libs.__path__[0], "libMLIRPythonCAPI.so"))
        size = ctypes.c_uint32.in_dll(library, f"{MLIR_RESOURCE}_size").value
        start = ctypes.addressof(ctypes.c_char.in_dll(library, MLIR_RESOURCE))
    except (OSError, ValueError):
        return None
    bitcode = ctypes.string_at(start, size)
    return bitcode if bitcode[:4] == b"BC\xc0\xde" else None


def hold_empty_library(context: mlir_ir.Context) -> None:
    """Give *context* an empty bitcode module in place of MLIR's built-in libdevice, where
    modules that call libdevice can name the real one (``path()``)."""
    if path() is None:
        return
    data = np.frombuffer(_empty_bitcode(), dtype=np.int8)
    with context, ir.Location.unknown():
        kind = ir.RankedTensorType.get([data.size], ir.IntegerType.get_signless(8))
        ir.DenseResourceElementsAttr.get_from_buffer(data, MLIR_RESOURCE, kind)


def _empty_bitcode() -> bytes:
    """The bitcode of an empty LLVM module (EMPTY_MODULE), read once."""
    global _empty
    with _lock:
        if _empty is None:
            with open(EMPTY_MODULE, "rb") as f:
                _empty = f.read()
        return _empty
