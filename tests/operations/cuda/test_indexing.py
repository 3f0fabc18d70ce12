"""Thread indexing (operations/cuda/indexing.py: threadIdx, blockIdx, blockDim, gridDim and
grid(ndim), gridsize(ndim)) on the CPU: result types, typing errors naming the stub, the special
registers each reads in the PTX of both code generators (assembled by ptxas), and the generated
code run on the host (tests/nrt_harness.py) with the special registers' reads bound to
stand-ins returning chosen values, against Python's integer arithmetic."""

import ctypes
import pickle
import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda

from ... import nrt_harness, support

CHIPS = [((8, 0), "sm_80"), ((9, 0), "sm_90")]
AXES = "xyz"
NAMESPACES = {"threadIdx": "tid", "blockIdx": "ctaid", "blockDim": "ntid", "gridDim": "nctaid"}

# the values each special register can hold (PTX ISA, "Special Registers"): the LLVM IR states
# these ranges, so the stand-ins stay inside them
LIMITS = {
    "tid": {"x": (0, 1023), "y": (0, 1023), "z": (0, 63)},
    "ntid": {"x": (1, 1024), "y": (1, 1024), "z": (1, 64)},
    "ctaid": {"x": (0, 2**31 - 2), "y": (0, 65534), "z": (0, 65534)},
    "nctaid": {"x": (1, 2**31 - 1), "y": (1, 65535), "z": (1, 65535)},
}


# ---- typing -------------------------------------------------------------------------------


def _type_of(pyfunc, *argtypes):
    return cuda.compile_ptx(pyfunc, tuple(argtypes), device=True, cc=(9, 0))[1]


def _components():
    return (
        cuda.threadIdx.x,
        cuda.threadIdx.y,
        cuda.threadIdx.z,
        cuda.blockIdx.x,
        cuda.blockIdx.y,
        cuda.blockIdx.z,
        cuda.blockDim.x,
        cuda.blockDim.y,
        cuda.blockDim.z,
        cuda.gridDim.x,
        cuda.gridDim.y,
        cuda.gridDim.z,
    )


def test_register_components_are_int32():
    assert _type_of(_components) == types.UniTuple(types.int32, 12)


@pytest.mark.parametrize("name", ["grid", "gridsize"])
def test_grid_and_gridsize_give_int64_or_a_tuple_of_them(name):
    stub = getattr(cuda, name)
    assert _type_of(lambda: stub(1)) == types.int64
    assert _type_of(lambda: stub(2)) == types.UniTuple(types.int64, 2)
    assert _type_of(lambda: stub(3)) == types.UniTuple(types.int64, 3)


def test_the_stubs_raise_on_the_host_and_pickle_by_name():
    with pytest.raises(RuntimeError, match="cuda.grid can only be used inside"):
        cuda.grid(1)
    with pytest.raises(RuntimeError, match="cuda.threadIdx.x can only be read inside"):
        cuda.threadIdx.x  # noqa: B018
    for stub in (cuda.grid, cuda.gridsize, cuda.threadIdx, cuda.gridDim):
        assert pickle.loads(pickle.dumps(stub)) is stub


BAD = [
    (lambda n: cuda.grid(), r"cuda\.grid\(\) takes exactly one argument, the number of dimensions"),
    (lambda n: cuda.gridsize(1, 2), r"cuda\.gridsize\(\) takes exactly one argument"),
    (lambda n: cuda.grid(ndim=1), r"cuda\.grid\(\) takes exactly one argument"),
    (lambda n: cuda.grid(n), r"cuda\.grid\(ndim\) needs ndim to be a constant 1, 2 or 3, got int64"),
    (lambda n: cuda.gridsize(1.0), r"cuda\.gridsize\(ndim\) needs ndim to be a constant 1, 2 or 3"),
    (lambda n: cuda.grid(4), r"cuda\.grid\(ndim\) needs ndim to be 1, 2 or 3, got 4"),
    (lambda n: cuda.gridsize(0), r"cuda\.gridsize\(ndim\) needs ndim to be 1, 2 or 3, got 0"),
    (lambda n: cuda.threadIdx.w, r"Unknown attribute 'w' of type cuda\.threadIdx"),
    (lambda n: cuda.gridDim.size, r"Unknown attribute 'size' of type cuda\.gridDim"),
]


