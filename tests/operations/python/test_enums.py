"""enum.Enum and enum.IntEnum members in kernels and device functions: PTX on both code
generators, typing errors for what device code cannot hold, and on the GPU the results of
each kernel against the same Python function run on the host."""

import enum
import re

import numba
import numpy as np
import pytest
from numba.core import errors

from cumlir import cuda
from cumlir.codegen import targets

from ... import support
from ...test_codegen import ARCHS


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


def member_argument(out, mode, color):
    """Enum members as arguments: their values, identities and comparisons."""
    out[0] = mode.value
    out[1] = mode is Mode.FAST
    out[2] = mode == Mode.FAST
    out[3] = mode is not Mode.SLOW
    out[4] = mode * 10  # an IntEnum member is its integer
    out[5] = color.value
    out[6] = color is Color.BLUE
    out[7] = color == Color.RED
    out[8] = color != Color.GREEN


def _argument_types(*values):
    from cumlir.runtime import arguments

    return tuple(arguments.argument_type(v, k) for k, v in enumerate(values))


def test_member_arguments_are_typed_as_numba_cuda_types_them():
    from numba.core import types

    assert _argument_types(Mode.FAST, Color.RED, Scale.HALF) == (
        types.IntEnumMember(Mode, types.int64),
        types.EnumMember(Color, types.int64),
        types.EnumMember(Scale, types.float64),
    )


@pytest.mark.parametrize("cc", ARCHS)
def test_member_arguments_compile_and_assemble(cc, backend):
    argtypes = (cuda.float64[::1], *_argument_types(Mode.FAST, Color.RED))
    ptx, _ = cuda.compile_ptx(member_argument, argtypes, cc=cc, backend=backend)
    support.ptxas(ptx, targets.chip(cc))
    # the array's four parameters, then each member as its int64 value, compared with the members' values
    assert len(re.findall(r"\.param \.[ub]64 (\.ptr \.align 1 )?member_argument_param_\d", ptx)) == 6, ptx
    for value in (1, 2, 3):
        assert re.search(rf"setp\.(eq|ne)\.[sbu]64\s+%p\d+, %rd\d+, {value};", ptx), (value, ptx)


@pytest.mark.parametrize(
    "value, message",
    [
        (Named.A, r"argument 1: .*Named\.A.*unicode_type, not numbers"),
        (Planet.EARTH, r"argument 1: .*Planet\.EARTH.*not numbers"),
        (Mixed.ONE, r"argument 1: .*Mixed\.ONE.*heterogeneous enum"),
    ],
)
def test_an_enum_argument_of_other_values_is_refused_naming_it(value, message):
    from cumlir.runtime import arguments

    with pytest.raises(TypeError, match=message):
        arguments.argument_type(value, 1)


def test_a_member_argument_packs_its_value():
    import struct

    from cumlir.runtime import arguments

    packer = arguments._parameter(_argument_types(Color.BLUE)[0], 0)
    buffer = bytearray(8)
    packer.pack(Color.BLUE, buffer, 0, None)
    assert struct.unpack("q", buffer) == (3,)
    with pytest.raises(TypeError, match="argument 0: expected a member of Color, got 3"):
        packer.pack(3, buffer, 0, None)


def test_int_enum_members_have_no_plain_type():
    """The numba-free launch path (disk cache by plain types) leaves members to numba."""
    from cumlir.runtime import plain_types

    assert plain_types.plain_type(Mode.FAST) is None
    assert plain_types.plain_type(2) is not None


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
def test_member_arguments_launch_as_their_values(backend):
    kernel = cuda.jit(backend=backend)(member_argument)
    for mode, color in ((Mode.FAST, Color.RED), (Mode.SLOW, Color.BLUE), (Mode.QUICK, Color.GREEN)):
        expected = np.zeros(9)
        member_argument(expected, mode, color)
        for _ in range(3):  # the later launches take the launcher cache's path
            got = np.zeros(9)
            kernel[1, 1](got, mode, color)
            np.testing.assert_array_equal(got, expected)
    assert len(kernel.overloads) == 1  # one type per enum class, whichever member


@pytest.mark.gpu
def test_an_int_enum_argument_and_an_integer_are_two_overloads(backend):
    @cuda.jit(backend=backend)
    def kernel(out, mode):
        out[0] = mode * 10

    out = np.zeros(1, np.int64)
    kernel[1, 1](out, Mode.FAST)
    kernel[1, 1](out, 2)
    assert out[0] == 20 and len(kernel.overloads) == 2
