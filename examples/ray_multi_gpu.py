"""Ray actors, one per GPU, each handed a cumlir kernel and launching it on its own GPU.

``@ray.remote(num_gpus=1)`` gives each actor one GPU, which Ray makes the actor's device 0
through CUDA_VISIBLE_DEVICES. The kernel travels to the actors as an argument of a method
call: a dispatcher pickles as its Python function (by module and name when that name finds
it, else by value) with its options, never as compiled code, so each actor compiles it for
its own GPU (or loads it from the disk cache). Each actor runs ``out = a * x + y`` on
cumlir device arrays of its own part of the data and checks the result against NumPy
before returning.

    python3 examples/ray_multi_gpu.py [--n 4194304] [--actors 2]

Without a GPU, if Ray is installed, the actors are started without GPUs and only compile
the kernel they were sent to PTX for sm_90 (checking that it travels); without Ray the
kernel is compiled here and nothing is run.
"""

import argparse
import os
import platform

import numpy as np

from cumlir import cuda

THREADS = 256
SIGNATURE = "void(float32, float32[::1], float32[::1], float32[::1])"


@cuda.jit
def scale_add(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


class Launcher:
    """The actor's class (made a Ray actor in ``run``): it holds no kernel; each call is sent one."""

    def where(self):
        """(this process's id, the GPU Ray gave it, its name)."""
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
        name = cuda.get_current_device().name if cuda.is_available() else f"no GPU ({platform.node()})"
        return os.getpid(), visible, name

    def launch(self, kernel, part, parts, n, a=2.5, seed=3):
        """Run *kernel* on part *part* of *parts* of an n-element problem on this actor's GPU:
        (elements, the largest error relative to NumPy's float64 result)."""
        start, stop = n * part // parts, n * (part + 1) // parts
        rng = np.random.default_rng([seed, part])
        x = rng.standard_normal(stop - start).astype(np.float32)
        y = rng.standard_normal(stop - start).astype(np.float32)
        out = cuda.device_array_like(x)
        kernel[(x.size + THREADS - 1) // THREADS, THREADS](np.float32(a), cuda.to_device(x), cuda.to_device(y), out)
        got = out.copy_to_host().astype(np.float64)
        expected = a * x.astype(np.float64) + y.astype(np.float64)
        # a product and a sum in float32 (or one fused rounding): within 2 ulps of the larger term
        scale = np.maximum(np.abs(a * x.astype(np.float64)), np.abs(y.astype(np.float64)))
        error = np.abs(got - expected) / (2 * np.finfo(np.float32).eps * scale + 1e-30)
        return x.size, float(error.max()) if error.size else 0.0

    def compile(self, kernel, cc=(9, 0)):
        """The PTX of *kernel* for *cc*, compiled here (no GPU needed): its length."""
        ptx, _ = cuda.compile_ptx(kernel, SIGNATURE, cc=cc)
        return len(ptx)


def importable(kernel):
    """*kernel* as another process can unpickle it. Run as a script this module is
    ``__main__``, and a kernel defined in it pickles as "``__main__``'s scale_add", which a
    Ray worker (whose ``__main__`` is Ray's own) cannot find; the same kernel imported from
    this file by its name (Ray puts the script's folder on its workers' path) travels."""
    if kernel.py_func.__module__ != "__main__":
        return kernel
    import importlib
    from pathlib import Path

    return getattr(importlib.import_module(Path(__file__).stem), kernel.__name__)


def run(ray, actors, n):
    """Start *actors* actors (one GPU each when GPUs exist, else none) and send them the kernel."""
    kernel = importable(scale_add)
    gpus = len(cuda.gpus) if cuda.is_available() else 0
    actor = ray.remote(num_gpus=1 if gpus else 0)(Launcher)
    count = actors or max(gpus, 1)
    handles = [actor.remote() for _ in range(count)]
    for pid, visible, name in ray.get([h.where.remote() for h in handles]):
        print(f"actor pid {pid}: CUDA_VISIBLE_DEVICES={visible or '-'} ({name})")
    if not gpus:
        sizes = ray.get([h.compile.remote(kernel) for h in handles])
        print(
            f"ray_multi_gpu: {count} actors compiled the kernel they were sent to PTX for sm_90 ({sizes} characters); no GPU here, so nothing was launched"
        )
        return True
    results = ray.get([h.launch.remote(kernel, part, count, n) for part, h in enumerate(handles)])
    ok = all(worst <= 1 for _, worst in results)
    worst = max(w for _, w in results)
    elements = sum(e for e, _ in results)
    print(
        f"check: {'ok' if ok else 'FAILED'}: {elements} elements of a*x+y on {count} actors, worst error {worst:.2f} of the float32 bound"
    )
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 22, help="elements in all")
    parser.add_argument("--actors", type=int, default=None, help="actors (default: one per GPU)")
    args = parser.parse_args()
    try:
        import ray
    except ImportError:
        ptx, _ = cuda.compile_ptx(scale_add, SIGNATURE, cc=(9, 0))
        print(
            f"ray_multi_gpu: compiled scale_add ({len(ptx)} characters of PTX) for sm_90; Ray is not installed, so nothing was run"
        )
        return
    ray.init(num_cpus=max(2, args.actors or 0), include_dashboard=False)
    try:
        ok = run(ray, args.actors, args.n)
    finally:
        ray.shutdown()
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
