"""debug=True gives DWARF for a kernel's variables on the nvptx code generator
(lowering/debug_variables.py): each named variable of a scalar or array type with its
type, so that cuda-gdb prints it. CPU tests read the DWARF in the PTX and the cubin; the
GPU test drives cuda-gdb in batch mode."""

import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cumlir import cuda

from . import support

SIG = "void(float32[::1], int32)"


def scaled(a, n):
    i = cuda.grid(1)
    scale = np.float32(2.5)
    count = np.uint8(3)
    flag = i < n
    if flag:
        v = a[i]
        a[i] = v * scale + count


def _described(kernel, sig, cc):
    """(the variables given a stack slot, how many slots, the type names) of the kernel's
    debug information, from its LLVM IR."""
    text = kernel.compile(sig).output("llvm", cc)
    names = dict(re.findall(r'!(\d+) = !DILocalVariable\(name: "([^"]+)"', text))
    declared = re.findall(r"#dbg_declare\([^,]+, !(\d+),", text)
    type_names = set(re.findall(r'DI(?:Basic|Composite)Type\([^)]*name: "([^"]+)"', text))
    return {names[n] for n in declared}, len(declared), type_names


def _dwarf_strings(ptx):
    """The bytes of the PTX's .debug_info section (DWARF written as .b8 bytes)."""
    start = ptx.index(".section\t.debug_info")
    section = ptx[start : ptx.index("\t}", start)]
    return bytes(int(b) for b in re.findall(r"\.b8 (\d+)", section))


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def test_variables_and_their_types_are_described(cc):
    kernel = cuda.jit(debug=True, opt=False)(scaled)
    ptx = kernel.compile(SIG).output("ptx", cc)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    variables, declared, type_names = _described(kernel, SIG, cc)
    assert variables == {"a", "n", "i", "scale", "count", "flag", "v"}  # no temporaries
    assert declared == len(variables)  # each in a stack slot of its own
    assert {"float32", "int32", "int64", "uint8", "bool", "array(float32, 1d, C)"} <= type_names
    dwarf = _dwarf_strings(ptx)
    for name in (b"scale\0", b"count\0", b"data\0", b"strides\0", b"array(float32, 1d, C)\0"):
        assert name in dwarf, name


def test_without_debug_there_is_no_dwarf():
    ptx, _ = cuda.compile_ptx(scaled, SIG, cc=(9, 0))
    assert ".debug_info" not in ptx


def test_variables_are_described_on_nvptx_only():
    # libNVVM gets line tables only from the nvvm code generator's printer
    ptx, _ = cuda.compile_ptx(scaled, SIG, cc=(9, 0), debug=True, opt=False, backend="nvvm")
    support.ptxas(ptx, "sm_90")
    assert b"scale\0" not in _dwarf_strings(ptx)


@cuda.jit(device=True, debug=True, opt=False)
def _twice(x):
    doubled = x * 2
    return doubled


def _busy(a, b):
    tile = cuda.shared.array(32, np.float64)
    mine = cuda.local.array(4, np.int32)
    t = cuda.threadIdx.x
    mine[0] = t
    tile[t % 32] = a[t]
    cuda.syncthreads()
    total = 0.0
    for k in range(4):
        total += _twice(tile[(t + k) % 32]) + mine[0]
    total = int(total)  # another type under the same name
    b[t] = total


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def test_device_functions_shared_and_local_arrays_and_retyped_variables_compile(cc):
    kernel = cuda.jit(debug=True, opt=False)(_busy)
    sig = "void(float64[::1], int64[::1])"
    support.ptxas(kernel.compile(sig).output("ptx", cc), f"sm_{cc[0]}{cc[1]}")
    variables, _, _ = _described(kernel, sig, cc)
    assert {"a", "b", "t", "total", "k", "tile", "mine"} <= variables  # shared and local arrays too


def test_the_cubin_keeps_the_dwarf():
    kernel = cuda.jit(debug=True, opt=False)(scaled)
    cubin = kernel.compile(SIG).binary((9, 0)).cubin
    assert cubin[:4] == b"\x7fELF" and b".debug_info" in cubin and b"scale" in cubin


_SCRIPT = """
import numpy as np
from cumlir import cuda


@cuda.jit(debug=True, opt=False)
def scaled(a, n):
    i = cuda.grid(1)
    scale = np.float32(2.5)
    if i < n:
        v = a[i]
        a[i] = v * scale  # STOP


a = cuda.to_device(np.arange(8, dtype=np.float32))
scaled[1, 8](a, 8)
cuda.synchronize()
print("result", a.copy_to_host().tolist())
"""


@pytest.mark.gpu
def test_cuda_gdb_stops_at_a_kernel_line_and_prints_locals(tmp_path):
    gdb = shutil.which("cuda-gdb")
    if gdb is None:
        pytest.skip("cuda-gdb is not installed")
    script = tmp_path / "kernel_to_debug.py"
    script.write_text(textwrap.dedent(_SCRIPT))
    line = 1 + next(n for n, text in enumerate(_SCRIPT.splitlines()) if "# STOP" in text)
    commands = [
        "set cuda break_on_launch application",  # stop once the kernel's module is loaded
        "run",
        f"break kernel_to_debug.py:{line}",
        "continue",
        "print scale",
        "print v",
        "print a.data[3]",
        "print a.shape[0]",
        "set cuda break_on_launch none",
        "delete",
        "continue",
    ]
    args = [gdb, "-q", "-batch", *(x for c in commands for x in ("-ex", c)), "--args", sys.executable, str(script)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=240, cwd=tmp_path, env=dict(os.environ))
    out = done.stdout + done.stderr
    assert "kernel_to_debug.py" in out and f":{line}" in out, out[-3000:]
    assert re.search(r"\$1 = 2\.5\b", out), out[-3000:]
    assert re.search(r"\$2 = 0\b", out), out[-3000:]  # v of thread 0, where the stop is shown: a[0]
    assert re.search(r"\$3 = 3\b", out), out[-3000:]
    assert re.search(r"\$4 = 8\b", out), out[-3000:]
    assert "result [0.0, 2.5, 5.0" in out, out[-3000:]
