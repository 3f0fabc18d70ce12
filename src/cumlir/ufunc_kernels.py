"""The kernels of GPU ufuncs: signatures, the choice of a signature for a call's dtypes,
generalized-ufunc layouts, and the Python source of the kernels the dispatcher compiles.

A vectorize kernel is ``elementwise(body, x0, ..., out)`` (operations/numpy/elementwise.py), where
``body`` converts the elements to the signature's argument types, calls the user's scalar
function (a device function typed for the signature) and converts its result to the
output's element type; a guvectorize kernel is ``gufunc_loop(core, nloop, x0, ...)``. Both
are ordinary kernels for the dispatcher, one per tuple of argument types.
"""

from __future__ import annotations

import keyword
import string
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numba.core import sigutils, types
from numba.core.typing.templates import signature
from numba.np import numpy_support

from . import operations
from .options import Options
from .typing.frontend import DeviceDispatcher
from .typing.signature_text import read_signature

if TYPE_CHECKING:
    from types import FunctionType

    from numpy.typing import DTypeLike

    from .typing.signatures import SignatureLike

# ---- signatures ----------------------------------------------------------------------------


def parse_signature(sig: SignatureLike) -> tuple[tuple[types.Type, ...], types.Type | None]:
    """(argument types, result type or None) of a signature given as text or numba types."""

    try:  # a string is parsed, never evaluated as numba would
        return sigutils.normalize_signature(read_signature(sig) if isinstance(sig, str) else sig)
    except Exception as e:
        raise TypeError(f"cannot read the ufunc signature {sig!r}: {e}") from None


def to_dtype(numba_type: types.Type) -> np.dtype:

    return np.dtype(numpy_support.as_dtype(numba_type))


def from_dtype(dtype: np.dtype) -> types.Type:

    return numpy_support.from_dtype(dtype)


def type_code(dtype: DTypeLike) -> str:
    """NumPy's one-letter code of *dtype* (as in ``np.add.types``)."""
    return np.dtype(dtype).char


def scalar_dtype(value: object) -> np.dtype:
    """The dtype NumPy gives a Python or NumPy scalar."""
    if isinstance(value, np.generic):
        return value.dtype
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    return np.asarray(value).dtype


def _scalar_fits(value: object, dtype: np.dtype) -> bool:
    """Whether the Python or NumPy scalar *value* can be held by *dtype* without losing its kind."""
    if isinstance(value, np.generic):
        return np.can_cast(value.dtype, dtype, "safe")
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        if dtype.kind in "fc":
            return True
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return info.min <= value <= info.max
        return False
    if isinstance(value, float):
        return dtype.kind in "fc"
    if isinstance(value, complex):
        return dtype.kind == "c"
    return False


def choose_signature(
    signatures: Iterable[tuple[np.dtype, ...]], operands: Sequence[tuple[np.dtype, object]]
) -> tuple[np.dtype, ...] | None:
    """The input dtypes, among *signatures* (tuples of dtypes, in declaration order), a call
    uses: the first whose dtypes all operands have exactly, else the first they can all be
    converted to safely (NumPy's "safe" casting; a Python scalar to any type that holds its
    value, of the same kind or a wider one). *operands* are (dtype, scalar value or None).
    None if no signature fits."""
    for formal in signatures:
        if all(dtype == f for (dtype, _), f in zip(operands, formal)):
            return formal
    for formal in signatures:
        if all(
            _scalar_fits(value, f) if value is not None else np.can_cast(dtype, f, "safe")
            for (dtype, value), f in zip(operands, formal)
        ):
            return formal
    return None


# ---- generalized ufunc layouts ----------------------------------------------------------


