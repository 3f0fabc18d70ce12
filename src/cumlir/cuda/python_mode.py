"""``CUMLIR_SIMULATOR=python``: kernels run as the Python functions they are, one Python
thread per CUDA thread of a block, blocks one after another (docs/simulator.md, "Debugging
in Python"). Nothing is compiled, so ``breakpoint()``, pdb and coverage tools work inside
kernels; indices are checked by NumPy. The kernel's ``cuda`` is a namespace of this
module's Python forms of CUDA's operations, read by each thread from its own state."""

from __future__ import annotations

import threading
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_local = threading.local()  # the running thread's _Thread
_atomic_lock = threading.Lock()


class _Dim3:
    def __init__(self, x: int = 1, y: int = 1, z: int = 1) -> None:
        self.x, self.y, self.z = x, y, z


def _dim3(value: int | Sequence[int]) -> _Dim3:
    parts = (value,) if isinstance(value, int) else tuple(value)
    return _Dim3(*(list(parts) + [1, 1])[:3])


class _Barrier:
    """The block's barrier: threads that exited count as arrived, as on the hardware."""

    def __init__(self, size: int) -> None:
        self.alive, self.arrived, self.generation, self.broken = size, 0, 0, False
        self.condition = threading.Condition()

    def wait(self) -> None:
        with self.condition:
            generation = self.generation
            self.arrived += 1
            if self.arrived >= self.alive:
                self._release()
                return
            while generation == self.generation and not self.broken:
                self.condition.wait()
            if self.broken:
                raise threading.BrokenBarrierError

    def _release(self) -> None:
        self.arrived = 0
        self.generation += 1
        self.condition.notify_all()

    def leave(self) -> None:
        with self.condition:
            self.alive -= 1
            if self.arrived and self.arrived >= self.alive:
                self._release()

    def abort(self) -> None:
        with self.condition:
            self.broken = True
            self.condition.notify_all()


