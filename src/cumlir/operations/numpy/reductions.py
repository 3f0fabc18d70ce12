"""NumPy's reductions of whole arrays in device code: ``np.sum``, ``prod``, ``min``/``amin``,
``max``/``amax``, ``mean``, ``var``, ``std``, ``argmin``, ``argmax``, ``all``, ``any``, the
``nan`` forms ``nansum``, ``nanprod``, ``nanmin``, ``nanmax``, ``nanmean``, and ``cumsum``,
``cumprod``; as array methods where NumPy has them (``a.sum()``). ``axis=None`` only.

Every one is the loop nest of ``_fold`` with a scalar step of ``_reduction_steps`` and a
finish (a division for the means, a second fold for the spreads); results and working
types are ``_reduction_types``'. Only cumsum and cumprod allocate (through NRT); the others
give a scalar and need no runtime.
"""

import math
import operator

import numpy as np

from .._support.api import declare, method
from .._support.elements import store_element
from .._support.modules import arith, ir, nvvm, scf, templates, types
from . import _reduction_steps as steps
from . import _reduction_types as rtypes
from ._fold import fold, size
from .arraycreation import allocate

# ---- lowering helpers ------------------------------------------------------------------------


def _step(lower, pyfunc, result_type, arg_types, values):
    """The value of the Python step *pyfunc* for these operands (compiled, then inlined)."""
    return lower.call_python(pyfunc, templates.signature(result_type, *arg_types), values)


def _scalar_fold(lower, array_type, array, acc_type, element_type, initial, pyfunc):
    """One accumulator of *acc_type* from *initial* through ``pyfunc(acc, element)``."""

    def apply(values, element):
        x = lower.cast(element, array_type.dtype, element_type)
        return [_step(lower, pyfunc, acc_type, (acc_type, element_type), [values[0], x])]

    (result,) = fold(lower, array_type, array, [lower.constant(acc_type, initial)], apply)
    return result


def _arg_fold(lower, array_type, array, work, initial, takes):
    """The C-order position of the element ``takes(best, x)`` settles on, from *initial*."""

    def apply(values, element, position):
        best, at = values
        x = lower.cast(element, array_type.dtype, work)
        replace = _step(lower, takes, types.boolean, (work, work), [best, x])
        return [arith.select(replace, x, best), arith.select(replace, position, at)]

    start = [lower.constant(work, initial), lower.constant(types.int64, 0)]
    return fold(lower, array_type, array, start, apply, counted=True)[1]


def _nan_fold(lower, array_type, array, work):
    """The sum of the elements that are not NaN and their number."""

    def apply(values, element):
        total, count = values
        x = lower.cast(element, array_type.dtype, work)
        number = _step(lower, steps.is_number, types.boolean, (work,), [x])
        one = arith.extui(count.type, number)
        return [_step(lower, steps.nan_add, work, (work, work), [total, x]), arith.addi(count, one)]

    start = [lower.constant(work, 0), lower.constant(types.int64, 0)]
    return fold(lower, array_type, array, start, apply)


def _divide(lower, numerator, denominator, work):
    """numerator / denominator, both of *work*, as user code divides (0 / 0 is NaN)."""
    return lower.call_function(operator.truediv, [work, work], [numerator, denominator])[0]


def _count(lower, array_type, array, work):
    return lower.cast(size(array, array_type.ndim), types.int64, work)


def _refuse_empty(lower, array_type, array, message):
    """With debug=True NumPy's ValueError for an empty array; without, the caller's identity."""
    if not lower.options.debug:
        return
    zero = arith.constant(ir.IntegerType.get_signless(64), 0)
    branch = scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, size(array, array_type.ndim), zero))
    with ir.InsertionPoint(branch.then_block):
        lower.record_raise(ValueError, (message,))
        nvvm.exit()
        scf.YieldOp([])


def _extreme(work, largest):
    """The identity of min (largest=True) or max in *work*: infinities, or the integer limits."""
    if isinstance(work, types.Integer):
        info = np.iinfo(types.as_dtype(work))
        return int(info.max if largest else info.min)
    edge = math.inf if largest else -math.inf
    return complex(edge, edge) if isinstance(work, types.Complex) else edge


