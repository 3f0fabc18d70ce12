"""CPU simulators: cumlir's (``CUMLIR_SIMULATOR=1``, its checks on and off) against
numba-cuda's (``NUMBA_ENABLE_CUDASIM=1``), each in a fresh process (the switch is read at
import). Two cases: saxpy over 2^20 float32 (one launch of 256-thread blocks) and a 256x256
float32 matmul in 16x16 shared-memory tiles (two syncthreads a tile step). Each figure is the
wall time of the first launch, compile included: from before the copies to the device to
after the copy back; the import of ``cuda`` is timed apart. Each result is checked against
NumPy in float64. Informational: no GPU needed, and nothing asserts a time.

    python3 benchmarks/simulator.py            # the full sizes (numba-cuda's take minutes)
    python3 benchmarks/simulator.py --quick    # numba-cuda's simulator on part of the work,
                                               # its time extrapolated to the whole
    python3 benchmarks/simulator.py --no-anchor  # cumlir's simulator alone

``--quick`` runs numba-cuda's simulator on 2^14 elements of the saxpy and on 4x4 of the
matmul's 16x16 blocks (the 64x64 corner of the 256x256 product, each thread doing the full
size's 16 tile steps), and scales its time by the threads left out: its per-thread cost
extrapolated linearly, marked "*". cumlir's simulator runs the full sizes always, each
figure the median of ``--repeats`` fresh processes (3); numba-cuda's too with ``--quick``,
else once.
``--json FILE`` writes the figures (``benchmarks/combine.py``). The exit status is 1 where a
simulator failed or computed a wrong result.
"""

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from anchors import write_json

SAXPY_N = 1 << 20
SAXPY_THREADS = 256
MATMUL_N = 256
TILE = 16
QUICK_SAXPY_N = 1 << 14
QUICK_MATMUL_BLOCKS = 4  # of 16 a side: the 64x64 corner of the product


def _suite_kernel(name):
    """The source of the kernel *name* of the kernel suite (benchmarks/kernels/<name>.py),
    read without importing it: the child binds its ``cuda`` (cumlir's or numba-cuda's)."""
    text = (Path(__file__).parent / "kernels" / f"{name}.py").read_text()
    found = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(text, found)


# the kernels, bound to whichever ``cuda`` the child imported (the same source for both): the
# suite's, with 16x16 tiles
SOURCE = f"TILE = {TILE}\n\n{_suite_kernel('saxpy')}\n\n{_suite_kernel('matmul')}\n"

CUMLIR_ON, CUMLIR_OFF, NUMBA_SIM = "cumlir checks on", "cumlir checks off", "numba-cuda sim"
CONFIGS = {  # column -> (the child's module, the environment it adds; the others' switches go)
    CUMLIR_ON: ("cumlir", {"CUMLIR_SIMULATOR": "1", "CUMLIR_SIMULATOR_CHECKS": "1"}),
    CUMLIR_OFF: ("cumlir", {"CUMLIR_SIMULATOR": "1", "CUMLIR_SIMULATOR_CHECKS": "0"}),
    NUMBA_SIM: ("numba", {"NUMBA_ENABLE_CUDASIM": "1"}),
}
SWITCHES = ("CUMLIR_SIMULATOR", "CUMLIR_SIMULATOR_CHECKS", "CUMLIR_BACKEND", "NUMBA_ENABLE_CUDASIM")


# ---- the child: one case, one simulator, one fresh process ----


def _import_cuda(module):
    """(``cuda``, seconds of its import), refusing a module that did not come up simulated."""
    import time

    if module == "numba" and not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.30 calls np.row_stack, removed from NumPy 2.4
    began = time.perf_counter()
    if module == "numba":
        from numba import cuda
    else:
        from cumlir import cuda
    seconds = time.perf_counter() - began
    if module == "numba":
        simulated = cuda.jit.__module__.startswith("numba.cuda.simulator")
    else:
        simulated = cuda.is_simulator()
    if not simulated:
        sys.exit(f"{module}'s cuda is not its simulator in this process")
    return cuda, seconds


def _saxpy(cuda, n, rng):
    """(run(kernel) -> the result on the host, check(result) -> (worst error, within bound),
    threads launched) for a saxpy over *n* elements."""
    a = np.float32(rng.uniform(0.5, 2.0))
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    blocks = (n + SAXPY_THREADS - 1) // SAXPY_THREADS

    def run(kernel):
        dx, dy = cuda.to_device(x), cuda.to_device(y)
        dout = cuda.device_array(n, np.float32)
        kernel[blocks, SAXPY_THREADS](a, dx, dy, dout)
        return dout.copy_to_host()

    def check(out):
        # a*x+y rounded once (an fma) or twice: within 2^-22 of the larger of a*x and y
        ax = np.float64(a) * x.astype(np.float64)
        scale = np.maximum(np.maximum(np.abs(ax), np.abs(y)), 1e-30)
        error = np.abs(out - (ax + y)) / scale
        worst = float(np.max(np.where(np.isnan(error), np.inf, error)))
        return worst / 2.0**-22, worst <= 2.0**-22

    return run, check, blocks * SAXPY_THREADS


