"""The simulator's loader and launcher: a kernel's host code (LLVM bitcode, from the "cpu"
code generator) JIT-compiled by llvmlite, and its launches run on the host.

A launch runs ``__sim.run`` over the grid's blocks, handed out in chunks to the host's
threads, each with a copy of the code of its own (``loaded_copy``: the copies' globals are
their blocks' shared memory); another copy is compiled on another thread the first time a
launch could use it, and joins that launch if blocks are left. The threads of a block keep their state in an array of
``simulation.THREAD_DTYPE`` records. When no thread of a block can run and the runtime
cannot release them itself, it calls back here (``cumlir_sim_resolve``) and
``scheduling.resolve`` decides; an error found there (a divergent barrier, a bad warp
mask, a deadlock) ends the launch and is raised by it.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from typing import Any

import numpy as np

from ... import simulation as sim
from ...codegen.cpu.host_ir import DYNAMIC_SHARED_BYTES
from ...codegen.cpu.ir_text import NotSimulated
from ...lazy import lazy
from ...nrt import STATS_GLOBAL
from . import driver_memory, math_library, printing, scheduling
from .errors import DeadlockError, SimulatorError
from .loaded_copy import DYNAMIC, LoadedCopy

llvm = lazy("llvmlite.binding")  # numba's LLVM, loaded by the first module loaded

_RESOLVE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32)
_REPORT = ctypes.CFUNCTYPE(
    None, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int64
)
_CHUNKS_PER_COPY = 8  # a launch's blocks are handed out in about this many chunks per copy
_BLOCKS_FOR_COPIES = 32  # a launch of fewer blocks runs on one copy (more would cost more to compile)

_process = ctypes.CDLL(None)  # the C library's functions the code calls (malloc, free, memset)
# what the code may take from the C library (another name there may mean something else: vprintf)
_FROM_THE_C_LIBRARY = frozenset({"malloc", "free", "memset", "memcpy", "memmove", "calloc"})
_state = threading.local()  # the launch this host thread runs: its sites, the error found
_lock = threading.Lock()
_ready = False


def _resolve(address: int, count: int) -> int:
    memory = (ctypes.c_char * (count * sim.THREAD_DTYPE.itemsize)).from_address(address)
    threads = np.frombuffer(memoryview(memory), sim.THREAD_DTYPE)
    try:
        return scheduling.resolve(threads, _state.sites)
    except SimulatorError as e:
        _state.error = e
        return -1
    except BaseException as e:  # never through the kernel's frames
        _state.error = e
        return -1


_resolve_callback = _RESOLVE(_resolve)


def _report(kind: int, site: int, thread: int, other: int, other_site: int, address: int) -> None:
    """The first finding of the shared memory checks in a launch (runtime.ll's kinds)."""
    if getattr(_state, "finding", None) is None:
        _state.finding = (kind, site, thread, other, other_site, address)


_report_callback = _REPORT(_report)


def _binding() -> Any:
    global _ready
    with _lock:
        if not _ready:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            llvm.add_symbol("cumlir_sim_resolve", ctypes.cast(_resolve_callback, ctypes.c_void_p).value)
            llvm.add_symbol("cumlir_sim_report", ctypes.cast(_report_callback, ctypes.c_void_p).value)
            llvm.add_symbol("vprintf", ctypes.cast(printing.VPRINTF, ctypes.c_void_p).value)
            _ready = True
    return llvm


class HostFunction:
    """A kernel of a loaded module: what cuLaunchKernel runs."""

    def __init__(self, module: HostModule, name: str) -> None:
        self.module = module
        self.name = name
        # what the code says of itself; cuFuncGetAttribute keeps what is set and the defaults
        self.attributes = dict(module.resources)

    def set_attribute(self, name: str, value: int) -> None:
        self.attributes[name] = value

    def launch(
        self, grid: tuple[int, int, int], block: tuple[int, int, int], shared: int, params: int, cooperative: bool
    ) -> None:
        blocks = grid[0] * grid[1] * grid[2]
        if block[0] * block[1] * block[2] == 0 or blocks == 0:
            return
        if shared > DYNAMIC_SHARED_BYTES:
            raise SimulatorError(
                f"kernel {self.name}: {shared} bytes of dynamic shared memory asked; the simulator gives at most "
                f"{DYNAMIC_SHARED_BYTES}"
            )
        self._check_pointers(params)
        if self.module.grid_sync:
            _GridLaunch(self, grid, block, shared, params).run(blocks)
        else:
            _Launch(self, grid, block, shared, params).run(blocks)

    def _check_pointers(self, params: int) -> None:
        """Refuse pointer arguments to memory the simulator does not know: the GPU memory of
        another library (CuPy, PyTorch), which the host cannot read."""
        for index in self.module.pointer_parameters:
            slot = ctypes.c_void_p.from_address(params + 8 * index).value
            address = ctypes.c_void_p.from_address(slot).value if slot else 0
            if address and not driver_memory.knows(address):
                raise SimulatorError(
                    f"kernel {self.name}: parameter {index} points to {address:#x}, memory the simulator did not "
                    "make: an array in a GPU's memory (CuPy, PyTorch...) cannot be read on the CPU; pass NumPy "
                    "arrays, or arrays made by cuda.to_device"
                )


class _Launch:
    """One launch: its blocks handed out in chunks to the copies of the code, the first
    problem any of them finds. It ends when no chunk is left or running: a copy still being
    compiled when it starts joins if chunks are left, and is kept for later launches."""

    def __init__(
        self, function: HostFunction, grid: tuple[int, int, int], block: tuple[int, int, int], shared: int, params: int
    ) -> None:
        self.function, self.grid, self.block, self.shared, self.params = function, grid, block, shared, params
        self.next_block = 0
        self.running_chunks = 0
        self.settled = threading.Condition()
        self.problem: BaseException | None = None

    def run(self, blocks: int) -> None:
        module = self.function.module
        self.chunk = max(1, blocks // (_CHUNKS_PER_COPY * module.parallelism))
        self.blocks = blocks
        if blocks >= _BLOCKS_FOR_COPIES:
            for k in range(1, module.parallelism):
                threading.Thread(target=self._help, args=(k,), daemon=True).start()
        first = module.copy(0)
        assert first is not None
        self._work(first)
        with self.settled:  # the chunks others took have run: the arguments stay alive until then
            self.settled.wait_for(lambda: self.running_chunks == 0)
        raised = module.gather_exceptions()
        if self.problem is not None and not raised:
            raise self.problem

    def _help(self, k: int) -> None:
        copy = self.function.module.copy(k)  # compiled here the first time
        if copy is not None:
            self._work(copy)

    def _take(self) -> tuple[int, int] | None:
        with self.settled:
            if self.problem is not None or self.next_block >= self.blocks:
                return None
            first = self.next_block
            self.next_block = min(self.blocks, first + self.chunk)
            self.running_chunks += 1
            return first, self.next_block

    def _ran(self) -> None:
        with self.settled:
            self.running_chunks -= 1
            self.settled.notify_all()

    def _work(self, copy: LoadedCopy) -> None:
        if self._take_none_left():
            return
        threads, words = _block_records(self.block), _launch_words(self.grid, self.block, self.shared)
        with copy.running:  # one launch at a time per copy: its globals are its blocks' shared memory
            if self.function.module.checked:
                copy.watch_shared(self.shared)
            _state.sites, _state.error, _state.finding = self.function.module.sites, None, None
            while (span := self._take()) is not None:
                try:
                    status = copy.run(self.params, threads.ctypes.data, words.ctypes.data, *span)
                    if status != 0:
                        self._fail(copy, status, int(words[0]))
                        break
                finally:
                    self._ran()
            _state.error = _state.finding = None

    def _take_none_left(self) -> bool:
        with self.settled:
            return self.problem is not None or self.next_block >= self.blocks

    def _fail(self, copy: LoadedCopy, status: int, failed: int) -> None:
        problem = _problem(self.function, copy, failed, self.grid, self.block)
        with self.settled:
            if self.problem is None:
                self.problem = problem


class _GridLaunch:
    """A launch of a kernel that waits at grid barriers: every block is under way at once,
    as a cooperative launch's are on the GPU. On one copy of the code, each block runs until
    it waits at the grid barrier (or ends), and its shared memory and what the checks know
    of it are set aside while the next one runs; once every block waits, each runs on in
    turn to the next grid barrier."""

    def __init__(
        self, function: HostFunction, grid: tuple[int, int, int], block: tuple[int, int, int], shared: int, params: int
    ) -> None:
        self.function, self.grid, self.block, self.shared, self.params = function, grid, block, shared, params

    def run(self, blocks: int) -> None:
        module = self.function.module
        copy = module.copy(0)
        assert copy is not None
        words = _launch_words(self.grid, self.block, self.shared)
        problem: BaseException | None = None
        with copy.running:
            if module.checked:
                copy.watch_shared(self.shared)
            _state.sites, _state.error, _state.finding = module.sites, None, None
            try:
                self._blocks(copy, blocks, words)
            except SimulatorError as e:
                problem = e
            finally:
                _state.error = _state.finding = None
        if module.gather_exceptions():
            return  # the runtime raises what a thread raised: it came first
        if problem is not None:
            raise problem

    def _blocks(self, copy: LoadedCopy, blocks: int, words: np.ndarray) -> None:
        parked: dict[int, tuple[np.ndarray, Any]] = {}
        ended = None  # a block that ended: once one has, a block waiting at the grid barrier waits forever
        for b in range(blocks):
            threads = _block_records(self.block)
            if b:
                copy.fresh_shadow()
            status = copy.run(self.params, threads.ctypes.data, words.ctypes.data, b, b + 1)
            ended = self._after(copy, b, status, threads, parked, ended)
        while parked:
            self._check_not_stranded(parked, ended)
            for b in sorted(parked):
                threads, state = parked.pop(b)
                copy.restore(state)
                at_grid = (threads["wait"] == sim.AT_BARRIER) & (threads["op"] == sim.GRID_BARRIER)
                threads["wait"][at_grid] = sim.RUNNABLE
                status = copy.resume(self.params, threads.ctypes.data, words.ctypes.data, b)
                ended = self._after(copy, b, status, threads, parked, ended)

    def _after(
        self, copy: LoadedCopy, b: int, status: int, threads: np.ndarray, parked: dict[int, Any], ended: int | None
    ) -> int | None:
        """Where block *b* stands after it ran: parked (its state kept), ended, or failed."""
        if status == scheduling.PARKED:
            parked[b] = (threads, copy.block_state(self.shared))
            return ended
        if status != 0:
            raise _problem(self.function, copy, b, self.grid, self.block)
        return b if ended is None else ended

    def _check_not_stranded(self, parked: dict[int, tuple[np.ndarray, Any]], ended: int | None) -> None:
        if ended is None:
            return
        b = min(parked)
        threads = parked[b][0]
        waiter = int(np.flatnonzero(threads["op"] == sim.GRID_BARRIER)[0])
        site = self.function.module.sites[int(threads["site"][waiter])]
        raise DeadlockError(
            f"kernel {self.function.name}: block {_block_index(b, self.grid)} waits at grid.sync ({site}) for "
            f"block {_block_index(ended, self.grid)}, which ended without reaching it: every block of the grid "
            "must reach each grid.sync (the GPU would hang)"
        )


def _block_index(b: int, grid: tuple[int, int, int]) -> tuple[int, int, int]:
    return (b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1]))


