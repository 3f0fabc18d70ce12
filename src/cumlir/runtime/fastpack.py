"""The launch fast path: a parameter buffer filled in place by a packer made once per
loaded kernel and tuple of argument kinds (the arguments' exact Python types).

A Route holds what a launch with arguments of those kinds needs after its first,
general launch: the loaded kernel's CUfunction, one parameter buffer with its array of
pointers to the parameters (built once: the driver reads the values through it), and
``fill(args)``, a function generated for the kinds that writes every parameter with one
``struct.pack_into`` of a precomputed format. Scalars go into it as they are (the kinds
fix their types), converted only where the general path converts them (a float for an
integer parameter of an eager signature, a complex number's two parts); arrays through
their kind's reader (runtime/readers.py); tuples of scalars member by member.

``fill`` returns False when an argument is not of the type the route was made for (an
array of another dtype or layout, a tuple of other member kinds), and raises where a
value does not fit its parameter: either way the caller takes the general path, which
types the arguments again and raises the general path's error. Kinds the route does not
read (NumPy arrays, which are copied around the launch, records, objects that only
speak DLPack, tuples holding arrays) get no route (``build_route`` returns None).

A route of a kernel compiled with 32-bit element offsets (the narrow class: every array
spans less than 2**31 bytes, runtime/address_spans.py) checks each array's span and
declines one too large: the general path launches the kernel's wide class for it.

A route is checked when made: ``fill`` must write the bytes the general packer
(runtime/arguments.py) writes for the same arguments, or no route is made.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import driver as drv
from . import nrt_stats, readers, tensor_maps
from .address_spans import element_span_fits
from .arguments import (
    SLOT,
    _ArrayParameter,
    _ComplexParameter,
    _PointerParameter,
    _ScalarParameter,
    _TensorMapParameter,
    _TupleParameter,
)
from .layout import cai_dtype
from .readers import Reader, make_reader

if TYPE_CHECKING:
    from typing import NoReturn

    from numba.core import types

    from .arguments import Parameter
    from .kernel import LoadedKernel
    from .plain_types import PlainArray, PlainType

# the kinds whose values are scalars typed by their kind alone
_SCALAR_KINDS = (bool, int, float, complex, np.bool_, np.integer, np.floating, np.complexfloating)
_INT_FORMATS = set("bBhHiIqQ")


def _is_scalar_kind(kind: type) -> bool:
    return issubclass(kind, _SCALAR_KINDS) and not issubclass(kind, np.timedelta64)


class _Builder:
    """The source of ``fill`` and its struct format, argument by argument."""

    def __init__(self, ordinal: int, narrow: bool = False, narrowable: bool = False) -> None:
        self.ordinal = ordinal
        self.narrow = narrow  # each array's span checked (the kernel has 32-bit offsets)
        # a wide kernel whose narrow class a launch may take: declines arrays that all fit it
        self.narrowable = narrowable and not narrow
        self.checks: list[str] = []  # lines run after the readers': False where an array spans too much
        self.fitting: list[str] = []  # the narrowable route's span tests, one per array of 2 or more axes
        self.lines: list[str] = []
        self.values: list[str] = []
        self.format = "@"  # native, as the general packer: a float too large for float32 is inf
        self.names: dict[str, Any] = {
            "_int": int,
            "_float": float,
            "_complex": complex,
            "_type": type,
            "_map": map,
            "_tuple": tuple,
        }
        self.readers: list[tuple[int, Reader]] = []  # (argument index, Reader)

    def slot(self, code: str, fmt: str) -> None:
        size = struct.calcsize("@" + fmt)
        self.values.append(code)
        self.format += fmt + (f"{SLOT - size}x" if size < SLOT else "")

    def add(
        self, parameter: Parameter, kind: type, ty: types.Type | PlainType | None, name: str, value: Any, index: int
    ) -> bool:
        """Code for one argument; False where the fast path does not take it."""
        if isinstance(parameter, _ScalarParameter):
            return _is_scalar_kind(kind) and self._scalar(parameter.format, kind, name)
        if isinstance(parameter, _ComplexParameter):
            if not _is_scalar_kind(kind):
                return False
            self.lines.append(f"    {name}_c = _complex({name})")
            part = parameter._format[0]
            self.slot(f"{name}_c.real", part)
            self.slot(f"{name}_c.imag", part)
            return True
        if isinstance(parameter, _PointerParameter):
            return self._pointer(kind, name)
        if isinstance(parameter, _ArrayParameter):
            return self._array(parameter, kind, ty, name, value, index)  # type: ignore[arg-type]  # an array's: an Array
        if isinstance(parameter, _TupleParameter):
            return self._tuple(parameter, kind, ty, name, value, index)
        if isinstance(parameter, _TensorMapParameter):
            return self._tensor_map(parameter, kind, name)
        return False

    def _scalar(self, fmt: str, kind: type, name: str) -> bool:
        if fmt in _INT_FORMATS:
            direct = issubclass(kind, (int, np.integer))  # bool is an int
            self.slot(name if direct else f"_int({name})", fmt)
        elif fmt == "?":
            self.slot(name, fmt)
        elif issubclass(kind, (complex, np.complexfloating)):
            self.slot(f"_float({name})", fmt)  # raises as the general path does
        else:
            self.slot(name, fmt)
        return True

    def _pointer(self, kind: type, name: str) -> bool:
        if issubclass(kind, bool) or not issubclass(kind, (int, np.integer, ctypes.c_void_p)):
            return False
        self.slot(f"({name}.value or 0)" if issubclass(kind, ctypes.c_void_p) else name, "Q")
        return True

    def _tensor_map(self, parameter: _TensorMapParameter, kind: type, name: str) -> bool:
        """Its 128 bytes, read from the driver's CUtensorMap; a map of another rank than the
        kernel's takes the general path."""
        tiled = issubclass(kind, tensor_maps.TiledTensorMap)
        if not tiled and not tensor_maps.is_driver_tensor_map_kind(kind):
            return False
        rank = parameter.type.rank
        if tiled and rank is not None:
            self.lines.append(f"    if {name}.rank != {rank}: return False")
        self.names["_descriptor_bytes"] = tensor_maps.descriptor_bytes
        self.slot(f"_descriptor_bytes({name})", f"{tensor_maps.DESCRIPTOR_BYTES}s")
        return True

    def _array(
        self,
        parameter: _ArrayParameter,
        kind: type,
        ty: types.Array | PlainArray | None,
        name: str,
        value: Any,
        index: int,
    ) -> bool:
        if parameter._byte_strides or parameter._alignment > 1 or ty is None:
            return False
        reader = make_reader(value, ty, self.ordinal)
        if reader is None:
            return False
        itemsize = _itemsize(value, ty)
        if self.narrow and itemsize is None:
            return False
        self.readers.append((index, reader))
        self.format += "Qq" + "q" * (2 * parameter.ndim)
        if reader.inline is not None:  # the reader's own lines, without a call and a tuple
            lines, values, names = reader.inline(name)
            self.lines += [f"    {line}" for line in lines]
            self._check_span(itemsize, parameter.ndim, f"({', '.join(values)},)")
            self.values += values
            self.names.update(names)
            return True
        self.names[f"{name}_read"] = reader.read
        self.lines.append(f"    {name}_v = {name}_read({name})")
        self.lines.append(f"    if {name}_v is None: return False")
        self._check_span(itemsize, parameter.ndim, f"{name}_v")
        self.values.append(f"*{name}_v")
        return True

    def _check_span(self, itemsize: int | None, ndim: int, slots: str) -> None:
        # 1-d offsets stay 64-bit in every class (operations/_support/elements.py): no check to pay
        if ndim < 2 or not (self.narrow or self.narrowable):
            return
        self.names["_fits"] = element_span_fits
        if self.narrow:
            self.checks.append(f"    if not _fits({itemsize}, {ndim}, {slots}): return False")
        else:
            self.fitting.append(f"_fits({itemsize}, {ndim}, {slots})")

    def _tuple(
        self,
        parameter: _TupleParameter,
        kind: type,
        ty: types.Type | PlainType | None,
        name: str,
        value: Any,
        index: int,
    ) -> bool:
        if not issubclass(kind, tuple) or len(value) != len(parameter.members):
            return False
        kinds = tuple(map(type, value))
        member_types = getattr(ty, "types", (None,) * len(kinds))
        if not all(_is_scalar_kind(k) or issubclass(k, tuple) for k in kinds):
            return False
        self.names[f"{name}_kinds"] = kinds
        members = [f"{name}_{k}" for k in range(len(kinds))]
        self.lines.append(f"    if _tuple(_map(_type, {name})) != {name}_kinds: return False")
        self.lines.append(
            f"    {', '.join(members)}{',' if len(members) == 1 else ''} = {name}" if members else "    pass"
        )
        for member, k, t, v, m in zip(parameter.members, kinds, member_types, value, members):
            if isinstance(member, _ArrayParameter) or not self.add(member, k, t, m, v, index):
                return False
        return True

    def function(
        self, kinds: tuple[type, ...], buffer: ctypes.Array[ctypes.c_uint8]
    ) -> tuple[Callable[..., bool], int]:
        pack = struct.Struct(self.format)
        self.names["_pack"] = pack.pack_into
        self.names["_buffer"] = buffer
        self.kinds = kinds
        head = f"def fill({', '.join(f'a{i}' for i in range(len(kinds)))}):"
        return _define("fill", head, self._packing() + ["    return True"], self.names), pack.size

    def _packing(self) -> list[str]:
        # arrays that all fit the narrow class go to the general path, which launches it
        fitting = [f"    if {' and '.join(self.fitting)}: return False"] if self.fitting else []
        return (
            self.lines
            + self.checks
            + fitting
            + [f"    _pack(_buffer, 0, {', '.join(self.values)})" if self.values else "    pass"]
        )

    def launcher(
        self, names: Mapping[str, Any], waits: tuple[tuple[Callable[[Any], int | None], int], ...]
    ) -> Callable[..., bool]:
        """``launch(*args)``: pack and launch (True), or False, having launched nothing,
        where the general path must take the arguments: others than the route's kinds (in
        number or type), a retired route. *names* binds the launch's constants."""
        nargs = len(self.kinds)
        arguments = ", ".join(f"a{i}" for i in range(nargs))
        names = {**names, **{f"_k{i}": kind for i, kind in enumerate(self.kinds)}, "_absent": _Absent()}
        head = f"def launch({''.join(f'a{i}=_absent, ' for i in range(nargs))}*more):"
        kinds = "".join(f" or type(a{i}) is not _k{i}" for i in range(nargs))
        tail = [
            # read at each launch: a context released (cuda.close()) has None, and the primary
            # context made after it may have the same handle, in which this kernel is not loaded
            "    if not _current()[1] == _context.launch_handle:",
            "        return False",
            *_waiting(waits, arguments + ("," if nargs == 1 else "")),
            "    _result = _launch(_function, _g0, _g1, _g2, _g3, _g4, _g5, _shared, _custream, _params, 0)",
        ]
        body = [f"    if more or not _live[0]{kinds}:", "        return False"]
        if self.values:  # a parameter buffer: one launch at a time fills it
            body += ["    if not _acquire(False):", "        return False", "    try:", "        try:"]
            body += ["        " + line for line in self._packing()]
            body += ["        except Exception:", "            return False"]
            body += ["    " + line for line in tail] + ["    finally:", "        _release()"]
        else:
            body += tail
        body += ["    if _result[0]:", "        _fail(_result)", "    return True"]
        return _define("launch", head, body, {**self.names, **names})


