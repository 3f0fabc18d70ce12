"""Prints the figures of several runs of one benchmark (``--json FILE`` of compile.py, launch.py
or kernels/run.py) as one table: typically cumlir's run and an ``--only-anchors`` run made where
cumlir's MLIR bindings and numba-cuda-mlir do not fit together. A column found in more than one
file is taken from the first that has it.

    python3 benchmarks/combine.py cumlir.json anchors.json
"""

import json
import sys

from anchors import print_table


def combine(runs):
    """(title, unit, rows, notes) of the runs (each a loaded JSON file), their rows merged."""
    units = {run["unit"] for run in runs}
    if len(units) > 1:
        raise SystemExit(f"the files measure different things: {sorted(units)}")
    rows = {}
    for run in runs:
        for label, values in run["rows"].items():
            merged = rows.setdefault(label, {})
            for column, value in values.items():
                merged.setdefault(column, value)
    notes = [note for run in runs for note in run.get("notes", ())]
    return runs[0]["title"], units.pop(), rows, notes


def main(paths):
    if not paths:
        raise SystemExit(__doc__)
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    title, unit, rows, notes = combine(runs)
    print(f"{title} ({len(runs)} runs: {', '.join(paths)})")
    for note in notes:
        print(f"  {note}")
    print_table(unit, rows)


if __name__ == "__main__":
    main(sys.argv[1:])
