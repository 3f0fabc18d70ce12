"""debug=True gives DWARF for a kernel's variables on both code generators
(lowering/debug_variables.py; the LLVM 7 printer's codegen/nvvm/llvm7_di.py for
libNVVM): each named variable of a scalar, array or record type with its type, so that
cuda-gdb prints it. CPU tests read the DWARF in the PTX and the cubin; the GPU test
drives cuda-gdb in batch mode."""

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
    """The bytes of the PTX's .debug_info section (DWARF written as .b8 bytes, one or
    several to a line)."""
    start = ptx.index(".section\t.debug_info")
    section = ptx[start : ptx.index("\t}", start)]
    return bytes(int(b) for line in re.findall(r"\.b8 ([\d,]+)", section) for b in line.split(","))


BACKENDS = pytest.mark.parametrize("backend", ["nvptx", "nvvm"])
CCS = pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])


@CCS
def test_variables_and_their_types_are_declared(cc):
    kernel = cuda.jit(debug=True, opt=False)(scaled)
    variables, declared, type_names = _described(kernel, SIG, cc)
    assert variables == {"a", "n", "i", "scale", "count", "flag", "v"}  # no temporaries
    assert declared == len(variables)  # each in a stack slot of its own
    assert {"float32", "int32", "int64", "uint8", "bool", "array(float32, 1d, C)"} <= type_names


def retyped(out, use_float, use_bool):
    x = 1  # typed Literal[int](1) here: described as the int64 it holds
    if use_float:
        x = 2.5
    elif use_bool:
        x = True
    else:
        x = x + 10
    out[0] = x


@CCS
def test_a_variable_first_assigned_a_constant_is_described_as_its_type(cc):
    kernel = cuda.jit(debug=True, opt=False)(retyped)
    variables, _, type_names = _described(kernel, "void(float64[::1], boolean, boolean)", cc)
    assert "x" in variables and "int64" in type_names


def test_a_variable_retyped_along_branches_keeps_its_values_under_debug(simulator_or_gpu):
    kernel = cuda.jit("void(float64[::1], boolean, boolean)", debug=True, opt=False)(retyped)
    for flags, expected in [((False, False), 11.0), ((True, False), 2.5), ((False, True), 1.0)]:
        out = np.full(1, np.nan)
        kernel[1, 1](out, *flags)
        assert out[0] == expected, flags


@BACKENDS
@CCS
def test_the_ptx_describes_variables_and_types(backend, cc):
    kernel = cuda.jit(debug=True, opt=False, backend=backend)(scaled)
    ptx = kernel.compile(SIG).output("ptx", cc)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    dwarf = _dwarf_strings(ptx)
    for name in (b"scale\0", b"count\0", b"flag\0", b"data\0", b"strides\0", b"array(float32, 1d, C)\0"):
        assert name in dwarf, name
    assert b"float32\0" in dwarf and b"uint8\0" in dwarf


@BACKENDS
def test_without_debug_there_is_no_dwarf(backend):
    ptx, _ = cuda.compile_ptx(scaled, SIG, cc=(9, 0), backend=backend)
    assert ".debug_info" not in ptx


@BACKENDS
def test_lineinfo_alone_describes_no_variables(backend):
    ptx, _ = cuda.compile_ptx(scaled, SIG, cc=(9, 0), lineinfo=True, backend=backend)
    assert ".loc" in ptx
    assert ".debug_info" not in ptx or b"scale\0" not in _dwarf_strings(ptx)


REC = np.dtype([("x", np.float32), ("n", np.int16), ("v", np.float64, (3,)), ("c", np.complex64)], align=True)


def _with_records(recs, out):
    i = cuda.grid(1)
    r = recs[i]
    x = r.x
    out[i] = x + r.v[1] + r.n


@BACKENDS
def test_records_and_arrays_of_records_are_described_by_their_fields(backend):
    from numba import from_dtype, types

    sig = (types.Array(from_dtype(REC), 1, "C"), types.float64[::1])
    kernel = cuda.jit(debug=True, opt=False, backend=backend)(_with_records)
    ptx = kernel.compile(sig).output("ptx", (9, 0))
    support.ptxas(ptx, "sm_90")
    dwarf = _dwarf_strings(ptx)
    for name in (b"record(x, n, v, c)\0", b"recs\0", b"r\0", b"x\0", b"n\0", b"v\0", b"c\0", b"complex64\0"):
        assert name in dwarf, name
    if backend == "nvptx":
        text = kernel.compile(sig).output("llvm", (9, 0))
        record = re.search(
            r'DICompositeType\(tag: DW_TAG_structure_type, name: "record\(x, n, v, c\)", size: (\d+)', text
        )
        assert record and int(record.group(1)) == 8 * REC.itemsize
        offsets = dict(re.findall(r'DW_TAG_member, name: "([xnvc])".*?offset: (\d+)', text))
        assert {k: int(v) // 8 for k, v in offsets.items() if k != "x"} == {
            k: REC.fields[k][1] for k in "nvc"
        }  # x, at offset 0, is printed without one


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


@BACKENDS
def test_the_cubin_keeps_the_dwarf(backend):
    kernel = cuda.jit(debug=True, opt=False, backend=backend)(scaled)
    cubin = kernel.compile(SIG).binary((9, 0)).cubin
    assert cubin[:4] == b"\x7fELF" and b".debug_info" in cubin and b"scale" in cubin


_SCRIPT = """
import numpy as np
from cumlir import cuda

REC = np.dtype([("x", np.float32), ("n", np.int16)], align=True)


@cuda.jit(debug=True, opt=False)
def scaled(a, recs, n):
    i = cuda.grid(1)
    scale = np.float32(2.5)
    if i < n:
        r = recs[i]
        v = a[i]
        a[i] = v * scale + r.n  # STOP


a = cuda.to_device(np.arange(8, dtype=np.float32))
recs = np.zeros(8, REC)
recs["x"] = 1.5 + np.arange(8)
recs["n"] = 10 + np.arange(8)
scaled[1, 8](a, cuda.to_device(recs), 8)
cuda.synchronize()
print("result", a.copy_to_host().tolist())
"""


def _cuda_gdb():
    return shutil.which("cuda-gdb", path=os.environ.get("PATH", "") + os.pathsep + "/usr/local/cuda/bin")


@pytest.mark.gpu
@BACKENDS
@pytest.mark.not_simulated("cuda-gdb debugs the GPU's code")
def test_cuda_gdb_stops_at_a_kernel_line_and_prints_locals(tmp_path, backend):
    gdb = _cuda_gdb()
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
        "print r.x",
        "print r.n",
        "print recs.data[5].x",
        "set cuda break_on_launch none",
        "delete",
        "continue",
    ]
    args = [gdb, "-q", "-batch", *(x for c in commands for x in ("-ex", c)), "--args", sys.executable, str(script)]
    env = dict(os.environ, CUMLIR_BACKEND=backend)
    done = subprocess.run(args, capture_output=True, text=True, timeout=240, cwd=tmp_path, env=env)
    out = done.stdout + done.stderr
    assert "kernel_to_debug.py" in out and f":{line}" in out, out[-3000:]
    # thread 0 is where the stop is shown
    expected = {1: r"2\.5", 2: r"0", 3: r"3", 4: r"8", 5: r"1\.5", 6: r"10", 7: r"6\.5"}
    for number, value in expected.items():
        assert re.search(rf"\${number} = {value}\b", out), (number, out[-3000:])
    assert "result [10.0, 13.5, 17.0" in out, out[-3000:]
