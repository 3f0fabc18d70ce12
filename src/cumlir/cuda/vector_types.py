"""``cuda.vector_types``: CUDA's vector types by name, as numba-cuda-mlir's module holds them
(``from cumlir.cuda.vector_types import float32x4, float4``): the same objects as
``cuda.float32x4`` and ``cuda.float4`` (vector_types.md)."""

import importlib as _importlib
import typing as _typing


def _vectors():
    return _importlib.import_module("cumlir.operations.cuda.vectors")


def _names() -> list[str]:
    names = []
    for name, constructor in _vectors().constructors.items():
        names += [name, *constructor.aliases]
    return names


def __getattr__(name: str) -> _typing.Any:
    if name == "__all__":
        return _names()
    if name in _names():
        return _importlib.import_module("cumlir.operations").stub(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_names()))