def parse_layout(layout: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """``"(m,n),(n,p)->(m,p)"`` -> ([("m", "n"), ("n", "p")], [("m", "p")]), checked."""
    if not isinstance(layout, str) or "->" not in layout:
        raise ValueError(f"a gufunc layout looks like '(n),(n)->()', got {layout!r}")
    text = "".join(c for c in layout if c not in string.whitespace)
    ins, outs = text.split("->", 1)
    inputs, outputs = _groups(ins, layout), _groups(outs, layout)
    if not outputs:
        raise ValueError(f"the gufunc layout {layout!r} has no output")
    known = {name for group in inputs for name in group}
    undefined = sorted({name for group in outputs for name in group} - known)
    if undefined:
        raise ValueError(f"the gufunc layout {layout!r} has output dimensions no input has: {', '.join(undefined)}")
    return inputs, outputs


def _groups(text: str, layout: str) -> list[tuple[str, ...]]:
    groups: list[tuple[str, ...]] = []
    while text:
        if not text.startswith("(") or ")" not in text:
            raise ValueError(f"cannot read the gufunc layout {layout!r} at {text!r}")
        inner, text = text[1:].split(")", 1)
        names = tuple(n for n in inner.split(",") if n)
        for name in names:
            if not name.isidentifier():
                raise ValueError(f"the gufunc layout {layout!r} has a bad dimension name {name!r}")
        groups.append(names)
        if text.startswith(","):
            text = text[1:]
    return groups


# ---- the kernels -----------------------------------------------------------------------------


def _conversion(numba_type: types.Type) -> type[bool] | types.Type:
    """What converts a value to *numba_type* in kernel code (numba's type objects do; bool for booleans)."""

    return bool if isinstance(numba_type, types.Boolean) else numba_type


def device_function(
    pyfunc: Callable[..., Any], argtypes: Sequence[types.Type], return_type: types.Type | None = None
) -> tuple[DeviceDispatcher, types.Type]:
    """The user's function as a device function declared with one signature, typed now so that
    a function that does not type fails before any launch; (dispatcher, result type)."""

    probe = DeviceDispatcher(pyfunc, Options())
    typed = probe.compile_device(tuple(argtypes), return_type)
    result = return_type if return_type is not None else typed.typed.return_type
    if isinstance(result, types.NoneType) or str(result) == "none":
        raise TypeError(f"{pyfunc.__name__}{tuple(argtypes)} returns nothing; a ufunc's function must return a value")
    return DeviceDispatcher(pyfunc, Options(), [signature(result, *argtypes)]), result


def elementwise_kernel(
    pyfunc: Callable[..., Any], core: DeviceDispatcher, argtypes: Sequence[types.Type], return_type: types.Type
) -> FunctionType:
    """The kernel (a Python function) of one vectorize signature: its arguments are the inputs
    (arrays of any element type, or scalars) and the output array; it converts each element
    to *argtypes*, calls *core* and stores the result converted to the output's type."""

    names = [f"x{k}" for k in range(len(argtypes))]
    converted = ", ".join(f"t{k}({n})" for k, n in enumerate(names))
    glb: dict[str, Any] = {f"t{k}": _conversion(t) for k, t in enumerate(argtypes)}
    glb.update(core=core, elementwise=operations.declared("cumlir.elementwise"))
    body = _define(f"def body({', '.join(names)}):\n    return core({converted})\n", "body", glb)
    glb["body"] = DeviceDispatcher(body, Options())
    name = _kernel_name(pyfunc, "vectorize")
    source = f"def {name}({', '.join(names)}, out):\n    elementwise(body, {', '.join(names)}, out)\n"
    return _define(source, name, glb)


def gufunc_kernel(pyfunc: Callable[..., Any], core: DeviceDispatcher, noperands: int, nloop: int) -> FunctionType:
    """The kernel of one guvectorize signature with *nloop* loop axes over *noperands* arrays."""
    names = ", ".join(f"x{k}" for k in range(noperands))
    name = _kernel_name(pyfunc, "guvectorize")
    source = f"def {name}({names}):\n    gufunc_loop(core, {nloop}, {names})\n"
    return _define(source, name, {"core": core, "gufunc_loop": operations.declared("cumlir.gufunc_loop")})


def _kernel_name(pyfunc: object, kind: str) -> str:
    name = getattr(pyfunc, "__name__", "ufunc")
    if not name.isidentifier() or keyword.iskeyword(name):
        name = "ufunc"
    return f"{kind}_{name}"


def _define(source: str, name: str, glb: dict[str, Any]) -> FunctionType:
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<cumlir {name}>", "exec"), glb, namespace)  # glb: the function's globals
    return namespace[name]


def device_function_checked(pyfunc: Callable[..., Any], argtypes: Iterable[types.Type]) -> None:
    """Type *pyfunc* for *argtypes* now, so that a function that does not type fails when the
    signature is added rather than at a launch."""

    DeviceDispatcher(pyfunc, Options()).compile_device(tuple(argtypes))
