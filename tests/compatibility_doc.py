"""Writes docs/compatibility.md: each public name of Numba-CUDA 0.30's ``numba.cuda`` and
of its kernel dispatcher, and of numba-cuda-mlir 0.6's ``cuda``, ``cuda.experimental``,
``cuda.intrin`` and ``extending``, with its status in cumlir (from
tests/numba_cuda_names.json, tests/numba_cuda_mlir_names.json, cumlir's namespaces and
cumlir/refused.py).

    PYTHONPATH=src python tests/compatibility_doc.py > docs/compatibility.md
"""

import json
import pathlib
import sys

HEADER = """# Compatibility with Numba-CUDA's and numba-cuda-mlir's APIs

Every public name of Numba-CUDA 0.30's `numba.cuda` namespace and of its kernel dispatcher
(what `@cuda.jit` returns), and of numba-cuda-mlir 0.6's `cuda`, `cuda.experimental`,
`cuda.intrin` and `extending` namespaces, with its status in cumlir. The `cuda` table has a
column for each: ✓ where the name is in that package's namespace.

- **implemented**: `cumlir.cuda.<name>` (or `kernel.<name>`) exists and behaves as Numba-CUDA's;
- **refused**: reading it raises `NotImplementedError` saying why and what to use instead (the
  text below; the one list is `src/cumlir/refused.py`);
- **other work**: vector types, float16/bfloat16/fp8 support, ufuncs and reductions, being added
  separately.

`tests/test_numba_cuda_namespace.py` checks this against an installed Numba-CUDA, and that this
page is what `tests/compatibility_doc.py` writes; `tests/test_ncm_namespace.py` checks
numba-cuda-mlir's names (read from its sources by `tests/ncm_names.py`).

Notes on some implemented names: `gpus[i]` is a device and a context manager (`with cuda.gpus[1]:`);
a device's `CU_DEVICE_ATTRIBUTE_X` is its attribute `X` (`MULTIPROCESSOR_COUNT`, ...);
`cuda.runtime.get_version()` is the CUDA toolkit wheels' version, read from nvJitLink where it is installed, else NVRTC, else the driver's bindings (Numba-CUDA reads NVRTC's);
`config` is numba's `numba.core.config`; `types` is `cumlir.types` (numba's types and
cumlir's CUDA types, as Numba-CUDA's `numba.cuda.types`; `from cumlir.cuda.types import int32` imports it as a module);
the scalar types and their short aliases (`f4`, `i8`,
`b1`, ...) are numba's types; `KernelRuntimeError` exists for code that catches it, but with
`debug=True` an exception raised in a kernel is re-raised on the host as its own class (as in
Numba-CUDA); `extensions` lists the argument handlers given as `cuda.jit(extensions=[...])` (None where none were); `inspect_sass` runs
nvdisasm, which `pip install 'cumlir[tools]'` installs (no GPU needed to read SASS).
"""


def _status(owner, name, table, other_work):
    if other_work is not None and other_work(name):
        return "other work", ""
    try:
        getattr(owner, name)
    except NotImplementedError as e:
        return "refused", table.get(name) or _reason(e)
    except AttributeError:
        return "missing", ""
    return "implemented", ""


def _reason(error):
    """The reason a refusal gives, after its "...: " preamble."""
    return str(error).split(": ", 1)[-1]


def _table(heading, rows):
    counts = {}
    for row in rows[2:]:
        status = row.split(" | ")[-2]
        counts[status] = counts.get(status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return ["", f"## {heading}", "", f"{len(rows) - 2} names: {summary}.", "", *rows]


def render(names, other_work, ncm_names):
    import importlib

    from cumlir import cuda, extending, refused
    from cumlir.dispatcher import Dispatcher

    ours, theirs = set(names["cuda"]), set(ncm_names["cuda"])
    ncm_refused = refused.NUMBA_CUDA_MLIR
    rows = ["| name | Numba-CUDA | numba-cuda-mlir | status | why, and what to use instead |", "|---|---|---|---|---|"]
    for name in sorted(ours | theirs, key=lambda n: (n.lower(), n)):
        table = {**ncm_refused["cuda"], **refused.NAMESPACE}
        status, why = _status(cuda, name, table, other_work if name in ours else None)
        marks = " | ".join("✓" if name in group else "" for group in (ours, theirs))
        rows.append(f"| `{name}` | {marks} | {status} | {why} |")
    lines = [HEADER.rstrip("\n"), *_table("`cuda` (`numba.cuda`, numba-cuda-mlir's `cuda`)", rows)]
    rows = ["| name | status | why, and what to use instead |", "|---|---|---|"]
    for name in sorted(names["dispatcher"], key=str.lower):
        status, why = _status(Dispatcher, name, refused.DISPATCHER, None)
        rows.append(f"| `{name}` | {status} | {why} |")
    lines += _table("The kernel dispatcher (`kernel.<name>`, Numba-CUDA's)", rows)
    for namespace in ("cuda.experimental", "cuda.intrin", "extending"):
        module = extending if namespace == "extending" else importlib.import_module(f"cumlir.{namespace}")
        rows = ["| name | status | why, and what to use instead |", "|---|---|---|"]
        for name in sorted(ncm_names[namespace], key=str.lower):
            table = refused.EXTENDING if namespace == "extending" else ncm_refused[namespace]
            status, why = _status(module, name, table, None)
            rows.append(f"| `{name}` | {status} | {why} |")
        lines += _table(f"numba-cuda-mlir's `{namespace}`", rows)
    return "\n".join(lines) + "\n"


def read_names(root):
    """(Numba-CUDA's names, numba-cuda-mlir's names), as stored under tests/."""
    return (
        json.loads((root / "tests" / "numba_cuda_names.json").read_text()),
        json.loads((root / "tests" / "numba_cuda_mlir_names.json").read_text()),
    )


if __name__ == "__main__":
    root = pathlib.Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    from tests.test_numba_cuda_namespace import provided_by_other_work

    names, ncm_names = read_names(root)
    sys.stdout.write(render(names, provided_by_other_work, ncm_names))
