"""Clocks a thread can read: ``cuda.clock()`` and ``cuda.clock64()``, the multiprocessor's
cycle counter (PTX ``%clock``, 32 bits, and ``%clock64``), and ``cuda.globaltimer()``, the
GPU's nanosecond timer (``%globaltimer``), as CUDA C++'s ``clock()``, ``clock64()`` and
``%globaltimer`` give them. The cycle counters are per multiprocessor: compare readings
of one thread. Numba-CUDA has none of them (its users read them with inline PTX).
"""

from .._support.api import Stub
from .._support.modules import nvvm, templates, types

clock = Stub("clock", "clock(): the multiprocessor's cycle counter, low 32 bits, as a uint32.")
clock64 = Stub("clock64", "clock64(): the multiprocessor's cycle counter as a uint64.")
globaltimer = Stub("globaltimer", "globaltimer(): the GPU's timer in nanoseconds, as a uint64.")

# libNVVM takes its clock intrinsics for pure functions (two reads become one) and lacks
# the global timer's: the LLVM 7 printer reads all three with volatile inline PTX


@clock.cases
def _clock_cases():
    return [templates.signature(types.uint32)]


@clock64.cases
@globaltimer.cases
def _wide_cases():
    return [templates.signature(types.uint64)]


@clock.lower
def _clock(lower, sig, args):
    return nvvm.read_ptx_sreg_clock(lower.get_mlir_type(types.uint32))


@clock64.lower
def _clock64(lower, sig, args):
    return nvvm.read_ptx_sreg_clock64(lower.get_mlir_type(types.uint64))


@globaltimer.lower
def _globaltimer(lower, sig, args):
    return nvvm.read_ptx_sreg_globaltimer(lower.get_mlir_type(types.uint64))
