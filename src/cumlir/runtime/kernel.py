"""A kernel compiled for one argument-type signature: PTX per compute capability,
loaded into the current context on first launch."""

import ctypes

from . import driver as drv


class Kernel:
    def __init__(self, dispatcher, argtypes):
        from ..compiler import type_function

        self.dispatcher = dispatcher
        self.argtypes = tuple(argtypes)
        # typing errors surface here: at decoration for eager signatures, else at first launch
        self.typed = type_function(dispatcher.py_func, self.argtypes)
        self._compiled = {}
        self._function = None
        self._module = None
        self._packer = None

    def __repr__(self):
        return f"<cumlir Kernel {self.dispatcher.__name__}{self.argtypes}>"

    def compiled(self, cc):
        """The CompiledKernel (PTX and entry name) for compute capability *cc*."""
        from ..codegen.targets import parse_cc
        from ..compiler import CompileOptions, kernel_ptx

        cc = parse_cc(cc)
        result = self._compiled.get(cc)
        if result is None:
            options = CompileOptions.from_targetoptions(self.dispatcher.targetoptions)
            result = self._compiled[cc] = kernel_ptx(self.typed, cc, name=self.dispatcher.__name__, options=options)
        return result

    def inspect_ptx(self, cc=None):
        return self.compiled(cc or drv.current_context().compute_capability).ptx

    def _load(self, context):
        from ..linking import link_kernel
        from .arguments import ArgumentPacker

        compiled = self.compiled(context.compute_capability)
        items = list(self.dispatcher.targetoptions.get("link") or ()) + compiled.link
        cubin = link_kernel(compiled.ptx, context.compute_capability, items, name=compiled.symbol)
        cu = drv.driver()
        self._module = drv.check("cuModuleLoadData", cu.cuModuleLoadData(cubin))
        self._function = drv.check("cuModuleGetFunction", cu.cuModuleGetFunction(self._module, compiled.symbol.encode()))
        self._packer = ArgumentPacker(self.argtypes)
        self._raise_sites = compiled.raise_sites
        self._shared = SharedMemoryLimits(context, self._function)

    def launch(self, args, griddim, blockdim, stream, sharedmem):
        from .arguments import HostArrayStaging

        context = drv.current_context()
        _check_dimensions(context, griddim, blockdim)
        if self._function is None:
            self._load(context)
        if sharedmem > self._shared.dynamic_allowed:
            self._shared.allow_dynamic(sharedmem)
        staging = HostArrayStaging(stream)
        try:
            pointers, buffer = self._packer.pack(args, staging)
            cu = drv.driver()
            drv.check(
                "cuLaunchKernel",
                cu.cuLaunchKernel(
                    self._function, *griddim, *blockdim, sharedmem, stream, ctypes.addressof(pointers), 0
                ),
            )
        except BaseException:
            staging.abandon()
            raise
        staging.finish()
        if self._raise_sites:
            self._report_device_exception(stream)

    def _report_device_exception(self, stream):
        """Debug mode: wait for the kernel, and raise what a thread raised (then clear it)."""
        from ..lowering.exceptions import EXCEPTION_GLOBAL

        cu = drv.driver()
        drv.check("cuStreamSynchronize", cu.cuStreamSynchronize(stream))
        pointer, size = drv.check("cuModuleGetGlobal", cu.cuModuleGetGlobal(self._module, EXCEPTION_GLOBAL.encode()))
        record = (ctypes.c_int64 * 2)()
        drv.check("cuMemcpyDtoH", cu.cuMemcpyDtoH(ctypes.addressof(record), pointer, 16))
        code, thread = record[0], record[1]
        if code:
            drv.check("cuMemsetD8", cu.cuMemsetD8(pointer, 0, 16))
            raise self._raise_sites[code - 1].exception(thread)


class SharedMemoryLimits:
    """The kernel's static shared memory and the dynamic shared memory it may be launched with.

    Above 48 KiB a kernel must opt in to more dynamic shared memory (up to the device's
    opt-in maximum) before it is launched with it; the opt-in is done once, when asked for."""

    def __init__(self, context, function):
        cu = drv.driver()
        attr = cu.CUfunction_attribute
        self._function = function
        self.static = drv.check("cuFuncGetAttribute", cu.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function))
        self.dynamic_allowed = drv.check(
            "cuFuncGetAttribute", cu.cuFuncGetAttribute(attr.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, function)
        )
        self.device_limit = context.attribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)

    def allow_dynamic(self, nbytes):
        if self.static + nbytes > self.device_limit:
            raise ValueError(
                f"the kernel uses {self.static} bytes of static shared memory and was launched with {nbytes} bytes "
                f"of dynamic shared memory: {self.static + nbytes} bytes in all, more than the "
                f"{self.device_limit} bytes per block this device allows"
            )
        cu = drv.driver()
        attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        drv.check("cuFuncSetAttribute", cu.cuFuncSetAttribute(self._function, attr, nbytes))
        self.dynamic_allowed = nbytes


def _check_dimensions(context, griddim, blockdim):
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
