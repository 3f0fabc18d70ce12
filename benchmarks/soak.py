"""Soak: what a long-lived process keeps. In one process, LAUNCHES launches of one kernel
and COMPILES compiles of distinct kernels (each launched once, then dropped), with the
process's resident memory (RSS) and the device's used memory printed at the start, after a
warm-up and at the end, and the growth per launch and per compile after the warm-up.

The anchor, Numba-CUDA (where it imports), runs the same loops in a process of its own,
with fewer compiles (it compiles more slowly); its rows are per compile and per launch too.

    source .gpu/prelude.sh && python3 benchmarks/soak.py [--launches N] [--compiles N]
        [--anchor-compiles N] [--anchor-launches N] [--no-anchor]
"""

import argparse
import gc
import json
import os
import subprocess
import sys
import time

import numpy as np

WARM_UP = 0.2  # the fraction of each loop run before the growth is measured from: the bounded
# tables fill first (MLIR contexts replaced every 256 compilations, 1024 operator typings)
KERNEL = """
def kernel_{k}(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * {k} + {k2}
"""


def rss_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def device_used_bytes(cuda):
    free, total = cuda.current_context().get_memory_info()
    return total - free


def _sample(cuda, what):
    gc.collect()
    cuda.synchronize()
    sample = rss_bytes(), device_used_bytes(cuda)
    print(f"  {what}: RSS {sample[0] >> 20} MiB, device {sample[1] >> 20} MiB", file=sys.stderr, flush=True)
    return sample


def soak(cuda, launches, compiles):
    """The samples (RSS, device bytes) at start, after the warm-ups and at the end of each
    loop, and the seconds each loop took."""
    n = 1024
    x = cuda.to_device(np.arange(n, dtype=np.float32))
    out = cuda.device_array(n, np.float32)
    namespace = {"cuda": cuda}
    exec(KERNEL.format(k=0, k2=1), namespace)
    kernel = cuda.jit(namespace["kernel_0"])
    kernel[4, 256](x, out)
    report = {"start": _sample(cuda, "start")}

    warm = max(1, int(launches * WARM_UP))
    began = time.perf_counter()
    for i in range(launches):
        kernel[4, 256](x, out)
        if i + 1 == warm:
            report["launches warm"] = _sample(cuda, f"{i + 1} launches")
    report["launches end"] = _sample(cuda, f"{launches} launches")
    report["launch seconds"] = time.perf_counter() - began
    assert np.array_equal(out.copy_to_host(), np.ones(n, np.float32)), "the launched kernel computed a wrong result"

    warm = max(1, int(compiles * WARM_UP))
    began = time.perf_counter()
    for k in range(1, compiles + 1):
        exec(KERNEL.format(k=k, k2=k % 7), namespace)
        compiled = cuda.jit(namespace.pop(f"kernel_{k}"))
        compiled[4, 256](x, out)
        del compiled
        if k == warm:
            report["compiles warm"] = _sample(cuda, f"{k} compiles")
        elif k % max(1, compiles // 10) == 0:
            _sample(cuda, f"{k} compiles")
    report["compiles end"] = _sample(cuda, f"{compiles} compiles")
    report["compile seconds"] = time.perf_counter() - began
    got = out.copy_to_host()
    assert np.array_equal(got, np.arange(n, dtype=np.float32) * compiles + compiles % 7), "wrong last result"
    report["launches"], report["compiles"] = launches, compiles
    return report


def _growth(report, loop, count):
    warm = int(count * WARM_UP) or 1
    measured = count - warm
    (rss0, dev0), (rss1, dev1) = report[f"{loop} warm"], report[f"{loop} end"]
    return (rss1 - rss0) / measured, (dev1 - dev0) / measured


def _print(label, report):
    mib = 1 << 20
    print(f"\n{label}")
    for key in ("start", "launches warm", "launches end", "compiles warm", "compiles end"):
        rss, dev = report[key]
        print(f"  {key:<15} RSS {rss / mib:9.1f} MiB   device used {dev / mib:9.1f} MiB")
    per_launch = _growth(report, "launches", report["launches"])
    per_compile = _growth(report, "compiles", report["compiles"])
    launch_us = report["launch seconds"] / report["launches"] * 1e6
    compile_ms = report["compile seconds"] / report["compiles"] * 1e3
    print(
        f"  {report['launches']} launches ({launch_us:.2f} µs each): "
        f"RSS {per_launch[0]:+.3f} B/launch, device {per_launch[1]:+.3f} B/launch after the warm-up"
    )
    print(
        f"  {report['compiles']} compiles ({compile_ms:.2f} ms each): "
        f"RSS {per_compile[0] / 1024:+.3f} KiB/compile, device {per_compile[1] / 1024:+.3f} KiB/compile "
        "after the warm-up"
    )


def _child(which, launches, compiles):
    """Run the soak for *which* ("cumlir" or "numba-cuda") in this process; print JSON."""
    if which == "cumlir":
        from cumlir import cuda
    else:
        if not hasattr(np, "row_stack"):  # numba-cuda 0.30 calls it; NumPy 2.4 removed it
            np.row_stack = np.vstack
        from numba import cuda
    print(json.dumps(soak(cuda, launches, compiles)))


def _in_process_of_its_own(which, launches, compiles):
    command = [sys.executable, __file__, "--child", which, "--launches", str(launches), "--compiles", str(compiles)]
    print(f"{which}:", file=sys.stderr, flush=True)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)  # its progress goes to stderr
    if done.returncode != 0:
        print(f"\n{which}: failed (exit status {done.returncode})")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=1_000_000)
    parser.add_argument("--compiles", type=int, default=10_000)
    parser.add_argument("--anchor-launches", type=int, default=100_000)
    parser.add_argument("--anchor-compiles", type=int, default=500)
    parser.add_argument("--no-anchor", action="store_true", help="measure cumlir alone")
    parser.add_argument("--child", choices=["cumlir", "numba-cuda"])
    args = parser.parse_args()
    if args.child:
        return _child(args.child, args.launches, args.compiles)
    cumlir = _in_process_of_its_own("cumlir", args.launches, args.compiles)
    if cumlir:
        _print("cumlir", cumlir)
    if args.no_anchor:
        return
    anchor = _in_process_of_its_own("numba-cuda", args.anchor_launches, args.anchor_compiles)
    if anchor:
        _print("Numba-CUDA", anchor)


if __name__ == "__main__":
    main()
