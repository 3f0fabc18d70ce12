"""One JIT-compiled copy of a kernel's host code. Its globals are the shared memory and the
thread state of the blocks it runs, so a launch that runs blocks on several host threads
gives each thread a copy of its own (engine.py); this module holds what is per copy: the
engine, its ``__sim.run``, the shadow of its shared memory (the checks) and the text of
what those checks find."""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import numpy as np

from .errors import SharedMemoryRace, SimulatorError, UninitializedSharedRead

_RUN = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32
)
_RESUME = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32)
# what the checks keep per block besides the shadow (runtime.ll): each thread's counts of
# barriers and warp synchronizations passed, and the block's serial
_CHECK_STATE = ("__sim.barriers", "__sim.syncs", "__sim.sync_masks", "__sim.serial")
_SHADOW_WORDS = 10  # per shared byte (runtime.ll, "the checks of shared memory")
_MAX_RANGES = 8
DYNAMIC = "cumlir_dynamic_shared"


class LoadedCopy:
    """A copy of a module's code and globals (the bitcode *image*, compiled for this host)."""

    def __init__(self, binding: Any, image: bytes) -> None:
        module = binding.parse_bitcode(image)
        machine = binding.Target.from_default_triple().create_target_machine(opt=2)
        self._engine = binding.create_mcjit_compiler(module, machine)
        self._engine.finalize_object()
        self.sizes = {g.name: _size(machine, g) for g in module.global_variables}
        self.shared_variables = {
            g.name: self.global_address(g.name) for g in module.global_variables if "addrspace(3)" in str(g.type)
        }
        self.run = _RUN(self._engine.get_function_address("__sim.run"))
        self.resume = _RESUME(self._engine.get_function_address("__sim.resume"))
        self.serial_base = 0
        self._shadow: np.ndarray | None = None
        self.running = threading.Lock()  # one launch at a time: the globals are its blocks' shared memory

    def address(self, name: str) -> int:
        return int(self._engine.get_global_value_address(name))

    def global_address(self, name: str) -> tuple[int, int]:
        if name not in self.sizes:
            raise KeyError(name)
        return self.address(name), self.sizes[name]

    def word(self, name: str) -> ctypes.c_int32:
        return ctypes.c_int32.from_address(self.address(name))

    def string(self, name: str) -> str:
        size = ctypes.c_int64.from_address(self.address(f"{name}.size")).value
        return ctypes.string_at(self.address(name), size).decode()

    def shared_ranges(self, dynamic: int) -> list[tuple[int, int]]:
        """(address, size) of the shared variables and of the first *dynamic* bytes of the
        dynamic shared memory."""
        ranges = [(address, size) for name, (address, size) in self.shared_variables.items() if name != DYNAMIC]
        if dynamic and DYNAMIC in self.sizes:  # a kernel that never reads it has none
            ranges.append((self.address(DYNAMIC), dynamic))
        return [r for r in ranges if r[1]]

    def watch_shared(self, dynamic: int) -> None:
        """A fresh shadow of the shared variables and of the first *dynamic* bytes of the
        dynamic shared memory, where the code's checks find it."""
        ranges = self.shared_ranges(dynamic)[:_MAX_RANGES]
        shadow = np.zeros((max(sum(size for _, size in ranges), 1), _SHADOW_WORDS), np.int32)
        table = (ctypes.c_int64 * (3 * _MAX_RANGES)).from_address(self.address("__sim.ranges"))
        offset = 0
        for k, (address, size) in enumerate(ranges):
            table[3 * k], table[3 * k + 1], table[3 * k + 2] = address, address + size, offset
            offset += size
        self.word("__sim.range_count").value = len(ranges)
        first = min((address for address, _ in ranges), default=0)
        end = max((address + size for address, size in ranges), default=0)
        ctypes.c_int64.from_address(self.address("__sim.watched_first")).value = first
        ctypes.c_int64.from_address(self.address("__sim.watched_span")).value = end - first
        self.word("__sim.reported").value = 0
        self.serial_base = self.word("__sim.serial").value
        ctypes.c_void_p.from_address(self.address("__sim.shadow")).value = shadow.ctypes.data
        self._shadow = shadow  # alive until the next launch on this copy

    def fresh_shadow(self) -> None:
        """A shadow of its own for the next block (one of a cooperative launch's blocks, all
        of which are under way at once)."""
        if self._shadow is not None:
            self._shadow = np.zeros_like(self._shadow)
            ctypes.c_void_p.from_address(self.address("__sim.shadow")).value = self._shadow.ctypes.data

    def block_state(self, dynamic: int) -> tuple[list[tuple[int, bytes]], np.ndarray | None]:
        """What a block parked at a grid barrier leaves in this copy's globals (its shared
        memory and what the checks know of it), for ``restore`` when it runs on."""
        ranges = self.shared_ranges(dynamic) + [self.global_address(n) for n in _CHECK_STATE if n in self.sizes]
        return [(address, ctypes.string_at(address, size)) for address, size in ranges], self._shadow

    def restore(self, state: tuple[list[tuple[int, bytes]], np.ndarray | None]) -> None:
        saved, shadow = state
        for address, data in saved:
            ctypes.memmove(address, data, len(data))
        if shadow is not None:
            self._shadow = shadow
            ctypes.c_void_p.from_address(self.address("__sim.shadow")).value = shadow.ctypes.data

    def finding_error(
        self,
        kernel: str,
        finding: tuple[int, int, int, int, int, int],
        sites: list[str],
        block: tuple[int, int, int],
        grid: tuple[int, int, int],
    ) -> SimulatorError:
        """The exception of what the shared memory checks found (runtime.ll's kinds)."""
        kind, site, thread, other, other_site, address = finding
        b = self.word("__sim.reported").value - self.serial_base - 1  # the block, in the launch's order
        where = (b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1]))

        def tid(t: int) -> tuple[int, ...]:
            return (t % block[0], t // block[0] % block[1], t // (block[0] * block[1]))

        variable, offset = self._variable_at(address)
        location = f"byte {offset} of shared array {variable}"
        first = f"kernel {kernel}, block {where}, thread {tid(thread)} at {sites[site]}"
        if kind == 1:
            return UninitializedSharedRead(f"{first} reads {location}, which no thread of the block has written")
        what = {2: "reads", 3: "writes", 4: "writes"}[kind]
        before = {2: "written", 3: "written", 4: "read"}[kind]
        return SharedMemoryRace(
            f"{first} {what} {location}, {before} by thread {tid(other)} at {sites[other_site]} "
            "with no syncthreads (or syncwarp) between them: a data race"
        )

    def _variable_at(self, address: int) -> tuple[str, int]:
        for name, (first, size) in self.shared_variables.items():
            if first <= address < first + max(size, 1) or (name == DYNAMIC and address >= first):
                return ("(dynamic)" if name == DYNAMIC else name), address - first
        return "?", 0


def _size(machine: Any, variable: Any) -> int:
    try:
        return int(machine.target_data.get_abi_size(variable.global_value_type))
    except Exception:  # an opaque or unsized type
        return 0
