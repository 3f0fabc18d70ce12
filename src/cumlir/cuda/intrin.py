"""``cuda.intrin``: numba-cuda-mlir's module of intrinsics written in MLIR. The names that are
an intrinsic cumlir has are that intrinsic (``intrin.ffs`` is ``cuda.ffs``, which returns a
uint32); Hopper's thread-block clusters, mbarriers, cp.async, TMA (with cumlir's general
forms), elect.sync, setmaxnreg and griddepcontrol are here by their names (docs/hopper.md), the
tensor cores as ``ldmatrix``, ``stmatrix``, ``mma_sync`` and ``wgmma_*`` (docs/tensor_cores.md);
the rest, Blackwell's instructions mostly, are refused by name (cumlir/refused.py says why)."""

import importlib as _importlib
import typing as _typing

from .. import refused as _refused

# numba-cuda-mlir's name -> the cumlir.cuda intrinsic it is
_SAME_AS = {"ffs": "ffs", "ffsll": "ffs", "nanosleep": "nanosleep", "barrier": "syncthreads"}
# the Hopper intrinsics (docs/hopper.md): the stub of the same name
_SAME_AS.update(
    (name, name)
    for name in (
        "block_idx_in_cluster cluster_ctarank cluster_nctarank cluster_ctaid cluster_nctaid clusterid "
        "nclusterid cluster_arrive cluster_arrive_relaxed cluster_wait cluster_sync mapa "
        "mbarrier_init mbarrier_arrive mbarrier_arrive_cluster mbarrier_arrive_expect_tx mbarrier_try_wait fence_mbarrier_init "
        "cp_async cp_async_commit_group cp_async_wait_group cp_async_wait_all "
        "cp_async_bulk_tensor_2d cp_async_bulk_tensor_2d_multicast cp_async_bulk_load cp_async_bulk_store "
        "prefetch_tensormap cp_async_bulk_tensor_load cp_async_bulk_tensor_store cp_async_bulk_commit_group "
        "cp_async_bulk_wait_group cp_async_bulk_wait_group_read fence_proxy_async_shared "
        "elect_sync elect_sync_mask setmaxnreg_inc setmaxnreg_dec griddepcontrol_wait "
        "griddepcontrol_launch_dependents"
    ).split()
)
# the warpgroup tensor cores (docs/tensor_cores.md): the stub of the same name
_SAME_AS.update(
    (name, name)
    for name in (
        "wgmma_fence wgmma_commit_group wgmma_wait_group wgmma_descriptor wgmma_mma_async fence_proxy_async"
    ).split()
)
# the warp's tensor-core instructions (docs/tensor_cores.md)
_SAME_AS.update((name, name) for name in ("ldmatrix", "stmatrix", "mma_sync"))


def __getattr__(name: str) -> _typing.Any:
    if name in _SAME_AS:
        return _importlib.import_module("cumlir.operations").stub(_SAME_AS[name])
    if name in _refused.NUMBA_CUDA_MLIR["cuda.intrin"]:
        raise _refused.numba_cuda_mlir_refusal("cuda.intrin", name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SAME_AS))
