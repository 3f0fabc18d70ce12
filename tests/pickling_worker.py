"""What a spawned process does with the objects tests/test_pickling.py pickles: it unpickles
them (nothing of the parent's compiled state comes with them) and compiles or launches."""

import pickle

import numpy as np

from cumlir import cuda

CC = (8, 0)


def kernel_ptx(data, sig):
    """The PTX of an unpickled dispatcher for *sig*, and the signatures it came with."""
    kernel = pickle.loads(data)
    signatures = sorted(str(argtypes) for argtypes in kernel.overloads)
    return kernel.inspect_asm(sig, cc=CC), signatures, kernel.options


def device_ptx(data, sig):
    """The PTX of an unpickled device function compiled alone, and the signatures it came with."""
    function = pickle.loads(data)
    return cuda.compile_ptx(function, sig, device=True, cc=CC)[0], [str(s) for s in function.signatures]


def ufunc_ptx(data, sig):
    """The loops of an unpickled GPU ufunc and the PTX of its kernel for *sig*."""
    ufunc = pickle.loads(data)
    pyfunc, argtypes = ufunc.kernel_for(sig)
    return ufunc.types, cuda.compile_ptx(pyfunc, tuple(argtypes), cc=CC)[0]


def reduce_of(data, values):
    """An unpickled reduction's function applied on the host to *values*, folded (no GPU)."""
    reduction = pickle.loads(data)
    result = values[0]
    for value in values[1:]:
        result = reduction._functor(result, value)
    return result


def launch(data, args, grid, block):
    """Launch an unpickled kernel on host arrays (copied back after the launch); the arrays."""
    kernel = pickle.loads(data)
    args = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid, block](*args)
    cuda.synchronize()
    return args


def call_ufunc(data, *inputs):
    return pickle.loads(data)(*inputs)


def call_reduce(data, values):
    return pickle.loads(data)(values)
