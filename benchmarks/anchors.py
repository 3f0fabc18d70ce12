"""What the benchmarks measure cumlir against: Numba-CUDA (``numba.cuda``) and numba-cuda-mlir
(``numba_cuda_mlir.cuda``), each compiling the same kernel sources, in the same process where
it imports; and the figures each benchmark can write as JSON, so that two runs combine
(``benchmarks/combine.py``).

``--only-anchors`` measures the anchors alone, for a machine where cumlir's MLIR bindings and
numba-cuda-mlir do not fit together: the modules that would compile with cumlir then refuse to
import (its ``cuda`` namespace, which loads nothing heavy, stays available to the kernel
sources, which bind it by name)."""

import importlib.abc
import json
import sys

import numpy as np

CUMLIR = "cumlir"
NUMBA_CUDA = "numba-cuda"
NUMBA_CUDA_MLIR = "numba-cuda-mlir"
ANCHORS = (NUMBA_CUDA, NUMBA_CUDA_MLIR)
FLOOR = "floor"  # the launch benchmark's bare cuLaunchKernel, a column of its own
ONLY_ANCHORS = "--only-anchors"
# what compiling or launching with cumlir imports: none of it loads in an anchors-only run
CUMLIR_COMPILER = ("mlir", "cumlir.compiler", "cumlir.dispatcher")


def numba_cuda():
    """(numba-cuda's ``cuda`` module, None), or (None, why it is not measured)."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.30 calls np.row_stack, removed from NumPy 2.4
    try:
        from numba import cuda

        if not cuda.is_available():
            return None, "numba-cuda sees no GPU"
        return cuda, None
    except Exception as e:  # not installed, or broken here
        return None, f"numba-cuda unavailable: {type(e).__name__}: {e}"


def numba_cuda_mlir():
    """(numba-cuda-mlir's ``cuda`` module, None), or (None, why it is not measured)."""
    try:
        from numba_cuda_mlir import cuda

        if not cuda.is_available():  # it resolves its target from the device even for PTX
            return None, "numba-cuda-mlir sees no GPU"
        return cuda, None
    except Exception as e:
        return None, f"numba-cuda-mlir unavailable: {type(e).__name__}: {e}"


def anchors():
    """{anchor name: (its cuda module or None, why not or None)}, in the order of ANCHORS."""
    return {NUMBA_CUDA: numba_cuda(), NUMBA_CUDA_MLIR: numba_cuda_mlir()}


def module_name(anchor):
    """The module a fresh process imports ``cuda`` from for *anchor* (or cumlir)."""
    return {CUMLIR: "cumlir", NUMBA_CUDA: "numba", NUMBA_CUDA_MLIR: "numba_cuda_mlir"}[anchor]


def report_missing(found):
    for name, (module, why) in found.items():
        if module is None:
            print(f"{name}: not measured ({why})")


class _Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == refused or name.startswith(refused + ".") for refused in CUMLIR_COMPILER):
            raise ImportError(f"{name} is not imported in an {ONLY_ANCHORS} run (it compiles with cumlir)")
        return None


def only_anchors(argv=None):
    """Whether *argv* (sys.argv) asks for the anchors alone; if so, cumlir's compiler is kept
    out of this process from now on."""
    wanted = ONLY_ANCHORS in (sys.argv[1:] if argv is None else argv)
    if wanted and not any(isinstance(f, _Refuse) for f in sys.meta_path):
        sys.meta_path.insert(0, _Refuse())
    return wanted


def json_path(argv=None):
    """The FILE of ``--json FILE`` in *argv*, or None."""
    argv = sys.argv[1:] if argv is None else argv
    if "--json" not in argv:
        return None
    at = argv.index("--json")
    if at + 1 >= len(argv):
        sys.exit("--json needs a file name")
    return argv[at + 1]


def write_json(path, title, unit, rows, notes=()):
    """Write one run's figures: *rows* maps a label to {column: value}."""
    with open(path, "w") as f:
        json.dump({"title": title, "unit": unit, "rows": rows, "notes": list(notes)}, f, indent=1)
    print(f"figures written to {path}")


def print_table(unit, rows, columns=None):
    """*rows* (label -> {column: value}) as a table: each column, then each other column's value
    over cumlir's where both are there (above 1: cumlir faster), and cumlir's over the floor where
    a row has one (the launch benchmark's bare cuLaunchKernel, measured beside it)."""
    columns = columns or _columns(rows)
    ratios = [(c, CUMLIR) for c in columns if c not in (CUMLIR, FLOOR)] if CUMLIR in columns else []
    if CUMLIR in columns and FLOOR in columns:
        ratios.append((CUMLIR, FLOOR))
    width = max([len(label) for label in rows] + [len(unit) + 2])
    print(
        f"{'(' + unit + ')':{width}s} "
        + " ".join(f"{c:>15s}" for c in columns)
        + "".join(f" {top + ' / ' + bottom:>25s}" for top, bottom in ratios)
    )
    for label, values in rows.items():
        cells = [_cell(values.get(c), 15) for c in columns]
        for top, bottom in ratios:
            over, under = values.get(top), values.get(bottom)
            cells.append(_cell(over / under if over is not None and under else None, 25))
        print(f"{label:{width}s} " + " ".join(cells))


def _columns(rows):
    seen = []
    for values in rows.values():
        seen += [c for c in values if c not in seen]
    ordered = [c for c in (CUMLIR, FLOOR, *ANCHORS) if c in seen]
    return ordered + [c for c in seen if c not in ordered]


def _cell(value, width):
    return f"{'-':>{width}s}" if value is None else f"{value:{width}.2f}"
