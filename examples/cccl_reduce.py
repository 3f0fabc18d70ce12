"""A Python operator inside CCCL's reduction: cumlir compiles it to LTO-IR and
cuda.compute links it into its CUB kernels, where it is inlined.

    python3 examples/cccl_reduce.py      (needs a GPU, cuda-cccl and CuPy)
"""

import numpy as np


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


if __name__ == "__main__":
    main()