class _Block:
    """What the threads of one block share: its barrier, shared arrays and warps' exchanges."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.barrier = _Barrier(size)
        self.lock = threading.Lock()
        self.shared: dict[tuple[Any, ...], np.ndarray] = {}
        self.values: dict[int, Any] = {}


class _Thread:
    def __init__(self, block: _Block, tid: _Dim3, bid: _Dim3, bdim: _Dim3, gdim: _Dim3, linear: int) -> None:
        self.block, self.tid, self.bid, self.bdim, self.gdim, self.linear = block, tid, bid, bdim, gdim, linear
        self.shared_calls = 0


def _me() -> _Thread:
    thread: _Thread | None = getattr(_local, "thread", None)
    if thread is None:
        raise RuntimeError("CUDA's operations run in kernels: launch the kernel with kernel[grid, block](...)")
    return thread


class _Index:
    def __init__(self, read: Callable[[_Thread], _Dim3]) -> None:
        self._read = read

    def __getattr__(self, axis: str) -> int:
        if axis not in ("x", "y", "z"):
            raise AttributeError(axis)
        return int(getattr(self._read(_me()), axis))


def _exchange(value: Any) -> list[Any]:
    """Every thread of the block gives *value* and gets all of them, by linear index (a
    barrier: the block's threads, as the operations using it require)."""
    me = _me()
    block = me.block
    with block.lock:
        block.values[me.linear] = value
    block.barrier.wait()
    values = [block.values.get(k) for k in range(block.size)]
    block.barrier.wait()
    with block.lock:  # read by all: an exited thread gives nothing to the next exchange
        del block.values[me.linear]
    return values


def _lane_values(value: Any) -> tuple[list[Any], int]:
    values = _exchange(value)
    me = _me()
    base = me.linear - me.linear % 32
    return values[base : base + 32], me.linear % 32


class _Shared:
    def array(self, shape: Any, dtype: Any) -> np.ndarray:
        me = _me()
        me.shared_calls += 1
        key = (me.shared_calls, shape if isinstance(shape, int) else tuple(shape), np.dtype(_dtype(dtype)).str)
        with me.block.lock:
            if key not in me.block.shared:
                count = shape if isinstance(shape, int) else int(np.prod(shape))
                if count == 0:  # dynamic shared memory
                    count = _local.dynamic_shared // np.dtype(_dtype(dtype)).itemsize
                    shape = count
                me.block.shared[key] = np.zeros(shape, _dtype(dtype))
            return me.block.shared[key]


class _Local:
    def array(self, shape: Any, dtype: Any) -> np.ndarray:
        return np.zeros(shape, _dtype(dtype))


class _Const:
    def array_like(self, array: np.ndarray) -> np.ndarray:
        return np.array(array)


def _dtype(dtype: Any) -> Any:
    return np.dtype(str(dtype)) if not isinstance(dtype, (np.dtype, type)) else dtype


class _Atomic:
    @staticmethod
    def _apply(array: np.ndarray, index: Any, update: Callable[[Any], Any]) -> Any:
        with _atomic_lock:
            old = array[index]
            array[index] = update(old)
            return old

    def add(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: old + value)

    def sub(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: old - value)

    def max(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: max(old, value))

    def min(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: min(old, value))

    def exch(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: value)

    def and_(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: old & value)

    def or_(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: old | value)

    def xor(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: old ^ value)

    def inc(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: 0 if old >= value else old + 1)

    def dec(self, array: np.ndarray, index: Any, value: Any) -> Any:
        return self._apply(array, index, lambda old: value if old == 0 or old > value else old - 1)

    def compare_and_swap(self, array: np.ndarray, old: Any, value: Any) -> Any:
        return self._apply(array, 0, lambda current: value if current == old else current)

    def cas(self, array: np.ndarray, index: Any, old: Any, value: Any) -> Any:
        return self._apply(array, index, lambda current: value if current == old else current)


def _grid(ndim: int) -> Any:
    me = _me()
    axes = [me.bid.x * me.bdim.x + me.tid.x, me.bid.y * me.bdim.y + me.tid.y, me.bid.z * me.bdim.z + me.tid.z]
    return axes[0] if ndim == 1 else tuple(axes[:ndim])


def _gridsize(ndim: int) -> Any:
    me = _me()
    sizes = [me.bdim.x * me.gdim.x, me.bdim.y * me.gdim.y, me.bdim.z * me.gdim.z]
    return sizes[0] if ndim == 1 else tuple(sizes[:ndim])


def _syncthreads() -> None:
    _me().block.barrier.wait()


def _shfl(value: Any, source: Callable[[int], int]) -> Any:
    lanes, lane = _lane_values(value)
    j = source(lane)
    return lanes[j] if 0 <= j < len(lanes) and lanes[j] is not None else value


def _this_grid() -> Any:
    raise NotImplementedError(
        "cuda.cg.this_grid(): the Python mode runs blocks one after another, so a grid barrier could never "
        "be met; the compiled simulator (CUMLIR_SIMULATOR=1) runs grid synchronization"
    )


class _Namespace(types.SimpleNamespace):
    """The kernel's ``cuda`` in Python mode."""

    @property
    def laneid(self) -> int:
        return _me().linear % 32


def _namespace() -> _Namespace:
    from .. import cuda as compiled

    def present(values: list[Any]) -> list[Any]:
        return [v for v in values if v is not None]  # exited threads give nothing

    return _Namespace(
        threadIdx=_Index(lambda t: t.tid),
        blockIdx=_Index(lambda t: t.bid),
        blockDim=_Index(lambda t: t.bdim),
        gridDim=_Index(lambda t: t.gdim),
        warpsize=32,
        grid=_grid,
        gridsize=_gridsize,
        syncthreads=_syncthreads,
        syncthreads_count=lambda p: sum(bool(v) for v in present(_exchange(p))),
        syncthreads_and=lambda p: int(all(bool(v) for v in present(_exchange(p)))),
        syncthreads_or=lambda p: int(any(bool(v) for v in present(_exchange(p)))),
        syncwarp=lambda mask=0xFFFFFFFF: None,
        shared=_Shared(),
        local=_Local(),
        const=_Const(),
        atomic=_Atomic(),
        shfl_sync=lambda mask, value, lane: _shfl(value, lambda me: lane % 32),
        shfl_up_sync=lambda mask, value, delta: _shfl(value, lambda me: me - delta if me >= delta else me),
        shfl_down_sync=lambda mask, value, delta: _shfl(value, lambda me: me + delta if me + delta < 32 else me),
        shfl_xor_sync=lambda mask, value, lane_mask: _shfl(value, lambda me: me ^ lane_mask),
        all_sync=lambda mask, p: int(all(bool(v) for v in present(_lane_values(p)[0]))),
        any_sync=lambda mask, p: int(any(bool(v) for v in present(_lane_values(p)[0]))),
        eq_sync=lambda mask, p: int(len({bool(v) for v in present(_lane_values(p)[0])}) == 1),
        ballot_sync=lambda mask, p: sum(1 << k for k, v in enumerate(_lane_values(p)[0]) if v),
        activemask=lambda: 0xFFFFFFFF,
        threadfence=lambda: None,
        threadfence_block=lambda: None,
        threadfence_system=lambda: None,
        nanosleep=lambda ns: None,
        cg=types.SimpleNamespace(this_grid=_this_grid),
        to_device=compiled.to_device,
        device_array=compiled.device_array,
    )


def _rebuilt(function: types.FunctionType, namespace: _Namespace, seen: dict[int, Any]) -> Any:
    """*function* with its globals' ``cuda`` the Python namespace and its device functions
    rebuilt the same way."""
    from .. import cuda as compiled

    if id(function) in seen:
        return seen[id(function)]
    globals_ = dict(function.__globals__)
    rebuilt = types.FunctionType(
        function.__code__, globals_, function.__name__, function.__defaults__, function.__closure__
    )
    seen[id(function)] = rebuilt
    for name, value in function.__globals__.items():
        if value is compiled:
            globals_[name] = namespace
        elif isinstance(value, PythonKernel):
            globals_[name] = _rebuilt(value.py_func, namespace, seen)
        elif hasattr(value, "py_func") and isinstance(getattr(value, "py_func", None), types.FunctionType):
            globals_[name] = _rebuilt(value.py_func, namespace, seen)
    return rebuilt


def _host_view(value: Any) -> Any:
    """A NumPy view of an array the kernel reads in place (device arrays of the simulator's
    driver are in host memory)."""
    if isinstance(value, np.ndarray) or not hasattr(value, "__cuda_array_interface__"):
        return value
    import ctypes

    cai = value.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    strides = cai.get("strides") or tuple(int(s) for s in np.empty(shape, dtype).strides)
    span = (max((n - 1) * s for n, s in zip(shape, strides)) + dtype.itemsize) if all(shape) else 0
    buffer = memoryview((ctypes.c_char * max(span, 1)).from_address(cai["data"][0])) if span else bytearray(1)
    return np.ndarray(shape, dtype, buffer=buffer, strides=strides)


def _host_copy(value: Any, index: int) -> Any:
    """A host copy of a GPU array made by cumlir (copied back after the launch); another
    library's GPU array is refused (its memory cannot be read here)."""
    if isinstance(value, np.ndarray) or not hasattr(value, "__cuda_array_interface__"):
        return value
    if not hasattr(value, "copy_to_host") or not hasattr(value, "copy_to_device"):
        raise TypeError(
            f"argument {index}: a kernel run in Python (simulate=True) takes NumPy arrays or cumlir's device "
            f"arrays, not {type(value).__name__}"
        )
    return value.copy_to_host()


class PythonKernel:
    """What ``cuda.jit`` gives in Python mode: ``kernel[grid, block](...)`` runs the function
    in Python threads; a device function is called as it is."""

    def __init__(self, py_func: types.FunctionType, device: bool) -> None:
        self.py_func = py_func
        self.device = device

    def __call__(self, *args: Any) -> Any:
        return self.py_func(*args)

    def __getitem__(self, config: Any) -> Callable[..., None]:
        config = config if isinstance(config, tuple) else (config,)
        grid, block = _dim3(config[0]), _dim3(config[1] if len(config) > 1 else 1)
        dynamic_shared = int(config[3]) if len(config) > 3 else 0
        return lambda *args: self._launch(grid, block, dynamic_shared, args)

    def _launch(self, grid: _Dim3, block: _Dim3, dynamic_shared: int, args: Sequence[Any]) -> None:
        from .. import simulation

        kernel = _rebuilt(self.py_func, _namespace(), {})
        in_host_memory = simulation.requested()  # the simulator's device arrays are host memory
        views = [_host_view(a) if in_host_memory else _host_copy(a, k) for k, a in enumerate(args)]
        for bz in range(grid.z):
            for by in range(grid.y):
                for bx in range(grid.x):
                    _run_block(kernel, views, _Dim3(bx, by, bz), block, grid, dynamic_shared)
        if not in_host_memory:  # a GPU's arrays get what the kernel wrote in their copies
            for original, view in zip(args, views):
                if view is not original:
                    original.copy_to_device(view)


def _run_block(
    kernel: Callable[..., Any], args: Sequence[Any], bid: _Dim3, bdim: _Dim3, gdim: _Dim3, dynamic: int
) -> None:
    size = bdim.x * bdim.y * bdim.z
    name = getattr(kernel, "__name__", "?")
    block = _Block(size)
    errors: list[BaseException] = []

    def body(linear: int) -> None:
        tid = _Dim3(linear % bdim.x, linear // bdim.x % bdim.y, linear // (bdim.x * bdim.y))
        _local.thread = _Thread(block, tid, bid, bdim, gdim, linear)
        _local.dynamic_shared = dynamic
        try:
            kernel(*args)
        except threading.BrokenBarrierError:
            pass
        except BaseException as e:  # the first is raised by the launch; the others stop with it
            if hasattr(e, "add_note"):  # Python 3.11
                e.add_note(
                    f"in the kernel {name}, block ({bid.x}, {bid.y}, {bid.z}), thread ({tid.x}, {tid.y}, {tid.z})"
                )
            errors.append(e)
            block.barrier.abort()
        finally:
            block.barrier.leave()  # an exited thread no longer holds the block's barriers back

    threads = [threading.Thread(target=body, args=(k,)) for k in range(size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def jit(func_or_sig: Any = None, device: bool = False, **options: Any) -> Any:
    """``cuda.jit`` in Python mode: the function itself, launched thread by thread."""
    if isinstance(func_or_sig, types.FunctionType):
        return PythonKernel(func_or_sig, device)
    return lambda function: PythonKernel(function, device)