class _Absent:
    """An argument a launch function was not given: of no argument kind."""


def _waiting(waits: tuple[tuple[Callable[[Any], int | None], int], ...], arguments: str) -> list[str]:
    """Lines asking the producers of the launch's arrays for their streams (a CuPy array's
    is its current stream, read directly), and calling Route.wait only if one is neither
    the launch's stream nor a stream the launch is ordered after anyway (``_skip``)."""
    if not waits:
        return []
    asked = []
    for k, (producer, index) in enumerate(waits):
        parts = getattr(producer, "parts", None)
        asked.append(f"(_c{k}() or _d{k})" if parts else f"_p{k}(a{index})")
    test = " or ".join(f"{stream} not in _skip" for stream in asked)
    return [f"    if {test}:", f"        _wait(({arguments}), _stream)"]


def _define(name: str, head: str, body: list[str], names: Mapping[str, Any]) -> Callable[..., Any]:
    """The function *name* of *head* and *body* (indented lines) over *names*."""
    namespace = dict(names)
    exec("\n".join([head, *body]), namespace)  # the arguments' own code, written once
    return namespace[name]


class Route:
    """The fast launch of one loaded kernel with arguments of one tuple of kinds and types."""

    def __init__(
        self,
        kernel: LoadedKernel,
        fill: Callable[..., bool],
        buffer: ctypes.Array[ctypes.c_uint8],
        pointers: ctypes.Array[ctypes.c_void_p] | None,
        array_readers: Iterable[tuple[int, Reader]],
        builder: _Builder,
    ) -> None:
        self.kernel = kernel
        self.builder = builder
        self.narrow = builder.narrow  # the kernel's class: 32-bit offsets
        self.context = kernel.record.context
        self.function = kernel.record.function
        self.shared = kernel.record.shared
        self.fill = fill
        self.buffer, self.pointers = buffer, pointers
        self.params = ctypes.addressof(pointers) if pointers is not None else 0
        self.lock = threading.Lock()  # one launch at a time fills the buffer
        self.live = [True]  # [False] once retired: its launch functions decline
        self.waits = _waits(array_readers) if readers.SYNC else ()
        cu = drv.driver()
        self.current = cu.cuCtxGetCurrent
        self.launch = cu.cuLaunchKernel
        if kernel.uses_runtime:  # its launches are remembered, to name it if the device heap runs out
            self.launch = _noting_launch(kernel, cu.cuLaunchKernel)

    def fail(self, result: tuple[Any, ...]) -> None:
        try:
            drv.check("cuLaunchKernel", result)
        except drv.CudaDriverError as e:
            e.doing(f"launching kernel {self.kernel.name}")
            raise

    def retire(self) -> None:
        """Compiled signatures changed: launches of these kinds must be typed again."""
        self.live[0] = False

    def launcher(self, geometry: Sequence[int], custream: Any, stream: int) -> Callable[..., bool]:
        """``launch(*args)`` for one launch configuration (*geometry* as cuLaunchKernel takes
        it, the stream as given and as a CUstream): fills the parameters and launches, True;
        or False, having launched nothing, where the general path must take the arguments
        (a value that does not fit, another context current, another launch filling)."""
        names: dict[str, Any] = {f"_g{k}": value for k, value in enumerate(geometry[:6])}
        names.update(
            _shared=geometry[6],
            _custream=custream,
            _stream=stream,
            _params=self.params,
            _function=self.function,
            _launch=self.launch,
            _current=self.current,
            _context=self.context,
            _fail=self.fail,
            _wait=self.wait,
            _acquire=self.lock.acquire,
            _release=self.lock.release,
            _live=self.live,
        )
        names["_skip"] = frozenset((None, stream, 1) if stream == 0 else (None, stream))
        for k, (producer, _) in enumerate(self.waits):
            names[f"_p{k}"] = producer
            names[f"_c{k}"], names[f"_d{k}"] = getattr(producer, "parts", (None, None))
        return self.builder.launcher(names, self.waits)

    def wait(self, args: Sequence[Any], stream: int) -> None:
        """CUDA Array Interface: wait for the streams the array arguments name."""
        done = []
        for producer, index in self.waits:
            other = producer(args[index])
            if other is None or other == stream or other == 1 and stream == 0 or other in done:
                continue
            drv.check("cuStreamSynchronize", drv.driver().cuStreamSynchronize(other))
            done.append(other)