def _block_records(block: tuple[int, int, int]) -> np.ndarray:
    """The thread records of a block (``simulation.THREAD_DTYPE``), their indices set."""
    count = block[0] * block[1] * block[2]
    threads = np.zeros(count, sim.THREAD_DTYPE)
    linear = np.arange(count, dtype=np.int32)
    threads["linear"] = linear
    threads["tid"][:, 0] = linear % block[0]
    threads["tid"][:, 1] = linear // block[0] % block[1]
    threads["tid"][:, 2] = linear // (block[0] * block[1])
    return threads


def _launch_words(grid: tuple[int, int, int], block: tuple[int, int, int], shared: int) -> np.ndarray:
    """runtime.ll's @__sim.launch: block index (set per block), block and grid shapes, dynamic
    shared bytes, threads per block, status."""
    return np.array([0, 0, 0, *block, *grid, shared, block[0] * block[1] * block[2], 0], dtype=np.int32)


def _problem(
    function: HostFunction, copy: LoadedCopy, failed: int, grid: tuple[int, int, int], block: tuple[int, int, int]
) -> BaseException:
    """The exception of what stopped block *failed* (the launch's order)."""
    name, where = function.name, _block_index(failed, grid)
    if _state.finding is not None:
        return copy.finding_error(name, _state.finding, function.module.sites, block, grid)
    if _state.error is not None:
        return type(_state.error)(f"kernel {name}, block {where}: {_state.error}")
    heap = ""
    if function.module.allocates:  # the device runtime traps where the heap has no room left
        heap = (
            "; it allocates in device code: where it printed 'cumlir NRT: the device heap is exhausted', an "
            "allocation found no room (the simulator's device heap is the host's memory)"
        )
    return SimulatorError(f"kernel {name}, block {where} trapped (an assertion or a trap instruction failed){heap}")


