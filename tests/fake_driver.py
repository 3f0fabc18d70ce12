"""A stand-in for ``cuda.bindings.driver`` so that launches run on a machine without a GPU:
kernels compile for real, and each cuLaunchKernel (or cuLaunchKernelEx: its cluster shape
too) records its configuration and the bytes
of its parameters (read through the pointer array, as the driver reads them). "Device"
memory is host memory, so copies in and out of NumPy arrays behave.

``install(monkeypatch)`` puts it in place of the driver for one test and returns it.
"""

import ctypes
from types import SimpleNamespace

LIMITS = {
    "MAX_THREADS_PER_BLOCK": 1024,
    "MAX_BLOCK_DIM_X": 1024,
    "MAX_BLOCK_DIM_Y": 1024,
    "MAX_BLOCK_DIM_Z": 64,
    "MAX_GRID_DIM_X": 2**31 - 1,
    "MAX_GRID_DIM_Y": 65535,
    "MAX_GRID_DIM_Z": 65535,
    "COMPUTE_CAPABILITY_MAJOR": 9,
    "COMPUTE_CAPABILITY_MINOR": 0,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448,
    "MULTIPROCESSOR_COUNT": 132,
}
FUNCTION = {"SHARED_SIZE_BYTES": 0, "MAX_DYNAMIC_SHARED_SIZE_BYTES": 49152, "NUM_REGS": 16}
CONTEXT = 0x5000  # device d's primary context is CONTEXT + d


class _Names:
    """``CUdevice_attribute.CU_DEVICE_ATTRIBUTE_X`` and the like: the name itself."""

    def __getattr__(self, name):
        if name.startswith("CU_"):
            return name
        raise AttributeError(name)


class _ClusterDim:
    x = y = z = 0


class CUlaunchAttribute:
    def __init__(self):
        self.id = None
        self.value = SimpleNamespace(clusterDim=_ClusterDim(), programmaticStreamSerializationAllowed=0)


class CUlaunchConfig:
    gridDimX = gridDimY = gridDimZ = blockDimX = blockDimY = blockDimZ = sharedMemBytes = numAttrs = 0
    hStream = 0
    attrs = ()


