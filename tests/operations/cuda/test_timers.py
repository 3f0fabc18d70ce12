"""cuda.clock(), cuda.clock64() and cuda.globaltimer(): their types, PTX on both back ends
(every read a read of the register: none merged with another), and on the GPU readings
that advance as a thread waits."""

import re

import numpy as np
import pytest
from numba.core import types

from cumlir import cuda

from ... import support
from ...support import poisoned

CCS = [(8, 0), (9, 0)]


def straight_readings(out):
    """Each clock read twice with nothing between: no read may be merged with another."""
    out[0] = cuda.globaltimer()
    out[1] = cuda.globaltimer()
    out[2] = cuda.clock64()
    out[3] = cuda.clock64()
    out[4] = cuda.clock()
    out[5] = cuda.clock()


def waiting_readings(wide, narrow, wait_cycles):
    """Each clock read around a busy wait of *wait_cycles* cycles, and the cycle counter twice
    with nothing between: what the clocks advanced by."""
    t0 = cuda.globaltimer()
    c0 = cuda.clock64()
    s0 = cuda.clock()
    while cuda.clock64() - c0 < wait_cycles:
        pass
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


def _registers(ptx):
    return re.findall(r"mov\.u(?:32|64)\s+%\w+,\s*(%clock64|%clock|%globaltimer);", ptx)


@pytest.mark.parametrize("cc", CCS, ids=lambda cc: f"sm{cc[0]}{cc[1]}")
def test_every_read_reaches_the_ptx(backend, cc):
    ptx, result = cuda.compile_ptx(straight_readings, "void(uint64[:])", cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    assert result == types.void
    assert _registers(ptx) == ["%globaltimer"] * 2 + ["%clock64"] * 2 + ["%clock"] * 2
    waiting, _ = cuda.compile_ptx(waiting_readings, "void(uint64[:], uint32[:], uint64)", cc=cc, backend=backend)
    support.ptxas(waiting, f"sm_{cc[0]}{cc[1]}")
    assert {"%globaltimer", "%clock64", "%clock"} <= set(_registers(waiting))


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
    kernel = cuda.jit(backend=backend)(waiting_readings)
    wide, narrow = poisoned(4, np.uint64), poisoned(1, np.uint32)
    wait_cycles = 200_000
    kernel[1, 1](wide, narrow, np.uint64(wait_cycles))
    elapsed_ns, cycles, c2, c3 = (int(v) for v in wide)
    assert wait_cycles <= cycles < 10**9
    # the 32-bit counter, read inside the same window, saw the wait too
    assert wait_cycles // 2 <= int(narrow[0]) <= cycles
    # the global timer ran while the multiprocessor counted: at a clock between 0.1 and 5 GHz
    assert 0 < elapsed_ns < 10**8 and 0.1 <= cycles / elapsed_ns <= 5
    assert c3 >= c2 > 0
