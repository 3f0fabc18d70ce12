"""Beyond one GPU: how cumlir kernels scale over the GPUs of one machine, in three parts.

  threads  the memory-bound saxpy ``y = a*x + y`` over 2**28 float32 (3 GiB moved per pass),
           once on one GPU, then split evenly over every GPU with one Python thread per
           GPU (``with cuda.gpus[i]:``, its own cumlir device arrays, LAUNCHES launches,
           ``cuda.synchronize()``); the GB/s of each and their ratio (the work is the same,
           so the ratio is the speed-up; ideal: the number of GPUs). Each thread warms up
           (compiles, loads) before the clock starts; the clock runs from a barrier that
           releases every thread at once until the last thread's synchronize returns.
  dask     a Dask array of CHUNKS CuPy chunks of 2**25 float32, each chunk given REPEATS
           saxpy launches through ``map_blocks`` and the whole reduced by ``.sum()`` (only
           a scalar comes back), on a LocalCUDACluster of 1 worker (GPU 0) and of 2 workers
           (GPUs 0 and 1): the GB/s of the kernels' traffic and the ratio. The chunks are
           drawn and kept on the workers first (in turn: evenly) and every
           worker has compiled the kernel before timing; the median of ROUNDS rounds. GB/s
           counts the saxpy launches' traffic only (each task's copy of its chunk and the
           sum are not counted); the same pipeline with no launches is timed beside it: the
           scheduler's and the copies' share.
  cache    a cold shared disk cache: WORKERS fresh processes with CUMLIR_CACHE=1 and
           CUMLIR_CACHE_DIR naming one empty folder launch the same kernel at the same
           instant; each reports its overload's compile_stats "cache" figure: how many
           compiled (miss) and how many loaded what another wrote (hit). One compile is
           the aim: the others wait for the entry and load it. Needs one GPU.

Parts whose libraries or GPUs are missing are skipped with the reason. Nothing here is
asserted; the figures are printed.

    python3 benchmarks/scaling.py [--skip threads] [--skip dask] [--skip cache]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from scaling_kernels import BYTES_PER_ELEMENT, THREADS, blocks, random_chunk, saxpy, saxpy_block

from cumlir import cuda

TOTAL = 1 << 28  # float32 elements of the threads part, over all the GPUs
LAUNCHES = 50
CHUNK = 1 << 25
CHUNKS = 16
REPEATS = 100
ROUNDS = 3
WORKERS = 8
HERE = Path(__file__).resolve().parent


# ---- threads: one Python thread per GPU -------------------------------------------------------


def threaded_seconds(devices, total=TOTAL, launches=LAUNCHES):
    """Seconds for *launches* saxpy passes over *total* elements split evenly over
    *devices* (ids), one thread per device, from a common start to the last synchronize."""
    start = threading.Barrier(len(devices) + 1)
    errors = []

    def work(device, n):
        try:
            with cuda.gpus[device]:  # the thread's launches and arrays go to this GPU
                x = cuda.to_device(np.full(n, 1.0, np.float32))
                y = cuda.to_device(np.zeros(n, np.float32))
                launch = saxpy[blocks(n), THREADS]
                launch(np.float32(0.5), x, y)  # compiled and loaded before the clock
                cuda.synchronize()
                start.wait()
                for _ in range(launches):
                    launch(np.float32(0.5), x, y)
                cuda.synchronize()
                if y[:1].copy_to_host()[0] != 0.5 * (launches + 1):
                    raise AssertionError(f"GPU {device}: saxpy left a wrong value")
        except threading.BrokenBarrierError:  # another thread failed
            pass
        except BaseException as e:  # reported by the main thread
            errors.append(e)
            start.abort()

    parts = [total * k // len(devices) for k in range(len(devices) + 1)]
    threads = [
        threading.Thread(target=work, args=(device, parts[k + 1] - parts[k])) for k, device in enumerate(devices)
    ]
    for t in threads:
        t.start()
    try:
        start.wait()
    except threading.BrokenBarrierError:
        pass
    began = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]
    return elapsed


def part_threads():
    if not cuda.is_available():
        return "skipped: no GPU here"
    count = len(cuda.gpus)
    if count < 2:
        return f"skipped: {count} GPU here, the part needs 2 or more"
    moved = TOTAL * BYTES_PER_ELEMENT * LAUNCHES
    one = threaded_seconds([0])
    every = threaded_seconds(list(range(count)))
    rows = [("1 GPU", one, moved / one / 1e9), (f"{count} GPUs", every, moved / every / 1e9)]
    lines = [f"saxpy over {TOTAL} float32, {LAUNCHES} launches, one thread per GPU"]
    lines += [f"  {label:<10}{seconds * 1e3:10.1f} ms {gbs:10.1f} GB/s" for label, seconds, gbs in rows]
    lines.append(f"  ratio {one / every:.2f}x (ideal {count}x)")
    return "\n".join(lines)


# ---- dask: a LocalCUDACluster of 1 and of 2 workers -------------------------------------------


def dask_rounds(visible, rounds=ROUNDS):
    """(the median seconds of the timed pipeline, the same with no launches, the chunks
    each worker holds) on a LocalCUDACluster of one worker per GPU of *visible* (its
    CUDA_VISIBLE_DEVICES)."""
    import cupy
    import dask
    import dask.array as da
    from dask_cuda import LocalCUDACluster
    from distributed import Client, wait

    # no work stealing: an idle worker would take tasks of chunks another GPU holds, and
    # their 128 MiB chunks would go through the host and TCP to it
    with (
        dask.config.set({"distributed.scheduler.work-stealing": False}),
        LocalCUDACluster(CUDA_VISIBLE_DEVICES=visible) as cluster,
        Client(cluster) as client,
    ):
        # the chunks drawn on the workers in turn (left to the scheduler, draws that finish
        # first pile up on one worker), then the tasks on each chunk run where it is
        workers = sorted(client.scheduler_info()["workers"])
        chunks = [
            client.submit(random_chunk, seed, CHUNK, workers=[workers[seed % len(workers)]], pure=False)
            for seed in range(CHUNKS)
        ]
        wait(chunks)
        meta = cupy.empty((0,), np.float32)
        x = da.concatenate(
            [da.from_delayed(dask.delayed(c), shape=(CHUNK,), dtype=np.float32, meta=meta) for c in chunks]
        )
        x.map_blocks(saxpy_block, 1, dtype=np.float32, meta=meta).sum().compute()  # every worker has loaded saxpy
        held = [sum(c.key in keys for c in chunks) for keys in client.has_what().values()]

        def median_seconds(repeats):
            pipeline = x.map_blocks(saxpy_block, repeats, dtype=np.float32, meta=meta).sum()
            times = []
            for _ in range(rounds):
                began = time.perf_counter()
                pipeline.compute()
                times.append(time.perf_counter() - began)
            return statistics.median(times)

        return median_seconds(REPEATS), median_seconds(0), held


def part_dask():
    for name in ("cupy", "dask.array", "distributed", "dask_cuda"):
        try:
            __import__(name)
        except ImportError:
            return f"skipped: {name} is not installed"
    if not cuda.is_available() or len(cuda.gpus) < 2:
        return "skipped: the part needs 2 GPUs"
    moved = CHUNK * CHUNKS * BYTES_PER_ELEMENT * REPEATS
    (one, one_floor, one_held), (two, two_floor, two_held) = dask_rounds("0"), dask_rounds("0,1")
    lines = [f"map_blocks: {CHUNKS} chunks of {CHUNK} float32, {REPEATS} saxpy launches each, then .sum()"]
    for label, seconds, floor, held in (
        ("1 worker", one, one_floor, one_held),
        ("2 workers", two, two_floor, two_held),
    ):
        gbs = moved / seconds / 1e9
        lines.append(
            f"  {label:<10}{seconds * 1e3:10.1f} ms {gbs:10.1f} GB/s  (no launches: {floor * 1e3:.1f} ms; "
            f"chunks per worker: {held})"
        )
    lines.append(f"  ratio {one / two:.2f}x (ideal 2x)")
    return "\n".join(lines)


# ---- cache: WORKERS processes meet a cold shared disk cache ----------------------------------


def part_cache(workers=WORKERS):
    if not cuda.is_available():
        return "skipped: no GPU here"
    with tempfile.TemporaryDirectory(prefix="cumlir-cold-cache-") as folder:
        env = dict(os.environ, CUMLIR_CACHE="1", CUMLIR_CACHE_DIR=folder)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH")) if p)
        start_at = time.time() + 10  # every worker has imported cumlir and made its context by then
        code = f"import scaling_kernels; scaling_kernels.cold_cache_worker({start_at!r})"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for _ in range(workers)
        ]
        reports, failures = [], []
        for p in procs:
            out, err = p.communicate(timeout=300)
            if p.returncode:
                failures.append(f"pid {p.pid} exited {p.returncode}: {err.strip().splitlines()[-1:]}")
            else:
                reports.append(json.loads(out.strip().splitlines()[-1]))
    verdicts = [r["cache"] for r in reports]
    lines = [f"{workers} processes, one fresh CUMLIR_CACHE_DIR, the first launch of saxpy at one instant"]
    for r in sorted(reports, key=lambda r: r["first_s"]):
        right = "right" if r["ok"] else "WRONG"
        lines.append(
            f"  pid {r['pid']:>7}: cache {str(r['cache']):<5} first launch {r['first_s'] * 1e3:8.1f} ms, result {right}"
        )
    lines += [f"  {f}" for f in failures]
    lines.append(
        f"  compiled (miss): {verdicts.count('miss')}, loaded (hit): {verdicts.count('hit')}, other: "
        f"{len(verdicts) - verdicts.count('miss') - verdicts.count('hit')}, failed: {len(failures)} (aim: 1 compile)"
    )
    return "\n".join(lines)


PARTS = {"threads": part_threads, "dask": part_dask, "cache": part_cache}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--skip", action="append", default=[], choices=list(PARTS), help="a part not to run (repeatable)"
    )
    args = parser.parse_args()
    if cuda.is_available():
        print("GPUs: " + ", ".join(f"{d.id} {d.name}" for d in cuda.gpus))
    for name, part in PARTS.items():
        if name not in args.skip:
            print(f"[{name}] {part()}", flush=True)


if __name__ == "__main__":
    main()