class FakeDriver:
    CUresult = SimpleNamespace(CUDA_SUCCESS=0)
    CUdevice_attribute = _Names()
    CUfunction_attribute = _Names()
    CUevent_flags = _Names()
    CUpointer_attribute = _Names()
    CUmemorytype = SimpleNamespace(CU_MEMORYTYPE_DEVICE=2)
    CU_STREAM_LEGACY = 1
    CU_STREAM_PER_THREAD = 2
    CUstream = int
    CUlaunchAttributeID = _Names()
    CUlaunchAttribute = CUlaunchAttribute
    CUlaunchConfig = CUlaunchConfig

    def __init__(self, devices=1):
        self.devices = devices
        self.current = 0  # no context current
        self.launches = []  # one dict per cuLaunchKernel
        self.modules_loaded = 0
        self.synchronized = []  # streams cuStreamSynchronize waited for
        self.stream_contexts = {}  # stream handle -> its context (default: the current one)
        self.slots = 0  # parameter slots the next launches read
        self.function_attributes = []  # (attribute, value) of each cuFuncSetAttribute
        self.largest_cluster = 16  # what cuOccupancyMaxPotentialClusterSize answers
        self._memory = {}

    # ---- errors, devices, contexts ----

    def cuGetErrorName(self, err):
        return 0, b"CUDA_ERROR_FAKE"

    def cuGetErrorString(self, err):
        return 0, b"a fake error"

    def cuDeviceGetCount(self):
        return 0, self.devices

    def cuDeviceGet(self, ordinal):
        return 0, ordinal

    def cuDeviceGetName(self, length, device):
        return 0, b"Fake GPU\0"

    def cuDeviceGetUuid(self, device):
        return 0, SimpleNamespace(bytes=bytes(range(16)))

    def cuDeviceGetAttribute(self, attr, device):
        return 0, LIMITS.get(attr.replace("CU_DEVICE_ATTRIBUTE_", ""), 1)

    def cuDevicePrimaryCtxRetain(self, device):
        return 0, CONTEXT + device

    def cuDevicePrimaryCtxRelease(self, device):
        return (0,)

    def cuDevicePrimaryCtxReset(self, device):
        self.resets = getattr(self, "resets", 0) + 1
        return (0,)

    def cuCtxGetCurrent(self):
        return 0, self.current

    def cuCtxSetCurrent(self, context):
        self.current = int(context)
        return (0,)

    def cuCtxGetDevice(self):
        return 0, self.current - CONTEXT

    def cuCtxPushCurrent(self, context):
        self.pushed = [*getattr(self, "pushed", []), self.current]
        self.current = int(context)
        return (0,)

    def cuCtxPopCurrent(self):
        popped, self.current = self.current, self.pushed.pop()
        return 0, popped

    def cuCtxSynchronize(self):
        return (0,)

    # ---- modules and launches ----

    def cuModuleLoadData(self, image):
        assert image, "an empty cubin"
        self.modules_loaded += 1
        return 0, 0x6000 + self.modules_loaded  # each module its own handle

    def cuModuleGetFunction(self, module, name):
        return 0, (self.current, name.decode(), module)

    def cuModuleGetGlobal(self, module, name):
        return 500, 0, 0  # CUDA_ERROR_NOT_FOUND: the fake modules hold no globals

    def cuFuncGetAttribute(self, attr, function):
        return 0, FUNCTION[attr.replace("CU_FUNC_ATTRIBUTE_", "")]

    def cuFuncSetAttribute(self, function, attr, value):
        self.function_attributes.append((attr, value))
        return (0,)

    def cuOccupancyMaxPotentialClusterSize(self, function, config):
        return 0, self.largest_cluster

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        assert f[0] == self.current, "a kernel launched outside the context it was loaded in"
        pointers = (ctypes.c_void_p * self.slots).from_address(params) if self.slots else ()
        data = b"".join(ctypes.string_at(p, 8) for p in pointers)
        self.launches.append(
            {
                "kernel": f[1],
                "module": f[2] if len(f) > 2 else None,
                "grid": (gx, gy, gz),
                "block": (bx, by, bz),
                "shared": shared,
                "stream": int(stream),
                "params": data,
            }
        )
        return (0,)

    def cuLaunchKernelEx(self, config, f, params, extra):
        """As cuLaunchKernel, recording the launch attributes: {attribute id: its value}."""
        assert len(config.attrs) == config.numAttrs
        c = config
        self.cuLaunchKernel(
            f, c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.blockDimY, c.blockDimZ, c.sharedMemBytes,
            c.hStream, params, extra,
        )  # fmt: skip
        attributes = {}
        for attribute in config.attrs:
            if attribute.id == "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION":
                dims = attribute.value.clusterDim
                attributes[attribute.id] = (dims.x, dims.y, dims.z)
            else:
                attributes[attribute.id] = attribute.value.programmaticStreamSerializationAllowed
        self.launches[-1]["attributes"] = attributes
        return (0,)

    # ---- streams ----

    def cuStreamCreate(self, flags):
        self._streams = getattr(self, "_streams", 0x9000) + 0x10
        return 0, self._streams

    def cuStreamDestroy(self, stream):
        return (0,)

    def cuStreamGetCtx(self, stream):
        return 0, self.stream_contexts.get(int(stream), self.current)

    def cuStreamSynchronize(self, stream):
        self.synchronized.append(int(stream))
        return (0,)

    # ---- memory: host memory standing for device memory ----

    def cuMemAlloc(self, nbytes):
        block = ctypes.create_string_buffer(nbytes)
        address = ctypes.addressof(block)
        self._memory[address] = block
        self.owners = {**getattr(self, "owners", {}), address: self.current}  # the context it was made in
        return 0, address

    def cuPointerGetAttribute(self, attribute, pointer):
        owner = getattr(self, "owners", {}).get(int(pointer))
        if owner is None:
            return (1, None)  # CUDA_ERROR_INVALID_VALUE: not an allocation
        values = {"CONTEXT": owner, "IS_MANAGED": False, "MEMORY_TYPE": 2, "DEVICE_ORDINAL": 0}
        return 0, values[attribute.replace("CU_POINTER_ATTRIBUTE_", "")]  # DEVICE_ORDINAL: as a driver answered

    def cuMemFree(self, pointer):
        self._memory.pop(int(pointer), None)
        return (0,)

    def cuMemcpyHtoD(self, destination, source, nbytes):
        ctypes.memmove(int(destination), int(source), nbytes)
        return (0,)

    def cuMemcpyDtoH(self, destination, source, nbytes):
        ctypes.memmove(int(destination), int(source), nbytes)
        return (0,)

    def cuMemcpyDtoD(self, destination, source, nbytes):
        ctypes.memmove(int(destination), int(source), nbytes)
        return (0,)


def install(monkeypatch, devices=1):
    """Make cumlir's runtime use a FakeDriver for the rest of the test."""
    from cumlir.cuda import device_api
    from cumlir.runtime import driver as drv
    from cumlir.runtime import placement

    fake = FakeDriver(devices)
    monkeypatch.setattr(placement, "_several", None)
    monkeypatch.setattr(device_api.gpus, "_devices", None)  # cuda.gpus, listed again
    monkeypatch.setattr(drv, "_driver", fake)
    monkeypatch.setattr(drv, "_devices", {})
    monkeypatch.setattr(drv, "_contexts", {})
    monkeypatch.setattr(drv, "_by_handle", {})
    return fake


def forget_loaded(kernel):
    """Drop what *kernel* (a Dispatcher) loaded and prepared with an earlier driver."""
    kernel._forget_routes()
    kernel._launchers.clear()
    for overload in kernel.overloads.values():
        overload._loaded.clear()
        overload._narrow_loaded.clear()
