"""Cooperative groups without a GPU: a kernel synchronizing its grid compiles to PTX and a
linked cubin on both back ends, the Compilation records that it must be launched
cooperatively, and misuse is reported."""

import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import compiler, cuda
from cumlir.options import Options

from ... import support
from ...cases import cg_kernels as ck

ARCHS = [(8, 0), (9, 0)]
F64 = types.float64[::1]
KERNELS = {
    "smooth": (ck.smooth, (F64, F64, types.int64)),
    "rotate": (ck.rotate, (types.int32[::1], types.int32[::1], types.int64, types.int64)),
    "synced_by_callee": (ck.synced_by_callee, (F64, F64)),
}


@pytest.mark.parametrize("cc", ARCHS)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_grid_sync_compiles_links_and_is_cooperative(name, cc, backend):
    pyfunc, argtypes = KERNELS[name]
    c = compiler.kernel(pyfunc, argtypes, cc, Options(backend=backend), until="cubin")
    assert c.cooperative
    assert "%envreg1" in c.ptx and "atom.add.release.gpu.u32" in c.ptx
    support.ptxas(c.ptx, f"sm_{cc[0]}{cc[1]}")
    assert c.cubin[:4] == b"\x7fELF"


def test_a_kernel_without_grid_sync_is_not_cooperative():
    c = compiler.kernel(ck.add_one, (F64,), (9, 0), until="mlir")
    assert not c.cooperative


def test_the_overload_compiles_cooperatively():
    kernel = cuda.jit("void(float64[::1], float64[::1], int64)")(ck.smooth)
    (overload,) = kernel.overloads.values()
    assert overload.compilation((9, 0), "mlir").cooperative


def _this_grid_with_argument(a):
    cuda.cg.this_grid(1)


def _sync_with_argument(a):
    cuda.cg.this_grid().sync(a[0])


def _no_such_group_method(a):
    cuda.cg.this_grid().wait()


@pytest.mark.parametrize(
    "kernel,message",
    [
        (_this_grid_with_argument, r"cg\.this_grid"),
        (_sync_with_argument, r"grid_group\.sync"),
        (_no_such_group_method, r"Unknown attribute 'wait' of type cuda\.cg\.grid_group"),
    ],
)
def test_misuse_is_a_typing_error(kernel, message):
    with pytest.raises(TypingError, match=message) as info:
        cuda.compile_ptx(kernel, "void(float64[:])", cc=(9, 0))
    assert "test_cg.py" in str(info.value)


def test_on_the_host_the_stubs_raise():
    with pytest.raises(RuntimeError, match="cg.this_grid"):
        cuda.cg.this_grid()


def test_launch_helpers_check_their_arguments():
    kernel = cuda.jit(ck.add_one)
    with pytest.raises(ValueError, match="ntasks"):
        kernel.forall(-1)
    with pytest.raises(ValueError, match="tpb"):
        kernel.forall(10, tpb=1.5)
    with pytest.raises(TypeError, match="0 compiled signatures"):
        kernel.max_cooperative_grid_blocks(128)
    kernel.forall(0)()  # nothing to do: no launch, no GPU needed
