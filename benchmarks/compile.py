"""Compile latency: `from cumlir import cuda` in a fresh process; the first kernel of a fresh
process (cold, and with a warm on-disk cache); warm compiles of four kernels (a new function
object each time, so nothing is cached) and of chains of N device functions; against
Numba-CUDA and numba-cuda-mlir in the same run where they import. Informational; prints medians in milliseconds.

    python3 benchmarks/compile.py            # to PTX (no GPU needed)
    python3 benchmarks/compile.py --launch   # compile + first launch (GPU)

numba-cuda-mlir is a third column where it imports. ``--only-anchors`` measures Numba-CUDA
and numba-cuda-mlir without cumlir's compiler; ``--json FILE`` writes the figures, and
``benchmarks/combine.py`` prints the runs' files as one table.
"""

import statistics
import subprocess
import sys
import time

import numpy as np
from anchors import CUMLIR, anchors, json_path, module_name, only_anchors, print_table, report_missing, write_json

REPEATS = 15
KERNELS = {}


def kernel(source):
    """Register a kernel by its source, so each measurement can make a fresh function object."""
    name = source.split("def ", 1)[1].split("(", 1)[0]
    KERNELS[name] = source
    return name


kernel(
    """
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
"""
)
kernel(
    """
def math_loop(x, out):
    i = cuda.grid(1)
    if i < out.size:
        v = x[i]
        acc = 0.0
        for k in range(8):
            acc += math.sin(v * k) * math.exp(-v) + math.sqrt(abs(v) + k)
        out[i] = acc
"""
)
kernel(
    """
def matmul(a, b, c):
    ta = cuda.shared.array((32, 32), np.float32)
    tb = cuda.shared.array((32, 32), np.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * 32 + ty
    col = cuda.blockIdx.x * 32 + tx
    acc = np.float32(0)
    for t in range(a.shape[1] // 32):
        ta[ty, tx] = a[row, t * 32 + tx]
        tb[ty, tx] = b[t * 32 + ty, col]
        cuda.syncthreads()
        for k in range(32):
            acc += ta[ty, k] * tb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc
"""
)
kernel(
    """
def black_scholes(price, strike, years, call, put):
    i = cuda.grid(1)
    if i < price.size:
        s, k, t = price[i], strike[i], years[i]
        rate, vol = 0.02, 0.3
        root = math.sqrt(t)
        d1 = (math.log(s / k) + (rate + 0.5 * vol * vol) * t) / (vol * root)
        d2 = d1 - vol * root
        n1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
        n2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
        discount = k * math.exp(-rate * t)
        call[i] = s * n1 - discount * n2
        put[i] = discount * (1.0 - n2) - s * (1.0 - n1)
"""
)
SIGNATURES = {
    "vadd": "void(float32[:], float32[:], float32[:])",
    "math_loop": "void(float64[:], float64[:])",
    "matmul": "void(float32[:, :], float32[:, :], float32[:, :])",
    "black_scholes": "void(float64[:], float64[:], float64[:], float64[:], float64[:])",
}
CHAINS = (1, 4, 16, 32)


def fresh(cuda, name):
    import math

    namespace = {"cuda": cuda, "math": math, "np": np}
    exec(KERNELS[name], namespace)
    return namespace[name]


def arguments(name):
    import cupy as cp

    if name == "matmul":
        return [cp.ones((64, 64), np.float32) for _ in range(3)], (2, 2), (32, 32)
    n = 1 << 12
    if name == "vadd":
        return [cp.ones(n, np.float32) for _ in range(3)], n // 128, 128
    if name == "black_scholes":
        return [cp.ones(n, np.float64) for _ in range(5)], n // 128, 128
    return [cp.ones(n, np.float64) for _ in range(2)], n // 128, 128


def chain(cuda, links):
    """A kernel calling a chain of *links* device functions, each calling the next."""
    namespace = {"cuda": cuda}
    source = ["def link0(x):\n    return x * 1.0001 + 1.0\n"]
    for k in range(1, links):
        source.append(f"def link{k}(x):\n    return link{k - 1}(x) * 0.9999 - 0.5\n")
    source.append(f"def chained(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = link{links - 1}(a[i])\n")
    exec("".join(source), namespace)
    for k in range(links):  # each a device function, bound in the namespace the next one reads
        namespace[f"link{k}"] = cuda.jit(device=True)(namespace[f"link{k}"])
    return namespace["chained"]


