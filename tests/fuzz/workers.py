"""What each worker process of the fuzzer runs (a module of its own: a spawned process
imports the functions it is given by name). A worker checks programs in one mode
(check.py): "compile", "gpu", or "simulator", for which it turns the simulator on before
anything imports cumlir (the switch is read once, docs/simulator.md)."""

import os
import warnings

_mode = "compile"
_numba_cuda = None


def setup(mode):
    global _mode, _numba_cuda
    _mode = mode
    warnings.simplefilter("ignore")  # numba's performance advice on small grids, for every program
    if mode == "simulator":
        os.environ["CUMLIR_SIMULATOR"] = "1"
        os.environ.pop("CUMLIR_BACKEND", None)
    if mode != "gpu":
        return
    import numpy as np

    if not hasattr(np, "row_stack"):  # numba-cuda 0.30 calls it; NumPy 2.4 removed it
        np.row_stack = np.vstack
    try:
        from numba import cuda as numba_cuda

        _numba_cuda = numba_cuda if numba_cuda.is_available() else None
    except ImportError:
        _numba_cuda = None


def check_one(seed):
    """The Outcome of *seed* in this worker's mode (problems of the check itself included)."""
    from tests import support

    from .check import Outcome, check

    try:
        return check(seed, _mode, numba_cuda=_numba_cuda, ptxas=support.ptxas if _mode == "compile" else None)
    except Exception as e:  # a problem of this program, not of the run
        return Outcome(seed, problems=[f"the check itself failed: {type(e).__name__}: {e}"])
