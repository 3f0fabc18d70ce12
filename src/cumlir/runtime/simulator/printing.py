"""``print`` in simulated kernels: the device's ``vprintf(format, arguments)``, whose
arguments CUDA packs into a buffer, each aligned to its size, formatted here and written to
the process's standard output (threads run one at a time, so lines come whole and in the
order of the threads)."""

from __future__ import annotations

import ctypes
import os
import re
import struct
import sys

_CONVERSION = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGaAcspn%])")
_SIGNED = {"hh": "b", "h": "h", "": "i", "l": "q", "ll": "q", "z": "q", "j": "q", "t": "q"}
_UNSIGNED = {"hh": "B", "h": "H", "": "I", "l": "Q", "ll": "Q", "z": "Q", "j": "Q", "t": "Q"}


def _read(buffer: int, offset: int, code: str) -> tuple[object, int]:
    size = struct.calcsize(code)
    offset = (offset + size - 1) // size * size
    (value,) = struct.unpack(code, ctypes.string_at(buffer + offset, size))
    return value, offset + size


def format_printed(fmt: bytes, buffer: int) -> str:
    """The text C's printf makes of *fmt* with the arguments packed at *buffer*."""
    text = fmt.decode(errors="replace")
    out, offset, last = [], 0, 0
    for m in _CONVERSION.finditer(text):
        out.append(text[last : m.start()])
        last = m.end()
        flags, width, precision, length, kind = m.groups()
        if kind == "%":
            out.append("%")
            continue
        length = length or ""
        if kind in "di":
            value, offset = _read(buffer, offset, _SIGNED.get(length, "q"))
        elif kind in "ouxX":
            value, offset = _read(buffer, offset, _UNSIGNED.get(length, "Q"))
        elif kind in "eEfFgGaA":
            value, offset = _read(buffer, offset, "d")
        elif kind == "c":
            value, offset = _read(buffer, offset, "i")
        elif kind in "sp":
            address, offset = _read(buffer, offset, "Q")
            value = ctypes.string_at(int(address)).decode(errors="replace") if kind == "s" and address else address  # type: ignore[call-overload]
        else:
            continue
        spec = f"%{flags or ''}{width or ''}{'.' + precision if precision else ''}"
        if kind == "p":
            out.append(f"0x{value:x}")
        elif kind == "c":
            out.append(chr(int(value) & 0xFF))  # type: ignore[call-overload]
        elif kind == "u":
            out.append((spec + "d") % value)
        elif kind in "aA":
            out.append(float(value).hex())  # type: ignore[arg-type]
        else:
            out.append((spec + kind) % value)
    out.append(text[last:])
    return "".join(out)


def _vprintf(fmt: int, buffer: int) -> int:
    text = format_printed(ctypes.string_at(fmt), buffer)
    sys.stdout.flush()
    os.write(1, text.encode())  # where the GPU's output goes: the process's file descriptor 1
    return len(text)


VPRINTF = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)(_vprintf)
