"""One generated program, checked in one of three modes:

- "compile": compiled by every code generator (PTX assembled by ptxas) after numba has
  typed the host reference as the grammar says;
- "simulator": run on cumlir's CPU simulator (the process runs with CUMLIR_SIMULATOR=1)
  with ``fma=False``;
- "gpu": run on the GPU by both code generators, with ``fma=False`` (every operation
  rounded on its own, as on the host) and with the default contraction, and by numba-cuda.

Each mode also computes the host reference: the same Python compiled by numba for the CPU
(namespaces.py), threads' exchanges computed from all threads' values (shapes.py). The
results are compared (compare.py) by whoever holds them all: __main__.py, which merges a
GPU worker's results with a simulator worker's.
"""

from dataclasses import dataclass, field

import numpy as np

from cumlir.backends import REGISTRY

from . import compare, grammar, namespaces
from .shapes import host_dtype


@dataclass
class Outcome:
    """What checking one program found."""

    seed: int
    shape: str = ""
    features: list = field(default_factory=list)
    typed: bool = False  # numba typed the host reference as the grammar says
    compiled: list = field(default_factory=list)  # code generators that compiled it
    outputs: dict = field(default_factory=dict)  # party -> its result
    failed: dict = field(default_factory=dict)  # party -> why it could not run the program
    problems: list = field(default_factory=list)  # what went wrong, each a line of text
    reference_failures: list = field(default_factory=list)  # numba-cuda could not run it
    tolerance: float = 0.0  # compare.tolerance of the program
    inputs: list = field(default_factory=list)  # the device's input arrays


def _first_line(error):
    """The error's class and message, past numba's "Failed in ... pipeline" line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip() and not line.startswith("Failed in")]
    return f"{type(error).__name__}: {' / '.join(lines[:2])}"


def inputs(program, rng):
    """Three arrays of the program's input types, with values in [-8, 8] ([0, 8] unsigned)."""
    arrays = []
    for t in program.input_types:
        dtype = np.dtype(t)
        if dtype == np.bool_:
            arrays.append(rng.random(program.size) < 0.5)
        elif dtype.kind == "f":
            arrays.append(rng.uniform(-8, 8, program.size).astype(dtype))
        elif dtype.kind == "c":
            arrays.append((rng.uniform(-8, 8, program.size) + 1j * rng.uniform(-8, 8, program.size)).astype(dtype))
        else:
            arrays.append(rng.integers(0 if dtype.kind == "u" else -8, 9, program.size).astype(dtype))
    return arrays


def inputs_of_element(arrays, i):
    """The three values element *i* of the result reads (shapes.READS)."""
    n = len(arrays[0])
    return [arrays[0][i], arrays[1][(i * 7 + 3) % n], arrays[2][n - 1 - i]]


def _signature(program):
    arrays = [t + "[:]" for t in program.input_types] + [program.result_type + "[:]"]
    return f"void({', '.join(arrays)})".replace("bool[", "b1[")


# the GPU's code generators (the simulator's is the other)
GENERATORS = [name for name, entry in REGISTRY.items() if entry.code_format != "host"]


def backends(program, cc=(9, 0)):
    """The code generators that can compile *program* for *cc*: the nvvm one takes bfloat16
    only from sm_100 on (docs/semantics.md), where libNVVM reads modern LLVM IR."""
    return [b for b in GENERATORS if not (b == "nvvm" and "bfloat16" in program.features and cc < (10, 0))]


def _host(program, outcome):
    """The host's result of *program*, or None where numba does not type it as the grammar says."""
    import numba

    try:
        run = namespaces.host(program)
        host_args = [a.astype(np.float32) if a.dtype == np.float16 else a for a in outcome.inputs]
        expected = np.zeros(program.size, np.dtype(host_dtype(program.result_type)))
        run(*host_args, expected)
    except Exception as e:
        outcome.problems.append(f"grammar: numba does not compile the host reference: {_first_line(e)}")
        return None
    (signature,) = run.signatures
    typemap = run.overloads[signature].type_annotation.typemap
    typed = str(numba.types.unliteral(typemap["result"]))
    claimed = host_dtype(program.result_type).replace("bool_", "bool")
    if typed != claimed:
        outcome.problems.append(f"grammar: numba types the result {typed}, the grammar says {claimed}")
        return None
    outcome.typed = True
    return expected


