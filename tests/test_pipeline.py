"""cumlir.cuda.pipeline: the barriers of its stages in the PTX (both code generators, ptxas
for sm_90), and on a Hopper GPU a producer's bulk copies summed by a warp of consumers."""

import numpy as np
import pytest

from cumlir import cuda

from . import support
from .cases import pipeline_kernels as pk
from .support import poisoned

SIG = "void(float32[::1], float32[::1], int32)"


def test_the_stages_are_mbarriers_with_phases_counted_from_the_step(backend):
    ptx, _ = cuda.compile_ptx(pk.pipelined_sums, SIG, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert ptx.count("mbarrier.init.b64") >= 2  # full and empty (a loop over the stages)
    assert "mbarrier.arrive.expect_tx.b64" in ptx and "mbarrier.try_wait.parity.b64" in ptx
    assert "mbarrier.arrive.b64" in ptx  # the consumers' release
    assert "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" in ptx


@pytest.mark.not_simulated("mbarriers have no host form")
@pytest.mark.gpu
@pytest.mark.parametrize("steps", [1, pk.STAGES, 4 * pk.STAGES + 1])
def test_gpu_a_producer_and_a_warp_of_consumers_pass_every_stage(backend, steps):
    if cuda.get_current_device().compute_capability < (9, 0):
        pytest.skip("bulk copies and mbarrier transaction counts need sm_90")
    src = np.random.default_rng(steps).standard_normal(steps * pk.CHUNK).astype(np.float32)
    out = poisoned(pk.CONSUMERS, np.float32)
    cuda.jit(pk.pipelined_sums, backend=backend)[1, pk.THREADS](src, out, steps)
    expected = src.astype(np.float64).reshape(-1, pk.CONSUMERS).sum(axis=0)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-4)
