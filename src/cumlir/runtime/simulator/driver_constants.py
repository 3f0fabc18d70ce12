"""What the simulator's CUDA driver (driver.py) says of its one device, an H100-like host
(docs/simulator.md), and the results its calls give: constants only, read by each part of
the driver."""

from __future__ import annotations

import os
import uuid

from cuda.bindings import driver as _real  # importing it needs no GPU; nothing in it is called

_result = _real.CUresult
SUCCESS = _result.CUDA_SUCCESS
INVALID_VALUE = _result.CUDA_ERROR_INVALID_VALUE
INVALID_HANDLE = _result.CUDA_ERROR_INVALID_HANDLE
INVALID_CONTEXT = _result.CUDA_ERROR_INVALID_CONTEXT
INVALID_DEVICE = _result.CUDA_ERROR_INVALID_DEVICE
NOT_SUPPORTED = _result.CUDA_ERROR_NOT_SUPPORTED
NOT_FOUND = _result.CUDA_ERROR_NOT_FOUND
OUT_OF_MEMORY = _result.CUDA_ERROR_OUT_OF_MEMORY

VERSION = 13000  # the CUDA version the runtime reads (cuDriverGetVersion)
NAME = b"cumlir simulator"
UUID = uuid.uuid5(uuid.NAMESPACE_URL, "cumlir-simulator").bytes  # the same in every process, as a GPU's
PRIMARY_CONTEXT = 0x5C0000  # the one device's primary context (a fixed, nonzero handle)
ALIGNMENT = 256  # of every allocation, as cuMemAlloc's
POISON = 0xCB  # fresh device memory: a kernel reading what nobody wrote gets noticeable bytes
DEFAULT_STREAMS = (0, 1, 2)  # the null stream, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD


def _host_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not a POSIX host
        return 16 << 30


# the device's memory: 16 GiB, or less on a smaller host (cuMemGetInfo, and where cuMemAlloc
# answers out of memory, as a GPU of that size would)
TOTAL_MEMORY = min(16 << 30, _host_memory())

# CU_DEVICE_ATTRIBUTE_* of a compute capability 9.0 device (H100-like); the rest are 0
SMS = os.cpu_count() or 1  # the engine runs blocks on the host's cores
THREADS_PER_SM = 2048
BLOCKS_PER_SM = 32
SHARED_PER_BLOCK = 49152
SHARED_PER_BLOCK_OPTIN = 232448
SHARED_PER_SM = 233472
RESERVED_SHARED_PER_BLOCK = 1024
DEVICE_ATTRIBUTES = {
    "COMPUTE_CAPABILITY_MAJOR": 9,
    "COMPUTE_CAPABILITY_MINOR": 0,
    "MAX_THREADS_PER_BLOCK": 1024,
    "MAX_BLOCK_DIM_X": 1024,
    "MAX_BLOCK_DIM_Y": 1024,
    "MAX_BLOCK_DIM_Z": 64,
    "MAX_GRID_DIM_X": 2**31 - 1,
    "MAX_GRID_DIM_Y": 65535,
    "MAX_GRID_DIM_Z": 65535,
    "WARP_SIZE": 32,
    "MULTIPROCESSOR_COUNT": SMS,
    "MAX_THREADS_PER_MULTIPROCESSOR": THREADS_PER_SM,
    "MAX_BLOCKS_PER_MULTIPROCESSOR": BLOCKS_PER_SM,
    "MAX_SHARED_MEMORY_PER_BLOCK": SHARED_PER_BLOCK,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": SHARED_PER_BLOCK_OPTIN,
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": SHARED_PER_SM,
    "RESERVED_SHARED_MEMORY_PER_BLOCK": RESERVED_SHARED_PER_BLOCK,
    "TOTAL_CONSTANT_MEMORY": 65536,
    "MAX_REGISTERS_PER_BLOCK": 65536,
    "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536,
    "CLOCK_RATE": 1980000,  # kHz
    "MEMORY_CLOCK_RATE": 2619000,  # kHz
    "GLOBAL_MEMORY_BUS_WIDTH": 5120,
    "L2_CACHE_SIZE": 50 << 20,
    "MAX_PITCH": 2**31 - 1,
    "TEXTURE_ALIGNMENT": 512,
    "UNIFIED_ADDRESSING": 1,
    "MANAGED_MEMORY": 1,
    "CONCURRENT_MANAGED_ACCESS": 1,
    "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST": 1,  # managed memory is host memory
    "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM": 1,  # a registered host pointer is its device pointer
    "HOST_REGISTER_SUPPORTED": 1,
    "CAN_MAP_HOST_MEMORY": 1,
    "COOPERATIVE_LAUNCH": 1,
    "CONCURRENT_KERNELS": 1,
    "GPU_OVERLAP": 1,
    "STREAM_PRIORITIES_SUPPORTED": 1,
    "GLOBAL_L1_CACHE_SUPPORTED": 1,
    "LOCAL_L1_CACHE_SUPPORTED": 1,
    "COMPUTE_PREEMPTION_SUPPORTED": 1,
    "SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO": 2,
    "PCI_BUS_ID": 0,
    "PCI_DEVICE_ID": 0,
    "PCI_DOMAIN_ID": 0,
    "INTEGRATED": 0,
    "CLUSTER_LAUNCH": 0,  # thread-block clusters are not simulated
}
