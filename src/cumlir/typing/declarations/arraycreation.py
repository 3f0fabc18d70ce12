"""Typing of NumPy's array constructors in device code: ``np.empty``, ``np.zeros``,
``np.ones``, ``np.full``, their ``*_like`` forms and ``np.arange``, as NumPy (and numba)
type them: C-contiguous arrays, float64 unless a dtype is given.

They are typed whether or not NRT is on; lowering refuses them, at their line, when it is
off (their memory comes from the device runtime, docs/nrt.md).
"""

import inspect

import numpy as np
from numba.core import errors, types
from numba.core.typing.npydecl import parse_dtype, parse_shape
from numba.core.typing.templates import AbstractTemplate, signature

from ..registry import exclusive, registry

_PYTHON_DTYPES = {float: types.float64, int: types.int64, complex: types.complex128, bool: types.boolean}
_ELEMENTS = (types.Number, types.Boolean)


def _empty(shape, dtype=float): ...
def _full(shape, fill_value, dtype=None): ...
def _like(a, dtype=None): ...
def _full_like(a, fill_value, dtype=None): ...
def _arange(start, stop=None, step=None, dtype=None): ...


def _dtype(name, dtype, default):
    """The numba element type a ``dtype=`` argument names (*default* where it is absent)."""
    if dtype is None or isinstance(dtype, (types.NoneType, types.Omitted)):
        return default
    if isinstance(dtype, types.Function) and dtype.typing_key in _PYTHON_DTYPES:
        return _PYTHON_DTYPES[dtype.typing_key]
    element = parse_dtype(dtype)
    if element is None or not isinstance(element, _ELEMENTS):
        raise errors.TypingError(f"np.{name}: the dtype must be a number or bool type, got {dtype}")
    return element


def _shape_ndim(name, shape):
    ndim = parse_shape(shape)
    if ndim is None:
        raise errors.TypingError(f"np.{name}: the shape must be an integer or a tuple of integers, got {shape}")
    return ndim


def _like_type(name, a, dtype):
    if not isinstance(a, types.Array):
        raise errors.TypingError(f"np.{name} needs an array as its first argument, got {a}")
    element = _dtype(name, dtype, a.dtype)
    return types.Array(element, a.ndim, "F" if a.layout == "F" else "C")


def _arange_type(start, stop, step, dtype):
    bounds = [types.unliteral(b) for b in (start, stop, step) if b is not None and not isinstance(b, types.NoneType)]
    if any(not isinstance(b, (types.Integer, types.Float, types.Boolean)) for b in bounds):
        raise errors.TypingError(f"np.arange takes integer or float bounds, got {tuple(bounds)}")
    if any(isinstance(b, types.Float) for b in bounds):
        default = types.float64
    else:
        default = max([b for b in bounds if isinstance(b, types.Integer)] + [types.int64])
    return types.Array(_dtype("arange", dtype, default), 1, "C")


def _result(name, bound):
    args = bound.arguments
    if name in ("empty", "zeros", "ones"):
        return types.Array(_dtype(name, args.get("dtype"), types.float64), _shape_ndim(name, args["shape"]), "C")
    if name == "full":
        value = types.unliteral(args["fill_value"])
        return types.Array(_dtype(name, args.get("dtype"), value), _shape_ndim(name, args["shape"]), "C")
    if name in ("empty_like", "zeros_like", "ones_like"):
        return _like_type(name, args["a"], args.get("dtype"))
    if name == "full_like":
        return _like_type(name, args["a"], args.get("dtype"))
    return _arange_type(args["start"], args.get("stop"), args.get("step"), args.get("dtype"))


_CONSTRUCTORS = {
    np.empty: ("empty", _empty),
    np.zeros: ("zeros", _empty),
    np.ones: ("ones", _empty),
    np.full: ("full", _full),
    np.empty_like: ("empty_like", _like),
    np.zeros_like: ("zeros_like", _like),
    np.ones_like: ("ones_like", _like),
    np.full_like: ("full_like", _full_like),
    np.arange: ("arange", _arange),
}


def _template(function, name, stub):
    pysig = inspect.signature(stub)

    class Constructor(AbstractTemplate):
        key = function

        def generic(self, args, kws):
            try:
                bound = pysig.bind(*args, **kws)
            except TypeError as e:
                raise errors.TypingError(f"np.{name}: {e}") from None
            # the arguments given, in the order of the parameters; the signature's pysig names
            # them, so that lowering knows which is which
            names = [p for p in pysig.parameters if p in bound.arguments]
            sig = signature(_result(name, bound), *(bound.arguments[p] for p in names))
            return sig.replace(pysig=inspect.Signature([pysig.parameters[p] for p in names]))

    Constructor.__name__ = f"NumPy_{name}"
    return Constructor


for _function, (_name, _stub) in _CONSTRUCTORS.items():
    exclusive[_function] = types.Function(_template(_function, _name, _stub))
    registry.register_global(_function, exclusive[_function])