def _nan_ordering(numpy_name, largest, real, complex_):
    """nanmin, nanmax: the order of the elements that are numbers; NaN where none is (NumPy's
    all-NaN result), an integer array's order as min's."""
    if_integer = _ordering(numpy_name, largest, steps.real_min if largest else steps.real_max, None)

    def reduce(lower, array_type, array, result_type, ddof):
        work = rtypes.working(array_type.dtype)
        if isinstance(work, types.Integer):
            return if_integer(lower, array_type, array, result_type, ddof)
        _refuse_empty(
            lower, array_type, array, f"zero-size array to reduction operation {numpy_name} which has no identity"
        )
        pyfunc = complex_ if isinstance(work, types.Complex) else real

        def apply(values, element):
            acc, seen = values
            x = lower.cast(element, array_type.dtype, work)
            number = _step(lower, steps.is_number, types.boolean, (work,), [x])
            acc = _step(lower, pyfunc, work, (work, work, types.boolean), [acc, x, seen])
            return [acc, arith.ori(seen, number)]

        start = [lower.constant(work, _extreme(work, largest)), lower.constant(types.boolean, False)]
        acc, seen = fold(lower, array_type, array, start, apply)
        nan = lower.constant(work, complex(math.nan, math.nan) if isinstance(work, types.Complex) else math.nan)
        return lower.cast(arith.select(seen, acc, nan), work, result_type)

    return reduce


# ---- the reductions: (lower, array type, array, result type, ddof) -> value ------------------


def _folding(initial, pyfunc):
    def reduce(lower, array_type, array, result_type, ddof):
        work = rtypes.working(result_type)
        total = _scalar_fold(lower, array_type, array, work, work, initial, pyfunc)
        return lower.cast(total, work, result_type)

    return reduce


def _truth(initial, pyfunc):
    def reduce(lower, array_type, array, result_type, ddof):
        work = rtypes.working(array_type.dtype)
        return _scalar_fold(lower, array_type, array, types.boolean, work, initial, pyfunc)

    return reduce


def _ordering(numpy_name, largest, real, complex_):
    def reduce(lower, array_type, array, result_type, ddof):
        _refuse_empty(
            lower, array_type, array, f"zero-size array to reduction operation {numpy_name} which has no identity"
        )
        work = rtypes.working(array_type.dtype)
        pyfunc = complex_ if isinstance(work, types.Complex) else real
        value = _scalar_fold(lower, array_type, array, work, work, _extreme(work, largest), pyfunc)
        return lower.cast(value, work, result_type)

    return reduce


def _arg(name, real, complex_):
    def reduce(lower, array_type, array, result_type, ddof):
        _refuse_empty(lower, array_type, array, f"attempt to get {name} of an empty sequence")
        work = rtypes.working(array_type.dtype)
        pyfunc = complex_ if isinstance(work, types.Complex) else real
        at = _arg_fold(lower, array_type, array, work, _extreme(work, name == "argmin"), pyfunc)
        return lower.cast(at, types.int64, result_type)

    return reduce


def _mean_of(lower, array_type, array, work):
    total = _scalar_fold(lower, array_type, array, work, work, 0, steps.add)
    return _divide(lower, total, _count(lower, array_type, array, work), work)


def _mean(lower, array_type, array, result_type, ddof):
    work = rtypes.working(result_type)
    return lower.cast(_mean_of(lower, array_type, array, work), work, result_type)


def _nanmean(lower, array_type, array, result_type, ddof):
    work = rtypes.working(result_type)
    total, count = _nan_fold(lower, array_type, array, work)
    value = _divide(lower, total, lower.cast(count, types.int64, work), work)
    return lower.cast(value, work, result_type)


def _variance(lower, array_type, array, result_type, ddof):
    """NumPy's two passes: the mean, then the mean of the squared distances to it."""
    work = rtypes.working(rtypes.averaged(array_type.dtype))
    real = rtypes.working(result_type)
    mean = _mean_of(lower, array_type, array, work)
    pyfunc = steps.complex_squared_deviation if isinstance(work, types.Complex) else steps.real_squared_deviation

    def apply(values, element):
        x = lower.cast(element, array_type.dtype, work)
        return [_step(lower, pyfunc, real, (real, work, work), [values[0], x, mean])]

    (squares,) = fold(lower, array_type, array, [lower.constant(real, 0)], apply)
    i64 = ir.IntegerType.get_signless(64)
    dof = arith.subi(size(array, array_type.ndim), ddof if ddof is not None else arith.constant(i64, 0))
    dof = arith.maxsi(dof, arith.constant(i64, 0))  # NumPy divides by max(n - ddof, 0)
    value = _divide(lower, squares, lower.cast(dof, types.int64, real), real)
    return value, real


def _var(lower, array_type, array, result_type, ddof):
    value, real = _variance(lower, array_type, array, result_type, ddof)
    return lower.cast(value, real, result_type)


