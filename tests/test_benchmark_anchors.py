"""The benchmarks' anchors (numba-cuda, numba-cuda-mlir): an --only-anchors run keeps cumlir's
compiler out of its process while the kernel sources still load, and the figures of two runs
(cumlir's, the anchors') combine into one table with the anchors' ratios to cumlir."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.kernels import suite

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import anchors  # noqa: E402
import combine  # noqa: E402

ONLY_ANCHORS_RUN = """
import sys
sys.path.insert(0, {benchmarks!r})
import anchors
assert anchors.only_anchors(["--only-anchors"])
from cumlir import cuda
from benchmarks.kernels import suite
modules = [suite.load(name) for name in suite.NAMES]
print(len(modules), "kernel modules")
for name in ("mlir", "cumlir.compiler", "cumlir.dispatcher.surface"):
    try:
        __import__(name)
    except ImportError as e:
        print("refused:", e)
"""


def test_an_anchors_only_run_loads_the_kernels_but_not_cumlirs_compiler():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    code = ONLY_ANCHORS_RUN.format(benchmarks=str(ROOT / "benchmarks"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert f"{len(suite.NAMES)} kernel modules" in out
    assert out.count("refused:") == 3, out
    assert "mlir is not imported in an --only-anchors run" in out


def test_without_the_flag_nothing_is_refused():
    assert not anchors.only_anchors(["--json", "x.json"])
    assert not any(type(f).__name__ == "_Refuse" for f in sys.meta_path)


def test_two_runs_combine_into_one_table(capsys):
    ours = {"title": "t", "unit": "median ms", "rows": {"vadd": {"cumlir": 2.0, "numba-cuda": 8.0}}, "notes": ["a"]}
    theirs = {"title": "t", "unit": "median ms", "rows": {"vadd": {"numba-cuda": 9.0, "numba-cuda-mlir": 3.0}}}
    title, unit, rows, notes = combine.combine([ours, theirs])
    assert rows == {"vadd": {"cumlir": 2.0, "numba-cuda": 8.0, "numba-cuda-mlir": 3.0}}  # the first file's wins
    assert notes == ["a"]
    anchors.print_table(unit, rows)
    head, line = capsys.readouterr().out.splitlines()
    assert head.split()[2:5] == ["cumlir", "numba-cuda", "numba-cuda-mlir"]
    assert "numba-cuda / cumlir" in head and "numba-cuda-mlir / cumlir" in head
    assert line.split() == ["vadd", "2.00", "8.00", "3.00", "4.00", "1.50"]


def test_runs_of_different_benchmarks_do_not_combine():
    with pytest.raises(SystemExit, match="different things"):
        combine.combine([{"title": "a", "unit": "ms", "rows": {}}, {"title": "b", "unit": "µs", "rows": {}}])


def test_a_missing_figure_is_a_dash_and_has_no_ratio(capsys):
    anchors.print_table("µs", {"case": {"cumlir": 4.0, "floor": 2.0}, "other": {"numba-cuda": 1.0}})
    head, case, other = capsys.readouterr().out.splitlines()
    assert "cumlir / floor" in head
    assert case.split() == ["case", "4.00", "2.00", "-", "-", "2.00"]
    assert other.split() == ["other", "-", "-", "1.00", "-", "-"]
