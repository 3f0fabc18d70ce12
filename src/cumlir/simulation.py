"""The simulator's plain data (docs/simulator.md): whether it is on, and the layout of the
state each simulated thread keeps, which the CPU code generator's runtime writes and the
host's scheduler reads.

A kernel compiled for the CPU runs each thread of a block as a coroutine. A thread that
reaches a barrier or a warp-collective operation records it in its ``Thread`` record
(``THREAD_DTYPE``: the operation, its call site, its mask and operands) and suspends; when
no thread of the block can run, the scheduler resolves what they wait for, writes each
released thread's ``result`` and marks it runnable.
"""

from __future__ import annotations

import os

import numpy as np

# the switch, read before ``from cumlir import cuda`` runs anything (numba-cuda's name too)
SWITCHES = ("CUMLIR_SIMULATOR", "NUMBA_ENABLE_CUDASIM")


def requested() -> bool:
    """Whether the environment asks for the simulator (``CUMLIR_SIMULATOR=1`` or
    ``NUMBA_ENABLE_CUDASIM=1``)."""
    return any(os.environ.get(name, "0") not in ("", "0") for name in SWITCHES)


def python_mode() -> bool:
    """Whether kernels run as Python functions, thread by thread (``CUMLIR_SIMULATOR=python``:
    for pdb and coverage; docs/simulator.md, "Debugging in Python")."""
    return os.environ.get("CUMLIR_SIMULATOR", "").lower() == "python"


def checking() -> bool:
    """Whether the simulator's checks are on (unless ``CUMLIR_SIMULATOR_CHECKS=0``)."""
    return os.environ.get("CUMLIR_SIMULATOR_CHECKS", "1").lower() not in ("0", "off", "none", "")


# what a thread is doing (Thread.wait)
RUNNING, AT_BARRIER, AT_WARP, FINISHED, RUNNABLE = range(5)

# the operations a thread waits in (Thread.op): barriers of the block ...
BARRIER, BARRIER_POPC, BARRIER_AND, BARRIER_OR = 1, 2, 3, 4
# ... the grid's barrier (cooperative groups' grid.sync), which parks the block ...
GRID_BARRIER = 5
# ... and warp-collective operations
SYNCWARP = 16
SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_BFLY = 17, 18, 19, 20
VOTE_ALL, VOTE_ANY, VOTE_UNI, BALLOT = 21, 22, 23, 24
ACTIVEMASK, MATCH_ANY, MATCH_ALL = 25, 26, 27
REDUX_ADD, REDUX_MIN, REDUX_MAX, REDUX_UMIN, REDUX_UMAX, REDUX_AND, REDUX_OR, REDUX_XOR = range(28, 36)
WARP_OPS = range(SYNCWARP, 36)

# one thread's record, 64 bytes (the CPU runtime's %Thread)
THREAD_DTYPE = np.dtype(
    {
        "names": ["handle", "tid", "linear", "wait", "site", "op", "mask", "value", "operand", "result"],
        "formats": ["u8", ("i4", 3), "i4", "i4", "i4", "i4", "u4", "i8", "i8", "i8"],
        "offsets": [0, 8, 20, 24, 28, 32, 36, 40, 48, 56],
        "itemsize": 64,
    }
)
# operand holds two 32-bit operands: b (the lane, delta or lane mask) low, c (clamp and
# segment mask, as PTX's shfl.sync) high; result holds a predicate, where the operation
# gives one (shfl's in-range bit, match.all's), in bit 32