def _launch(program, kernel, args):
    out = np.frombuffer(
        np.full(program.size * np.dtype(program.result_type).itemsize, 0x5A, np.uint8).tobytes(), program.result_type
    ).copy()  # poisoned
    kernel[program.launch](*args, out)
    return out


def check(seed, mode="compile", numba_cuda=None, ptxas=None):
    """The Outcome of the program drawn from *seed* in *mode* ("compile", "simulator" or
    "gpu"): its host reference, and what *mode* makes of it (see the module's text);
    *ptxas* a function assembling PTX, *numba_cuda* numba-cuda's ``cuda`` module."""
    program = grammar.program(seed)
    outcome = Outcome(seed, program.shape, sorted(program.features))
    outcome.inputs = inputs(program, np.random.default_rng(seed))
    outcome.tolerance = compare.tolerance(_float_types(program))
    expected = _host(program, outcome)
    if expected is None:
        return outcome
    outcome.outputs["host"] = expected.astype(program.result_type)
    if mode == "compile":
        _compile(program, outcome, ptxas)
    elif mode == "simulator":
        _run(program, outcome, "simulator", backend=None, fma=False)
    else:
        for backend in backends(program):
            _run(program, outcome, f"cumlir {backend} fma=False", backend=backend, fma=False)
            _run(program, outcome, f"cumlir {backend}", backend=backend)
            if f"cumlir {backend} fma=False" in outcome.outputs:
                outcome.compiled.append(backend)
        if numba_cuda is not None:
            _run_numba_cuda(program, outcome, numba_cuda)
    return outcome


def _float_types(program):
    named = {t for t in ("float16", "bfloat16", "float32", "complex64") if t in program.source}
    return named | set(program.input_types) | {program.result_type}


def _compile(program, outcome, ptxas):
    from cumlir import cuda

    for backend in GENERATORS:
        cc = (9, 0) if backend in backends(program) else (10, 0)
        try:
            kernel = namespaces.device(program, cuda, backend=backend)
            ptx, _ = cuda.compile_ptx(kernel.py_func, _signature(program), cc=cc, backend=backend)
        except Exception as e:
            outcome.problems.append(f"{backend}: does not compile: {_first_line(e)}")
            continue
        if ptxas is not None:
            try:
                ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
            except AssertionError as e:
                outcome.problems.append(f"{backend}: ptxas rejects the PTX: {str(e).splitlines()[1:2]}")
                continue
        outcome.compiled.append(backend)


def _run(program, outcome, party, backend, **options):
    from cumlir import cuda

    if backend is not None:
        options["backend"] = backend
    try:
        outcome.outputs[party] = _launch(program, namespaces.device(program, cuda, **options), outcome.inputs)
    except Exception as e:
        outcome.failed[party] = _first_line(e)
        outcome.problems.append(f"{party}: {_first_line(e)}")


def _run_numba_cuda(program, outcome, numba_cuda):
    try:
        outcome.outputs["numba-cuda"] = _launch(
            program, namespaces.device(program, numba_cuda, "numba-cuda"), outcome.inputs
        )
    except Exception as e:  # numba-cuda's own limits: counted, not a disagreement
        outcome.failed["numba-cuda"] = _first_line(e)
        outcome.reference_failures.append(f"numba-cuda: {_first_line(e)}")


def comparisons(outcome):
    """The outcome's comparisons of its parties' results (compare.compare), each (pair,
    problem or None)."""
    return compare.compare(outcome.outputs, lambda i: inputs_of_element(outcome.inputs, i), outcome.tolerance)
