"""The generated-code speed suite: its kernel modules, and their kernels built for a
``cuda`` namespace (cumlir's or numba-cuda's) from the same Python source.

Each kernel module holds:

- ``KERNELS``: ``[(function, signature), ...]``, plain Python functions written for
  ``from cumlir import cuda``;
- ``CUDA_SOURCE``: the CUDA C++ twin (same algorithm, same launch configuration),
  one ``extern "C" __global__`` function per Python kernel, of the same name;
- ``METRIC``: ``"GB/s"`` (bytes moved), ``"GFLOP/s"`` (float32 flops) or
  ``"GFLOP/s fp64"``; ``work(inputs)``: the bytes or flops of one launch;
- ``OUTPUTS``: output name -> the value it is filled with before a checked launch
  (``None``: poisoned, NaN for floats);
- ``setup(xp, rng, quick=False)``: the inputs and outputs (``xp`` is CuPy, or NumPy in
  the CPU tests);
- ``launch(cuda, kernels, inputs)`` and ``launch_twin(twin, inputs)``;
- ``check(inputs, outputs)``: raises AssertionError unless the outputs agree with NumPy
  in float64 (host arrays);
- ``emulate(inputs)``: the outputs computed on the host (to test ``check`` without a GPU);
- ``NUMBA_CUDA``: None, or why numba-cuda cannot run the kernel; ``NUMBA_CUDA_MLIR``
  (optional), the same for numba-cuda-mlir.
"""

import importlib
import types

NAMES = (
    "vadd",
    "saxpy",
    "copy_float4",
    "reduce_block",
    "reduce_warp",
    "matmul",
    "stencil",
    "nbody",
    "black_scholes",
    "histogram",
    "softmax",
    "math_loop",
)


def load(name):
    return importlib.import_module(f"benchmarks.kernels.{name}")


def rebound(function, cuda):
    """*function* with the global name ``cuda`` bound to *cuda* (the rest of its
    module's globals unchanged), for a jit other than cumlir's to compile."""
    namespace = dict(function.__globals__, cuda=cuda)
    copy = types.FunctionType(
        function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__
    )
    copy.__qualname__ = function.__qualname__
    return copy


def build(module, cuda):
    """The module's kernels compiled eagerly by ``cuda.jit``, by name."""
    return {fn.__name__: cuda.jit(sig)(rebound(fn, cuda)) for fn, sig in module.KERNELS}


def anchor_refuses(module, anchor):
    """Why the kernel module says *anchor* ("numba-cuda" or "numba-cuda-mlir") cannot run it, or None."""
    return getattr(module, {"numba-cuda": "NUMBA_CUDA", "numba-cuda-mlir": "NUMBA_CUDA_MLIR"}[anchor], None)


def blocks(n, threads):
    return (n + threads - 1) // threads


def poison_value(dtype):
    """What an output is filled with before a checked launch: NaN for floats, 0x5A... else."""
    import numpy as np

    return np.nan if np.dtype(dtype).kind in "fc" else 0x5A