def _std(lower, array_type, array, result_type, ddof):
    value, real = _variance(lower, array_type, array, result_type, ddof)
    root, root_type = lower.call_function(math.sqrt, [real], [value])
    return lower.cast(root, root_type, result_type)


def _cumulative(initial, pyfunc, what):
    def reduce(lower, array_type, array, result_type, ddof):
        work = result_type.dtype
        out = allocate(lower, result_type, [size(array, array_type.ndim)], what)

        def apply(values, element, position):
            x = lower.cast(element, array_type.dtype, work)
            value = _step(lower, pyfunc, work, (work, work), [values[0], x])
            store_element(lower, work, value, out, [arith.index_cast(ir.IndexType.get(), position)])
            return [value]

        fold(lower, array_type, array, [lower.constant(work, initial)], apply, counted=True)
        return lower.mark_fresh(out)

    return reduce


# name -> (result type rule, lowering, whether it takes ddof, whether arrays have it as a method)
REDUCTIONS = {
    "sum": (rtypes.widened, _folding(0, steps.add), False, True),
    "prod": (rtypes.widened, _folding(1, steps.multiply), False, True),
    "nansum": (rtypes.widened, _folding(0, steps.nan_add), False, False),
    "nanprod": (rtypes.widened, _folding(1, steps.nan_multiply), False, False),
    "all": (rtypes.truth, _truth(True, steps.all_true), False, True),
    "any": (rtypes.truth, _truth(False, steps.any_true), False, True),
    "min": (rtypes.same, _ordering("minimum", True, steps.real_min, steps.complex_min), False, True),
    "max": (rtypes.same, _ordering("maximum", False, steps.real_max, steps.complex_max), False, True),
    "nanmin": (
        rtypes.same,
        _nan_ordering("fmin", True, steps.real_nanmin, steps.complex_nanmin),
        False,
        False,
    ),
    "nanmax": (
        rtypes.same,
        _nan_ordering("fmax", False, steps.real_nanmax, steps.complex_nanmax),
        False,
        False,
    ),
    "argmin": (rtypes.index, _arg("argmin", steps.real_argmin, steps.complex_argmin), False, True),
    "argmax": (rtypes.index, _arg("argmax", steps.real_argmax, steps.complex_argmax), False, True),
    "mean": (rtypes.averaged, _mean, False, True),
    "nanmean": (rtypes.averaged, _nanmean, False, False),
    "var": (rtypes.spread, _var, True, True),
    "std": (rtypes.spread, _std, True, True),
    "cumsum": (rtypes.widened, _cumulative(0, steps.add, "np.cumsum"), False, True),
    "cumprod": (rtypes.widened, _cumulative(1, steps.multiply, "np.cumprod"), False, True),
}

# NumPy's functions, and the reduction each is (np.amin is np.min under another name)
FUNCTIONS = {getattr(np, name): name for name in REDUCTIONS} | {np.amin: "min", np.amax: "max"}


# ---- declarations ----------------------------------------------------------------------------


def _rule(name, lowering):
    def rule(lower, sig, args):
        # the array comes first (a method's receiver too); typing lets axis be None alone,
        # so an integer after it is ddof, whether given by position or by keyword
        ddof = None
        for value, ty in zip(args[1:], sig.args[1:]):
            if isinstance(ty, types.Integer):
                ddof = lower.cast(value, ty, types.int64)
        return lowering(lower, sig.args[0], args[0], sig.return_type, ddof)

    rule.__name__ = f"np_{name}"
    return rule


def _function_typing(what, name):
    result_rule, _, takes_ddof, _ = REDUCTIONS[name]
    pysig = rtypes.parameters(takes_ddof)

    def generic(context, args, kws):
        return rtypes.signature(what, pysig, result_rule, name.startswith("cum"), args, kws)

    return generic


def _method_typing(name):
    result_rule, _, takes_ddof, _ = REDUCTIONS[name]
    pysig = rtypes.parameters(takes_ddof, method=True)

    def typer(receiver, *args, **kws):
        what = f"array.{name}()"
        return rtypes.signature(what, pysig, result_rule, name.startswith("cum"), args, kws, receiver)

    return typer


for _function, _name in FUNCTIONS.items():
    _op = declare(_function, f"NumPy_{_function.__name__}", exclusive=True)
    _op.generic(_function_typing(f"np.{_function.__name__}", _name))
    _op.lower("Array", "*Any")(_rule(_name, REDUCTIONS[_name][1]))

for _name, (_result, _lowering, _ddof, _is_method) in REDUCTIONS.items():
    if _is_method:
        _method = method("Array", _name)
        _method.typer(_method_typing(_name))
        _method.lower("Array", "*Any")(_rule(_name, _lowering))
