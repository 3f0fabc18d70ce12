"""The device runtime's statistics, read from the host (docs/nrt.md).

Every loaded kernel module that links the runtime holds its own counters (the runtime's
``cumlir_nrt_stats`` global). Modules are registered here when loaded; the totals are sums
over the modules of one context.
"""

from __future__ import annotations

import ctypes
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..nrt import STATS_FIELDS, STATS_GLOBAL
from . import driver as drv

if TYPE_CHECKING:
    from typing import Protocol

    class _Kernel(Protocol):
        """What is read here of a kernel.LoadedKernel (kernel.py imports this module)."""

        name: str
        uses_runtime: bool


class NRTStats(NamedTuple):
    """The runtime's counters, in the order of its global's words (``nrt.STATS_FIELDS``)."""

    alloc: int
    free: int
    mi_alloc: int
    mi_free: int


_modules: weakref.WeakKeyDictionary[_Kernel, tuple[drv.Context, object]] = weakref.WeakKeyDictionary()
_last_launched: list[str] = []  # the name of the last kernel launched that links the runtime


def register(kernel: _Kernel, context: drv.Context, module: Any, image: bytes) -> None:
    """Remember *kernel*'s counters if its module links the runtime; its launches then go
    through note_launch. A module whose *image* does not name the counters is not asked for
    them: the failed lookup would be a driver error (compute-sanitizer reports each)."""
    name = STATS_GLOBAL.encode()
    kernel.uses_runtime = False
    if name not in image:
        return
    cu = drv.driver()
    result, pointer, _ = cu.cuModuleGetGlobal(module, name)
    kernel.uses_runtime = result == cu.CUresult.CUDA_SUCCESS
    if kernel.uses_runtime:
        _modules[kernel] = (context, pointer)


def note_launch(kernel: _Kernel) -> None:
    """Remember that *kernel*, which links the runtime, was launched last."""
    _last_launched[:] = [kernel.name]


def _heap_hint(code: int) -> str | None:
    # the runtime traps when the heap cannot serve an allocation: the next call fails
    if not _last_launched:
        return None
    return (
        f"the last kernel launched that allocates in device code was {_last_launched[0]}: if it printed "
        "'cumlir NRT: the device heap is exhausted', make the heap larger with cuda.set_heap_size()"
    )


drv.error_hints.append(_heap_hint)


def read(kernels: Iterable[_Kernel]) -> NRTStats:
    """The counters summed over *kernels* (LoadedKernels; those without the runtime count 0),
    after the work queued on their contexts has finished."""
    cu = drv.driver()
    totals = [0] * len(STATS_FIELDS)
    synchronized = set()
    for kernel in kernels:
        found = _modules.get(kernel)
        if found is None:
            continue
        context, pointer = found
        if id(context) not in synchronized:
            context.synchronize()
            synchronized.add(id(context))
        words = (ctypes.c_uint64 * len(STATS_FIELDS))()
        drv.check("cuMemcpyDtoH", cu.cuMemcpyDtoH(ctypes.addressof(words), pointer, ctypes.sizeof(words)))
        totals = [t + w for t, w in zip(totals, words)]
    return NRTStats(*totals)


def context_stats(context: drv.Context) -> NRTStats:
    """The counters of every kernel loaded in *context*."""
    return read([kernel for kernel, (owner, _) in list(_modules.items()) if owner is context])


def set_heap_size(nbytes: int) -> None:
    """Size the current context's device heap, where ``malloc`` (and so NRT) allocates."""
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
        raise ValueError(f"the heap size is a positive number of bytes, got {nbytes!r}")
    cu = drv.driver()
    drv.current_context()
    drv.check("cuCtxSetLimit", cu.cuCtxSetLimit(cu.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE, nbytes))
