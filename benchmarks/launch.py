"""Launch overhead, measured in one run: host time per launch (the median of BATCHES
batches of LAUNCHES back-to-back launches, each batch ended by a device synchronize).

  - the floor: cuLaunchKernel through cuda.bindings with a prebuilt CUstream, launching
    the CUfunction of cumlir's own no-argument kernel; a floor batch runs before each
    batch of every case, and each case's ratio is to the floor measured beside it (the
    host's speed drifts within a run and differs between machines);
  - cumlir, Numba-CUDA and numba-cuda-mlir (where they import) launching the same kernels with: no
    arguments, 3 CuPy arrays, 3 CuPy slices made for each launch, 3 PyTorch tensors,
    3 device arrays of their own, 16 scalars, a tuple, and 3 NumPy arrays (copied in
    and out around each launch: informational, fewer launches); under the table, the
    CuPy slices' row less the time of making the slices alone (CuPy's part, not the
    launch's);
  - what reading one CuPy array costs by three routes, without launching: cumlir's
    general path (its CUDA Array Interface typed and read), its fast-path reader, and
    cuda.core's StridedMemoryView (which reads DLPack or the interface).

Rows whose library is missing are skipped. ``--profile`` also prints a cProfile of
10,000 launches with 3 CuPy arrays and one with 3 PyTorch tensors (the 15 functions of
most own time).

    source .gpu/prelude.sh && python3 benchmarks/launch.py [--profile] [--json FILE]

``--only-anchors`` measures Numba-CUDA and numba-cuda-mlir without cumlir's compiler (the
floor is then an empty CUDA C++ kernel, beside the first anchor's cases); ``--json FILE``
writes the figures, and ``benchmarks/combine.py`` prints two runs' files as one table.
"""

import statistics
import sys
import time
from pathlib import Path

import numpy as np
from anchors import CUMLIR, FLOOR, anchors, json_path, only_anchors, print_table, report_missing, write_json

LAUNCHES = 10_000
BATCHES = 7
N = 1024  # elements of the array arguments: the kernels' own time stays small


def _batch_us(launch, sync, launches):
    start = time.perf_counter()
    for _ in range(launches):
        launch()
    sync()
    return (time.perf_counter() - start) / launches * 1e6


def per_launch_us(launch, sync, launches=LAUNCHES, batches=BATCHES, floor=None):
    """Median µs per launch of *launch*; with *floor* (a launch function) also the median
    µs of floor batches run just before each of them: (µs, floor µs)."""
    launch()
    sync()
    times, floors = [], []
    for _ in range(batches):
        if floor is not None:
            floors.append(_batch_us(floor, sync, LAUNCHES))
        times.append(_batch_us(launch, sync, launches))
    return statistics.median(times), statistics.median(floors) if floors else None


def _optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


# ---- the kernels, written once and compiled by each library ----------------------------------

KERNELS = """
def empty():
    pass


def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


def sixteen(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    pass


def with_tuple(t, out):
    out[0] = t[0] * t[1] + t[2]
"""


def _compile(cuda_module):
    """The kernels, their ``cuda`` being *cuda_module* (cumlir's or numba-cuda's)."""
    namespace = {"cuda": cuda_module}
    exec(compile(KERNELS, "<launch benchmark kernels>", "exec"), namespace)
    names = {"empty": "empty", "vadd": "vadd", "sixteen": "sixteen", "tuple": "with_tuple"}
    return {key: cuda_module.jit(namespace[name]) for key, name in names.items()}


