"""``cuda.experimental.current_target_options()`` (typing/target_options.py): consteval reads the
options of the kernel being compiled, by numba-cuda-mlir's names; the chip is the one compiled
for, a kernel compiled for two chips is typed for each, and so is a device function reading
them; a kernel typed at decoration before its chip is known is typed again for its chip."""

import re

import numpy as np
import pytest
from numba.core import errors

from cumlir import cuda
from cumlir.cuda.experimental import consteval, current_target_options

from . import support
from .simulator.conftest import simulating

SIG = "void(int32[:])"


def _stored(ptx):
    """The int32 constants the kernel stores, in order."""
    return [int(v) for v in re.findall(r"st\.global\.(?:b32|u32)\s+\[[^\]]+\], (-?\d+);", ptx)]


def chip_number(a):
    chip = consteval(current_target_options()["chip"])
    a[0] = consteval(int(chip[3:].rstrip("af")))
    a[1] = consteval(len(chip))  # 5 for sm_90, 6 for sm_90a and sm_100
    if consteval(chip == "sm_90"):
        a[2] = 90
    else:
        a[2] = -1


@pytest.mark.parametrize("cc, stored", [((8, 0), [80, 5, -1]), ((9, 0), [90, 5, 90]), ("sm_90a", [90, 6, -1])])
def test_the_chip_is_the_one_compiled_for(cc, stored):
    ptx, _ = cuda.compile_ptx(chip_number, SIG, cc=cc)
    support.ptxas(ptx, "sm_90a" if cc == "sm_90a" else f"sm_{cc[0]}{cc[1]}")
    assert _stored(ptx) == stored
    # libNVVM stores the same constants from registers
    support.ptxas(
        cuda.compile_ptx(chip_number, SIG, cc=cc, backend="nvvm")[0],
        "sm_90a" if cc == "sm_90a" else f"sm_{cc[0]}{cc[1]}",
    )


def test_the_family_target_is_in_the_chip():
    ptx, _ = cuda.compile_ptx(chip_number, SIG, cc="sm_100f")
    assert _stored(ptx) == [100, 7, -1]


def test_the_options_given_are_read():
    def options_read(a):
        with consteval():
            o = current_target_options()
        a[0] = consteval(o["opt_level"])
        a[1] = consteval(int(o["fastmath"] is True))
        a[2] = consteval(int(o["debug"]))
        a[3] = consteval(o["max_registers"] or 0)
        a[4] = consteval(o["launch_bounds"][0] if o["launch_bounds"] else 0)
        a[5] = consteval(int(o["lineinfo"]))

    ptx, _ = cuda.compile_ptx(options_read, SIG, cc=(9, 0))
    assert _stored(ptx) == [3, 0, 0, 0, 0, 0]
    tuned = cuda.jit(SIG, opt_level=2, fastmath=True, max_registers=64, launch_bounds=128, lineinfo=True)(options_read)
    assert _stored(tuned.inspect_ptx(SIG, cc=(9, 0))) == [2, 1, 0, 64, 128, 1]


@cuda.jit(device=True)
def _major():
    return consteval(int(current_target_options()["chip"][3:-1]))


def test_a_device_function_reads_its_kernel_s_chip():
    def kernel(a):
        a[0] = _major()

    kernel = cuda.jit(kernel)
    for cc, major in [((8, 0), 8), ((9, 0), 9), ((12, 0), 12), ((8, 0), 8)]:
        ptx, _ = cuda.compile_ptx(kernel, SIG, cc=cc)
        assert _stored(ptx) == [major]


def test_an_eager_kernel_is_typed_for_each_chip():
    # typed at decoration with no chip known: the chip's digits fail there, and are read at compile time
    kernel = cuda.jit(SIG)(chip_number)
    assert _stored(kernel.inspect_ptx(SIG, cc=(8, 0))) == [80, 5, -1]
    assert _stored(kernel.inspect_ptx(SIG, cc=(9, 0))) == [90, 5, 90]
    assert _stored(cuda.jit(SIG, chip="sm_90")(chip_number).inspect_ptx(SIG)) == [90, 5, 90]


def test_a_launch_reads_the_device_s_chip(monkeypatch):
    with simulating(monkeypatch):
        major, minor = cuda.get_current_device().compute_capability
        out = np.zeros(3, np.int32)
        cuda.jit(chip_number)[1, 1](out)
    assert out[0] == 10 * major + minor and out[1] == len(f"sm_{major}{minor}")


def test_it_is_read_while_a_kernel_compiles():
    with pytest.raises(RuntimeError, match=r"read it inside consteval\(\.\.\.\) in a function compiled with @cuda.jit"):
        current_target_options()

    def outside_consteval(a):
        a[0] = current_target_options()["opt_level"]

    with pytest.raises(errors.TypingError):
        cuda.compile_ptx(outside_consteval, SIG, cc=(9, 0))
