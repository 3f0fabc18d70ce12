"""Tensor-core GEMMs written with @cuda.jit against torch.matmul, and a TMA copy against the
driver's device-to-device copy. Informational: one run, figures from one process.

    source .gpu/prelude.sh && python3 benchmarks/gemm.py [--size 8192]

- bf16 C = A @ B (float32 accumulation, bf16 result) of size x size x size: torch.matmul
  (cuBLAS), examples/gemm_hopper.py (TMA + wgmma, sm_90a) and examples/gemm_ampere.py
  (cp.async + ldmatrix + mma.sync); TFLOP/s and the ratio to torch.
- A float32 matrix copied box by box through shared memory by TMA (load, then store) against
  cuMemcpyDtoD of the same bytes: GB/s (bytes read plus bytes written) and the ratio.

Times are CUDA events around RUNS launches after WARMUP, the median of REPEATS.
"""

import argparse
import importlib.util
import statistics
from pathlib import Path

import ml_dtypes
import numpy as np

from cumlir import cuda
from cumlir.cuda import intrin

WARMUP, RUNS, REPEATS = 2, 10, 5
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
COPY_ROWS, COPY_COLS = 32, 256  # the TMA box: 32 KiB of float32


def _example(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _milliseconds(launch, stream=0):
    """The median time of one launch, from CUDA events around RUNS launches."""
    for _ in range(WARMUP):
        launch()
    cuda.synchronize()
    times = []
    for _ in range(REPEATS):
        start, stop = cuda.event(), cuda.event()
        start.record()
        for _ in range(RUNS):
            launch()
        stop.record()
        stop.synchronize()
        times.append(cuda.event_elapsed_time(start, stop) / RUNS)
    return statistics.median(times)


def _torch_matmul(a, b, dtype):
    """torch.matmul of a (M, K) and b (K, N) in *dtype*, the operands' bits from NumPy."""
    import torch

    def tensor(x):
        bits = np.ascontiguousarray(x).view(np.uint16)
        return torch.from_numpy(bits).cuda().view(dtype)

    ta, tb = tensor(a), tensor(b)
    out = torch.empty((a.shape[0], b.shape[1]), dtype=dtype, device="cuda")

    def launch():
        torch.matmul(ta, tb, out=out)

    return launch, lambda: out.float().cpu().numpy()


def _hopper(a, b_t):
    module = _example("gemm_hopper")
    da, db = cuda.to_device(a), cuda.to_device(b_t)
    c = cuda.device_array((a.shape[0], b_t.shape[0]), ml_dtypes.bfloat16)
    return (lambda: module.matmul(da, db, c)), c.copy_to_host


def _ampere(a, b):
    module = _example("gemm_ampere")
    da, db = cuda.to_device(a), cuda.to_device(b)
    c = cuda.device_array((a.shape[0], b.shape[1]), np.float32)
    return (lambda: module.launch(da, db, c)), c.copy_to_host


def _measure(label, make, flops, check):
    try:
        launch, result = make()
        ms = _milliseconds(launch)
    except Exception as e:  # noqa: BLE001 - a contender that cannot run is reported, not fatal
        print(f"{label}: not measured ({type(e).__name__}: {e})")
        return None
    tflops = flops / ms / 1e9
    print(f"{label:34s} {ms:8.3f} ms {tflops:8.1f} TFLOP/s  max error / sqrt(K) {check(result()):.4f}")
    return tflops


def _gemms(size):
    """bf16 (Hopper) and float16 (Ampere) products, each against torch.matmul in its type."""
    import torch

    rng = np.random.default_rng(1)
    flops = 2.0 * size**3
    rows = rng.choice(size, 64, replace=False)
    for dtype, torch_dtype, example, make in (
        (ml_dtypes.bfloat16, torch.bfloat16, "gemm_hopper", lambda a, b: _hopper(a, np.ascontiguousarray(b.T))),
        (np.float16, torch.float16, "gemm_ampere", _ampere),
    ):
        a = rng.standard_normal((size, size)).astype(dtype)
        b = rng.standard_normal((size, size)).astype(dtype)
        expected = a[rows].astype(np.float64) @ b.astype(np.float64)

        def check(c):
            return float(np.max(np.abs(np.asarray(c, np.float64)[rows] - expected)) / np.sqrt(size))

        base = _measure(f"torch.matmul {np.dtype(dtype).name}", lambda: _torch_matmul(a, b, torch_dtype), flops, check)
        ours = _measure(f"cumlir {example} {np.dtype(dtype).name}", lambda: make(a, b), flops, check)
        if base and ours:
            print(f"  {example}: {ours / base:.3f}x torch.matmul")


@cuda.jit
def tma_copy(src_map, dst_map):
    box = cuda.shared.array((COPY_ROWS, COPY_COLS), np.float32)
    bar = cuda.shared.array(1, np.uint64)
    row, col = cuda.blockIdx.y * COPY_ROWS, cuda.blockIdx.x * COPY_COLS
    if cuda.threadIdx.x == 0:
        intrin.mbarrier_init(bar, 1)
        intrin.fence_mbarrier_init()
        intrin.mbarrier_arrive_expect_tx(bar, COPY_ROWS * COPY_COLS * 4)
        intrin.cp_async_bulk_tensor_load(box, src_map, (row, col), bar)
        intrin.mbarrier_try_wait(bar, 0)
        intrin.cp_async_bulk_tensor_store(dst_map, (row, col), box)
        intrin.cp_async_bulk_commit_group()
        intrin.cp_async_bulk_wait_group_read(0)


def _copies(size):
    src = cuda.to_device(np.random.default_rng(2).standard_normal((size, size)).astype(np.float32))
    dst = cuda.device_array_like(src)
    src_map = cuda.tensor_map.tiled(src, (COPY_ROWS, COPY_COLS))
    dst_map = cuda.tensor_map.tiled(dst, (COPY_ROWS, COPY_COLS))
    grid = (size // COPY_COLS, size // COPY_ROWS)
    moved = 2.0 * src.nbytes  # read and written
    tma_ms = _milliseconds(lambda: tma_copy[grid, 32](src_map, dst_map))
    assert np.array_equal(dst.copy_to_host(), src.copy_to_host()), "the TMA copy differs from its source"
    copy_ms = _milliseconds(lambda: dst.copy_to_device(src))
    tma, copy = moved / tma_ms / 1e6, moved / copy_ms / 1e6
    print(f"TMA box copy {tma:8.0f} GB/s   device-to-device copy {copy:8.0f} GB/s   ratio {tma / copy:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8192)
    args = parser.parse_args()
    device = cuda.get_current_device()
    print(f"{device.name}, compute capability {device.compute_capability}; size {args.size}")
    _gemms(args.size)
    _copies(args.size)


if __name__ == "__main__":
    main()
