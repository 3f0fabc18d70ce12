"""One generated program, checked: compiled by every code generator (PTX assembled by ptxas)
and, on a GPU, run and compared with the host and with numba-cuda.

The host reference is the same Python compiled by numba for the CPU with NumPy's error
model (numba's typing, so the same result types and integer wrapping as on the device).
On the device the program runs twice per code generator: with ``fma=False``, where every
operation is rounded on its own as on the host, compared with the host (integers and
booleans exactly, floats to a few ulps of the ``math`` functions' differences); and with
the default contraction, compared with numba-cuda, which contracts too.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from cumlir.backends import REGISTRY

from . import grammar

N = 257  # elements: two blocks of 128 and one more
# floats agree within these units in the last place of the program's least precise type:
# with the host, only the math functions round differently (libdevice and the host's libm,
# a few ulps each, grown by what follows them); with numba-cuda, contraction into fma differs too
HOST_ULPS = 1024
ULPS = 4096
# each element of the result reads the three inputs at different places
ELEMENT = "out[i] = f(x0[i], x1[(i * 7 + 3) % x1.size], x2[out.size - 1 - i])"
KERNEL = f"def kernel(x0, x1, x2, out):\n    i = cuda.grid(1)\n    if i < out.size:\n        {ELEMENT}\n"
HOST = f"def run(x0, x1, x2, out):\n    for i in range(out.size):\n        {ELEMENT}\n"


@dataclass
class Outcome:
    """What checking one program found."""

    seed: int
    typed: bool = False  # numba typed it for the host
    compiled: list = field(default_factory=list)  # code generators that compiled it
    compared: int = 0  # comparisons made (host and numba-cuda, per code generator)
    problems: list = field(default_factory=list)  # what went wrong, each a line of text
    reference_failures: list = field(default_factory=list)  # numba-cuda could not run it


def _namespace(program, jit):
    """The program's functions in a namespace of their own, each made a device function by *jit*."""
    ns = {"math": math, "np": np}
    exec(compile(program.source, f"<fuzz program {program.seed}>", "exec"), ns)
    ns["g"] = jit(ns["g"])
    ns["f"] = jit(ns["f"])
    return ns


def _host(program):
    """The host reference: numba's CPU compilation of the same functions, and the result type."""
    import numba

    ns = _namespace(program, lambda fn: numba.njit(error_model="numpy")(fn))
    exec(HOST, ns)
    argtypes = tuple(numba.from_dtype(np.dtype(t)) for t in program.input_types)
    ns["f"].compile(argtypes)
    result = ns["f"].overloads[argtypes].signature.return_type
    return numba.njit(error_model="numpy")(ns["run"]), np.dtype(str(numba.types.unliteral(result)))


def _kernel(program, cuda, **options):
    ns = _namespace(program, lambda fn: cuda.jit(device=True, **options)(fn))
    ns["cuda"] = cuda
    exec(KERNEL, ns)
    return cuda.jit(**options)(ns["kernel"])


def inputs(program, rng):
    """Three arrays of the program's input types, with values in [-8, 8] ([0, 8] unsigned)."""
    arrays = []
    for t in program.input_types:
        dtype = np.dtype(t)
        if dtype == np.bool_:
            arrays.append(rng.random(N) < 0.5)
        elif dtype.kind == "f":
            arrays.append(rng.uniform(-8, 8, N).astype(dtype))
        elif dtype.kind == "c":
            arrays.append((rng.uniform(-8, 8, N) + 1j * rng.uniform(-8, 8, N)).astype(dtype))
        else:
            arrays.append(rng.integers(0 if dtype.kind == "u" else -8, 9, N).astype(dtype))
    return arrays