def _cases(kernels, device_array, to_device):
    """(label, launch, launches) of every case one library can launch."""
    cupy, torch = _optional("cupy"), _optional("torch")
    blocks, threads = (N + 255) // 256, 256
    cases = [("no arguments", lambda: kernels["empty"][1, 1](), LAUNCHES)]
    vadd_kernel = kernels["vadd"][blocks, threads]
    if cupy is not None:
        a, b, c = (cupy.arange(N, dtype=cupy.float32) for _ in range(3))
        cases.append(("3 CuPy arrays", lambda: vadd_kernel(a, b, c), LAUNCHES))
        cases.append(("3 CuPy slices", lambda: vadd_kernel(a[1:], b[1:], c[1:]), LAUNCHES))
    if torch is not None:
        ta, tb, tc = (torch.arange(N, dtype=torch.float32, device="cuda") for _ in range(3))
        cases.append(("3 PyTorch tensors", lambda: vadd_kernel(ta, tb, tc), LAUNCHES))
    da, db, dc = (to_device(np.arange(N, dtype=np.float32)) for _ in range(3))
    cases.append(("3 own device arrays", lambda: vadd_kernel(da, db, dc), LAUNCHES))
    scalars = tuple(float(k) if k % 2 else k for k in range(16))
    sixteen_kernel = kernels["sixteen"][1, 1]
    cases.append(("16 scalars", lambda: sixteen_kernel(*scalars), LAUNCHES))
    out = device_array(1)
    tuple_kernel = kernels["tuple"][1, 1]
    cases.append(("a tuple (3 scalars)", lambda: tuple_kernel((1.5, 2.5, 3), out), LAUNCHES))
    ha, hb, hc = (np.arange(N, dtype=np.float32) for _ in range(3))
    cases.append(("3 NumPy arrays (copied)", lambda: vadd_kernel(ha, hb, hc), 500))
    return cases


def _check(kernels, to_device):
    """The vadd kernel computes what it should (the timings are of a working launch)."""
    a, b = np.arange(N, dtype=np.float32), np.full(N, 0.5, np.float32)
    c = to_device(np.full(N, np.nan, np.float32))
    kernels["vadd"][(N + 255) // 256, 256](to_device(a), to_device(b), c)
    assert np.array_equal(c.copy_to_host(), a + b), "vadd computed a wrong result"


EMPTY_CXX = 'extern "C" __global__ void empty() {}'


def _floor_function(cuda_module, ours):
    """The CUfunction the floor launches: cumlir's no-argument kernel, or in an anchors-only
    run the same empty kernel in CUDA C++ (NVRTC), loaded in the anchor's current context."""
    if ours is not None:
        ours["empty"][1, 1]()  # compiled and loaded: the floor launches its function
        return ours["empty"].overloads[()].loaded().record.function
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.kernels.twin import Twin

    return Twin(EMPTY_CXX, cuda_module.get_current_device().compute_capability).function("empty")


def _floor_launch(function):
    from cuda.bindings import driver as cu

    stream = cu.CUstream(0)
    return lambda: cu.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, 0, 0)


def measure():
    """{case: {column: µs per launch}}: cumlir's cases each beside a floor batch (its column
    "floor"), then each anchor's; in an anchors-only run the first anchor's are beside the floor."""
    alone = only_anchors()
    rows, floor, device = {}, None, None
    libraries = []
    if not alone:
        from cumlir import cuda

        libraries.append((CUMLIR, cuda))
    found = anchors()
    libraries += [(name, module) for name, (module, _) in found.items() if module is not None]
    for name, module in libraries:
        kernels = _compile(module)
        _check(kernels, module.to_device)
        if floor is None:
            floor = _floor_launch(_floor_function(module, kernels if name == CUMLIR else None))
            beside = floor
        device = device or module.get_current_device().name
        for label, launch, n in _cases(kernels, module.device_array, module.to_device):
            try:
                value, floor_us = per_launch_us(launch, module.synchronize, n, floor=beside)
            except Exception as e:  # noqa: BLE001 - an argument kind a library refuses is reported
                print(f"{name}, {label}: not measured ({type(e).__name__}: {str(e)[:80]})")
                continue
            rows.setdefault(label, {})[name] = value
            if floor_us is not None:
                rows[label][FLOOR] = floor_us
        beside = None
    if not libraries:
        sys.exit("nothing to measure: " + "; ".join(why for _, why in found.values()))
    floors = [values[FLOOR] for values in rows.values() if FLOOR in values]
    device = device.decode() if isinstance(device, bytes) else device
    print(f"launch overhead, host µs per launch ({device}); median of {BATCHES} batches")
    print(
        f"floor: cuLaunchKernel of an empty kernel, {statistics.median(floors):.2f} µs (beside the cases: {min(floors):.2f}-{max(floors):.2f})"
    )
    report_missing(found)
    print_table("µs per launch", rows)
    if not alone:
        _slicing_share(rows, cuda.synchronize)
    if json_path():
        notes = [f"{device}; floor (cuLaunchKernel of an empty kernel) {statistics.median(floors):.2f} µs"]
        write_json(json_path(), "launch overhead", "µs per launch", rows, notes)