@pytest.mark.parametrize("fn, message", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_uses_are_typing_errors_naming_the_stub(fn, message):
    with pytest.raises(TypingError, match=message) as info:
        _type_of(fn, types.int64)
    assert "test_indexing.py" in str(info.value)  # reported at the kernel's source line


# ---- PTX ----------------------------------------------------------------------------------


def _ptx(kernel, sig, cc, backend):
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    support.ptxas(ptx, dict(CHIPS)[cc])
    return ptx


def _registers_read(ptx):
    return set(re.findall(r"%(tid|ntid|ctaid|nctaid)\.([xyz])\b", ptx))


def _grid_1(out):
    out[0] = cuda.grid(1)


def _grid_2(out):
    out[0], out[1] = cuda.grid(2)


def _grid_3(out):
    out[0], out[1], out[2] = cuda.grid(3)


def _gridsize_1(out):
    out[0] = cuda.gridsize(1)


def _gridsize_2(out):
    out[0], out[1] = cuda.gridsize(2)


def _gridsize_3(out):
    out[0], out[1], out[2] = cuda.gridsize(3)


GRID = {1: _grid_1, 2: _grid_2, 3: _grid_3}
GRIDSIZE = {1: _gridsize_1, 2: _gridsize_2, 3: _gridsize_3}


@pytest.mark.parametrize("cc", [cc for cc, _ in CHIPS])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_grid_reads_the_block_and_thread_registers_of_its_axes(ndim, cc, backend):
    ptx = _ptx(GRID[ndim], "void(int64[::1])", cc, backend)
    axes = AXES[:ndim]
    assert _registers_read(ptx) == {(r, a) for r in ("tid", "ntid", "ctaid") for a in axes}
    # x's block start in 64 bits, from the unsigned 32-bit registers (along y and z the
    # registers' ranges let LLVM multiply in 32 bits: gridDim.y and .z are below 2**16)
    assert "mul.wide.u32" in ptx


@pytest.mark.parametrize("cc", [cc for cc, _ in CHIPS])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_gridsize_reads_the_block_and_grid_shapes_of_its_axes(ndim, cc, backend):
    ptx = _ptx(GRIDSIZE[ndim], "void(int64[::1])", cc, backend)
    assert _registers_read(ptx) == {(r, a) for r in ("ntid", "nctaid") for a in AXES[:ndim]}
    assert "mul.wide.u32" in ptx  # blockDim.x * gridDim.x may need 42 bits


def _every_component(out):
    out[0], out[1], out[2] = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
    out[3], out[4], out[5] = cuda.blockIdx.x, cuda.blockIdx.y, cuda.blockIdx.z
    out[6], out[7], out[8] = cuda.blockDim.x, cuda.blockDim.y, cuda.blockDim.z
    out[9], out[10], out[11] = cuda.gridDim.x, cuda.gridDim.y, cuda.gridDim.z


@pytest.mark.parametrize("cc", [cc for cc, _ in CHIPS])
def test_each_component_reads_its_own_register(cc, backend):
    ptx = _ptx(_every_component, "void(int32[::1])", cc, backend)
    assert _registers_read(ptx) == {(r, a) for r in NAMESPACES.values() for a in AXES}


# ---- the generated code run on the host ---------------------------------------------------

# the special registers of the host run: register name ("tid.x") -> the value its read gives
_VALUES = {}
_READ = ctypes.CFUNCTYPE(ctypes.c_int32)
_STANDINS = {
    f"{register}.{axis}": _READ(lambda name=f"{register}.{axis}": _VALUES[name]) for register in LIMITS for axis in AXES
}


def _host_kernel(pyfunc, argtypes):
    """The kernel's code run on the host, its reads of the special registers (NVVM intrinsics
    there is no host code for) made calls of the stand-ins reading _VALUES."""
    import llvmlite.binding as llvm

    text, symbol = nrt_harness.host_llvm_ir(pyfunc, argtypes)
    assert "@llvm.nvvm.read.ptx.sreg." in text
    text = text.replace("@llvm.nvvm.read.ptx.sreg.", "@cumlir_test_sreg_")
    for name, standin in _STANDINS.items():
        llvm.add_symbol(f"cumlir_test_sreg_{name}", ctypes.cast(standin, ctypes.c_void_p).value)
    params = 4 * len(argtypes)  # each a 1-d array: data, offset, size, stride
    function = nrt_harness.host_function(text, symbol, None, *[ctypes.c_int64] * params)

    def run(*arrays):
        function(*[p for a in arrays for p in nrt_harness._array_params(a)])

    return run


def _launch_values(rng, extreme=False):
    """Register values of one thread of some launch: each index below its extent. *extreme*:
    the largest grid along x, so that the last thread's position needs more than 32 bits."""
    values = {}
    for axis in AXES:
        ntid = int(rng.integers(*LIMITS["ntid"][axis], endpoint=True))
        nctaid = int(rng.integers(*LIMITS["nctaid"][axis], endpoint=True))
        if extreme and axis == "x":
            ntid, nctaid = 1024, 2**31 - 1
        values[f"ntid.{axis}"], values[f"nctaid.{axis}"] = ntid, nctaid
        values[f"tid.{axis}"] = ntid - 1 if extreme else int(rng.integers(0, ntid))
        values[f"ctaid.{axis}"] = nctaid - 1 if extreme else int(rng.integers(0, nctaid))
    return values


def _positions(out_grid, out_size):
    x, y, z = cuda.grid(3)
    nx, ny, nz = cuda.gridsize(3)
    out_grid[0] = cuda.grid(1)
    xy = cuda.grid(2)
    out_grid[1] = xy[0]
    out_grid[2] = xy[1]
    out_grid[3] = x
    out_grid[4] = y
    out_grid[5] = z
    out_size[0] = cuda.gridsize(1)
    wh = cuda.gridsize(2)
    out_size[1] = wh[0]
    out_size[2] = wh[1]
    out_size[3] = nx
    out_size[4] = ny
    out_size[5] = nz


def test_grid_and_gridsize_on_the_host_are_pythons_products(rng):
    # the first trials take the largest grid along x: its last thread's position and the grid's
    # size, (2**31 - 1) * 1024 threads, need more than 32 bits
    run = _host_kernel(_positions, (types.int64[::1], types.int64[::1]))
    for trial in range(60):
        _VALUES.clear()
        _VALUES.update(_launch_values(rng, extreme=trial < 2))
        v = _VALUES
        position = {a: v[f"ctaid.{a}"] * v[f"ntid.{a}"] + v[f"tid.{a}"] for a in AXES}
        shape = {a: v[f"ntid.{a}"] * v[f"nctaid.{a}"] for a in AXES}
        out_grid, out_size = support.poisoned(6, np.int64), support.poisoned(6, np.int64)
        run(out_grid, out_size)
        expected_grid = [position["x"], position["x"], position["y"], position["x"], position["y"], position["z"]]
        expected_size = [shape["x"], shape["x"], shape["y"], shape["x"], shape["y"], shape["z"]]
        assert out_grid.tolist() == expected_grid, v
        assert out_size.tolist() == expected_size, v


def test_each_component_on_the_host_is_its_registers_value(rng):
    run = _host_kernel(_every_component, (types.int32[::1],))
    for _ in range(20):
        _VALUES.clear()
        for register, axes in LIMITS.items():
            for axis, (low, high) in axes.items():
                _VALUES[f"{register}.{axis}"] = int(rng.integers(low, high, endpoint=True))
        out = support.poisoned(12, np.int32)
        run(out)
        expected = [_VALUES[f"{NAMESPACES[ns]}.{axis}"] for ns in NAMESPACES for axis in AXES]
        assert out.tolist() == expected
