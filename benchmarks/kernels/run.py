"""The generated-code speed suite: each kernel of benchmarks/kernels compiled by cumlir,
by numba-cuda and numba-cuda-mlir (where they import) from the same Python source, and its CUDA C++ twin
compiled by NVRTC; every result checked against NumPy in float64; device time per launch
(back-to-back launches between two CUDA events, gated so that host launch overhead is
left out; median of the repeats after a warm-up), compared with the twin and with
the anchors, and the achieved throughput against measured ceilings.

    source .gpu/prelude.sh && python3 benchmarks/kernels/run.py --markdown suite.md --chart suite.png

Options: --quick (small sizes, few repeats: a smoke test), --only NAME (repeatable),
--backend NAME (cumlir's code generator, of cumlir/backends.py), --repeats N, --batch N,
--only-anchors (the twins and anchors without cumlir's compiler), --json FILE (the figures,
for benchmarks/combine.py).
Exits 1 if any check fails (the table says which)."""

import argparse
import math
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for _path in (ROOT / "src", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import numpy as np  # noqa: E402

from benchmarks import anchors  # noqa: E402
from benchmarks.kernels import suite  # noqa: E402
from cumlir import backends  # noqa: E402

VARIANTS = ("cumlir", "C++", "numba-cuda", "numba-cuda-mlir")
ANCHORS = ("numba-cuda", "numba-cuda-mlir")
CEILINGS = {"GB/s": "copy", "GFLOP/s": "fp32 FMA", "Gop/s fp64": "fp64 FMA"}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and few repeats (a smoke test)")
    parser.add_argument(
        "--only", action="append", choices=suite.NAMES, metavar="NAME", help="run only this kernel (repeatable)"
    )
    parser.add_argument("--markdown", metavar="FILE", help="write the table as markdown")
    parser.add_argument("--chart", metavar="FILE", help="draw the ratios as a bar chart (PNG, needs matplotlib)")
    parser.add_argument(
        "--backend",
        choices=tuple(backends.REGISTRY),
        help=f"cumlir's code generator (default: CUMLIR_BACKEND or {backends.DEFAULT})",
    )
    parser.add_argument("--repeats", type=int, help="timed samples per kernel (default 25, 3 with --quick)")
    parser.add_argument("--batch", type=int, help="back-to-back launches per sample (default 10, 2 with --quick)")
    parser.add_argument(
        anchors.ONLY_ANCHORS,
        dest="only_anchors",
        action="store_true",
        help="measure the twins and the anchors (numba-cuda, numba-cuda-mlir) without cumlir's compiler",
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures for benchmarks/combine.py")
    args = parser.parse_args(argv)
    args.repeats = args.repeats or (3 if args.quick else 25)
    args.batch = args.batch or (2 if args.quick else 10)
    return args


class Result:
    def __init__(self, name, module):
        self.name = name
        self.metric = module.METRIC
        self.ms = {}  # variant -> median ms per launch
        self.status = {}  # variant -> "ok", "n/a: why" or "FAILED: why"
        self.work = 0

    def failed(self):
        return [v for v, s in self.status.items() if s.startswith("FAILED")]

    def ratio(self, variant):
        """How many times faster cumlir is than *variant* (its time over cumlir's)."""
        if "cumlir" in self.ms and variant in self.ms:
            return self.ms[variant] / self.ms["cumlir"]
        return None


def host_copy(inputs):
    return {
        k: v.get() if hasattr(v, "get") and hasattr(v, "__cuda_array_interface__") else v for k, v in inputs.items()
    }


def fill_outputs(module, inputs):
    for key, value in module.OUTPUTS.items():
        inputs[key].fill(suite.poison_value(inputs[key].dtype) if value is None else value)


def run_variant(result, variant, module, inputs, host_inputs, launch, timer, cupy):
    fill_outputs(module, inputs)
    launch()
    cupy.cuda.runtime.deviceSynchronize()
    outputs = {k: inputs[k].get() for k in module.OUTPUTS}
    try:
        module.check(host_inputs, outputs)
    except AssertionError as e:
        result.status[variant] = f"FAILED: {str(e).strip().splitlines()[0] if str(e).strip() else 'wrong result'}"
    else:
        result.status[variant] = "ok"
    result.ms[variant] = timer.median_ms(launch)


def run_kernel(name, args, cupy, timer, cc, found):
    import cumlir.cuda as cuda

    module = suite.load(name)
    result = Result(name, module)
    rng = np.random.default_rng(sum(map(ord, name)))
    inputs = module.setup(cupy, rng, quick=args.quick)
    host_inputs = host_copy(inputs)
    result.work = module.work(inputs)

    def attempt(variant, prepare):
        try:
            launch = prepare()
            run_variant(result, variant, module, inputs, host_inputs, launch, timer, cupy)
        except Exception as e:
            traceback.print_exc()
            result.status[variant] = f"FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"

    def cumlir_launch():
        kernels = suite.build(module, cuda)
        return lambda: module.launch(cuda, kernels, inputs)

    def twin_launch():
        from benchmarks.kernels.twin import Twin

        twin = Twin(module.CUDA_SOURCE, cc)
        return lambda: module.launch_twin(twin, inputs)

    def anchor_launch(anchor):
        kernels = suite.build(module, anchor)
        # the anchor's own views of the arrays, made once: it would otherwise synchronize
        # on the stream CuPy's interface names at every launch
        views = {
            k: anchor.as_cuda_array(v, sync=False) if isinstance(v, cupy.ndarray) else v for k, v in inputs.items()
        }
        return lambda: module.launch(anchor, kernels, views)

    if not args.only_anchors:
        attempt("cumlir", cumlir_launch)
    attempt("C++", twin_launch)
    for variant in ANCHORS:
        anchor, problem = found[variant]
        refused = suite.anchor_refuses(module, variant)
        if refused or anchor is None:
            result.status[variant] = f"n/a: {refused or problem}"
            continue
        try:  # what an anchor cannot compile is its gap, not a failed check
            launch = anchor_launch(anchor)
        except Exception as e:
            result.status[variant] = (
                f"n/a: does not compile: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            )
            continue
        attempt(variant, lambda: launch)
    inputs.clear()  # the arrays go back to CuPy's pool, which is emptied for the next kernel
    cupy.get_default_memory_pool().free_all_blocks()
    return result


def throughput(result, ceilings):
    """(achieved in the result's unit, fraction of the ceiling) for cumlir's time."""
    if "cumlir" not in result.ms:
        return None, None
    achieved = result.work / result.ms["cumlir"] / 1e6  # per ms -> G per s
    ceiling = ceilings.get(CEILINGS[result.metric])
    return achieved, achieved / ceiling if ceiling else None


def _fmt(value, spec, missing="—"):
    return missing if value is None else format(value, spec)


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def table(results, ceilings):
    others = VARIANTS[1:]
    head = ["kernel", *(f"{v} ms" for v in VARIANTS), *(f"vs {v}" for v in others), "achieved", "of ceiling", "checks"]
    rows = []
    for r in results:
        achieved, fraction = throughput(r, ceilings)
        checks = ", ".join(f"{v} {s}" for v, s in r.status.items() if s != "ok") or "ok"
        times = [_fmt(r.ms.get(v), ".4f", "n/a" if r.status.get(v, "").startswith("n/a") else "—") for v in VARIANTS]
        ratios = [_fmt(r.ratio(v), ".3f") + ("×" if r.ratio(v) else "") for v in others]
        rows.append(
            [
                r.name,
                *times,
                *ratios,
                f"{achieved:,.0f} {r.metric}" if achieved is not None else "—",
                _fmt(fraction and 100 * fraction, ".0f") + ("%" if fraction else ""),
                checks,
            ]
        )
    means = [geomean(r.ratio(v) for r in results) for v in others]
    rows.append(["geomean", *([""] * len(VARIANTS)), *(_fmt(m, ".3f") + ("×" if m else "") for m in means), "", "", ""])
    return head, rows


def markdown(head, rows):
    lines = [
        "| " + " | ".join(head) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head) - 1)) + "|---|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def plain(head, rows):
    widths = [max(len(str(x)) for x in column) for column in zip(head, *rows)]
    widths[-1] = 0
    return "\n".join(
        "  ".join(
            str(x).ljust(w) if i in (0, len(head) - 1) else str(x).rjust(w)
            for i, (x, w) in enumerate(zip(line, widths))
        )
        for line in [head, *rows]
    )


def chart(results, path, title):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"no chart: matplotlib does not import here (the table has the same figures); not writing {path}")
        return
    names = [r.name for r in results]
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(max(8, 0.8 * len(names)), 4.5))
    for offset, variant in ((-0.27, "C++"), (0, "numba-cuda"), (0.27, "numba-cuda-mlir")):
        values = [r.ratio(variant) or 0 for r in results]
        ax.bar(x + offset, values, 0.27, label=f"cumlir vs {variant} (its time / cumlir's)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(x, names, rotation=30, ha="right")
    ax.set_ylabel("speed ratio (higher: cumlir faster)")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"chart written to {path}")


