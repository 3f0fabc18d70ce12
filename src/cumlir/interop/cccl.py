"""Python operators for NVIDIA CCCL's ``cuda.compute`` algorithms.

``cuda.compute.RawOp`` takes LTO-IR defining ``void NAME(void* in..., void* out)``:
every operand and the result are passed by pointer. ``raw_op`` compiles a Python
function of values into that shape: a wrapper reads each operand through its
pointer, calls the function and stores its result, and the whole is compiled with
the C ABI to LTO-IR, so CCCL's link step inlines it into its CUB kernels.

An operator with a record result may return a tuple of the field values (in field
order), since kernels cannot build a record value otherwise, or a record operand.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from numba.core import types
from numba.np import numpy_support

from .. import cuda
from ..compiler import type_function
from ..dispatcher import Dispatcher
from ..lazy import lazy

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from ..chips import ComputeCapability

cccl_op = lazy("cuda.compute.op")  # cuda-cccl, not a dependency: loaded by raw_op, which makes its RawOp

_WRAPPER = """\
def {name}({params}, out):
    result = operator({operands})
{store}
"""


def raw_op(
    pyfunc: Callable[..., Any],
    argument_types: Iterable[types.Type | DTypeLike],
    result_type: types.Type | DTypeLike | None = None,
    name: str | None = None,
    cc: ComputeCapability | None = None,
) -> Any:  # a cuda.compute.op.RawOp
    """A ``cuda.compute.RawOp`` running *pyfunc* on operands of *argument_types*.

    Types may be Numba types, NumPy dtypes (structured ones become records) or their
    names. *result_type*, the type of CCCL's result slot, defaults to the first operand's
    (the value returned is converted to it); *cc* defaults to the current device's
    compute capability.
    """
    code, symbol = compile_raw_op(pyfunc, argument_types, result_type, name, cc)
    return cccl_op.RawOp(name=symbol, ltoir=code)


def compile_raw_op(
    pyfunc: Callable[..., Any],
    argument_types: Iterable[types.Type | DTypeLike],
    result_type: types.Type | DTypeLike | None = None,
    name: str | None = None,
    cc: ComputeCapability | None = None,
    output: str = "ltoir",
) -> tuple[str | bytes, str]:
    """(code, symbol) of the ``void NAME(void*..., void* out)`` wrapper of *pyfunc*: LTO-IR,
    or another output of ``cuda.compile`` (PTX to inspect it)."""
    argtypes = tuple(as_numba_type(t) for t in argument_types)
    # a Python function, or a Dispatcher's
    returned = type_function(getattr(pyfunc, "py_func", pyfunc), argtypes).return_type  # type: ignore[arg-type]
    # CCCL's slot for the result holds the operands' type ((T, T) -> T), whatever width
    # Python's promotion gives the expression (int32 + int32 is int64): store it converted
    result_type = argtypes[0] if result_type is None else as_numba_type(result_type)
    fields = _tuple_fields(pyfunc, returned, result_type)
    symbol = name or _symbol(pyfunc, argtypes, result_type)
    wrapper = _wrapper(pyfunc, symbol, len(argtypes), fields)
    signature = types.void(*(types.CPointer(t) for t in (*argtypes, result_type)))
    code, _ = cuda.compile(
        wrapper, signature, device=True, abi="c", abi_info={"abi_name": symbol}, output=output, cc=cc
    )
    return code, symbol


def _tuple_fields(pyfunc: Callable[..., Any], returned: types.Type, result_type: types.Type) -> list[str] | None:
    """The record fields a returned tuple fills, in order; None when the result is stored whole."""
    if not isinstance(returned, types.BaseTuple):
        return None
    if not isinstance(result_type, types.Record) or len(returned) != len(result_type.fields):
        raise TypeError(f"{pyfunc.__name__} returns {returned}, which does not fill a {result_type}")
    return list(result_type.fields)


def as_numba_type(ty: types.Type | DTypeLike) -> types.Type:
    if isinstance(ty, types.Type):
        return ty
    try:
        return numpy_support.from_dtype(np.dtype(ty))
    except (TypeError, NotImplementedError) as error:
        raise TypeError(f"{ty!r} is neither a Numba type nor a NumPy dtype cuda.compute can use") from error


def _wrapper(pyfunc: Callable[..., Any], symbol: str, arity: int, fields: list[str] | None) -> Callable[..., Any]:
    """The pointer-taking wrapper, written out for this arity (and the record fields a tuple fills)."""
    params = [f"p{k}" for k in range(arity)]
    if fields is None:
        store = "    out[0] = result\n"
    else:
        store = "".join(f"    out[0].{f} = result[{k}]\n" for k, f in enumerate(fields))
    source = _WRAPPER.format(
        name=symbol, params=", ".join(params), operands=", ".join(f"{p}[0]" for p in params), store=store
    )
    namespace = {"operator": _device_function(pyfunc)}
    exec(compile(source, f"<cumlir raw_op {symbol}>", "exec"), namespace)
    return namespace[symbol]


def _device_function(pyfunc: Callable[..., Any]) -> Dispatcher:
    return pyfunc if isinstance(pyfunc, Dispatcher) else Dispatcher(pyfunc, device=True)


def _symbol(pyfunc: Callable[..., Any], argtypes: tuple[types.Type, ...], result_type: types.Type) -> str:
    digest = hashlib.sha1(repr((pyfunc.__module__, pyfunc.__qualname__, argtypes, result_type)).encode()).hexdigest()
    base = re.sub(r"\W", "_", pyfunc.__name__)
    return f"cumlir_op_{base}_{digest[:12]}"
