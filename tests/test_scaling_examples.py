"""The multi-GPU examples (Dask, MPI, Ray) and benchmarks/scaling.py cannot rot: their
kernels compile on both back ends and pass ptxas (CPU); the Dask and MPI examples run and
check themselves where their libraries and GPUs exist."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cumlir import cuda

from . import support

ROOT = Path(__file__).resolve().parent.parent
CCS = pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])


def _load(folder, name):
    spec = importlib.util.spec_from_file_location(f"{folder}_{name}", ROOT / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _assembled(fn, sig, cc, backend):
    ptx, _ = cuda.compile_ptx(fn, sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    return ptx


@CCS
def test_dask_example_kernels_assemble(backend, cc):
    example = _load("examples", "dask_multi_gpu")
    for dtype in ("float32", "float64"):
        sig = f"void({dtype}[::1], {dtype}, {dtype}, {dtype}, {dtype}, {dtype}[::1])"
        _assembled(example.polynomial, sig, cc, backend)
        kernel, argtypes = example.magnitude.kernel_for(f"{dtype}({dtype}, {dtype})")
        ptx = _assembled(kernel, argtypes, cc, backend)
        assert f"sqrt.rn.f{dtype[-2:]}" in ptx


@CCS
def test_mpi_example_kernel_assembles(backend, cc):
    example = _load("examples", "mpi_multi_gpu")
    ptx = _assembled(example.fill, "void(int64, int64[::1], float64[::1])", cc, backend)
    assert "rcp.rn.f64" in ptx or "div.rn.f64" in ptx  # 1 / x correctly rounded, as NumPy's


def test_mpi_example_splits_the_array():
    owned = _load("examples", "mpi_multi_gpu").owned
    for n, size in ((10, 3), (1 << 24, 2), (5, 8)):
        slices = [owned(n, size, rank) for rank in range(size)]
        assert slices[0][0] == 0 and slices[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(slices, slices[1:]))


@CCS
def test_ray_example_kernel_assembles(backend, cc):
    example = _load("examples", "ray_multi_gpu")
    _assembled(example.scale_add, example.SIGNATURE, cc, backend)


@CCS
def test_scaling_benchmark_kernel_assembles(backend, cc, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    benchmark = _load("benchmarks", "scaling")
    assert set(benchmark.PARTS) == {"threads", "dask", "cache"}
    kernels = sys.modules["scaling_kernels"]
    _assembled(kernels.saxpy, kernels.SIGNATURE, cc, backend)


def test_dask_example_float32_bound_holds_for_float32_horner():
    """The example's error bound admits the cubic computed in float32 (as the kernel does)."""
    np = pytest.importorskip("numpy")
    example = _load("examples", "dask_multi_gpu")
    x = np.random.default_rng(5).uniform(-1, 1, 100_000).astype(np.float32)
    c0, c1, c2, c3 = (np.float32(c) for c in example.COEFFICIENTS)
    got = ((c3 * x + c2) * x + c1) * x + c0
    x64 = x.astype(np.float64)
    expected = np.polynomial.polynomial.polyval(x64, example.COEFFICIENTS)
    assert np.all(np.abs(got - expected) <= example.float32_bound(x64, example.COEFFICIENTS))


def _env():
    paths = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))


@pytest.mark.gpu
def test_dask_example_runs_and_checks():
    for name in ("cupy", "dask.array", "distributed", "dask_cuda"):
        pytest.importorskip(name)
    if len(cuda.gpus) < 1:
        pytest.skip("needs a GPU")
    script = ROOT / "examples" / "dask_multi_gpu.py"
    command = [sys.executable, str(script), "--n", str(1 << 22), "--chunks", str(1 << 19)]
    result = subprocess.run(command, capture_output=True, text=True, env=_env(), timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "check: " in result.stdout and "match NumPy" in result.stdout, result.stdout


@pytest.mark.gpu
def test_mpi_example_runs_and_checks():
    pytest.importorskip("mpi4py")
    launcher = shutil.which("mpirun") or shutil.which("mpiexec")
    if launcher is None:
        pytest.skip("no mpirun or mpiexec")
    ranks = 2 if len(cuda.gpus) >= 2 else 1
    script = ROOT / "examples" / "mpi_multi_gpu.py"
    command = [launcher, "-n", str(ranks), sys.executable, str(script), "--n", str(1 << 22)]
    # Open MPI refuses to start as root without these (test machines often run as root)
    env = dict(_env(), OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "check: ok" in result.stdout and f"over {ranks} ranks" in result.stdout, result.stdout
