"""enum.Enum and enum.IntEnum members in kernels and device functions: PTX on both code
generators, typing errors for what device code cannot hold, and on the GPU the results of
each kernel against the same Python function run on the host."""

import enum

import numba
import numpy as np
import pytest
from numba.core import errors

from cumlir import cuda
from cumlir.codegen import targets

from . import support
from .test_codegen import ARCHS


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Planet(enum.Enum):
    EARTH = (5.976e24, 6.37814e6)
    MARS = (6.421e23, 3.3972e6)


class Scale(enum.Enum):
    HALF = 0.5
    TWICE = 2.0


class Mode(enum.IntEnum):
    SLOW = 1
    FAST = 2
    QUICK = 2  # an alias of FAST


class Other(enum.IntEnum):
    TWO = 2


class Mixed(enum.Enum):
    ONE = 1.0
    IMAGINARY = 1j


class Named(enum.Enum):
    A = "a"


def pick(flag):
    return Color.RED if flag else Color.GREEN


def scaled(scale, x):
    return scale.value * x


pick_device = numba.njit(pick)  # a device function, also callable on the host (the reference)
scaled_device = numba.njit(scaled)


def compare_members(out, x, y):
    c = pick_device(x > y)
    out[0] = c == Color.RED
    out[1] = c != Color.GREEN
    out[2] = c is Color.RED
    out[3] = c is not Color.RED
    out[4] = Mode.FAST is Mode.QUICK
    out[5] = Color.RED is Mode.SLOW
    out[6] = Mode.FAST == Other.TWO  # IntEnum members of two classes compare as integers
    out[7] = Color["GREEN"].value


def int_enum_as_integer(out, x, y):
    out[0] = x + Mode.FAST
    out[Mode.SLOW] = out[0] * Mode.FAST
    out[2] = x > Mode.SLOW
    out[3] = numba.int16(Mode.SLOW) + numba.int32(Mode.FAST)
    out[4] = Mode.FAST.value
    if x == Mode.FAST:
        out[5] = 1
    else:
        out[5] = -1


def values_of_members(out, x, y):
    out[0] = scaled_device(Scale.TWICE, y)
    out[1] = Planet.EARTH.value[1] > Planet.MARS.value[1]
    members = (Mode.FAST, Color.BLUE, Scale.HALF)
    out[2] = members[0] * 3 + members[1].value + members[2].value


KERNELS = (compare_members, int_enum_as_integer, values_of_members)
SIG = "void(float64[::1], int64, float64)"


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("cc", ARCHS)
def test_enum_kernels_compile_and_assemble(kernel, cc, backend):
    ptx, _ = cuda.compile_ptx(kernel, SIG, cc=cc, backend=backend)
    support.ptxas(ptx, targets.chip(cc))


def test_member_comparison_is_by_value_in_the_ptx():
    ptx, _ = cuda.compile_ptx(int_enum_as_integer, SIG, cc=(8, 0))
    assert "setp.eq.b64" in ptx or "setp.ne.b64" in ptx  # x == Mode.FAST: an integer comparison


def _typing_error(kernel):
    with pytest.raises(errors.TypingError) as caught:
        cuda.compile_ptx(kernel, "void(float64[::1])", cc=(8, 0))
    return str(caught.value)


def test_a_missing_member_is_a_typing_error_naming_it():
    def kernel(out):
        out[0] = Color.PURPLE.value

    assert "Unknown attribute 'PURPLE'" in _typing_error(kernel)


def test_an_enum_of_strings_is_refused_by_name():
    def kernel(out):
        out[0] = Named.A == Named.A

    message = _typing_error(kernel)
    assert "enum Named" in message and "unicode_type" in message


def test_an_enum_of_mixed_value_types_is_refused_by_name():
    def kernel(out):
        out[0] = Mixed.ONE == Mixed.ONE

    message = _typing_error(kernel)
    assert "heterogeneous enum" in message and "'Mixed'" in message


def test_an_enum_member_argument_is_refused_naming_the_argument():
    from cumlir.runtime import arguments

    with pytest.raises(TypeError, match=r"argument 1: .*Color.*\.value"):
        arguments.argument_type(Color.RED, 1)


def test_an_int_enum_argument_is_its_integer():
    from numba.core import types

    from cumlir.runtime import arguments

    assert arguments.argument_type(Mode.FAST, 0) == types.int64


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_enum_kernels_match_python(kernel, backend):
    for x, y in ((2, 0.25), (1, -3.5), (5, 7.0)):
        expected = np.zeros(8)
        kernel(expected, x, y)
        got = np.zeros(8)
        cuda.jit(SIG, backend=backend)(kernel)[1, 1](got, x, y)
        np.testing.assert_array_equal(got, expected)


@pytest.mark.gpu
def test_int_enum_arguments_launch_as_integers(backend):
    @cuda.jit(backend=backend)
    def kernel(out, mode):
        out[0] = mode == Mode.FAST
        out[1] = mode * 10

    out = np.zeros(2, np.int64)
    kernel[1, 1](out, Mode.FAST)
    np.testing.assert_array_equal(out, [1, 20])
