"""``cuda.libdevice`` without a GPU: every routine compiles to PTX that ptxas accepts on
both back ends, the typing is Numba-CUDA's (pointer arguments returned in tuples), and
bad calls are typing errors naming the routine."""

import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.operations.cuda import libdevice as area

from ... import support
from ...cases import libdevice_kernels as lk

ARCHS = [(8, 0), (9, 0)]


@pytest.mark.parametrize("cc", ARCHS)
def test_every_routine_compiles_and_assembles(backend, cc):
    kernel, sig, _ = lk.every_routine()
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    assert ".entry every_libdevice_routine" in ptx
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


@pytest.mark.parametrize(
    "name,sig,instruction",
    [
        ("popc", "void(int32[:], int32[:])", "popc.b32"),
        ("brevll", "void(int64[:], int64[:])", "brev.b64"),
        ("fast_sincosf", "void(float32[:], float32[:], float32[:])", "sin.approx"),
        ("frexp", "void(float64[:], float64[:], int32[:])", ".entry"),
    ],
)
def test_routines_reach_the_ptx(backend, name, sig, instruction):
    ptx, _ = cuda.compile_ptx(lk.one_routine(name), sig, cc=(9, 0), backend=backend)
    assert instruction in ptx
    support.ptxas(ptx)


def test_the_namespace_holds_every_routine():
    from cumlir.cuda import libdevice

    assert libdevice is cuda.libdevice
    assert len(area.ROUTINES) == 317  # Numba-CUDA's set: libdevice's less __nv_nan, __nv_nanf
    for name in ("sinf", "popcll", "frexp", "sincospi", "fast_sincosf", "double2ull_rz", "umul64hi"):
        assert getattr(libdevice, name).__name__ == f"libdevice.{name}"
    with pytest.raises(RuntimeError, match="libdevice.sinf"):
        libdevice.sinf(1.0)
    assert not hasattr(libdevice, "nan")


@pytest.mark.parametrize(
    "name,expected",
    [
        ("sinf", "float32(float32)"),
        ("popcll", "int32(int64)"),
        ("umax", "int32(int32, int32)"),
        ("float2half_rn", "int16(float32)"),
        ("jn", "float64(int32, float64)"),
        ("frexp", "Tuple(float64, int32)(float64)"),
        ("modff", "UniTuple(float32 x 2)(float32)"),
        ("remquof", "Tuple(float32, int32)(float32, float32)"),
        ("sincos", "UniTuple(float64 x 2)(float64)"),
        ("fma_rn", "float64(float64, float64, float64)"),
    ],
)
def test_typing_is_numba_cudas(name, expected):
    sig = area.signature(name)
    assert f"{sig.return_type}({', '.join(map(str, sig.args))})" == expected


def _sinf_of_array(a):
    a[0] = cuda.libdevice.sinf(a)


def _popc_two_arguments(a):
    a[0] = cuda.libdevice.popc(a[0], a[0])


def _no_such_routine(a):
    a[0] = cuda.libdevice.nan(a[0])


def _sincos_into_one(a):
    a[0] = cuda.libdevice.sincos(a[0])


@pytest.mark.parametrize(
    "kernel,message",
    [
        (_sinf_of_array, r"libdevice\.sinf"),
        (_popc_two_arguments, r"libdevice\.popc"),
        (_no_such_routine, r"Unknown attribute 'nan' of type cuda\.libdevice"),
        (_sincos_into_one, r"UniTuple\(float64 x 2\)"),
    ],
)
def test_bad_calls_are_typing_errors(kernel, message):
    with pytest.raises(TypingError, match=message) as info:
        cuda.compile_ptx(kernel, "void(float64[:])", cc=(9, 0))
    assert "test_libdevice.py" in str(info.value)  # the line of the call


def test_arguments_convert_as_to_one_signature():
    # numba converts to the routine's one signature, as Numba-CUDA's typing does
    def widen(a, out):
        out[0] = cuda.libdevice.sin(a[0])

    _, ret = cuda.compile_ptx(widen, "void(int16[:], float64[:])", cc=(9, 0))
    assert ret == types.void


def test_the_gpu_tiers_kernels_compile():
    from ...operations.cuda.test_libdevice_gpu import CASES

    for name in sorted(CASES):
        ins, outs = lk.inputs_of(name)
        sig = "void(" + ", ".join(f"{lk.NUMBA[k]}[:]" for k in ins + outs) + ")"
        ptx, _ = cuda.compile_ptx(lk.one_routine(name), sig, cc=(8, 0))
        support.ptxas(ptx, "sm_80")
