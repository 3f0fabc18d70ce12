"""The generated-code speed suite (benchmarks/kernels) on the simulator, its checks on:
every kernel runs on its small inputs with no report of a race, an uninitialised read, a
divergent barrier or an index out of bounds, and its outputs pass the suite's own check
against NumPy (outputs poisoned first)."""

import numpy as np
import pytest

from benchmarks.kernels import suite
from cumlir import cuda

pytestmark = pytest.mark.usefixtures("simulated")


@pytest.mark.parametrize("name", suite.NAMES)
def test_suite_kernel_runs_clean_and_right(name):
    module = suite.load(name)
    inputs = module.setup(np, np.random.default_rng(sum(map(ord, name))), quick=True)
    for key, fill in module.OUTPUTS.items():
        array = inputs[key]
        array[...] = fill if fill is not None else (np.nan if array.dtype.kind in "fc" else -12345)
    kernels = suite.build(module, cuda)
    module.launch(cuda, kernels, inputs)
    module.check(inputs, {key: inputs[key] for key in module.OUTPUTS})
