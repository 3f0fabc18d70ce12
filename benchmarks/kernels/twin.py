"""CUDA C++ twins: compiled by NVRTC (the CUDA pip wheels, as cumlir's link items are),
loaded and launched through cuda.bindings' driver API on the legacy default stream."""

import ctypes

import numpy as np

from cumlir import nvrtc

# NVRTC has no -O flag: it optimizes fully unless told otherwise (-G), and the driver
# assembles the PTX at ptxas's default -O3. Whole-program code, not relocatable.
NVRTC_OPTIONS = ("-rdc=false",)


def compile_ptx(source, cc, name="twin.cu"):
    return nvrtc.compile_source(source, cc, name=name, options=NVRTC_OPTIONS)


def _check(returned, what):
    from cuda.bindings import driver

    error, *values = returned
    if error != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed: {driver.cuGetErrorName(error)[1].decode()}")
    return values[0] if len(values) == 1 else values


def _parameter(value):
    """(value, ctypes type) of one kernel argument: arrays by their device pointer."""
    if isinstance(value, ctypes.c_void_p):
        return value.value, ctypes.c_void_p
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        return cai["data"][0], ctypes.c_void_p
    if isinstance(value, (np.integer, np.floating)):
        ctype = {
            np.dtype(np.int32): ctypes.c_int32,
            np.dtype(np.int64): ctypes.c_int64,
            np.dtype(np.float32): ctypes.c_float,
            np.dtype(np.float64): ctypes.c_double,
        }[value.dtype]
        return value.item(), ctype
    raise TypeError(f"a twin kernel takes device arrays, pointers and NumPy scalars, not {type(value).__name__}")


class Twin:
    """The kernels of one CUDA C++ source, loaded in the current context; calling
    ``twin(name, grid, block, *args)`` launches one."""

    def __init__(self, source, cc):
        from cuda.bindings import driver

        self.ptx = compile_ptx(source, cc)
        self._module = _check(driver.cuModuleLoadData(self.ptx.encode()), "cuModuleLoadData")
        self._functions = {}

    def function(self, name):
        from cuda.bindings import driver

        if name not in self._functions:
            self._functions[name] = _check(
                driver.cuModuleGetFunction(self._module, name.encode()), f"cuModuleGetFunction({name})"
            )
        return self._functions[name]

    def __call__(self, name, grid, block, *args, shared=0, stream=0):
        from cuda.bindings import driver

        grid = tuple(grid) + (1,) * (3 - len(grid)) if isinstance(grid, tuple) else (grid, 1, 1)
        block = tuple(block) + (1,) * (3 - len(block)) if isinstance(block, tuple) else (block, 1, 1)
        values, ctypes_ = zip(*(_parameter(a) for a in args)) if args else ((), ())
        _check(
            driver.cuLaunchKernel(self.function(name), *grid, *block, shared, stream, (values, ctypes_), 0),
            f"cuLaunchKernel({name})",
        )
