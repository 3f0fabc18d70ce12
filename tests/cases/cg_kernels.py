"""Kernels that synchronize their whole grid (``cuda.cg.this_grid().sync()``), shared by
the CPU tests (PTX, cubin, the cooperative flag) and the GPU tests (against NumPy)."""

from cumlir import cuda


def smooth(a, b, steps):
    """*steps* rounds of a[i] = (a[i-1] + a[i] + a[i+1]) / 3 inside the fixed ends, through b;
    a grid-stride loop, so any grid size covers the array."""
    grid = cuda.cg.this_grid()
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    n = a.size
    for _ in range(steps):
        for i in range(start, n, stride):
            if 0 < i < n - 1:
                b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
            else:
                b[i] = a[i]
        grid.sync()
        for i in range(start, n, stride):
            a[i] = b[i]
        grid.sync()


@cuda.jit(device=True)
def _exchange(a, b, i, shift):
    # a device function holding the barrier: its caller becomes cooperative too. Every
    # thread of the grid reaches the barrier, as CUDA requires of grid.sync()
    if i < a.size:
        b[i] = a[(i + shift) % a.size]
    cuda.cg.this_grid().sync()


def rotate(a, b, shift, steps):
    """*steps* rotations of a by *shift* elements, one element per thread: every round
    reads what other blocks wrote in the round before."""
    i = cuda.grid(1)
    for _ in range(steps):
        _exchange(a, b, i, shift)
        if i < a.size:
            a[i] = b[i]
        cuda.cg.this_grid().sync()


def add_one(a):
    """No grid barrier: launched the ordinary way."""
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def synced_by_callee(a, b):
    """Only the device function it calls synchronizes the grid."""
    _exchange(a, b, cuda.grid(1) % a.size, 1)
