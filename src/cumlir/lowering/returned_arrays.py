"""What arrays a device function may return. Never memory of its ``cuda.local.array``:
it belongs to the call that made it and is gone (or reused) once the function returns,
whatever owns the descriptor; views of such an array (slices, ``.T``, tuples holding it)
count too. Without NRT, only one of its arguments (nothing would own any other), as numba
decides it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from numba.core import errors, types
from numba.core import ir as nir

from .. import operations
from .refcount import RuntimeNeeded

if TYPE_CHECKING:
    from ..typing.frontend import TypedFunction

_VIEWS = ("getitem", "static_getitem", "getattr", "cast", "build_tuple", "exhaust_iter")


def check(typed: TypedFunction, nrt: bool, automatic: bool = False) -> None:
    """Raise LoweringError at a ``return`` of *typed* (a device function) that gives an array it
    may not: memory of its local arrays, or, without *nrt*, an array not among its arguments
    (RuntimeNeeded instead where NRT is *automatic*: the module is lowered again with it on)."""
    _check_local(typed)
    if not nrt:
        _check_arguments_only(typed, automatic)


def _check_local(typed: TypedFunction) -> None:
    local = _local_variables(typed)
    if not local:
        return
    for block in typed.func_ir.blocks.values():
        ret = block.terminator
        if isinstance(ret, nir.Return) and ret.value.name in local and _holds_array(typed.typemap[ret.value.name]):
            raise errors.LoweringError(
                f"{typed.name or typed.pyfunc.__name__} returns memory of a cuda.local.array, which ends "
                "with the call; return an argument, or a copy made with np.empty (nrt=True)",
                ret.loc,
            )


def _holds_array(ty: types.Type) -> bool:
    """Whether a value of *ty* can hold memory (an element read from a local array cannot)."""
    if isinstance(ty, types.Array):
        return True
    return isinstance(ty, types.BaseTuple) and any(_holds_array(t) for t in ty.types)  # type: ignore[attr-defined]  # numba's stubs


def _local_variables(typed: TypedFunction) -> set[str]:
    """The names of the variables holding a local array of the function, or a view of one."""
    assigns = [stmt for block in typed.func_ir.blocks.values() for stmt in block.body if isinstance(stmt, nir.Assign)]
    local: set[str] = set()
    changed = True
    while changed:  # to a fixed point: views of views, assignments in any order of blocks
        changed = False
        for stmt in assigns:
            if stmt.target.name not in local and _from_local(stmt.value, typed.typemap, local):
                local.add(stmt.target.name)
                changed = True
    return local


def _from_local(value: object, typemap: Mapping[str, types.Type], local: set[str]) -> bool:
    if isinstance(value, nir.Var):
        return value.name in local
    if not isinstance(value, nir.Expr):
        return False
    if value.op == "call":
        return getattr(typemap.get(value.func.name), "typing_key", None) is operations.stub("local.array")
    if value.op in _VIEWS:
        return any(v.name in local for v in value.list_vars())
    return False


def _check_arguments_only(typed: TypedFunction, automatic: bool) -> None:
    if not isinstance(typed.return_type, types.Array):
        return
    blocks = typed.func_ir.blocks.values()
    assigns = [stmt for block in blocks for stmt in block.body if isinstance(stmt, nir.Assign)]
    arguments = {stmt.target.name for stmt in assigns if isinstance(stmt.value, nir.Arg)}
    casts = {stmt.target.name: stmt.value.value.name for stmt in assigns if _is_cast(stmt.value)}
    for block in blocks:
        ret = block.terminator
        if isinstance(ret, nir.Return) and casts.get(ret.value.name) not in arguments:
            if automatic:
                raise RuntimeNeeded("returning an array", ret.loc)
            raise errors.LoweringError(
                f"{typed.name or typed.pyfunc.__name__} returns an array that is not one of its arguments, "
                "which needs NRT, switched off by nrt=False (or CUMLIR_ENABLE_NRT=0)",
                ret.loc,
            )


def _is_cast(value: object) -> bool:
    return isinstance(value, nir.Expr) and value.op == "cast"
