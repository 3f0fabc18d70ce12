"""Many threads compiling at once: the workload of tests/test_threads.py, and a script for
longer runs than the tests make:

    PYTHONPATH=src python3 -m tests.thread_stress --threads 16 --compiles 50 --repeat 20

Each round makes its functions afresh (nothing is typed or compiled before it starts);
every thread then compiles its share of distinct signatures, in a mix of ways and with
both code generators: ``compile_ptx`` of one kernel with many signatures, kernels calling a
device function every thread types for new argument types, dispatchers several threads
compile through ``.compile(sig)``, and device functions alone. Every PTX is compared with
the one the same compile makes afterwards on one thread, with fresh functions.
"""

from __future__ import annotations

import argparse
import threading
import time
from dataclasses import dataclass, field

from cumlir import cuda
from cumlir.backends import REGISTRY

# the code generators of the GPU (the simulator's is tested by tests/simulator)
GPU_BACKENDS = [name for name, entry in REGISTRY.items() if entry.code_format != "host"]

SCALARS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
LAYOUTS = ["::1", ":"]
SIGNATURES = len(SCALARS) * len(SCALARS) * len(LAYOUTS)
KINDS = ("compile_ptx", "calls_device", "dispatcher", "device")
CC = (8, 0)

SOURCE = """
def axpb(a, x, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + b

def twice_plus(x, y):
    return x * 2 + y

def through_device(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = twice_plus(x[i], x[i])
"""


class Functions:
    """The workload's Python functions and dispatchers, made afresh: a new set has typed and
    compiled nothing yet."""

    def __init__(self):
        namespace = {"cuda": cuda}
        exec(compile(SOURCE, f"<thread_stress {id(namespace):x}>", "exec"), namespace)
        self.axpb = namespace["axpb"]
        self.twice_plus_py = namespace["twice_plus"]
        # the kernels of through_device call the device function through the global name
        namespace["twice_plus"] = self.twice_plus = cuda.jit(device=True)(self.twice_plus_py)
        self.through_device = namespace["through_device"]
        self.dispatchers = {backend: cuda.jit(self.axpb, backend=backend) for backend in GPU_BACKENDS}


def signature(index, kind):
    """The signature string number *index* (of SIGNATURES) for a compile of *kind*."""
    scalar = SCALARS[index % len(SCALARS)]
    dtype = SCALARS[(index // len(SCALARS)) % len(SCALARS)]
    layout = LAYOUTS[(index // len(SCALARS) ** 2) % len(LAYOUTS)]
    if kind == "calls_device":
        return f"void({dtype}[{layout}], {scalar}[{layout}])"
    if kind == "device":
        return f"{dtype}({dtype}, {scalar})"
    return f"void({scalar}, {dtype}[{layout}], {scalar}, {dtype}[{layout}])"


def compile_one(functions, kind, sig, backend):
    """The PTX of one compile."""
    if kind == "compile_ptx":
        return cuda.compile_ptx(functions.axpb, sig, cc=CC, backend=backend)[0]
    if kind == "calls_device":
        return cuda.compile_ptx(functions.through_device, sig, cc=CC, backend=backend)[0]
    if kind == "dispatcher":
        dispatcher = functions.dispatchers[backend]
        dispatcher.compile(sig)
        return dispatcher.inspect_ptx(sig, cc=CC)
    return cuda.compile_ptx(functions.twice_plus_py, sig, device=True, cc=CC, backend=backend)[0]


def planned(threads, compiles):
    """Every distinct (kind, signature, backend) of a round (a few repeat where a kind has
    fewer signatures than compiles)."""
    return {key for mine in plan(threads, compiles) for key in mine}


@dataclass
class Round:
    compiled: dict = field(default_factory=dict)  # (kind, signature, backend) -> PTX
    failures: list = field(default_factory=list)  # (thread, kind, signature, backend, the exception)
    seconds: float = 0.0


def plan(threads, compiles):
    """What each thread compiles: (kind, signature, backend), all distinct while there are
    enough signatures."""
    backends = list(GPU_BACKENDS)
    work = []
    for t in range(threads):
        mine = []
        for k in range(compiles):
            n = t * compiles + k
            kind = KINDS[n % len(KINDS)]
            mine.append((kind, signature((n // len(KINDS)) * 7 % SIGNATURES, kind), backends[(t + k) % len(backends)]))
        work.append(mine)
    return work


def stress(threads, compiles):
    """One round: *threads* threads, each making *compiles* compiles at once, on fresh functions."""
    functions = Functions()
    result = Round()
    start = threading.Barrier(threads)

    def worker(t, mine):
        start.wait()  # every thread starts compiling at the same moment
        for kind, sig, backend in mine:
            try:
                result.compiled[kind, sig, backend] = compile_one(functions, kind, sig, backend)
            except Exception as e:  # noqa: BLE001 - every failure is counted and reported
                result.failures.append((t, kind, sig, backend, e))

    began = time.perf_counter()
    pool = [threading.Thread(target=worker, args=(t, mine)) for t, mine in enumerate(plan(threads, compiles))]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    result.seconds = time.perf_counter() - began
    return result


def wrong_results(compiled):
    """The compiles whose PTX differs from the same compile done again on this thread alone,
    with fresh functions: [(kind, signature, backend)]."""
    functions = Functions()
    wrong = []
    for key, ptx in compiled.items():
        try:
            again = compile_one(functions, *key)
        except Exception as e:  # noqa: BLE001 - a compile the threads left broken
            again = e
        if again != ptx:
            wrong.append(key)
    return wrong


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--compiles", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    failed = wrong = 0
    for r in range(args.repeat):
        result = stress(args.threads, args.compiles)
        bad = wrong_results(result.compiled)
        failed += len(result.failures)
        wrong += len(bad)
        print(
            f"round {r + 1}/{args.repeat}: {args.threads} threads x {args.compiles} compiles in "
            f"{result.seconds:.1f} s, {len(result.failures)} failed, {len(bad)} wrong",
            flush=True,
        )
        for t, kind, sig, backend, e in result.failures[:5]:
            print(f"  thread {t}: {kind} {sig} ({backend}): {type(e).__name__}: {e}")
        for key in bad[:5]:
            print(f"  wrong PTX: {key}")
    print(f"{args.repeat} rounds: {failed} failures, {wrong} wrong results")
    return 1 if failed or wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