class HostModule:
    """A kernel's host code: its first copy compiled when loaded, others on demand."""

    def __init__(self, image: bytes) -> None:
        binding = _binding()
        module = binding.parse_bitcode(image)
        math_library.bind(binding, module)
        _check_resolved(binding, module)
        self._image = image
        self._copies: list[LoadedCopy | None] = [LoadedCopy(binding, image)]
        self._building: set[int] = set()
        self._lock = threading.Lock()
        first = self._copies[0]
        assert first is not None
        self.sites = json.loads(first.string("__sim.sites"))
        self.pointer_parameters = [i for i, kind in enumerate(first.string("__sim.parameters")) if kind == "p"]
        self.kernels = {f.name for f in module.functions if not f.is_declaration and not f.name.startswith("__sim.")}
        self.static_shared = sum(size for name, (_, size) in first.shared_variables.items() if name != DYNAMIC)
        self.resources = _resources(first, module, self.static_shared)
        self.dynamic_shared = first.sizes.get(DYNAMIC, 0)
        self.checked = "__sim.checked" in first.sizes
        self.grid_sync = "__sim.grid_sync" in first.sizes  # its launches keep every block under way
        self.allocates = STATS_GLOBAL in first.sizes  # it links the device runtime (nrt.md)
        self.parallelism = max(1, min(os.cpu_count() or 1, 8))

    def copy(self, k: int) -> LoadedCopy | None:
        """The *k*-th copy of the code, compiled by this call the first time; None while
        another thread compiles it."""
        with self._lock:
            while len(self._copies) <= k:
                self._copies.append(None)
            found = self._copies[k]
            if found is not None or k in self._building:
                return found
            self._building.add(k)
        made = LoadedCopy(_binding(), self._image)
        with self._lock:
            self._copies[k] = made
            self._building.discard(k)
        return made

    def gather_exceptions(self) -> bool:
        """Whether a thread raised an exception the runtime reports: the record of any copy
        moved to the first's, where the runtime reads it (it comes before anything that
        followed from it)."""
        first = self._copies[0]
        assert first is not None
        if "cumlir_exception" not in first.sizes:
            return False
        target = first.address("cumlir_exception")
        for other in self._copies[1:]:
            if other is None:
                continue
            record = other.address("cumlir_exception")
            if ctypes.c_int64.from_address(record).value:
                if not ctypes.c_int64.from_address(target).value:
                    ctypes.memmove(target, record, 16)
                ctypes.memset(record, 0, 16)
        return bool(ctypes.c_int64.from_address(target).value)

    def function(self, name: str) -> HostFunction:
        if name not in self.kernels:
            raise KeyError(name)
        return HostFunction(self, name)

    def global_address(self, name: str) -> tuple[int, int]:
        return self._copies[0].global_address(name)  # type: ignore[union-attr]


