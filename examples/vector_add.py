"""Add two vectors on the GPU with cumlir.

Prints the PTX of the kernel (no GPU needed for that), then runs it and checks
the result against NumPy when a GPU is present, or on the CPU with CUMLIR_SIMULATOR=1
(docs/simulator.md).
"""

import numpy as np

from cumlir import cuda


@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


def main():
    ptx, _ = cuda.compile_ptx(vector_add.py_func, "void(float32[:], float32[:], float32[:])", cc=(9, 0))
    print(ptx)
    if not cuda.is_available():
        print(
            "vector_add: compiled to PTX for sm_90; no GPU here, so the kernel was not run "
            "(CUMLIR_SIMULATOR=1 runs it on the CPU)"
        )
        return
    n = 1_000_003
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)  # copied once (a NumPy argument is copied at each launch)
    d_c = cuda.to_device(np.full(n, np.nan, dtype=np.float32))
    threads = 256
    blocks = (n + threads - 1) // threads
    vector_add[blocks, threads](d_a, d_b, d_c)
    np.testing.assert_array_equal(d_c.copy_to_host(), a + b)
    device = cuda.get_current_device()
    print(f"vector_add: ran on {device.name} for {n} elements; the result matches NumPy")


if __name__ == "__main__":
    main()