def main(argv=None):
    args = parse_args(argv)
    if args.only_anchors:
        anchors.only_anchors([anchors.ONLY_ANCHORS])
    if args.backend:
        os.environ["CUMLIR_BACKEND"] = args.backend
    try:
        import cupy
    except ImportError:
        sys.exit("the suite needs CuPy (arrays, events and the copy ceiling come from it)")
    from benchmarks.kernels.measure import Timer

    device = cupy.cuda.Device()
    cc = device.compute_capability
    cc = (int(cc[:-1]), int(cc[-1]))
    gpu = cupy.cuda.runtime.getDeviceProperties(device.id)["name"].decode()
    found = anchors.anchors()
    timer = Timer(cupy, cc, args.repeats, args.batch)
    started = time.perf_counter()
    ceilings = {
        "copy": timer.copy_gbs(1 << (24 if args.quick else 30)),
        "fp32 FMA": timer.fma_gflops(np.float32, 256 if args.quick else 4096),
        "fp64 FMA": timer.fma_gflops(np.float64, 256 if args.quick else 4096),
    }
    backend = os.environ.get("CUMLIR_BACKEND") or backends.DEFAULT
    print(
        f"{gpu} (sm_{cc[0]}{cc[1]}), cumlir backend {backend}, "
        + ", ".join(f"{v}: {'yes' if m else why}" for v, (m, why) in found.items())
    )
    print(
        f"median of {args.repeats} samples of {args.batch} back-to-back launches, after a warm-up{' (quick sizes)' if args.quick else ''}"
    )
    print("ceilings: " + ", ".join(f"{k} {v:,.0f} {'GB/s' if k == 'copy' else 'GFLOP/s'}" for k, v in ceilings.items()))
    results = []
    for name in args.only or suite.NAMES:
        result = run_kernel(name, args, cupy, timer, cc, found)
        results.append(result)
        print(f"  {name}: " + ", ".join(f"{v} {result.ms[v]:.4f} ms" for v in VARIANTS if v in result.ms), flush=True)
    head, rows = table(results, ceilings)
    print()
    print(plain(head, rows))
    if timer.ungated:
        print(
            f"\nwarning: {timer.ungated} samples were not gated (a launch waited for the device): they include launch overhead"
        )
    failed = [(r.name, v, r.status[v]) for r in results for v in r.failed()]
    if args.markdown:
        header = [
            f"Generated-code suite on {gpu} (sm_{cc[0]}{cc[1]}), cumlir backend `{backend}`"
            + (" (quick sizes)" if args.quick else ""),
            "",
            f"Device time per launch: median of {args.repeats} samples of {args.batch} back-to-back launches after a warm-up. "
            "Ratios are the other's time over cumlir's (higher: cumlir faster). "
            "Ceilings: "
            + ", ".join(f"{k} {v:,.0f} {'GB/s' if k == 'copy' else 'GFLOP/s'}" for k, v in ceilings.items())
            + ".",
            "",
        ]
        Path(args.markdown).write_text("\n".join(header) + markdown(head, rows) + "\n")
        print(f"markdown written to {args.markdown}")
    if args.json:
        rows = {r.name: dict(r.ms) for r in results}
        anchors.write_json(args.json, f"generated-code suite on {gpu} (sm_{cc[0]}{cc[1]})", "ms per launch", rows)
    if args.chart:
        chart(results, args.chart, f"cumlir generated code on {gpu}")
    print(f"\n{len(results)} kernels in {time.perf_counter() - started:.1f} s")
    if failed:
        print("FAILED checks: " + "; ".join(f"{n} ({v}): {s}" for n, v, s in failed))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
