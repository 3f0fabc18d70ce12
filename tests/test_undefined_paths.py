"""Variables not assigned on every path into a join compile (numba's SSA gives them a
placeholder there) and read what Python would read on the paths where they are assigned."""

import numpy as np
import pytest

from cumlir import cuda

from . import support
from .cases import undefined_path_kernels as uk


@pytest.mark.parametrize("kernel", uk.KERNELS, ids=lambda k: k.__name__)
def test_undefined_on_some_path_compiles(kernel, backend):
    for cc in ((8, 0), (9, 0)):
        ptx, _ = cuda.compile_ptx(kernel, uk.SIG, cc=cc, backend=backend)
        support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", uk.KERNELS, ids=lambda k: k.__name__)
def test_undefined_on_some_path_reads_the_assigned_value(kernel, rng):
    for a in (rng.uniform(-1, 4, 50).astype(np.float32), rng.uniform(-4, 1, 7).astype(np.float32)):
        out = np.full(1, np.nan, np.float32)
        cuda.jit(kernel)[1, 1](a, out)
        assert out[0] == np.float32(uk.expected(kernel, a)), kernel.__name__