def _slicing_share(rows, sync):
    """The CuPy slices row less the slicing itself, timed alone: what the launch of views
    made per launch costs, to set beside the row of 3 CuPy arrays."""
    cupy = _optional("cupy")
    label = "3 CuPy slices"
    if cupy is None or label not in rows:
        return
    a, b, c = (cupy.arange(N, dtype=cupy.float32) for _ in range(3))
    slicing = per_launch_us(lambda: (a[1:], b[1:], c[1:]), sync)[0]
    mine, floor = rows[label][CUMLIR], rows[label][FLOOR]
    print(
        f"  ({label}: {slicing:.2f} µs of the {mine:.2f} make the slices, timed alone; "
        f"the launch of the views: {(mine - slicing) / floor:.2f} / floor)"
    )


def array_reading():
    """µs to read one CuPy array's pointer, shape, strides and dtype by each route."""
    cupy = _optional("cupy")
    if cupy is None:
        print("array reading: CuPy is not installed")
        return
    from cumlir import cuda
    from cumlir.runtime import arguments, readers

    a = cupy.arange(N, dtype=cupy.float32)[::2]
    ty = arguments.argument_type(a, 0)
    reader = readers.make_reader(a, ty, cuda.current_context().ordinal)

    class _NoWait:
        stream = 0

        def wait_for_producer(self, stream):
            pass

    def general():
        arguments.argument_type(a, 0)
        arguments._device_memory(a, 0, _NoWait())

    routes = [("cumlir general (interface dict, typed)", general)]
    if reader is not None:
        routes.append(("cumlir fast-path reader", lambda: reader.read(a)))
    else:
        print("the fast path has no reader for this CuPy array (see runtime/readers.py)")
    try:
        from cuda.core.utils import StridedMemoryView
    except ImportError:
        StridedMemoryView = None
    if StridedMemoryView is not None:

        def strided_view():
            view = StridedMemoryView(a, stream_ptr=-1)
            return view.ptr, view.shape, view.strides, view.dtype

        routes.append(("cuda.core StridedMemoryView", strided_view))
    print("\nreading one strided CuPy array (no launch), µs")
    for label, read in routes:
        best = min(_time_us(read) for _ in range(5))
        print(f"{label:>40} {best:8.3f}")


def _time_us(fn, n=20_000):
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e6


def profile():
    import cProfile
    import pstats

    from cumlir import cuda

    kernel = _compile(cuda)["vadd"]
    launch = kernel[(N + 255) // 256, 256]
    cupy, torch = _optional("cupy"), _optional("torch")
    cases = []
    if cupy is not None:
        cases.append(("3 CuPy arrays", [cupy.arange(N, dtype=cupy.float32) for _ in range(3)]))
    if torch is not None:
        cases.append(("3 PyTorch tensors", [torch.arange(N, dtype=torch.float32, device="cuda") for _ in range(3)]))
    if not cases:
        print("--profile: neither CuPy nor PyTorch is installed")
    for label, args in cases:
        launch(*args)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(10_000):
            launch(*args)
        profiler.disable()
        cuda.synchronize()
        print(f"\ncProfile of 10,000 launches with {label}")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def main():
    measure()
    if only_anchors():
        return
    array_reading()
    if "--profile" in sys.argv[1:]:
        profile()


if __name__ == "__main__":
    main()
