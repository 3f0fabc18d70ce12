"""Kernels calling ``cuda.libdevice`` routines, generated from the area's own table:
one kernel calling every routine (compiled to PTX by the CPU tests) and one small
kernel per routine (run by the GPU tests)."""

import functools

import numpy as np

from cumlir import cuda
from cumlir.operations.cuda.libdevice import ROUTINES

# the table's letters: the NumPy type of each, and the array argument that holds it
DTYPES = {"h": np.int16, "i": np.int32, "l": np.int64, "f": np.float32, "d": np.float64}
NUMBA = {"h": "int16", "i": "int32", "l": "int64", "f": "float32", "d": "float64"}


def _source(name, lines, params):
    return f"def {name}({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines)


def _compile_source(source, name):
    scope = {"cuda": cuda}
    exec(compile(source, f"<libdevice kernel {name}>", "exec"), scope)
    return scope[name]


def inputs_of(name):
    """The letters of the routine's arguments and of its results, in order."""
    result, args = ROUTINES[name]
    ins = [a for a, pointer in args if not pointer]
    outs = ([result] if result != "v" else []) + [a for a, pointer in args if pointer]
    return ins, outs


@functools.cache
def every_routine():
    """(kernel, signature): one kernel calling every routine once, reading its arguments
    from one array per type and storing every result into one array per type."""
    lines, used = [], dict.fromkeys(DTYPES, 0)
    for name in ROUTINES:
        ins, outs = inputs_of(name)
        call = f"cuda.libdevice.{name}({', '.join(f'a{k}[{j}]' for j, k in enumerate(ins))})"
        targets = []
        for k in outs:
            targets.append(f"o{k}[{used[k]}]")
            used[k] += 1
        lines.append(f"{', '.join(targets)} = {call}")
    params = [f"a{k}" for k in DTYPES] + [f"o{k}" for k in DTYPES]
    kernel = _compile_source(_source("every_libdevice_routine", lines, params), "every_libdevice_routine")
    sig = "void(" + ", ".join(f"{NUMBA[k]}[:]" for k in list(DTYPES) * 2) + ")"
    return kernel, sig, used


@functools.cache
def one_routine(name):
    """A kernel ``k(in0, ..., out0, ...)`` storing ``cuda.libdevice.<name>`` of each
    element's arguments into the outputs, one thread per element."""
    ins, outs = inputs_of(name)
    params = [f"x{j}" for j in range(len(ins))] + [f"r{j}" for j in range(len(outs))]
    call = f"cuda.libdevice.{name}({', '.join(f'x{j}[i]' for j in range(len(ins)))})"
    lines = [
        "i = cuda.grid(1)",
        "if i < r0.size:",
        f"    {', '.join(f'r{j}[i]' for j in range(len(outs)))} = {call}",
    ]
    return _compile_source(_source(f"libdevice_{name}", lines, params), f"libdevice_{name}")
