"""``kernel[grid, block, stream, dynamic_shared_bytes, cluster](*args)``: the configuration,
checked when written and against the device it is launched on. A cluster shape (sm_90,
docs/hopper.md) groups the grid's blocks into thread-block clusters."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .streams import check_stream_context, stream_handle

if TYPE_CHECKING:
    from .driver import Context


def _dim3(value: object, what: str, name: str) -> tuple[int, ...]:
    """The 3 extents of a grid or block given as an int or a sequence of 1 to 3 ints; the
    errors say what Numba-CUDA's say (with its *name*, griddim or blockdim), then ours."""
    listed = list(value) if isinstance(value, (tuple, list)) else [value]
    rule = f"the {what} is an int or a tuple of 1 to 3 ints"
    if not 1 <= len(listed) <= 3:
        raise ValueError(f"{name} must be a sequence of 1, 2 or 3 integers, got {listed!r}: {rule}")
    if any(isinstance(v, bool) or not hasattr(v, "__index__") for v in listed):
        raise TypeError(f"{name} must be a sequence of integers, got {listed!r}: {rule}")
    dims = tuple(operator.index(v) for v in listed)  # type: ignore[arg-type]  # checked above
    if any(d <= 0 for d in dims):
        raise ValueError(f"every {what} dimension must be at least 1, got {value!r}")
    return dims + (1,) * (3 - len(dims))


# the most blocks a cluster may have on every chip that has clusters (CUDA's portable size)
PORTABLE_CLUSTER_BLOCKS = 8
# the most any chip allows, once a kernel opts in to non-portable sizes (sm_90, sm_100)
MAX_CLUSTER_BLOCKS = 16


class LaunchConfiguration:
    """The parts of ``kernel[grid, block, stream, dynamic_shared_bytes, cluster]``, checked."""

    def __init__(self, config: object, pdl: bool = False) -> None:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 5:
            raise TypeError(
                "a launch configuration is [blocks, threads], [blocks, threads, stream], "
                "[blocks, threads, stream, dynamic_shared_bytes] or "
                f"[blocks, threads, stream, dynamic_shared_bytes, cluster]; got {config!r}"
            )
        self.griddim = _dim3(config[0], "grid (number of blocks)", "griddim")
        self.blockdim = _dim3(config[1], "block (threads per block)", "blockdim")
        self.stream = stream_handle(config[2]) if len(config) > 2 else 0
        sharedmem = config[3] if len(config) > 3 and config[3] is not None else 0  # None: none, as for a stream
        if not isinstance(sharedmem, int) or isinstance(sharedmem, bool) or sharedmem < 0:
            raise TypeError(f"dynamic shared memory must be a non-negative int of bytes, got {sharedmem!r}")
        self.sharedmem = sharedmem
        self.cluster = _cluster(config[4], self.griddim) if len(config) > 4 and config[4] is not None else None
        if not isinstance(pdl, bool):
            raise TypeError(f"pdl (programmatic dependent launch) must be True or False, got {pdl!r}")
        # the launch may begin before the stream's previous kernel ends (cuLaunchKernelEx's
        # programmatic stream serialization): its kernel waits with griddepcontrol_wait()
        self.pdl = pdl

    @property
    def extended(self) -> bool:
        """Whether the launch takes cuLaunchKernelEx: clusters, programmatic dependent launch."""
        return self.cluster is not None or self.pdl

    def geometry(self) -> tuple[int, ...]:
        """The grid, block and dynamic shared memory as cuLaunchKernel takes them."""
        return (*self.griddim, *self.blockdim, self.sharedmem)

    def check(self, context: Context) -> None:
        """Refuse, before a launch in *context*, a block or grid beyond the device's limits
        and a stream of another context."""
        check_dimensions(context, self.griddim, self.blockdim)
        check_stream_context(self.stream, context)
        if self.extended and context.compute_capability < (9, 0):
            major, minor = context.compute_capability
            what = f"the cluster shape {self.cluster}" if self.cluster is not None else "pdl=True"
            feature = "thread-block clusters" if self.cluster is not None else "programmatic dependent launch"
            raise ValueError(
                f"a launch with {what} needs a device of compute capability 9.0 or newer ({feature}); "
                f"this one is {major}.{minor}"
            )


def _cluster(value: object, griddim: tuple[int, ...]) -> tuple[int, ...]:
    """The cluster shape: 1 to 3 extents, dividing the grid, of at most 16 blocks in all (over 8,
    the kernel's launch checks that the device runs clusters that large: kernel.py)."""
    cluster = _dim3(value, "cluster (blocks per cluster)", "cluster")
    blocks = cluster[0] * cluster[1] * cluster[2]
    if blocks > MAX_CLUSTER_BLOCKS:
        raise ValueError(
            f"a cluster of {cluster[0]}x{cluster[1]}x{cluster[2]} = {blocks} blocks is more than the "
            f"{MAX_CLUSTER_BLOCKS} any chip with clusters allows"
        )
    for axis, (extent, grid) in enumerate(zip(cluster, griddim)):
        if grid % extent:
            raise ValueError(
                f"the grid must be a whole number of clusters: its {'xyz'[axis]} dimension {grid} is not a "
                f"multiple of the cluster's {extent}"
            )
    return cluster


def check_dimensions(context: Context, griddim: Sequence[int], blockdim: Sequence[int]) -> None:
    threads = blockdim[0] * blockdim[1] * blockdim[2]
    if threads > context.max_threads_per_block:
        raise ValueError(
            f"a block of {blockdim[0]}x{blockdim[1]}x{blockdim[2]} = {threads} threads is more than the "
            f"{context.max_threads_per_block} this device allows"
        )
    for kind, dims, limits in (("block", blockdim, context.max_block_dims), ("grid", griddim, context.max_grid_dims)):
        for axis, (extent, limit) in enumerate(zip(dims, limits)):
            if extent > limit:
                raise ValueError(f"{kind} dimension {'xyz'[axis]} = {extent} exceeds this device's limit of {limit}")