def _resources(first: LoadedCopy, module: Any, static_shared: int) -> dict[str, int]:
    """What the code says of itself, as cuFuncGetAttribute names it: its static shared and
    constant memory, its threads' stack, its launch bounds (where it has them)."""
    constant = sum(first.sizes.get(g.name, 0) for g in module.global_variables if "addrspace(4)" in str(g.type))
    found = {"SHARED_SIZE_BYTES": static_shared, "CONST_SIZE_BYTES": constant}
    if "__sim.local_bytes" in first.sizes:
        found["LOCAL_SIZE_BYTES"] = ctypes.c_int64.from_address(first.address("__sim.local_bytes")).value
    if "__sim.max_threads" in first.sizes and (most := first.word("__sim.max_threads").value):
        found["MAX_THREADS_PER_BLOCK"] = most
    return found


def _check_resolved(binding: Any, module: Any) -> None:
    """Every function the code calls exists in the process (an unresolved one would end it
    when the code is compiled)."""
    for function in module.functions:
        name = function.name
        if not function.is_declaration or name.startswith("llvm.") or binding.address_of_symbol(name):
            continue
        found = getattr(_process, name, None) if name in _FROM_THE_C_LIBRARY or math_library.in_libm(name) else None
        if found is not None:
            binding.add_symbol(name, ctypes.cast(found, ctypes.c_void_p).value)
        else:
            raise NotSimulated(f"the function {name} the kernel calls has no host form in the simulator")


def load_module(image: bytes) -> HostModule:
    """The module of host code *image* (what the "cpu" code generator's cubin stage made)."""
    return HostModule(image)
