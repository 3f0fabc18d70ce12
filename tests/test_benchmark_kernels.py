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
        for part in (
            "KERNELS",
            "CUDA_SOURCE",
            "METRIC",
            "OUTPUTS",
            "NUMBA_CUDA",
            "setup",
            "launch",
            "launch_twin",
            "work",
            "check",
            "emulate",
        ):
            assert hasattr(module, part), f"benchmarks/kernels/{name}.py has no {part}"


@pytest.mark.gpu
@pytest.mark.not_simulated("the benchmark suite times the GPU")
def test_suite_runs_quick_with_every_check_passing():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kernels" / "run.py"), "--quick"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stdout, result.stdout


@pytest.mark.parametrize("name", [n for n in suite.NAMES if not suite.load(n).NUMBA_CUDA])
def test_numba_cuda_compiles_the_same_source(name):
    """The runner rebinds ``cuda`` to numba-cuda's: the same functions must compile there."""
    from .support import import_numba_cuda

    try:
        ncuda = import_numba_cuda()
    except Exception as e:  # numba-cuda is only a reference: not installed or broken here
        pytest.skip(f"numba-cuda does not import: {e}")
    for fn, sig in suite.load(name).KERNELS:
        ptx, _ = ncuda.compile_ptx(suite.rebound(fn, ncuda), sig, cc=(9, 0))
        assert fn.__name__ in ptx


class _DeviceFloat32:
    """Stands for a CuPy float32 array: what Float4View reads of one."""

    dtype = np.dtype(np.float32)
    flags = type("Flags", (), {"c_contiguous": True})()

    def __init__(self, address, size):
        self.size = size
        self.__cuda_array_interface__ = {
            "shape": (size,),
            "strides": None,
            "typestr": "<f4",
            "data": (address, False),
            "version": 3,
        }


def test_float4_view_is_launched_as_the_declared_float4_array():
    import struct

    from benchmarks.kernels import copy_float4
    from cumlir.runtime import arguments
    from cumlir.typing.signatures import accepts, parse_signature

    declared, _ = parse_signature(copy_float4.KERNELS[0][1])
    views = [copy_float4.Float4View(_DeviceFloat32(address, 4 * 1000)) for address in (0x10000, 0x20000)]
    assert accepts(declared, tuple(arguments.argument_type(v, k) for k, v in enumerate(views)))
    _, buffer = arguments.ArgumentPacker(declared).pack(views, support.FakeLaunch())
    slots = struct.unpack_from("8Q", bytes(buffer), 0)
    assert slots[0] == 0x10000 and 1000 in slots[:4] and 0x20000 in slots[4:]
