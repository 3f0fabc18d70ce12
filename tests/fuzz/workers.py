"""What each worker process of the fuzzer runs (a module of its own: a spawned process
imports the functions it is given by name)."""

_numba_cuda = None


def setup(gpu):
    global _numba_cuda
    if not gpu:
        return
    import numpy as np

    if not hasattr(np, "row_stack"):  # numba-cuda 0.30 calls it; NumPy 2.4 removed it
        np.row_stack = np.vstack
    try:
        from numba import cuda as numba_cuda

        _numba_cuda = numba_cuda if numba_cuda.is_available() else None
    except ImportError:
        _numba_cuda = None


def check_one(args):
    seed, gpu = args
    from tests import support

    from .check import check

    try:
        outcome = check(seed, gpu=gpu, numba_cuda=_numba_cuda, ptxas=None if gpu else support.ptxas)
    except Exception as e:  # a problem of this program, not of the run
        return seed, False, [], 0, [f"the check itself failed: {type(e).__name__}: {e}"], []
    return outcome.seed, outcome.typed, outcome.compiled, outcome.compared, outcome.problems, outcome.reference_failures
