"""The names a program's source refers to, bound for each party that runs it: the
device's (cumlir's or numba-cuda's ``cuda``, numba's types as conversions, the party's
bfloat16) and the host's (numba's CPU target: the narrow floats are float32 rounded by
halves.py, the warp's votes are warps.py's)."""

import functools
import math

import numpy as np

from . import typerules as tr

# the functions of a program besides the kernel, in the order they are defined
FUNCTIONS = ("g", "f", "h", "share", "vote")
_NUMBERS = [*tr.INTEGERS, "float32", "float64", "float16"]


def _program_functions(source, seed, names):
    exec(compile(source, f"<fuzz program {seed}>", "exec"), names)
    return names


def device(program, cuda, party="cumlir", **options):
    """The kernel of *program* compiled by *cuda* (cumlir's or numba-cuda's module) with
    *options*, its functions made device functions."""
    import numba

    if party == "numba-cuda":
        from numba.cuda.bf16 import bfloat16

        numbers = {n: getattr(numba.cuda, n, getattr(numba.types, n)) for n in _NUMBERS}
    else:
        from cumlir.cuda.bf16 import bfloat16

        numbers = {n: getattr(numba.types, n) for n in _NUMBERS}
    names = _program_functions(
        program.source, program.seed, {"math": math, "np": np, "cuda": cuda, "bfloat16": bfloat16, **numbers}
    )
    for name in FUNCTIONS:
        if name in names:
            names[name] = cuda.jit(device=True, **options)(names[name])
    return cuda.jit(**options)(names["kernel"])


@functools.cache
def _host_helpers():
    """The host's narrow floats and votes, compiled once in a process."""
    import numba

    from . import halves, warps

    float16, bfloat16 = halves.compiled()
    helpers = {"float16": float16, "bfloat16": bfloat16}
    helpers.update({n: numba.njit(getattr(warps, n)) for n in ("warp_all", "warp_any", "warp_ballot")})
    return helpers


def host(program):
    """The host's ``run`` of *program*, compiled by numba for the CPU with NumPy's error
    model (numba's typing, so the same result types and integer wrapping as the device's)."""
    import numba

    jit = numba.njit(error_model="numpy")
    names = {"math": math, "np": np, **_host_helpers()}
    names.update({n: getattr(numba.types, n) for n in _NUMBERS if n != "float16"})
    _program_functions(program.host_source, program.seed, names)
    # inlined into run, they are typed there and not compiled on their own (half the time)
    inline = numba.njit(error_model="numpy", inline="always")
    for name in FUNCTIONS:
        if name in names:
            names[name] = inline(names[name])
    return jit(names["run"])
