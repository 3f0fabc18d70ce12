"""Estimate pi by throwing random points at the unit square on the GPU with cuda.random.

Each thread owns one xoroshiro128+ generator (states made by
create_xoroshiro128p_states), draws points (x, y) uniform in [0, 1)^2 and counts those
inside the quarter circle x^2 + y^2 <= 1, a fraction pi/4 of them. The estimate
4 * hits / points has the standard error 4 * sqrt(p (1 - p) / points), p = pi/4.

Without a GPU the kernel is compiled to PTX for sm_90 and nothing is run.
"""

import math

import numpy as np

from cumlir import cuda
from cumlir.cuda.random import create_xoroshiro128p_states, xoroshiro128p_type, xoroshiro128p_uniform_float32

THREADS = 256


@cuda.jit
def count_hits(states, draws, hits):
    i = cuda.grid(1)
    if i < hits.size:
        inside = 0
        for _ in range(draws):
            x = xoroshiro128p_uniform_float32(states, i)
            y = xoroshiro128p_uniform_float32(states, i)
            if x * x + y * y <= 1.0:
                inside += 1
        hits[i] = inside


def estimate_pi(generators=65_536, draws=1024, seed=1):
    """(the estimate of pi, its standard error) from generators * draws points."""
    states = create_xoroshiro128p_states(generators, seed=seed)
    hits = np.full(generators, -1, np.int64)  # poisoned: every thread writes its count
    count_hits[(generators + THREADS - 1) // THREADS, THREADS](states, draws, hits)
    assert hits.min() >= 0, "a thread did not write its count"
    points = generators * draws
    p = math.pi / 4
    return 4 * hits.sum() / points, 4 * math.sqrt(p * (1 - p) / points)


def main():
    if not cuda.is_available():
        ptx, _ = cuda.compile_ptx(count_hits, (xoroshiro128p_type[::1], cuda.int64, cuda.int64[::1]), cc=(9, 0))
        print(ptx)
        print("monte_carlo_pi: compiled to PTX for sm_90; no GPU here, so the kernel was not run")
        return
    estimate, sigma = estimate_pi()
    error = estimate - math.pi
    print(f"monte_carlo_pi: {estimate:.6f} on {cuda.get_current_device().name}")
    print(f"error {error:+.2e}, {abs(error) / sigma:.2f} standard errors ({sigma:.1e})")


if __name__ == "__main__":
    main()
