"""``cuda.reduce`` / ``cuda.Reduce``: the reduction of a 1-d array by an associative,
commutative binary function, as Numba-CUDA's (``init``, ``size``, ``res=``, ``stream=``).

Two launches of one tree-reduction kernel: each thread first combines the elements of a
grid-stride slice of the array (four loads in flight per step), then each block combines its
threads' values in shared memory (a tree, halving the live values at each step) and writes
one partial; the second launch, one block, reduces the partials and combines ``init``.
As in Numba-CUDA, ``init`` is always combined (so its default 0 takes part in a max).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..pickling import picklable_function
from .decorators import python_function

if TYPE_CHECKING:
    from ..dispatcher import Dispatcher
    from ..runtime.devicearray import DeviceNDArray

THREADS = 256  # a power of two: the tree halves it
MAX_BLOCKS = 4096  # enough loads in flight to fill an H100's or H200's memory system


def _reduction_kernel(op, nbtype):
    """A kernel reducing the first ``count`` elements of ``arr`` into ``partials[blockIdx.x]``;
    with ``use_init`` block 0 also combines ``init`` into its partial."""
    from numba import uint64

    from .. import cuda

    def reduce_kernel(arr, count, partials, init, use_init):
        values = cuda.shared.array(THREADS, nbtype)
        tid = cuda.threadIdx.x
        # unsigned indices: the loads need no wrap-around of negative indices
        start = uint64(cuda.blockIdx.x) * uint64(THREADS)
        i = start + uint64(tid)
        stride = uint64(cuda.gridDim.x) * uint64(THREADS)
        n = uint64(count)
        acc = arr[i if i < n else uint64(0)]
        j = i + stride
        stride2 = stride + stride
        stride3 = stride2 + stride
        while j + stride3 < n:
            a = arr[j]
            b = arr[j + stride]
            c = arr[j + stride2]
            d = arr[j + stride3]
            acc = op(acc, op(op(a, b), op(c, d)))
            j += stride2 + stride2
        while j < n:
            acc = op(acc, arr[j])
            j += stride
        values[tid] = acc
        cuda.syncthreads()
        live = min(n - start, uint64(THREADS))  # the threads holding a value are a prefix of the block
        half = THREADS // 2
        while half > 0:
            if tid < half and tid + half < live:
                values[tid] = op(values[tid], values[tid + half])
            cuda.syncthreads()
            live = min(live, uint64(half))
            half //= 2
        if tid == 0:
            result = values[0]
            if use_init and cuda.blockIdx.x == 0:
                result = op(result, init)
            partials[cuda.blockIdx.x] = result

    return cuda.jit(reduce_kernel)


class Reduce:
    """``Reduce(binop)``: a callable reducing 1-d arrays with *binop*, compiled as a device
    function; kernels are compiled per dtype and kept by this object."""

    def __init__(self, functor: Callable[[Any, Any], Any]) -> None:
        from .. import cuda

        self._functor = functor
        self._op = cuda.jit(device=True)(python_function(functor, "cuda.reduce"))
        self._kernels: dict[np.dtype, Dispatcher] = {}
        self._lock = threading.Lock()  # a kernel is compiled once, whichever threads call
        # each thread's buffers (_Buffers): two threads reducing on one stream would otherwise
        # read each other's partial results, and their result through one host array
        self._threads = threading.local()
        self.__name__ = getattr(functor, "__name__", "reduce")
        self.__doc__ = getattr(functor, "__doc__", None)

    def __reduce__(self):
        # the binary function alone: kernels and buffers are made again in the other process
        return Reduce, (picklable_function(self._functor),)

    def _kernel(self, dtype):
        kernel = self._kernels.get(dtype)
        if kernel is None:
            with self._lock:
                kernel = self._kernels.get(dtype)
                if kernel is None:
                    from numba.np import numpy_support

                    kernel = self._kernels[dtype] = _reduction_kernel(self._op, numpy_support.from_dtype(dtype))
        return kernel

    def kernel_for(self, sig: Any) -> tuple[Callable[..., Any], list[Any]]:
        """(the reduction kernel's Python function, its argument types) for the binary
        function's signature *sig*, ``"float32(float32, float32)"`` (what ``python -m cumlir
        --emit`` compiles): the kernel as a launch on a 1-d device array types it."""
        from numba.core import types

        from .. import ufunc_kernels as uk

        argtypes, restype = uk.parse_signature(sig)
        element = argtypes[0] if argtypes else None
        if (
            len(argtypes) != 2
            or not isinstance(element, types.Number)
            or any(t != element for t in (*argtypes, restype or element))
        ):
            raise TypeError(
                f"{self.__name__} is a cuda.reduce: --sig is its binary function's, such as 'float32(float32, float32)'; got {sig!r}"
            )
        kernel = self._kernel(uk.to_dtype(element))
        array = types.Array(element, 1, "C")
        return kernel.py_func, [array, types.int64, array, element, types.boolean]

    def __call__(
        self, arr: Any, size: int | None = None, res: DeviceNDArray | None = None, init: Any = 0, stream: object = 0
    ) -> Any:
        """Reduce *arr* (a host or device 1-d array; its first *size* elements if given). With
        *res* (a device array) the result is written to ``res[0]`` and None returned; else the
        result is returned as a NumPy scalar."""
        from ..runtime.driver import CudaDriverError

        try:
            return self._call(arr, size, res, init, stream)
        except CudaDriverError as e:
            e.doing(f"cuda.reduce {self.__name__}")
            raise

    def _call(self, arr: Any, size: int | None, res: DeviceNDArray | None, init: Any, stream: object) -> Any:
        from ..runtime import ufunc_args as ua

        if res is None and ua.direct_type(type(arr)) and len(arr.shape) == 1 and arr.dtype.kind in "biufc":
            # the common call, a 1-d device array: launched with it as it is, no view made
            n = self._checked_size(size, arr.shape[0])
            init = arr.dtype.type(init)
            return self._first(self._reduce(arr, n, init, stream), stream) if n else init
        array = ua.operand(arr, 0)
        if array.kind == "scalar" or len(array.shape) != 1:
            raise TypeError(f"cuda.reduce reduces 1-d arrays; got shape {tuple(array.shape)}")
        if array.dtype.kind not in "biufc":
            raise TypeError(f"cuda.reduce: arrays of dtype {array.dtype} are not supported")
        n = self._checked_size(size, array.shape[0])
        init = array.dtype.type(init)
        if res is not None:
            target = ua.operand(res, 1)
            if target.kind != "device" or target.value.size < 1:
                raise TypeError("cuda.reduce: res must be a device array of at least one element")
            if target.dtype != array.dtype:
                raise TypeError(f"cuda.reduce: res has dtype {target.dtype}, the array {array.dtype}")
        if n == 0:
            if res is None:
                return init
            target.value[:1].copy_to_device(np.array([init]), stream=stream)
            return None
        if array.kind == "host":
            array = ua.Operand("host", array.value[:n], array.dtype)
        partials = self._reduce(ua.on_device(array, stream), n, init, stream)
        if res is None:
            return self._first(partials, stream)
        target.value[:1].copy_to_device(partials[:1], stream=stream)
        return None

    @staticmethod
    def _checked_size(size, n):
        if size is None:
            return n
        if not 0 <= size <= n:
            raise ValueError(f"cuda.reduce: size {size} is outside the array's {n} elements")
        return size

    def _first(self, partials, stream):
        """Element 0 of the device array *partials* (one of ``_partials``), as a NumPy scalar."""
        first, host = self._mine().results[id(partials)]
        first.copy_to_host(host, stream=stream)  # into pageable memory: done when it returns
        return host[0]

    def _reduce(self, device, n, init, stream, use_init=True):
        """The reduction of the first *n* (> 0) elements of the device array *device*, in
        element 0 of a device array."""
        kernel = self._kernel(device.dtype)
        blocks = min((n + THREADS - 1) // THREADS, MAX_BLOCKS)
        partials = self._partials(device.dtype, stream)
        kernel[blocks, THREADS, stream](device, n, partials, init, use_init and blocks == 1)
        if blocks > 1:
            kernel[1, THREADS, stream](partials, blocks, partials, init, use_init)
        return partials

    def _partials(self, dtype, stream):
        """A device array for the blocks' partial results, kept between calls on one stream of
        one context: the next call on that stream runs after this one's reads."""
        from ..runtime import driver as drv
        from ..runtime.devicearray import device_array
        from ..runtime.streams import stream_handle

        # by the context's lifetime, not its handle: a context reset (cuda.close()) freed the
        # buffers made before it, and the primary context comes back with the same handle
        key = (dtype, stream_handle(stream), drv.lifetime())
        mine = self._mine()
        kept = mine.partials.get(key)
        if kept is None:
            for stale in [k for k in mine.partials if not drv.alive(k[2])]:  # their memory went with a reset
                mine.results.pop(id(mine.partials.pop(stale)), None)
            kept = mine.partials[key] = device_array(MAX_BLOCKS, dtype, stream=stream)
            # where the result is read from, and copied to: made once, not at every call
            mine.results[id(kept)] = (kept[:1], np.empty(1, dtype))
        return kept

    def _mine(self) -> _Buffers:
        buffers = getattr(self._threads, "buffers", None)
        if buffers is None:
            buffers = self._threads.buffers = _Buffers()
        return buffers


class _Buffers:
    """One thread's buffers of a Reduce: its partial results' device arrays by (dtype,
    stream, context), and, by id() of each, its first element and a host array of one."""

    def __init__(self) -> None:
        self.partials: dict[tuple[np.dtype, int, tuple[int, int]], DeviceNDArray] = {}
        self.results: dict[int, tuple[DeviceNDArray, np.ndarray]] = {}


reduce = Reduce
