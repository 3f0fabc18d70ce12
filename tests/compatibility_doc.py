"""Writes docs/compatibility.md: each public name of Numba-CUDA 0.30's ``numba.cuda`` and
of its kernel dispatcher, with its status in cumlir (from tests/numba_cuda_names.json,
cumlir's namespace and cumlir/refused.py).

    PYTHONPATH=src python tests/compatibility_doc.py > docs/compatibility.md
"""

import json
import pathlib
import sys

HEADER = """# Compatibility with Numba-CUDA's API

Every public name of Numba-CUDA 0.30's `numba.cuda` namespace and of its kernel dispatcher
(what `@cuda.jit` returns), with its status in cumlir:

- **implemented**: `cumlir.cuda.<name>` (or `kernel.<name>`) exists and behaves as Numba-CUDA's;
- **refused**: reading it raises `NotImplementedError` saying why and what to use instead (the
  text below; the one list is `src/cumlir/refused.py`);
- **other work**: vector types, float16/bfloat16/fp8 support, ufuncs and reductions, being added
  separately.

`tests/test_numba_cuda_namespace.py` checks this against an installed Numba-CUDA, and that this
page is what `tests/compatibility_doc.py` writes.

Notes on some implemented names: `gpus[i]` is a device and a context manager (`with cuda.gpus[1]:`);
a device's `CU_DEVICE_ATTRIBUTE_X` is its attribute `X` (`MULTIPROCESSOR_COUNT`, ...);
`cuda.runtime.get_version()` is the CUDA toolkit's version read from NVRTC, as in Numba-CUDA;
`config` is numba's `numba.core.config`; `types` is `cumlir.types` (numba's types and
cumlir's CUDA types, as Numba-CUDA's `numba.cuda.types`); the scalar types and their short aliases (`f4`, `i8`,
`b1`, ...) are numba's types; `KernelRuntimeError` exists for code that catches it, but with
`debug=True` an exception raised in a kernel is re-raised on the host as its own class (as in
Numba-CUDA); `extensions` is always None (cumlir refuses `extensions=`); `inspect_sass` runs
nvdisasm from the `cuda-toolkit[nvdisasm]` wheel cumlir installs (no GPU needed to read SASS).
"""


def _status(owner, name, table, other_work):
    if other_work is not None and other_work(name):
        return "other work", ""
    try:
        getattr(owner, name)
    except NotImplementedError:
        return "refused", table[name]
    except AttributeError:
        return "missing", ""
    return "implemented", ""


def render(names, other_work):
    from cumlir import cuda, refused
    from cumlir.dispatcher import Dispatcher

    lines = [HEADER, "## `numba.cuda`", "", "| name | status | why, and what to use instead |", "|---|---|---|"]
    for name in sorted(names["cuda"], key=str.lower):
        status, why = _status(cuda, name, refused.NAMESPACE, other_work)
        lines.append(f"| `{name}` | {status} | {why} |")
    lines += [
        "",
        "## The kernel dispatcher (`kernel.<name>`)",
        "",
        "| name | status | why, and what to use instead |",
        "|---|---|---|",
    ]
    for name in sorted(names["dispatcher"], key=str.lower):
        status, why = _status(Dispatcher, name, refused.DISPATCHER, None)
        lines.append(f"| `{name}` | {status} | {why} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    root = pathlib.Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    from tests.test_numba_cuda_namespace import provided_by_other_work

    sys.stdout.write(render(json.loads((root / "tests" / "numba_cuda_names.json").read_text()), provided_by_other_work))