def _matmul(cuda, blocks, rng):
    """As _saxpy, for the 256x256 matmul launched on *blocks* x *blocks* of its 16 x 16 blocks
    (the corner of the product they cover is checked)."""
    n = MATMUL_N
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)

    def run(kernel):
        da, db = cuda.to_device(a), cuda.to_device(b)
        dc = cuda.to_device(np.full((n, n), np.nan, np.float32))  # what no block writes stays NaN
        kernel[(blocks, blocks), (TILE, TILE)](da, db, dc)
        return dc.copy_to_host()

    def check(c):
        # float32 sums of n products (contracted or not): within n ulps of the sum of magnitudes
        m = blocks * TILE
        a64, b64 = a[:m].astype(np.float64), b[:, :m].astype(np.float64)
        bound = n * 2.0**-24 * (np.abs(a64) @ np.abs(b64))
        error = np.abs(c[:m, :m] - a64 @ b64) / bound
        worst = float(np.max(np.where(np.isnan(error), np.inf, error)))
        return worst, worst <= 1.0

    return run, check, blocks * blocks * TILE * TILE


def child(module, case, size):
    """Print one JSON line: the seconds of the import, of the first launch (compile included,
    from before the copies to the device to after the copy back) and, for cumlir, of a second
    launch; the threads launched; the worst error as a fraction of its bound."""
    import time

    cuda, import_s = _import_cuda(module)
    namespace = {"cuda": cuda, "np": np}
    exec(SOURCE, namespace)
    rng = np.random.default_rng(0)
    run, check, threads = _saxpy(cuda, size, rng) if case == "saxpy" else _matmul(cuda, size, rng)
    began = time.perf_counter()
    kernel = cuda.jit(namespace[case])  # cumlir compiles it at the first launch
    out = run(kernel)
    first_s = time.perf_counter() - began
    error, ok = check(out)
    report = {"import_s": import_s, "first_s": first_s, "threads": threads, "error": error, "ok": ok}
    if module != "numba":  # numba-cuda's simulator compiles nothing: its second launch is its first
        began = time.perf_counter()
        out = run(kernel)
        report["second_s"] = time.perf_counter() - began
        second_error, second_ok = check(out)
        report["error"], report["ok"] = max(error, second_error), ok and second_ok
    print(json.dumps(report))


# ---- the parent: a fresh process per case and simulator, and the table ----


def _environment(extra):
    """This process's environment without any simulator switch, plus *extra*; bytecode cached
    as an installed package has it (else the import figures would time compiling to bytecode)."""
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", os.path.join(tempfile.gettempdir(), "cumlir-bench-pycache"))
    env.update(extra)
    return env


def _warm_bytecode(column):
    """One unmeasured import in a fresh process, which writes the bytecode caches."""
    module, extra = CONFIGS[column]
    preamble = "import numpy as np; np.row_stack = getattr(np, 'row_stack', np.vstack); " if module == "numba" else ""
    code = f"{preamble}from {module} import cuda"
    subprocess.run([sys.executable, "-c", code], env=_environment(extra), capture_output=True)


def measure(column, case, size, repeats):
    """The children's report (each time the median of *repeats* fresh processes; the worst
    error), or {"failed": the tail of the first failed one's output}."""
    module, extra = CONFIGS[column]
    command = [sys.executable, os.path.abspath(__file__), "--child", module, "--case", case, "--size", str(size)]
    reports = []
    for k in range(repeats):
        print(f"  {column}: {case} ({size}), run {k + 1} of {repeats}", file=sys.stderr, flush=True)
        done = subprocess.run(command, env=_environment(extra), capture_output=True, text=True)
        lines = done.stdout.strip().splitlines()
        if done.returncode or not lines:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            return {"failed": f"exit status {done.returncode}:\n{tail}"}
        reports.append(json.loads(lines[-1]))
    merged = {key: statistics.median(r[key] for r in reports) for key in reports[0] if key.endswith("_s")}
    merged.update(threads=reports[0]["threads"], error=max(r["error"] for r in reports))
    merged["ok"] = all(r["ok"] for r in reports)
    merged["first_runs"] = [r["first_s"] for r in reports]
    return merged


