"""cuda.clock(), cuda.clock64() and cuda.globaltimer(): their types, PTX on both back ends
(every read a read of the register: none merged with another), and on the GPU readings
that advance as a thread waits."""

import re

import numpy as np
import pytest
from numba.core import types

from cumlir import cuda

from . import support
from .support import poisoned

CCS = [(8, 0), (9, 0)]


def two_readings(wide, narrow, wait_ns):
    """Each clock read twice around a sleep of *wait_ns*, twice with nothing between: what
    the clocks advanced by."""
    t0 = cuda.globaltimer()
    c0 = cuda.clock64()
    s0 = cuda.clock()
    cuda.nanosleep(wait_ns)
    s1 = cuda.clock()
    c1 = cuda.clock64()
    t1 = cuda.globaltimer()
    c2 = cuda.clock64()
    c3 = cuda.clock64()
    wide[0] = t1 - t0
    wide[1] = c1 - c0
    wide[2] = c2
    wide[3] = c3
    narrow[0] = s1 - s0


SIGNATURE = "void(uint64[:], uint32[:], uint32)"


def _registers(ptx):
    return re.findall(r"mov\.u(?:32|64)\s+%\w+,\s*(%clock64|%clock|%globaltimer);", ptx)


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm{cc[0]}{cc[1]}")
def test_every_read_reaches_the_ptx(backend, cc):
    ptx, result = cuda.compile_ptx(two_readings, SIGNATURE, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    assert result == types.void
    assert sorted(_registers(ptx)) == sorted(["%globaltimer"] * 2 + ["%clock64"] * 4 + ["%clock"] * 2)


def read_clock():
    return cuda.clock()


def read_clock64():
    return cuda.clock64()


def read_globaltimer():
    return cuda.globaltimer()


@pytest.mark.parametrize(
    "reader, numba_type", [(read_clock, types.uint32), (read_clock64, types.uint64), (read_globaltimer, types.uint64)]
)
def test_types(reader, numba_type):
    _, result = cuda.compile_ptx(reader, (), device=True, cc=(9, 0))
    assert result == numba_type
    name = reader.__name__.removeprefix("read_")
    with pytest.raises(RuntimeError, match=f"cuda.{name} can only be used inside"):
        getattr(cuda, name)()


@pytest.mark.gpu
@pytest.mark.nondeterministic  # clocks
def test_readings_advance_while_the_thread_waits(backend):
    kernel = cuda.jit(backend=backend)(two_readings)
    wide, narrow = poisoned(4, np.uint64), poisoned(1, np.uint32)
    wait_ns = 20_000
    kernel[1, 1](wide, narrow, np.uint32(wait_ns))
    elapsed_ns, cycles, c2, c3 = (int(v) for v in wide)
    # nanosleep waits about the time asked, at most 2 * 10**6 ns; the clocks tick at a GHz or so
    assert wait_ns // 2 <= elapsed_ns < 10**8
    assert elapsed_ns // 10 < cycles < elapsed_ns * 10
    assert 0 < int(narrow[0]) < 2**31 and abs(int(narrow[0]) - cycles) < cycles
    assert c3 >= c2 > 0
