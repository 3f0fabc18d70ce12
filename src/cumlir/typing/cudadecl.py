"""Typing declarations for the CUDA intrinsics of ``cumlir.cuda`` (thread indexing)."""

from numba.core import types
from numba.core.errors import TypingError
from numba.core.typing.templates import AbstractTemplate, AttributeTemplate, signature

from ..cuda import stubs
from . import cudatypes
from .registry import register_attr, register_global

for _stub, _type in (
    (stubs.threadIdx, cudatypes.thread_idx),
    (stubs.blockIdx, cudatypes.block_idx),
    (stubs.blockDim, cudatypes.block_dim),
    (stubs.gridDim, cudatypes.grid_dim),
):
    register_global(_stub, _type)


@register_attr
class Dim3Attributes(AttributeTemplate):
    key = cudatypes.Dim3Register

    def resolve_x(self, ty):
        return types.int32

    def resolve_y(self, ty):
        return types.int32

    def resolve_z(self, ty):
        return types.int32


def _grid_result(name, args, kws):
    if kws or len(args) != 1:
        raise TypingError(f"cuda.{name}() takes exactly one argument, the number of dimensions")
    (ndim,) = args
    if not isinstance(ndim, types.IntegerLiteral):
        raise TypingError(f"cuda.{name}(ndim) needs ndim to be a constant 1, 2 or 3, got {ndim}")
    n = ndim.literal_value
    if n == 1:
        return signature(types.int64, types.int32)
    if n in (2, 3):
        return signature(types.UniTuple(types.int64, n), types.int32)
    raise TypingError(f"cuda.{name}(ndim) needs ndim to be 1, 2 or 3, got {n}")


class GridTemplate(AbstractTemplate):
    key = stubs.grid

    def generic(self, args, kws):
        return _grid_result("grid", args, kws)


class GridsizeTemplate(AbstractTemplate):
    key = stubs.gridsize

    def generic(self, args, kws):
        return _grid_result("gridsize", args, kws)


register_global(stubs.grid, types.Function(GridTemplate))
register_global(stubs.gridsize, types.Function(GridsizeTemplate))