def _cell(value, width, mark="", digits=3):
    return f"{'-':>{width}s}" if value is None else f"{f'{value:.{digits}f}' + mark:>{width}s}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="numba-cuda's simulator on part of the work, extrapolated")
    parser.add_argument("--no-anchor", action="store_true", help="cumlir's simulator alone (no numba-cuda)")
    parser.add_argument(
        "--repeats", type=int, default=3, help="fresh processes per figure, the median (numba-cuda's: 1 unless --quick)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE")
    parser.add_argument("--child", choices=["cumlir", "numba"], help=argparse.SUPPRESS)
    parser.add_argument("--case", choices=["saxpy", "matmul"], help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.case, args.size)

    columns = [CUMLIR_ON, CUMLIR_OFF] + ([] if args.no_anchor else [NUMBA_SIM])
    cases = {  # case -> (label, the full size, numba-cuda's size with --quick)
        "saxpy": (f"saxpy 2^{SAXPY_N.bit_length() - 1}", SAXPY_N, QUICK_SAXPY_N),
        "matmul": (f"matmul {MATMUL_N}x{MATMUL_N}", MATMUL_N // TILE, QUICK_MATMUL_BLOCKS),
    }
    for column in columns:
        _warm_bytecode(column)
    results, notes, failed = {}, [], []
    for case, (label, full, quick) in cases.items():
        for column in columns:
            size = quick if args.quick and column == NUMBA_SIM else full
            repeats = 1 if column == NUMBA_SIM and not args.quick else args.repeats
            report = measure(column, case, size, repeats)
            if "failed" in report:
                failed.append(f"{label}, {column}: {report['failed']}")
            elif not report["ok"]:
                failed.append(f"{label}, {column}: wrong result (worst error {report['error']:.3g} of its bound)")
            results[case, column] = report

    full_threads = {"saxpy": SAXPY_N, "matmul": MATMUL_N * MATMUL_N}
    rows, marks = {}, {}
    for case, (label, _, _) in cases.items():
        for what, key in (("import cuda", "import_s"), ("first launch", "first_s"), ("second launch", "second_s")):
            row = rows.setdefault(f"{label}: {what}", {})
            for column in columns:
                report = results[case, column]
                if "failed" in report or key not in report:
                    continue
                value = report[key]
                if key == "first_s" and report["threads"] != full_threads[case]:
                    scale = full_threads[case] / report["threads"]
                    value *= scale
                    marks[f"{label}: {what}", column] = "*"
                    notes.append(
                        f"* {label}: numba-cuda's simulator ran {report['threads']} of the "
                        f"{full_threads[case]} threads ({report['first_s']:.2f} s); its time is "
                        f"extrapolated x{scale:g} (per-thread cost linear)"
                    )
                row[column] = value

    speedups = {CUMLIR_ON: "speedup, on", CUMLIR_OFF: "speedup, off"} if NUMBA_SIM in columns else {}
    width = max(len(label) for label in rows)
    print(
        f"\nseconds, the median of {args.repeats} fresh process(es)"
        f"{' (numba-cuda: one)' if NUMBA_SIM in columns and not args.quick else ''}; "
        "first launch = copies in + compile + run + copy back"
    )
    if speedups:
        print("speedup: numba-cuda's simulator's time over cumlir's (checks on; off)")
    print(
        f"{'(s)':{width}s} "
        + " ".join(f"{c:>17s}" for c in columns)
        + "".join(f" {title:>13s}" for title in speedups.values())
    )
    for label, values in rows.items():
        cells = [_cell(values.get(c), 17, marks.get((label, c), "")) for c in columns]
        for c in speedups:
            over, under = values.get(NUMBA_SIM), values.get(c)
            mark = marks.get((label, NUMBA_SIM), "")
            cells.append(_cell(over / under if over is not None and under else None, 13, mark, 1))
        print(f"{label:{width}s} " + " ".join(cells))
    for note in notes:
        print(note)
    for case, (label, _, _) in cases.items():
        spread = "; ".join(
            f"{column} " + ", ".join(f"{t:.2f}" for t in sorted(r["first_runs"]))
            for column in columns
            for r in [results[case, column]]
            if "first_runs" in r
        )
        print(f"{label}, first launch, each process (s, unscaled): {spread}")
    for case, (label, _, _) in cases.items():
        checks = ", ".join(
            f"{column} {'failed' if 'failed' in r else ('ok' if r['ok'] else 'WRONG')}"
            + ("" if "failed" in r else f" ({r['error']:.2g} of the bound)")
            for column in columns
            for r in [results[case, column]]
        )
        print(f"{label} against NumPy (float64): {checks}")
    if args.json:
        write_json(args.json, "CPU simulators: first launch, compile included", "s", rows, notes)
    for failure in failed:
        print(f"\nFAILED {failure}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
