"""cuda.random on the CPU: the host-made states against a reference written from the
generator's definition, the device functions' types as Numba-CUDA gives them, PTX of
kernels using each of them on both back ends (assembled by ptxas), and the errors for
states of the wrong kind."""

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.cuda import random as curand

from ... import support
from ...cases import random_kernels as rk

CHIPS = [((8, 0), "sm_80"), ((9, 0), "sm_90")]


@pytest.mark.parametrize("subsequence_start", [0, 1, 3])
@pytest.mark.parametrize("seed", [0, 1, 12345, 2**63 + 7, 2**64 - 1])
def test_host_states_follow_splitmix64_and_jumps(seed, subsequence_start):
    made = curand.host_states(5, seed, subsequence_start)
    assert made.dtype == curand.xoroshiro128p_dtype
    assert [(int(a), int(b)) for a, b in made] == rk.states(5, seed, subsequence_start)


def test_the_state_record_is_two_aligned_uint64():
    dtype = curand.xoroshiro128p_dtype
    assert dtype.names == ("s0", "s1") and dtype.itemsize == 16 and dtype.isalignedstruct
    assert all(dtype.fields[name][0] == np.uint64 for name in dtype.names)


def test_a_negative_seed_wraps_as_uint64_does():
    assert np.array_equal(curand.host_states(3, -1), curand.host_states(3, 2**64 - 1))
    assert np.array_equal(curand.host_states(2, np.int32(-5)), curand.host_states(2, 2**64 - 5))


def test_an_integral_float_seed_is_truncated():
    assert np.array_equal(curand.host_states(2, 42.9), curand.host_states(2, 42))


def test_no_states():
    assert curand.host_states(0, 1).shape == (0,)


@pytest.mark.parametrize(
    "args, error, words",
    [
        ((3, 2**64), OverflowError, "64 bits"),
        ((3, -(2**63) - 1), OverflowError, "64 bits"),
        ((3, "seed"), TypeError, "seed"),
        ((3, -1.0), TypeError, "seed"),
        ((3, float("nan")), TypeError, "seed"),
        ((3, 1, -1), ValueError, "subsequence_start"),
        ((3, 1, 1.5), TypeError, "subsequence_start"),
        ((-1, 1), ValueError, "number of random states"),
        ((2.0, 1), ValueError, "number of random states"),
    ],
)
def test_bad_host_arguments_are_refused(args, error, words):
    with pytest.raises(error, match=words):
        curand.host_states(*args)


def test_init_states_needs_a_device_array_of_state_records():
    with pytest.raises(TypeError, match="device array"):
        curand.init_xoroshiro128p_states(np.empty(4, curand.xoroshiro128p_dtype), 1)

    class FloatDeviceArray:
        shape, dtype = (4,), np.dtype(np.float64)

        def copy_to_device(self, ary, stream=0):
            raise AssertionError("not reached")

    with pytest.raises(TypeError, match="xoroshiro128p_dtype.*float64"):
        curand.init_xoroshiro128p_states(FloatDeviceArray(), 1)


def test_the_namespace_and_the_module_are_one():
    assert cuda.random is curand
    from cumlir.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    assert cuda.random.create_xoroshiro128p_states is create_xoroshiro128p_states
    assert cuda.random.xoroshiro128p_uniform_float32 is xoroshiro128p_uniform_float32
    for name in curand.__all__:
        assert getattr(curand, name) is not None, name


def test_importing_the_module_loads_no_compiler():
    code = (
        "import sys; from cumlir.cuda.random import create_xoroshiro128p_states, xoroshiro128p_next; "
        "print(any(m == 'numba' or m.startswith(('numba.', 'mlir')) for m in sys.modules))"
    )
    assert support.python_output(code) == "False"