def _noting_launch(kernel: LoadedKernel, launch: Callable[..., Any]) -> Callable[..., Any]:
    def noting(*args: Any) -> Any:
        nrt_stats.note_launch(kernel)
        return launch(*args)

    return noting


def _waits(readers: Iterable[tuple[int, Reader]]) -> tuple[tuple[Callable[[Any], int | None], int], ...]:
    waits: list[tuple[Callable[[Any], int | None], int]] = []
    for index, reader in readers:
        producer = reader.producer
        if producer is None or getattr(producer, "per_launch", False) and any(p is producer for p, _ in waits):
            continue
        waits.append((producer, index))
    return tuple(waits)


class _Packed:
    """Stands for a launch while the general packer packs a route's first arguments:
    nothing is staged and no stream waits."""

    stream = -1  # DLPack's "no ordering"

    def stage_host_array(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise _NotFast

    def wait_for_producer(self, stream: int | None) -> None:
        pass


class _NotFast(Exception):
    pass


def _itemsize(sample: Any, ty: types.Array | PlainArray) -> int | None:
    """The item size of an array argument like *sample* (of type *ty*), or None where it is
    not read simply."""
    itemsize = getattr(getattr(sample, "dtype", None), "itemsize", None)
    if isinstance(itemsize, int):
        return itemsize
    try:
        return cai_dtype(sample.__cuda_array_interface__).itemsize
    except Exception:
        pass
    try:
        return np.dtype(str(ty.dtype)).itemsize  # a NumPy number's name (cuda.core buffers)
    except (TypeError, AttributeError):
        return None


def build_route(
    kernel: LoadedKernel,
    kinds: tuple[type, ...],
    argtypes: Sequence[types.Type | PlainType],
    args: Sequence[Any],
    narrowable: bool = False,
) -> Route | None:
    """The Route launching *kernel* (a LoadedKernel, read through its LaunchRecord) with
    arguments like *args* (of exact types *kinds*, typed *argtypes*), or None where the
    general path must take such arguments. A kernel with 32-bit offsets (``kernel.narrow``)
    gets a route declining an array spanning 2**31 bytes or more; a kernel with 64-bit
    offsets whose narrow class a launch may take (*narrowable*) one declining launches
    whose arrays all span less, so that they take the narrow class."""
    record = kernel.record
    if kernel.cooperative or record.raise_sites or kernel.extensions:
        return None
    packer = record.packer
    builder = _Builder(record.context.ordinal, getattr(kernel, "narrow", False), narrowable)
    for index, (parameter, kind, ty, value) in enumerate(zip(packer.parameters, kinds, argtypes, args)):
        if not builder.add(parameter, kind, ty, f"a{index}", value, index):
            return None
    slots = packer.slots
    buffer = (ctypes.c_uint8 * max(SLOT * slots, SLOT))()
    fill, size = builder.function(kinds, buffer)
    if size != SLOT * slots:
        return None
    try:
        _, expected = packer.pack(args, _Packed())
        if not fill(*args) or bytes(buffer) != bytes(expected):
            return None
    except Exception:  # a value the general path refuses: no route for it
        return None
    pointers = None
    if packer.offsets:
        base = ctypes.addressof(buffer)
        pointers = (ctypes.c_void_p * len(packer.offsets))(*[base + offset for offset in packer.offsets])
    return Route(kernel, fill, buffer, pointers, builder.readers, builder)
