"""Thread indexing: ``threadIdx``, ``blockIdx``, ``blockDim``, ``gridDim`` (.x/.y/.z, int32),
``grid(ndim)`` and ``gridsize(ndim)`` (int64, or a tuple of ndim int64)."""

from .. import Namespace, Stub
from .._support.modules import arith, errors, ir, templates, types
from .._support.registers import read_register

threadIdx = Namespace("threadIdx", "The thread's index within its block.")
blockIdx = Namespace("blockIdx", "The block's index within the grid.")
blockDim = Namespace("blockDim", "The shape of a block, in threads.")
gridDim = Namespace("gridDim", "The shape of the grid, in blocks.")


for _register in (threadIdx, blockIdx, blockDim, gridDim):

    @_register.attribute("x", "y", "z")
    def _component_type(attr):
        return types.int32

    @_register.lower_attribute("x", "y", "z")
    def _component(lower, attr, register=_register.__name__):
        return read_register(register, attr)

    _register.prints_attributes("x", "y", "z")  # Numba-CUDA's Dim3: (x, y, z)


grid = Stub(
    "grid",
    "grid(ndim): the thread's absolute position in the grid; an int64 for ndim=1, else a tuple of ndim int64.",
)
gridsize = Stub(
    "gridsize",
    "gridsize(ndim): the grid's shape in threads; an int64 for ndim=1, else a tuple of ndim int64.",
)


def _grid_typer(name):
    def typer(*args, **kws):
        if kws or len(args) != 1:
            raise errors.TypingError(f"cuda.{name}() takes exactly one argument, the number of dimensions")
        (ndim,) = args
        if not isinstance(ndim, types.IntegerLiteral):
            raise errors.TypingError(f"cuda.{name}(ndim) needs ndim to be a constant 1, 2 or 3, got {ndim}")
        n = ndim.literal_value
        if n == 1:
            return templates.signature(types.int64, types.int32)
        if n in (2, 3):
            return templates.signature(types.UniTuple(types.int64, n), types.int32)
        raise errors.TypingError(f"cuda.{name}(ndim) needs ndim to be 1, 2 or 3, got {n}")

    return typer


grid.typer(_grid_typer("grid"))
gridsize.typer(_grid_typer("gridsize"))


def _wide(register, axis):
    return arith.extui(ir.IntegerType.get_signless(64), read_register(register, axis))


def _global_id(axis):
    # int64 arithmetic so that grids of more than 2**31 threads index correctly
    block_start = arith.muli(_wide("blockIdx", axis), _wide("blockDim", axis))
    return arith.addi(block_start, _wide("threadIdx", axis))


def _threads_in_grid(axis):
    return arith.muli(_wide("blockDim", axis), _wide("gridDim", axis))


def _per_axis(lower, sig, compute):
    ty = sig.return_type
    if isinstance(ty, types.UniTuple):
        return lower.make_struct(ty, [compute(axis) for axis in "xyz"[: ty.count]])
    return compute("x")


@grid.lower("Any")
def _grid(lower, sig, args):
    return _per_axis(lower, sig, _global_id)


@gridsize.lower("Any")
def _gridsize(lower, sig, args):
    return _per_axis(lower, sig, _threads_in_grid)
