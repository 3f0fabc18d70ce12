"""Device functions compiled on their own, for callers outside cumlir (C++ kernels, libraries).

The function itself is lowered like any device function (internal, so LLVM inlines
it and the functions it calls); a public wrapper with the requested ABI calls it:

  "c"      ``RET NAME(ARGS...)``: the Python result is the return value.
  "numba"  ``int32 NAME(RET* result, ARGS...)``: the result is stored through the first
           parameter and 0 (success) is returned; NAME is Itanium-mangled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from mlir import ir
from mlir.dialects import arith, func, llvm
from mlir.dialects import complex as cx
from numba.core import errors, itanium_mangler, types

from ..models import default_manager
from .module import force_inline

if TYPE_CHECKING:
    from ..typing.frontend import DeviceFunction, TypedFunction
    from .module import ModuleBuilder


def add_entry(builder: ModuleBuilder, callee: DeviceFunction, symbol: str, abi: str) -> str:
    """Lower the DeviceFunction *callee* into *builder* behind a public wrapper *symbol*."""
    if builder.has_symbol(symbol):
        raise ValueError(f"the symbol {symbol!r} is already defined in this module")
    if isinstance(callee.typed.return_type, types.Record):
        # a record is held by reference: its pointer would outlive the memory it points to
        raise errors.UnsupportedError(
            f"a device function compiled on its own cannot return a record ({callee.typed.return_type}); "
            "write it through a CPointer argument instead"
        )
    builder.claim_symbol(symbol)
    with builder.context, ir.Location.unknown():
        inner = builder.device_symbol(callee)
        _WRAPPERS[abi](builder, callee.typed, inner, symbol)
    return symbol


def _flat(numba_types: Iterable[types.Type]) -> list[ir.Type]:
    return [t for ty in numba_types for t in _model_types(ty)]


def _model_types(ty: types.Type) -> list[ir.Type]:
    model = default_manager.lookup(ty)
    return model.flat_types() if model.has_value else []


def _define(
    builder: ModuleBuilder, symbol: str, params: Sequence[ir.Type], results: Sequence[ir.Type]
) -> tuple[func.FuncOp, ir.Block]:
    with ir.InsertionPoint(builder.body):
        op = func.FuncOp(symbol, ir.FunctionType.get(params, results))
    # external linkage: the symbol stays visible to the linker (PTX ".visible .func")
    op.attributes["sym_visibility"] = ir.StringAttr.get("public")
    if builder.options.forceinline:  # so that the callers of an LTO link inline it
        force_inline(op)
    return op, op.body.blocks.append(*params)


def _c_wrapper(builder: ModuleBuilder, typed: TypedFunction, inner: str, symbol: str) -> None:
    params = _flat(typed.args)
    results = _flat([typed.return_type])
    _, entry = _define(builder, symbol, params, results)
    with ir.InsertionPoint(entry):
        call = func.CallOp(results, ir.FlatSymbolRefAttr.get(inner), list(entry.arguments))
        func.ReturnOp(list(call.results))


def _numba_wrapper(builder: ModuleBuilder, typed: TypedFunction, inner: str, symbol: str) -> None:
    ret = typed.return_type
    results = _model_types(ret)
    if len(results) > 1:
        raise errors.UnsupportedError(
            f"the Numba ABI cannot return a {ret} (held as several values); compile with abi='c'"
        )
    status = ir.IntegerType.get_signless(32)
    params = [llvm.PointerType.get()] + _flat(typed.args)
    _, entry = _define(builder, symbol, params, [status])
    with ir.InsertionPoint(entry):
        result_ptr, *args = entry.arguments
        call = func.CallOp(results, ir.FlatSymbolRefAttr.get(inner), args)
        if results:
            model = default_manager.lookup(ret)
            value = model.as_data(call.results[0])
            if isinstance(value.type, ir.MemRefType):
                raise errors.UnsupportedError(f"the Numba ABI cannot return an array ({ret})")
            llvm.store(_storable(value), result_ptr)
        func.ReturnOp([arith.constant(status, 0)])


def _storable(value: ir.Value) -> ir.Value:
    """*value* as an LLVM store takes it: a complex number as the struct of its two parts
    (Numba's layout of a complex result)."""
    if not isinstance(value.type, ir.ComplexType):
        return value
    part = value.type.element_type
    pair = llvm.StructType.get_literal([part, part])
    struct = llvm.UndefOp(pair).result
    struct = llvm.insertvalue(struct, cx.re(value), [0])
    return llvm.insertvalue(struct, cx.im(value), [1])


_WRAPPERS = {"c": _c_wrapper, "numba": _numba_wrapper}
ABIS = tuple(_WRAPPERS)


def numba_abi_name(pyfunc: Callable[..., Any], argtypes: Iterable[types.Type]) -> str:
    """The Itanium-style mangled name numba gives a device function (module.qualname, argument types)."""
    qualified = f"{pyfunc.__module__}.{pyfunc.__qualname__}"
    return itanium_mangler.mangle(qualified, tuple(argtypes), abi_tags=("v1",))
