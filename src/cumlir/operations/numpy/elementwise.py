"""The loops of GPU ufuncs (cuda.vectorize, cuda.guvectorize): operations the ufunc kernels
call, not names of the ``cuda`` namespace.

``elementwise(fn, *inputs, out)``: ``out[i...] = fn(inputs[i...])`` for every position of
``out``; array inputs have the shape of ``out`` (broadcast views, strides of 0 where they
repeat), scalar inputs are the same at every position. Lowered as a ``linalg.generic``,
parallel over every axis, whose body calls *fn* (a device function typed for the element
types) and converts its result to the output's element type.

``gufunc_loop(fn, nloop, *operands)``: for every position of the first *nloop* (loop) axes,
``fn(views...)`` where each array operand is seen through its remaining (core) axes at that
position, and an operand *fn* takes as a scalar passes its element. Lowered as an
``scf.parallel`` over the loop axes (the body is a call on views, which linalg's
scalar bodies cannot hold).

Both leave a parallel loop nest in the kernel; the "optimized" stage lowers the linalg op to
``scf.parallel`` and spreads the iterations over the grid (``codegen/parallel_loops.py``),
which the module's ``cumlir.parallel_loops`` mark asks for.
"""

from ...marks import PARALLEL_LOOPS_MARK
from .. import declare
from .._support.modules import arith, errors, ir, linalg, memref, scf, types


class Operation:
    """A function only the kernels the ufunc machinery generates call."""

    def __init__(self, name, doc):
        self.__name__ = self.__qualname__ = name
        self.__doc__ = doc

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__} is part of the kernels of GPU ufuncs; it cannot be called on the host")

    def __repr__(self):
        return f"<cumlir ufunc operation {self.__name__}>"


elementwise = Operation("elementwise", "elementwise(fn, *inputs, out): out[i...] = fn(inputs[i...]) everywhere.")
gufunc_loop = Operation(
    "gufunc_loop", "gufunc_loop(fn, nloop, *operands): fn on the core-axis views at every loop position."
)
_elementwise = declare(elementwise, "cumlir.elementwise")
_gufunc_loop = declare(gufunc_loop, "cumlir.gufunc_loop")


def _check_plain(what, dtype):
    if not isinstance(dtype, (types.Number, types.Boolean)):
        raise errors.TypingError(f"{what}: elements of type {dtype} are not supported by GPU ufuncs")


@_elementwise.typer
def _elementwise_typing(fn, *operands):
    if not operands or not isinstance(operands[-1], types.Array) or operands[-1].ndim < 1:
        raise errors.TypingError("elementwise: the last operand must be the output array (1-d or more)")
    ndim = operands[-1].ndim
    for k, ty in enumerate(operands):
        if isinstance(ty, types.Array):
            if ty.ndim != ndim:
                raise errors.TypingError(f"elementwise: operand {k} has {ty.ndim} axes, the output {ndim}")
            _check_plain(f"elementwise operand {k}", ty.dtype)
        else:
            _check_plain(f"elementwise operand {k}", ty)
    return types.none


def _mark(lower):
    lower.mlir_gpu_module.attributes[PARALLEL_LOOPS_MARK] = ir.UnitAttr.get()


def _element_type(ty):
    return ty.dtype if isinstance(ty, types.Array) else ty


@_elementwise.lower
def _elementwise_lowering(lower, sig, args):
    fnty, *operand_types = sig.args
    operands = args[1:]
    out_type = operand_types[-1]
    ndim = out_type.ndim
    maps = [
        ir.AffineMap.get_identity(ndim) if isinstance(t, types.Array) else ir.AffineMap.get(ndim, 0, [])
        for t in operand_types
    ]
    parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
    op = linalg.GenericOp(
        [],
        operands[:-1],
        operands[-1:],
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        ir.ArrayAttr.get([parallel] * ndim),
    )
    block_types = [
        v.type.element_type if isinstance(t, types.Array) else v.type for v, t in zip(operands, operand_types)
    ]
    block = op.regions[0].blocks.append(*block_types)
    with ir.InsertionPoint(block):
        values = []
        for value, ty in zip(list(block.arguments)[:-1], operand_types[:-1]):
            values.append(lower.dmm.lookup(ty.dtype).from_data(value) if isinstance(ty, types.Array) else value)
        element_types = [_element_type(t) for t in operand_types[:-1]]
        result, result_type = lower.call_function(fnty.dispatcher, element_types, values)
        result = lower.cast(result, result_type, out_type.dtype)
        linalg.YieldOp([lower.dmm.lookup(out_type.dtype).as_data(result)])
    _mark(lower)


@_gufunc_loop.typer
def _gufunc_typing(fn, nloop, *operands):
    if not isinstance(nloop, types.IntegerLiteral) or nloop.literal_value < 1:
        raise errors.TypingError("gufunc_loop: the number of loop axes must be a literal integer of at least 1")
    nloop = nloop.literal_value
    for k, ty in enumerate(operands):
        if not isinstance(ty, types.Array) or ty.ndim < nloop:
            raise errors.TypingError(f"gufunc_loop: operand {k} must be an array of at least {nloop} axes, not {ty}")
        _check_plain(f"gufunc_loop operand {k}", ty.dtype)
    return types.none


def _index(value):
    return arith.constant(ir.IndexType.get(), value)


def _core_view(lower, array, ty, positions):
    """The view of *array* (Numba type *ty*) at the loop *positions*, through its core axes."""
    nloop = len(positions)
    core = ty.ndim - nloop
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    sizes = [memref.dim(array, _index(axis)) for axis in range(nloop, ty.ndim)]
    view_type = lower.get_mlir_type(types.Array(ty.dtype, core, "A"))
    if ty.layout != "A":
        # a C or F memref states unit strides, which a subview keeps in its type: forget them,
        # so the view has the layout-A type the function was typed for
        array = memref.cast(lower.get_mlir_type(types.Array(ty.dtype, ty.ndim, "A")), array)
    static_offsets = [dyn] * nloop + [0] * core
    static_sizes = [1] * nloop + [ir.ShapedType.get_dynamic_size()] * core
    op = memref.SubViewOp(view_type, array, list(positions), sizes, [], static_offsets, static_sizes, [1] * ty.ndim)
    return op.result


@_gufunc_loop.lower
def _gufunc_lowering(lower, sig, args):
    fnty, nloop_type, *operand_types = sig.args
    nloop = nloop_type.literal_value
    operands = args[2:]
    upper = [memref.dim(operands[-1], _index(axis)) for axis in range(nloop)]
    loop = scf.ParallelOp([], [_index(0)] * nloop, upper, [_index(1)] * nloop, [])
    body = loop.regions[0].blocks.append(*[ir.IndexType.get()] * nloop)
    with ir.InsertionPoint(body):
        positions = list(body.arguments)
        values, value_types = [], []
        for value, ty in zip(operands, operand_types):
            if ty.ndim > nloop:
                values.append(_core_view(lower, value, ty, positions))
                value_types.append(types.Array(ty.dtype, ty.ndim - nloop, "A"))
            else:  # an operand without core axes: the function takes its element
                values.append(lower.dmm.lookup(ty.dtype).from_data(memref.load(value, positions)))
                value_types.append(ty.dtype)
        lower.call_function(fnty.dispatcher, value_types, values)
        scf.ReduceOp([], 0)
    _mark(lower)