def chain_ms(cuda, links, launch):
    times = []
    for _ in range(max(5, REPEATS // 3)):
        pyfunc = chain(cuda, links)
        start = time.perf_counter()
        if launch:
            import cupy as cp

            cuda.jit(pyfunc)[1, 32](cp.ones(32, np.float64))
            cuda.synchronize()
        else:
            cuda.compile_ptx(pyfunc, "void(float64[:])", cc=(9, 0))
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times[1:])


def compile_ms(cuda, name, launch):
    times = []
    for _ in range(REPEATS):
        pyfunc = fresh(cuda, name)
        start = time.perf_counter()
        if launch:
            args, blocks, threads = arguments(name)
            cuda.jit(pyfunc)[blocks, threads](*args)
            cuda.synchronize()
        else:
            cuda.compile_ptx(pyfunc, SIGNATURES[name], cc=(9, 0))
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times[2:])  # the first compiles also load numba's lazy parts


def _fresh_process_env(extra=None):
    """The environment of the fresh processes: bytecode cached as an installed package has it
    (a read-only or bytecode-less environment would time Python compiling every module)."""
    import os
    import tempfile

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", os.path.join(tempfile.gettempdir(), "cumlir-bench-pycache"))
    env.update(extra or {})
    return env


def _fresh_ms(args, env, runs):
    """Median of the milliseconds the fresh processes *args* print, after one unmeasured run
    that writes the bytecode caches."""
    times = []
    for k in range(runs + 1):
        out = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
        if k:
            times.append(float(out.stdout.split()[-1]))
    return statistics.median(times)


def import_ms(module, numpy_first=False):
    """`from module import cuda` in a fresh process (after `import numpy` with *numpy_first*)."""
    first = "import numpy; " if numpy_first else ""
    code = f"{first}import time; t = time.perf_counter(); from {module} import cuda; print((time.perf_counter() - t) * 1e3)"
    return _fresh_ms([sys.executable, "-c", code], _fresh_process_env(), 7)


_FIRST_KERNEL = """
import time
began = time.perf_counter()
import numpy as np
from {module} import cuda
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
{body}
print((time.perf_counter() - began) * 1e3)
"""
_LAUNCH = """a = np.ones(4096, np.float32)
kernel = cuda.jit({options})(vadd)
kernel[32, 128](a, a, a)
cuda.synchronize()"""
_COMPILE = """cuda.compile_ptx(vadd, "void(float32[:], float32[:], float32[:])", cc=(9, 0))"""


def first_kernel_ms(module, launch, cache_dir=None):
    """A fresh process to its first kernel (compiled, and launched with *launch*), from the
    first import; with *cache_dir*, through an on-disk cache there (warmed by one run first)."""
    import os

    numba_preamble = (
        "import numpy as np\nnp.row_stack = getattr(np, 'row_stack', np.vstack)\n" if module == "numba" else ""
    )
    options = "cache=True" if cache_dir else ""
    body = _LAUNCH.format(options=options) if launch else _COMPILE
    source = numba_preamble + _FIRST_KERNEL.format(module=module, body=body)
    env = _fresh_process_env({"CUMLIR_CACHE_DIR": cache_dir, "NUMBA_CACHE_DIR": cache_dir} if cache_dir else None)
    with_script = __import__("tempfile").NamedTemporaryFile("w", suffix=".py", delete=False)
    with with_script as script:
        script.write(source)  # a file, so that caches keyed by the source's path work
    try:
        return _fresh_ms([sys.executable, script.name], env, 5)  # the unmeasured run fills a disk cache
    finally:
        os.unlink(script.name)


def _anchor_rows(rows, name, module, launch):
    """The anchor *name*'s figures, its ``cuda`` being *module*, into *rows* (label -> {column: ms})."""
    imported = module_name(name)
    for label, first in (("", False), (" (NumPy loaded)", True)):
        rows.setdefault(f"from ... import cuda{label}", {})[name] = import_ms(imported, first)
    rows.setdefault("first kernel, fresh process", {})[name] = first_kernel_ms(imported, launch)
    if launch:  # the cache holds what is launched
        import tempfile

        with tempfile.TemporaryDirectory() as cache_dir:
            rows.setdefault("first kernel, warm disk cache", {})[name] = first_kernel_ms(imported, launch, cache_dir)
    what = "compile + launch" if launch else "compile to PTX"
    for kernel_name in KERNELS:
        rows.setdefault(f"{what} {kernel_name}", {})[name] = compile_ms(module, kernel_name, launch)
    for links in CHAINS:
        rows.setdefault(f"{what} {links} chained device functions", {})[name] = chain_ms(module, links, launch)


def main():
    launch = "--launch" in sys.argv
    alone = only_anchors()
    rows = {}
    if not alone:
        from cumlir import cuda

        _anchor_rows(rows, CUMLIR, cuda, launch)
    found = anchors()  # both ask the driver for the device's chip even to make PTX
    for name, (module, _) in found.items():
        if module is not None:
            _anchor_rows(rows, name, module, launch)
    report_missing(found)
    print_table("median ms", rows)
    if json_path():
        write_json(json_path(), f"compile latency ({'compile + launch' if launch else 'to PTX'})", "median ms", rows)


if __name__ == "__main__":
    main()
