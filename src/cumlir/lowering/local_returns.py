"""A device function must not return memory of ``cuda.local.array``: it belongs to the
call that made it and is gone (or reused) once the function returns, whatever owns the
descriptor. Views of such an array (slices, ``.T``, tuples holding it) count too."""

from numba.core import errors
from numba.core import ir as nir

from ..intrinsics.memory import local_array

_VIEWS = ("getitem", "static_getitem", "getattr", "cast", "build_tuple", "exhaust_iter")


def check(typed):
    """Raise LoweringError at the ``return`` of *typed* (a device function) whose value is, or
    is a view of, or is a tuple holding, a ``cuda.local.array`` of the function."""
    local = _local_variables(typed)
    if not local:
        return
    for block in typed.func_ir.blocks.values():
        ret = block.terminator
        if isinstance(ret, nir.Return) and ret.value.name in local:
            raise errors.LoweringError(
                f"{typed.name or typed.pyfunc.__name__} returns memory of a cuda.local.array, which ends "
                "with the call; return an argument, or a copy made with np.empty (nrt=True)",
                ret.loc,
            )


def _local_variables(typed):
    """The names of the variables holding a local array of the function, or a view of one."""
    assigns = [stmt for block in typed.func_ir.blocks.values() for stmt in block.body if isinstance(stmt, nir.Assign)]
    local = set()
    changed = True
    while changed:  # to a fixed point: views of views, assignments in any order of blocks
        changed = False
        for stmt in assigns:
            if stmt.target.name not in local and _from_local(stmt.value, typed.typemap, local):
                local.add(stmt.target.name)
                changed = True
    return local


def _from_local(value, typemap, local):
    if isinstance(value, nir.Var):
        return value.name in local
    if not isinstance(value, nir.Expr):
        return False
    if value.op == "call":
        return getattr(typemap.get(value.func.name), "typing_key", None) is local_array
    if value.op in _VIEWS:
        return any(v.name in local for v in value.list_vars())
    return False
