"""A Python operator inside CCCL's reduction: cumlir compiles it to LTO-IR and
cuda.compute links it into its CUB kernels, where it is inlined.

    python3 examples/cccl_reduce.py      (needs a GPU, cuda-cccl and CuPy)
"""

import importlib.util
import sys

import numpy as np

from cumlir import cuda


def checked_add(a, b):
    return a + b


def main():
    import cuda.compute
    import cupy as cp

    from cumlir.interop.cccl import raw_op

    values = np.random.default_rng(0).integers(0, 100, 1_000_000, dtype=np.int32)
    out = cp.zeros(1, np.int32)
    op = raw_op(checked_add, [np.int32, np.int32])
    cuda.compute.reduce_into(
        d_in=cp.asarray(values), d_out=out, op=op, num_items=len(values), h_init=np.zeros(1, np.int32)
    )
    print("sum:", int(out.get()[0]), "expected:", int(values.sum()))


def missing():
    """What this example needs and this machine lacks, in one line, or None."""
    lacking = [name for name, module in (("cuda-cccl", "cuda.compute"), ("cupy", "cupy")) if not _importable(module)]
    if lacking:
        return f"cccl_reduce.py needs {' and '.join(lacking)}: pip install cuda-cccl cupy-cuda13x"
    if not cuda.is_available():
        return "cccl_reduce.py needs a CUDA GPU, and this machine has none"
    return None


def _importable(module):
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # its parent package is missing
        return False


if __name__ == "__main__":
    if missing():
        sys.exit(missing())
    main()
