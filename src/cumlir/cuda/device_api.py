"""Devices and contexts: ``gpus``, ``select_device``, ``get_current_device``, ``close``,
``detect``; the profiler switches; the toolkit version (``runtime``). The driver is loaded
on first use."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

if TYPE_CHECKING:
    from ..runtime.driver import Context, Device
    from ..runtime.nrt_stats import NRTStats

_P = ParamSpec("_P")
_R = TypeVar("_R")


class _ManagedDevice:
    """``gpus[i]``: device *i* (its attributes read through) and a context manager that
    makes its primary context current for the block: ``with cuda.gpus[1]: ...``."""

    def __init__(self, device: Device) -> None:
        self._device = device

    def __getattr__(self, name: str) -> Any:
        if name == "_device":  # not set yet (copying, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self._device, name)

    def __enter__(self) -> _ManagedDevice:
        from ..runtime.driver import push_context

        push_context(self._device.id)
        return self

    def __exit__(self, *exc: object) -> None:
        from ..runtime.driver import pop_context

        pop_context()

    def __eq__(self, other: object) -> bool:
        return self._device == getattr(other, "_device", other)

    def __hash__(self) -> int:
        return hash(self._device)

    def __repr__(self) -> str:
        return f"<Managed Device {self._device.id}>"


class _DeviceList:
    """``cuda.gpus``: the devices of this machine, indexable and iterable."""

    _devices: list[_ManagedDevice] | None = None
    _lock = threading.Lock()

    @property
    def _list(self) -> list[_ManagedDevice]:
        if self._devices is None:
            from ..runtime import driver as drv

            with self._lock:
                if self._devices is None:
                    count = drv.device_count() if drv.is_available() else 0
                    self._devices = [_ManagedDevice(drv.device(i)) for i in range(count)]
        return self._devices

    def __getitem__(self, index: Any) -> Any:  # a device for an index, a list of them for a slice
        if not isinstance(index, (int, slice)):
            index = int(index)
        return self._list[index]

    def __iter__(self) -> Iterator[_ManagedDevice]:
        return iter(self._list)

    def __len__(self) -> int:
        return len(self._list)

    def __str__(self) -> str:
        return ", ".join(str(device) for device in self._list)

    @property
    def current(self) -> _ManagedDevice | None:
        """The device whose context is current on this thread, or None."""
        from ..runtime import driver as drv

        if not drv.is_available():
            return None
        cu = drv.driver()
        if not int(drv.check("cuCtxGetCurrent", cu.cuCtxGetCurrent())):
            return None
        return self[int(drv.check("cuCtxGetDevice", cu.cuCtxGetDevice()))]


gpus = _DeviceList()


def list_devices() -> _DeviceList:
    """All devices of this machine (``cuda.gpus``)."""
    return gpus


def select_device(device_id: int) -> Device:
    """Make device *device_id* current on this thread (kernels and arrays go there); its Device."""
    from ..runtime.driver import select_device as select

    return select(device_id)


def get_current_device() -> Device:
    """The current device: ``id``, ``name``, ``compute_capability``, ``uuid``, and the driver's
    CU_DEVICE_ATTRIBUTE_X values as attributes ``X`` (``MULTIPROCESSOR_COUNT`` ...)."""
    from ..runtime.driver import current_context

    return current_context().device


def current_context(devnum: int | None = None) -> Context:
    """The context kernels run in (the current device's primary context): ``device``,
    ``get_memory_info()``, ``synchronize()``, ``compute_capability``. With *devnum*, device
    *devnum*'s context, made current first."""
    from ..runtime import memory_managers  # noqa: F401  (the context's memory manager methods call it)
    from ..runtime.driver import current_context as context

    if devnum is not None:
        select_device(devnum)
    return context()


def require_context(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate *function* so that a context is current whenever it runs."""
    import functools

    @functools.wraps(function)
    def with_context(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        current_context()
        return function(*args, **kwargs)

    return with_context


def close() -> None:
    """Leave every context on this thread; in the main thread, also reset the devices used
    (all their memory and kernels are freed)."""
    from ..runtime.driver import close as close_all

    close_all()


def synchronize() -> None:
    """Wait until all work queued on the current device has finished."""
    from ..runtime.driver import synchronize as sync

    sync()


def nrt_stats() -> NRTStats:
    """The device runtime's counters (docs/nrt.md), summed over every kernel loaded in the
    current context: ``(alloc, free, mi_alloc, mi_free)``, after queued work has finished.
    Equal allocations and frees mean nothing leaked."""
    from ..runtime import nrt_stats as stats
    from ..runtime.driver import current_context as context

    return stats.context_stats(context())


def set_heap_size(nbytes: int) -> None:
    """Size the current context's device heap (CU_LIMIT_MALLOC_HEAP_SIZE, 8 MiB by default),
    where arrays made in device code are allocated; before the first kernel using it runs."""
    from ..runtime.nrt_stats import set_heap_size as set_size

    set_size(nbytes)


def is_available() -> bool:
    """Whether a CUDA GPU and driver can be used."""
    from ..runtime.driver import is_available as available

    return available()


def is_simulator() -> bool:
    """Whether kernels run on the CPU simulator (``CUMLIR_SIMULATOR=1`` or
    ``NUMBA_ENABLE_CUDASIM=1``; docs/simulator.md)."""
    from .. import simulation

    return simulation.requested()


def is_float16_supported() -> bool:
    """Whether kernels may use float16: always (every chip cumlir compiles for has it)."""
    return True


def is_bfloat16_supported() -> bool:
    """Whether the current device computes in bfloat16 (compute capability 8.0 and up)."""
    return get_current_device().compute_capability >= (8, 0)


def is_fp8_supported() -> bool:
    """Whether the current device has 8-bit float instructions (compute capability 8.9 and up).
    cumlir has no fp8 types yet; this reports the hardware, as Numba-CUDA does."""
    return get_current_device().compute_capability >= (8, 9)


def cuda_error() -> str | None:
    """None if the CUDA driver initialised, else the text of the error."""
    from ..runtime.driver import CudaSupportError, driver

    try:
        driver()
    except CudaSupportError as e:
        return str(e)
    return None


def detect() -> bool:
    """Print the devices found and whether cumlir can compile for each; whether any can."""
    from ..codegen.targets import SUPPORTED_CCS

    devices = list(gpus)
    print(f"Found {len(devices)} CUDA devices")
    supported = 0
    for device in devices:
        cc = device.compute_capability
        usable = tuple(cc) in SUPPORTED_CCS
        supported += usable
        status = "[SUPPORTED]" if usable else "[NOT SUPPORTED: cumlir has no target for this compute capability]"
        print(f"id {device.id} {device.name:>20} {status:>40}")
        rows = [
            ("Compute Capability", f"{cc[0]}.{cc[1]}"),
            ("PCI Device ID", device.PCI_DEVICE_ID),
            ("PCI Bus ID", device.PCI_BUS_ID),
            ("UUID", device.uuid),
            ("Watchdog", "Enabled" if device.KERNEL_EXEC_TIMEOUT else "Disabled"),
            ("FP32/FP64 Performance Ratio", device.SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO),
            ("FP16 Support", "Yes" if device.supports_float16 else "No"),
            ("BF16 Support", "Yes" if device.supports_bfloat16 else "No"),
            ("FP8 Support", "Yes" if device.supports_fp8 else "No"),
        ]
        for key, value in rows:
            print(f"{key:>40}: {value}")
    print("Summary:")
    print(f"\t{supported}/{len(devices)} devices are supported")
    return supported > 0


def profile_start() -> None:
    """Start collecting profile data (for Nsight Systems / Nsight Compute) in the current context."""
    from ..runtime import driver as drv

    drv.current_context()
    drv.check("cuProfilerStart", drv.driver().cuProfilerStart())


def profile_stop() -> None:
    """Stop collecting profile data in the current context."""
    from ..runtime import driver as drv

    drv.current_context()
    drv.check("cuProfilerStop", drv.driver().cuProfilerStop())


@contextlib.contextmanager
def profiling() -> Iterator[None]:
    """Collect profile data while the block runs."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()


# the CUDA toolkit major versions cumlir is built and tested against (the cuda-toolkit wheels)
SUPPORTED_TOOLKIT_MAJOR_VERSIONS = (13,)


class _Runtime:
    """``cuda.runtime``: the CUDA toolkit version, read from nvJitLink where it is installed,
    else NVRTC, else the driver's bindings (Numba-CUDA reads NVRTC's)."""

    def get_version(self) -> tuple[int, int]:
        """(major, minor) of the CUDA toolkit wheels cumlir uses (linking.toolkit_version)."""
        from ..linking import toolkit_version

        return toolkit_version()

    def is_supported_version(self) -> bool:
        """Whether that toolkit version is one cumlir is tested with."""
        return self.get_version()[0] in SUPPORTED_TOOLKIT_MAJOR_VERSIONS

    def __repr__(self) -> str:
        return "<cumlir CUDA runtime (the CUDA toolkit wheels' version)>"


runtime = _Runtime()


def is_supported_version() -> bool:
    """Whether the CUDA toolkit in use is a version cumlir is tested with."""
    return runtime.is_supported_version()
