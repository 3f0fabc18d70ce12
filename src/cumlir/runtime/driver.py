"""The CUDA driver: loaded on first use, errors turned into CudaDriverError."""

import threading

_lock = threading.RLock()  # current_context() initialises the driver while holding it
_driver = None
_context = None


class CudaDriverError(RuntimeError):
    """A CUDA driver call failed; ``code`` is the CUresult."""

    def __init__(self, call, code, message):
        self.code = code
        super().__init__(f"{call} failed: {message} ({code})")


class CudaSupportError(RuntimeError):
    """No usable CUDA GPU or driver on this machine."""


def driver():
    """The ``cuda.bindings.driver`` module, with cuInit done."""
    global _driver
    if _driver is None:
        with _lock:
            if _driver is None:
                try:
                    from cuda.bindings import driver as cu
                except ImportError as e:  # pragma: no cover - a dependency
                    raise CudaSupportError(f"cuda-bindings is not importable: {e}") from e
                try:
                    (err,) = cu.cuInit(0)
                except RuntimeError as e:  # libcuda.so is missing
                    raise CudaSupportError(f"the CUDA driver could not be loaded: {e}") from e
                if err != cu.CUresult.CUDA_SUCCESS:
                    raise CudaSupportError(f"the CUDA driver failed to initialise: {_describe(cu, err)}")
                _driver = cu
    return _driver


def _describe(cu, err):
    e, name = cu.cuGetErrorName(err)
    e2, text = cu.cuGetErrorString(err)
    name = name.decode() if e == cu.CUresult.CUDA_SUCCESS and name else str(err)
    text = text.decode() if e2 == cu.CUresult.CUDA_SUCCESS and text else ""
    return f"{name}: {text}" if text else name


def check(call, result):
    """Unpack a cuda.bindings result tuple, raising CudaDriverError if it holds an error."""
    cu = _driver
    err = result[0]
    if err != cu.CUresult.CUDA_SUCCESS:
        raise CudaDriverError(call, int(err), _describe(cu, err))
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def is_available():
    """Whether a CUDA GPU can be used (never raises)."""
    try:
        cu = driver()
        return check("cuDeviceGetCount", cu.cuDeviceGetCount()) > 0
    except (CudaSupportError, CudaDriverError):
        return False


class Context:
    """The primary context of one device, made current for this thread when used."""

    def __init__(self, ordinal):
        cu = driver()
        self.ordinal = ordinal
        self.device = check("cuDeviceGet", cu.cuDeviceGet(ordinal))
        self.handle = check("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(self.device))
        self.compute_capability = (
            self.attribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            self.attribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
        )
        self.max_threads_per_block = self.attribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
        self.max_block_dims = tuple(
            self.attribute(getattr(cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_{a}")) for a in "XYZ"
        )
        self.max_grid_dims = tuple(
            self.attribute(getattr(cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_{a}")) for a in "XYZ"
        )
        self.name = check("cuDeviceGetName", cu.cuDeviceGetName(256, self.device)).split(b"\0")[0].decode()

    def attribute(self, attr):
        return check("cuDeviceGetAttribute", driver().cuDeviceGetAttribute(attr, self.device))

    def get_memory_info(self):
        """(free, total) bytes of the device's memory."""
        self.push()
        return tuple(check("cuMemGetInfo", driver().cuMemGetInfo()))

    def synchronize(self):
        """Wait for all work queued in this context to finish."""
        self.push()
        check("cuCtxSynchronize", driver().cuCtxSynchronize())

    def push(self):
        """Make this context current on the calling thread (if another is not)."""
        cu = _driver
        current = check("cuCtxGetCurrent", cu.cuCtxGetCurrent())
        if int(current) != int(self.handle):
            check("cuCtxSetCurrent", cu.cuCtxSetCurrent(self.handle))


def current_context():
    """The context kernels run in: the primary context of device 0, made current."""
    global _context
    if _context is None:
        with _lock:
            if _context is None:
                cu = driver()
                if check("cuDeviceGetCount", cu.cuDeviceGetCount()) == 0:
                    raise CudaSupportError("no CUDA GPU was found")
                _context = Context(0)
    _context.push()
    return _context


def synchronize():
    """Wait for all work on the current device to finish."""
    current_context()
    check("cuCtxSynchronize", _driver.cuCtxSynchronize())
