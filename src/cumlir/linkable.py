"""Code to link with kernels: ``@cuda.jit(link=[...])`` and ``cuda.declare_device(..., link=...)``.

Each kind holds bytes (or CUDA C++ text) and knows the nvJitLink input type it
becomes. A path is read when the kernel is linked; its kind is guessed from its suffix.
An ``io.StringIO``/``io.BytesIO`` is read when used too, as in Numba-CUDA: libraries that
generate glue code while kernels are lowered (Numbast's shims) append to one stream.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from typing import TypeAlias

    # a link item as the options hold it: code, or a path read when the kernel is linked
    LinkItem: TypeAlias = "LinkableCode | _LazyPath"


class LinkableCode:
    """Code in some form nvJitLink can link; ``name`` labels it in error messages.

    ``nrt=True`` says the code calls cumlir's device runtime (``nrt.cuh``, docs/nrt.md):
    a kernel linking it gets the runtime linked too (and needs NRT switched on).
    ``setup_callback`` and ``teardown_callback``, as Numba-CUDA's, are called with the
    module (an object whose ``handle`` is its ``CUmodule``) once after each module linking
    this code is loaded, and just before it is unloaded: to set its globals, for instance."""

    kind: str | None = None  # the nvJitLink InputType name
    suffixes: tuple[str, ...] = ()

    def __init__(
        self,
        data: bytes | bytearray | str | io.StringIO | io.BytesIO,
        name: str | None = None,
        setup_callback: Callable[[Any], object] | None = None,
        teardown_callback: Callable[[Any], object] | None = None,
        nrt: bool = False,
    ) -> None:
        for what, callback in (("setup_callback", setup_callback), ("teardown_callback", teardown_callback)):
            if callback is not None and not callable(callback):
                raise TypeError(f"{type(self).__name__}({what}=...) must be callable, got {callback!r}")
        self.setup_callback = setup_callback
        self.teardown_callback = teardown_callback
        if not isinstance(data, (bytes, bytearray, str, io.StringIO, io.BytesIO)):
            raise TypeError(
                f"{type(self).__name__} holds bytes, text or an io.StringIO/io.BytesIO, not {type(data).__name__}"
            )
        if not isinstance(nrt, bool):
            raise TypeError(f"{type(self).__name__}(nrt=...) must be True or False, got {nrt!r}")
        self._data = data
        self.name = name or f"<{type(self).__name__}>"
        self.nrt = nrt

    @property
    def data(self) -> bytes | bytearray | str:
        """The code now: a stream's contents are read at each use, so later writes count."""
        if isinstance(self._data, (io.StringIO, io.BytesIO)):
            return self._data.getvalue()
        return self._data

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}{' nrt' if self.nrt else ''}>"

    def __eq__(self, other: object) -> bool:
        return (
            type(self) is type(other) and self.data == other.data and self.name == other.name and self.nrt == other.nrt
        )

    def __hash__(self) -> int:
        return hash((type(self), self.name))

    @property
    def bytes(self) -> bytes:
        return self.data.encode() if isinstance(self.data, str) else bytes(self.data)

    @staticmethod
    def from_path(path: str | os.PathLike[str]) -> LinkableCode:
        """The LinkableCode in the file *path*, its kind guessed from the suffix."""
        kind = _kind_of(path)
        mode = "r" if kind is CUSource else "rb"
        with open(path, mode) as f:
            return kind(f.read(), name=os.fspath(path))


class PTXSource(LinkableCode):
    kind = "PTX"
    suffixes = (".ptx",)


class HostCode(LinkableCode):
    """LLVM IR for the host: the simulator's form of a library (the device runtime compiled
    by the "cpu" code generator, docs/simulator.md). nvJitLink does not link it."""

    kind = None


class CUSource(LinkableCode):
    """CUDA C++ source, compiled with NVRTC (to PTX, or to LTO-IR when the link uses LTO)."""

    kind = None
    suffixes = (".cu",)


class LTOIR(LinkableCode):
    kind = "LTOIR"
    suffixes = (".ltoir",)


class Cubin(LinkableCode):
    kind = "CUBIN"
    suffixes = (".cubin",)


class Fatbin(LinkableCode):
    kind = "FATBIN"
    suffixes = (".fatbin",)


class Object(LinkableCode):
    kind = "OBJECT"
    suffixes = (".o", ".obj")


class Archive(LinkableCode):
    kind = "LIBRARY"
    suffixes = (".a", ".lib")


KINDS = (PTXSource, CUSource, LTOIR, Cubin, Fatbin, Object, Archive)
_BY_SUFFIX = {suffix: kind for kind in KINDS for suffix in kind.suffixes}


def _kind_of(path: str | os.PathLike[str]) -> type[LinkableCode]:
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    kind = _BY_SUFFIX.get(suffix)
    if kind is None:
        known = ", ".join(sorted(_BY_SUFFIX))
        raise ValueError(
            f"cannot tell what kind of code {os.fspath(path)!r} holds from its suffix; known suffixes: {known}"
        )
    return kind


def as_linkable(item: object) -> LinkItem:
    """A LinkableCode from a link item: a LinkableCode or a path."""
    if isinstance(item, (LinkableCode, _LazyPath)):
        return item
    if isinstance(item, (str, os.PathLike)):
        _kind_of(item)  # a bad suffix is reported when the item is given, not when linking
        return _LazyPath(os.fspath(item))
    raise TypeError(f"a link item is a path or a LinkableCode (CUSource, PTXSource, LTOIR, ...), not {item!r}")


class _LazyPath:
    """A path given as a link item: read when linked, so the file may be written later."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _LazyPath) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    def __repr__(self) -> str:
        return repr(self.path)

    def load(self) -> LinkableCode:
        if not os.path.exists(self.path):
            raise FileNotFoundError(f"the link item {self.path!r} does not exist")
        return LinkableCode.from_path(self.path)


def load(item: LinkItem) -> LinkableCode:
    return item.load() if isinstance(item, _LazyPath) else item


def uses_nrt(item: object) -> TypeGuard[LinkableCode]:
    """Whether a link item is marked as calling the device runtime (a path never is)."""
    return getattr(item, "nrt", False) is True
