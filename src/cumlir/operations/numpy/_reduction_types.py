"""The types of the NumPy reductions (reductions.py): their results as NumPy gives them, the
types they compute in, and the checks of their arguments."""

import inspect

from .._support.modules import errors, templates, types


def _whole(a, axis=None): ...  # sum, min, argmin, all, cumsum, ...
def _spread(a, axis=None, ddof=0): ...  # var, std


def parameters(takes_ddof, method=False):
    """The Python signature of a reduction; a method's leaves its receiver ``a`` out."""
    pysig = inspect.signature(_spread if takes_ddof else _whole)
    return pysig.replace(parameters=list(pysig.parameters.values())[1:]) if method else pysig


def _is_plain_number(dtype):
    return isinstance(dtype, (types.Boolean, types.Integer, types.Complex)) or dtype in (
        types.float16,
        types.float32,
        types.float64,
    )


# ---- result types, as NumPy's ----------------------------------------------------------------


def widened(dtype):
    """sum, prod, cumsum, cumprod, nansum, nanprod: small integers and bool widen to 64 bits."""
    if isinstance(dtype, types.Boolean):
        return types.int64
    if isinstance(dtype, types.Integer) and dtype.bitwidth < 64:
        return types.int64 if dtype.signed else types.uint64
    return dtype


def same(dtype):
    """min, max and their nan forms."""
    return dtype


def averaged(dtype):
    """mean, nanmean: integers and bool give float64."""
    return types.float64 if isinstance(dtype, (types.Boolean, types.Integer)) else dtype


def spread(dtype):
    """var, std: as the mean, complex giving its real type."""
    dtype = averaged(dtype)
    return dtype.underlying_float if isinstance(dtype, types.Complex) else dtype


def index(dtype):
    """argmin, argmax."""
    return types.intp


def truth(dtype):
    """all, any."""
    return types.boolean


# ---- the types the steps compute in ----------------------------------------------------------


def working(dtype):
    """float16 is computed in float32 and rounded once at the end; bool is ordered as the
    bytes 0 and 1 (whose extremes 255 and 0 convert back to True and False)."""
    if dtype == types.float16:
        return types.float32
    if isinstance(dtype, types.Boolean):
        return types.uint8
    return dtype


# ---- argument checks -------------------------------------------------------------------------


def _absent(ty):
    return ty is None or isinstance(ty, (types.NoneType, types.Omitted))


def check(what, args):
    """Raise TypingError for what a reduction called as *what* (``np.sum``) cannot take:
    *args* maps the parameters given to their types."""
    array = args["a"]
    if not isinstance(array, types.Array):
        raise errors.TypingError(f"{what} needs an array, got {array}")
    if not _is_plain_number(array.dtype):
        raise errors.TypingError(
            f"{what} of an array of {array.dtype} is not supported: the elements must be bool, integers, "
            "float16, float32, float64 or complex"
        )
    if not _absent(args.get("axis")):
        raise errors.TypingError(f"{what}: only axis=None is supported, got axis of type {args['axis']}")
    ddof = args.get("ddof")
    if ddof is not None and not isinstance(ddof, types.Integer):
        raise errors.TypingError(f"{what}: ddof must be an integer, got {ddof}")


def signature(what, pysig, result_rule, cumulative, args, kws, receiver=None):
    """The call's Signature: the arguments given in the order of *pysig*, which it carries
    so that lowering folds keyword arguments; a method's receiver is its ``a``."""
    try:
        bound = pysig.bind(*args, **kws)
    except TypeError as e:
        raise errors.TypingError(f"{what}: {e}") from None
    given = dict(bound.arguments)
    if receiver is not None:
        given["a"] = receiver
    check(what, given)
    result = result_rule(given["a"].dtype)
    if cumulative:
        result = types.Array(result, 1, "C")
    names = [p for p in pysig.parameters if p in bound.arguments]
    sig = templates.signature(result, *(bound.arguments[p] for p in names), recvr=receiver)
    return sig.replace(pysig=inspect.Signature([pysig.parameters[p] for p in names]))
