"""The on-disk kernel cache on the GPU: kernels written by one process and launched from
the cache by a fresh one give exact results, without importing MLIR or typing the kernel;
device exceptions, cooperative launches and linked CUDA C++ survive the trip; the compile
statistics are printed when asked."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import cumlir

pytestmark = pytest.mark.gpu

SRC = os.path.dirname(os.path.dirname(os.path.abspath(cumlir.__file__)))
TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELS = """
from cumlir import cuda


@cuda.jit(cache=True)
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit(cache=True, debug=True, opt=False)
def checked(a, out):
    i = cuda.grid(1)
    if i < out.size:
        assert a[i] >= 0, "negative input"
        out[i] = a[i] * 2


@cuda.jit(cache=True)
def rotate(a, b, shift, steps):
    # each round reads what other blocks wrote in the round before
    grid = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    for _ in range(steps):
        if i < n:
            b[i] = a[(i + shift) % n]
        grid.sync()
        if i < n:
            a[i] = b[i]
        grid.sync()
"""

# a module of its own: declaring a device function parses its signature with numba
LINKED = """
from cumlir import cuda

poly = cuda.declare_device("poly", "int64(int64, int32)", link=[{cu!r}])


@cuda.jit(cache=True)
def linked(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = poly(x[i], i)
"""

POLY = 'extern "C" __device__ int poly(long long* r, long long x, int i) { *r = x * x + i; return 0; }\n'

# run in a fresh process: every kernel launched on seeded random inputs, checked exactly
DRIVER = """
import json, sys
import numpy as np
sys.path.insert(0, {folder!r})
sys.path.insert(0, {tests!r})
from tests.support import poisoned
import kernels as k

rng = np.random.default_rng(20261123)
n, tpb = 1000, 128
blocks = (n + tpb - 1) // tpb
report = {{}}

a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
c = poisoned(n, np.float32)
k.vadd[blocks, tpb](a, b, c)
report["vadd"] = bool(np.array_equal(c.view(np.uint32), (a + b).view(np.uint32)))
c2 = poisoned(n, np.float32)
k.vadd[blocks + 1, tpb](b, a, c2)  # another configuration: the fast path the first launch made
report["vadd_again"] = bool(np.array_equal(c2.view(np.uint32), (b + a).view(np.uint32)))
report["numba_after_vadd"] = "numba" in sys.modules

good = rng.uniform(0, 100, n)
out = poisoned(n, np.float64)
k.checked[blocks, tpb](good, out)
bad = good.copy()
bad[37] = -1.0
try:
    k.checked[blocks, tpb](bad, out)
    report["checked"] = "no exception"
except AssertionError as e:
    report["checked"] = str(e)
report["checked_ok"] = bool(np.array_equal(out, good * 2))

shift, steps = 7 * tpb + 3, 50
probe = np.zeros(1, np.int32)
k.rotate[1, tpb](probe, probe.copy(), 0, 0)
most = k.rotate.max_cooperative_grid_blocks(tpb)
cb = min(most, 64)
m = cb * tpb - 5
r = rng.integers(-(2**31), 2**31 - 1, m, dtype=np.int32)
expected = np.roll(r, -shift * steps)
k.rotate[cb, tpb](r, poisoned(m, np.int32), shift, steps)
report["rotate"] = bool(np.array_equal(r, expected))
try:
    k.rotate[most + 1, tpb](r, poisoned(m, np.int32), shift, 1)
    report["rotate_check"] = "launched"
except ValueError as e:
    report["rotate_check"] = "synchronizes its grid" in str(e)

import linked_kernels as lk

x = rng.integers(-(2**20), 2**20, n).astype(np.int64)
y = poisoned(n, np.int64)
lk.linked[blocks, tpb](x, y)
report["linked"] = bool(np.array_equal(y, x * x + np.arange(n)))

kernels = (k.vadd, k.checked, k.rotate, lk.linked)
report["cache"] = sorted({{s["cache"] for kern in kernels for s in kern.compile_stats.values()}})
report["typed"] = any("frontend" in o.compile_stats for kern in kernels for o in kern.overloads.values())
report["mlir"] = sorted(m for m in sys.modules if m == "mlir" or m.startswith("mlir."))
report["load"] = all(s["load"] > 0 for kern in kernels for s in kern.compile_stats.values())
print(json.dumps(report))
"""


def _fresh(folder, env=None):
    environment = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    script = DRIVER.format(folder=str(folder), tests=TESTS)
    done = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def _write_kernels(folder):
    (folder / "poly.cu").write_text(POLY)
    (folder / "kernels.py").write_text(textwrap.dedent(KERNELS))
    (folder / "linked_kernels.py").write_text(textwrap.dedent(LINKED.format(cu=str(folder / "poly.cu"))))


def _check_results(report):
    assert report["vadd"] and report["vadd_again"] and report["rotate"] and report["linked"] and report["checked_ok"]
    assert "negative input (raised on the device by thread 37" in report["checked"]
    assert report["rotate_check"] is True
    assert report["load"]


@pytest.mark.not_simulated("the simulator keeps no compiled code on disk")
def test_cached_kernels_run_in_a_fresh_process_without_mlir(tmp_path):
    _write_kernels(tmp_path)
    env = {"CUMLIR_CACHE_DIR": str(tmp_path / "cache")}
    cold, _ = _fresh(tmp_path, env)
    _check_results(cold)
    assert cold["cache"] == ["miss"] and cold["typed"] and cold["mlir"]
    warm, _ = _fresh(tmp_path, env)
    _check_results(warm)
    assert warm["cache"] == ["hit"] and not warm["typed"] and warm["mlir"] == []
    assert cold["numba_after_vadd"] and not warm["numba_after_vadd"]  # a hit types its arguments without numba


@pytest.mark.not_simulated("the simulator keeps no compiled code on disk")
def test_compile_stats_are_printed_per_signature(tmp_path):
    _write_kernels(tmp_path)
    env = {"CUMLIR_CACHE_DIR": str(tmp_path / "cache"), "CUMLIR_COMPILE_STATS": "1"}
    for verdict, figures in (
        ("miss", ("frontend", "lowering", "MLIR passes", "codegen", "link", "load")),
        ("hit", ("cache read", "load")),
    ):
        report, stderr = _fresh(tmp_path, env)
        _check_results(report)
        tables = stderr.split("cumlir compile stats: ")[1:]
        assert sorted(t.split("(")[0] for t in tables) == ["checked", "linked", "rotate", "vadd"]
        for table in tables:
            assert all(f"\n  {figure}" in table for figure in figures), table
            assert [w[1] for w in map(str.split, table.splitlines()) if len(w) == 2 and w[0] == "cache"] == [verdict]