def disagreeing(device, reference, eps, ulps):
    """Where two results disagree: integers and booleans where they differ, floats where NaN
    is not matched by NaN or they differ by more than *ulps* units of *eps* (the precision
    the program computed in) times the larger of the magnitude and one; complex numbers
    where either part does."""
    if device.dtype.kind == "c":
        real = disagreeing(device.real, reference.real, eps, ulps)
        return real | disagreeing(device.imag, reference.imag, eps, ulps)
    if device.dtype.kind != "f":
        return device != reference
    nan = np.isnan(reference)
    scale = np.maximum(np.abs(reference.astype(np.float64)), 1.0) * eps * ulps
    close = np.abs(device.astype(np.float64) - reference.astype(np.float64)) <= scale
    return np.where(nan, ~np.isnan(device), ~(close | (device == reference)))


def precision(program, result):
    """The machine epsilon of the least precise float type the program reads or returns."""
    kinds = [np.dtype(t) for t in program.input_types] + [result]
    return max((np.finfo(k).eps for k in kinds if k.kind in "fc"), default=np.finfo(np.float64).eps)


def check(seed, gpu=False, numba_cuda=None, ptxas=None):
    """The Outcome of the program drawn from *seed*: typed, compiled by every code generator
    (assembled with *ptxas*, a function of the PTX, when given), and on a GPU compared with
    the host and with *numba_cuda* (its ``cuda`` module, when given)."""
    from cumlir import cuda

    program = grammar.program(seed)
    outcome = Outcome(seed)
    try:
        host, result = _host(program)
    except Exception:
        return outcome  # numba cannot type it for the CPU either: not a program of the grammar's intent
    outcome.typed = True
    signature = f"{result.name}[:]"
    sig = f"void({', '.join(t + '[:]' for t in program.input_types)}, {signature})".replace("bool[", "b1[")
    if gpu:  # compiled by running (below)
        outcome.compiled = list(REGISTRY)
        _run(program, outcome, host, result, numba_cuda)
        return outcome
    for backend in REGISTRY:
        try:
            ptx, _ = cuda.compile_ptx(_kernel(program, cuda, backend=backend).py_func, sig, cc=(9, 0), backend=backend)
        except Exception as e:
            outcome.problems.append(f"{backend}: does not compile: {_first_line(e)}")
            continue
        if ptxas is not None:
            try:
                ptxas(ptx)
            except AssertionError as e:
                outcome.problems.append(f"{backend}: ptxas rejects the PTX: {str(e).splitlines()[1:2]}")
                continue
        outcome.compiled.append(backend)
    return outcome


def _first_line(error):
    return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0]}"


def _run(program, outcome, host, result, numba_cuda):
    from cumlir import cuda

    rng = np.random.default_rng(program.seed)
    args = inputs(program, rng)
    expected = np.zeros(N, result)
    host(*args, expected)
    eps = precision(program, result)
    contracted = None
    if numba_cuda is not None:
        contracted = np.zeros(N, result)
        try:
            _kernel(program, numba_cuda)[3, 128](*args, contracted)
        except Exception as e:  # numba-cuda's own limits: counted, not a disagreement
            outcome.reference_failures.append(f"numba-cuda: {_first_line(e)}")
            contracted = None
    for backend in list(outcome.compiled):
        for options, reference, what in (({"fma": False}, expected, "the host"), ({}, contracted, "numba-cuda")):
            if reference is None:
                continue
            out = np.frombuffer(np.full(N * result.itemsize, 0x5A, np.uint8).tobytes(), result).copy()  # poisoned
            try:
                _kernel(program, cuda, backend=backend, **options)[3, 128](*args, out)
            except Exception as e:
                outcome.problems.append(f"{backend}{' fma=False' if options else ''}: {_first_line(e)}")
                if backend in outcome.compiled:
                    outcome.compiled.remove(backend)
                continue
            outcome.compared += 1
            wrong = np.flatnonzero(disagreeing(out, reference, eps, ulps=HOST_ULPS if what == "the host" else ULPS))
            if wrong.size:
                bad = int(wrong[0])
                outcome.problems.append(
                    f"{backend}{' fma=False' if options else ''} differs from {what} at {bad}: "
                    f"inputs {[a[bad] for a in args]}, device {out[bad]!r}, {what} {reference[bad]!r}"
                )