@pytest.mark.parametrize(
    "name, result",
    [
        ("xoroshiro128p_next", types.uint64),
        ("xoroshiro128p_uniform_float32", types.float32),
        ("xoroshiro128p_uniform_float64", types.float64),
        ("xoroshiro128p_normal_float32", types.float32),
        ("xoroshiro128p_normal_float64", types.float64),
        ("xoroshiro128p_jump", types.none),
    ],
)
def test_device_functions_type_as_in_numba_cuda(name, result):
    device = getattr(curand, name)
    for index in (types.int32, types.uint64):
        assert device.compile((rk.state_array_type(), index)).signature.return_type == result


def test_conversion_helpers_type_as_in_numba_cuda():
    assert curand.uint64_to_unit_float64.compile((types.uint64,)).signature.return_type == types.float64
    assert curand.uint64_to_unit_float32.compile((types.uint64,)).signature.return_type == types.float32
    assert curand.rotl.compile((types.uint64, types.int64)).signature.return_type == types.uint64


def _kernels():
    states = rk.state_array_type()
    kernels = {
        name: (kernel, (states, types.Array(support.numba_type(dtype), 2, "C")))
        for name, (dtype, kernel) in rk.DRAWS.items()
    }
    kernels["xoroshiro128p_jump"] = (rk.jump_each, (states,))
    kernels["init_xoroshiro128p_state"] = (rk.seed_each, (states, types.int64[::1]))
    u64 = types.uint64[::1]
    kernels["conversions"] = (rk.unit_floats, (u64, types.float64[::1], types.float32[::1], u64))
    return kernels


# what each kernel's PTX must hold: the 64-bit xor of the generator, the conversions
EXPECTED_PTX = {
    "xoroshiro128p_next": ["xor.b64", "add.s64"],
    "xoroshiro128p_uniform_float32": ["cvt.rn.f64.u64", "cvt.rn.f32.f64"],
    "xoroshiro128p_uniform_float64": ["cvt.rn.f64.u64"],
    "xoroshiro128p_normal_float32": ["sqrt.rn.f32"],
    "xoroshiro128p_normal_float64": ["sqrt.rn.f64"],
    "xoroshiro128p_jump": ["xor.b64"],
    "init_xoroshiro128p_state": ["mul.lo.s64", "shr.u64"],
    "conversions": ["cvt.rn.f64.u64", "cvt.rn.f32.f64"],
}


@pytest.mark.parametrize("cc, arch", CHIPS, ids=[arch for _, arch in CHIPS])
@pytest.mark.parametrize("name", list(EXPECTED_PTX))
def test_kernels_compile_and_assemble(name, cc, arch, backend):
    kernel, sig = _kernels()[name]
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    support.ptxas(ptx, arch)
    for text in EXPECTED_PTX[name]:
        assert text in ptx, (name, text)


def test_states_of_the_wrong_dtype_are_a_typing_error_at_the_calling_line():
    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(rk.wrong_states, (types.float64[::1], types.float32[::1]), cc=(9, 0))
    message = str(info.value)
    assert "xoroshiro128p_dtype" in message and "array(float64, 1d, C)" in message
    line = rk.wrong_states.__code__.co_firstlineno + 3
    assert f"random_kernels.py ({line})" in message


@pytest.mark.parametrize("bad", [types.Array(types.uint64, 1, "C"), types.Array(types.float32, 2, "C")])
def test_other_wrong_states_are_refused(bad):
    with pytest.raises(TypingError, match="xoroshiro128p_dtype"):
        curand.xoroshiro128p_next.compile((bad, types.int64))


def test_a_record_with_other_fields_is_refused():
    from numba import from_dtype

    other = from_dtype(np.dtype([("s0", np.uint64), ("x", np.uint64)], align=True))
    with pytest.raises(TypingError, match="xoroshiro128p_dtype"):
        curand.xoroshiro128p_uniform_float64.compile((other[::1], types.int64))


def test_device_functions_refuse_host_calls():
    with pytest.raises(TypeError, match="only be called from a kernel"):
        curand.xoroshiro128p_next(curand.host_states(1, 1), 0)
