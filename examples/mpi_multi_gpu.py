"""One MPI rank per GPU: each rank fills its slice of a global array with a cumlir kernel on
its own GPU, sums the slice there, and the ranks add their partial sums with
``comm.allreduce``.

Rank r uses device ``r % len(cuda.gpus)``, so two ranks on a two-GPU machine get one GPU
each (more ranks than GPUs share them). The global array, never gathered, is indexed by
k = 0 .. n-1, and rank r owns a contiguous slice of it:

  - ``odd[k] = 2k + 1`` in int64, whose sum is exactly n^2;
  - ``inverse_square[k] = 1 / (k + 1)^2`` in float64, whose sum is checked against NumPy's
    sum of the same values, computed on rank 0's host.

The partial sums are NumPy scalars reduced on the host: only two numbers per rank cross
MPI, so no CUDA-aware MPI is needed.

    mpirun -n 2 python3 examples/mpi_multi_gpu.py [--n 16777216]
    python3 examples/mpi_multi_gpu.py            # one rank, without mpirun

Without mpi4py or a GPU the kernel is compiled to PTX for sm_90 and nothing is run.
"""

import argparse

import numpy as np

from cumlir import cuda

THREADS = 256


@cuda.jit
def fill(start, odd, inverse_square):
    i = cuda.grid(1)
    if i < odd.size:
        k = start + i
        odd[i] = 2 * k + 1
        inverse_square[i] = 1.0 / ((k + 1.0) * (k + 1.0))


@cuda.reduce
def add(a, b):
    return a + b


def owned(n, size, rank):
    """(start, stop) of the slice of 0 .. n-1 that *rank* of *size* owns: near-equal parts."""
    return n * rank // size, n * (rank + 1) // size


def partial_sums(n, size, rank):
    """This rank's slice filled on its GPU: (the sum of odd, of inverse_square, the slice's length)."""
    start, stop = owned(n, size, rank)
    count = stop - start
    odd = cuda.device_array(count, np.int64)
    inverse_square = cuda.device_array(count, np.float64)
    if count:
        fill[(count + THREADS - 1) // THREADS, THREADS](np.int64(start), odd, inverse_square)
        return add(odd), add(inverse_square), count
    return np.int64(0), np.float64(0), count


def run(comm, n):
    """Every rank computes its part; rank 0 checks the totals and returns whether they match."""
    rank, size = comm.Get_rank(), comm.Get_size()
    device = cuda.select_device(rank % len(cuda.gpus))
    odd_sum, inverse_square_sum, count = partial_sums(n, size, rank)
    print(f"rank {rank}/{size}: {count} elements on GPU {device.id} ({device.name})", flush=True)
    odd_total = comm.allreduce(int(odd_sum))  # Python ints: exact whatever the MPI datatype
    inverse_square_total = comm.allreduce(float(inverse_square_sum))
    ok = rank != 0 or check(n, size, odd_total, inverse_square_total)
    return comm.bcast(ok, root=0)  # every rank exits with rank 0's verdict


def check(n, size, odd_total, inverse_square_total):
    """Whether the totals are right (printing the comparison)."""
    k = np.arange(n, dtype=np.float64)
    expected = float(np.sum(1.0 / ((k + 1.0) * (k + 1.0))))
    # the sums add in different orders (a tree per rank, then across ranks, against NumPy's
    # pairwise sum): each is within about log2(n) roundings of the total
    tolerance = 4 * np.finfo(np.float64).eps * expected * np.log2(n + 1)
    ok = odd_total == n * n and abs(inverse_square_total - expected) <= tolerance
    print(
        f"check: {'ok' if ok else 'FAILED'}: sum of 2k+1 = {odd_total} (n^2 = {n * n}), "
        f"sum of 1/(k+1)^2 = {inverse_square_total:.15f} (NumPy {expected:.15f}) over {size} ranks",
        flush=True,
    )
    return ok


def missing():
    """Why the ranks cannot run here, or None."""
    try:
        import mpi4py.MPI  # noqa: F401
    except ImportError:
        return "mpi4py is not installed"
    if not cuda.is_available():
        return "no GPU here"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24, help="elements of the global array")
    args = parser.parse_args()
    why = missing()
    if why:
        ptx, _ = cuda.compile_ptx(fill, "void(int64, int64[::1], float64[::1])", cc=(9, 0))
        print(f"mpi_multi_gpu: compiled fill ({len(ptx)} characters of PTX) for sm_90; {why}, so nothing was run")
        return
    from mpi4py import MPI

    if not run(MPI.COMM_WORLD, args.n):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
