"""The generated-code speed suite (benchmarks/kernels) cannot rot: every kernel compiles
to PTX for sm_90 on both code generators and passes ptxas, every CUDA C++ twin compiles
with NVRTC, every check accepts host-computed outputs and rejects wrong ones; on a GPU
the suite runs (small sizes) with every check passing."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.kernels import suite

from . import support

ROOT = Path(__file__).resolve().parents[1]
KERNELS = [(name, fn, sig) for name in suite.NAMES for fn, sig in suite.load(name).KERNELS]


@pytest.mark.parametrize("backend", ["nvptx", "nvvm"])
@pytest.mark.parametrize("name, fn, sig", KERNELS, ids=[k[0] for k in KERNELS])
def test_kernel_compiles_for_sm90(name, fn, sig, backend):
    from cumlir import cuda

    ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0), backend=backend)
    assert ".entry " in ptx and fn.__name__ in ptx
    support.ptxas(ptx, "sm_90")


@pytest.mark.parametrize("name", suite.NAMES)
def test_twin_compiles_with_nvrtc(name):
    from benchmarks.kernels import twin

    module = suite.load(name)
    ptx = twin.compile_ptx(module.CUDA_SOURCE, (9, 0))
    for fn, _ in module.KERNELS:
        assert f".entry {fn.__name__}(" in ptx, f"the twin of {name} has no kernel {fn.__name__}"
    support.ptxas(ptx, "sm_90")


@pytest.mark.parametrize("name", suite.NAMES)
def test_check_accepts_emulation_and_rejects_wrong_outputs(name):
    module = suite.load(name)
    rng = np.random.default_rng(sum(map(ord, name)))
    inputs = module.setup(np, rng, quick=True)
    outputs = module.emulate(inputs)
    assert set(outputs) == set(module.OUTPUTS)
    module.check(inputs, outputs)
    for key, value in outputs.items():
        # every element off (checks may look at a sample of the elements only)
        wrong = dict(outputs)
        wrong[key] = value + (1 if value.dtype.kind in "iu" else np.maximum(1, np.abs(value)).astype(value.dtype))
        with pytest.raises(AssertionError):
            module.check(inputs, wrong)


def test_every_module_names_its_parts():
    for name in suite.NAMES:
        module = suite.load(name)
        for part in ("KERNELS", "CUDA_SOURCE", "METRIC", "OUTPUTS", "NUMBA_CUDA", "setup", "launch", "launch_twin", "work", "check", "emulate"):
            assert hasattr(module, part), f"benchmarks/kernels/{name}.py has no {part}"


@pytest.mark.gpu
def test_suite_runs_quick_with_every_check_passing():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kernels" / "run.py"), "--quick"],
        capture_output=True, text=True, env=env, timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stdout, result.stdout
