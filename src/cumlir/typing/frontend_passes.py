"""The frontend's passes over numba's compiler state: bytecode -> Numba IR -> SSA -> types.

Numba's own compiler driver also lowers; cumlir only needs the frontend, so these
passes are run directly (typing/frontend.py), in the order numba's nopython pipeline uses.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from numba.core import (
    analysis,
    bytecode,
    errors,
    ir,
    postproc,
    rewrites,
    typed_passes,
    untyped_passes,
)
from numba.core.ir_utils import fixup_var_define_in_scope

from ..lazy import lazy
from . import spread_keywords

# numba's closure inliner: imported by the first kernel that defines a function (few do)
inline_closurecall = lazy("numba.core.inline_closurecall")

if TYPE_CHECKING:
    from numba.core.compiler import StateDict


def _bytecode(state: StateDict) -> None:
    state.bc = bytecode.ByteCode(state.func_id)


def _interpret(state: StateDict) -> None:
    try:
        state.func_ir = spread_keywords.Interpreter(state.func_id).interpret(state.bc)
    except (errors.UnsupportedBytecodeError, AssertionError) as e:
        line = _spread_with_keywords(state.bc) if _refuses_spread_with_keywords(e) else None
        if line is not None:
            # numba could not fold f(*t, k=v) into a call (its message speaks of **kwargs, which the
            # code does not use, or it fails an assertion): what spread_keywords.py leaves to it
            raise errors.UnsupportedError(
                "a call spreading *args with keyword arguments is supported with at most 15 keywords, each "
                "value computed before the call (not `a if c else b` inside it): pass some by position",
                loc=ir.Loc(state.func_id.filename, line),
            ) from None
        if not isinstance(e, errors.UnsupportedBytecodeError) or getattr(e, "loc", None) is not None:
            raise
        # numba names no line for some constructs ("with ... as ..."): the function's then
        func = state.func_id
        loc = ir.Loc(func.filename, func.firstlineno)
        text = str(e).split(". Raised from")[0].rstrip(".")
        raise errors.UnsupportedError(f"{text} in device code ({func.func_qualname})", loc=loc) from None
    if state.func_ir.arg_count != len(state.args):
        raise TypeError(
            f"{state.func_id.func_name}() takes {state.func_ir.arg_count} arguments, "
            f"but the signature gives {len(state.args)}"
        )


def _refuses_spread_with_keywords(e: Exception) -> bool:
    return isinstance(e, AssertionError) or "CALL_FUNCTION_EX with **kwargs" in str(e)


def _spread_with_keywords(bc: bytecode.ByteCode) -> int | None:
    """The line of the first call with both ``*args`` and keywords (CALL_FUNCTION_EX taking a
    mapping), or None."""
    for inst in bc.table.values():
        if inst.opname == "CALL_FUNCTION_EX" and inst.arg & 1:
            return inst.lineno
    return None


def _check_names(state: StateDict) -> None:
    """A name that is neither local nor global is an error at the line that uses it. The
    function's own name is left to type inference: a function compiled eagerly by its
    decorator calls itself before the decorator has bound the name."""
    own_name = state.func_id.func_name
    for block in state.func_ir.blocks.values():
        for assign in block.find_insts(ir.Assign):
            value = assign.value
            if isinstance(value, (ir.Global, ir.FreeVar)) and value.value is ir.UNDEFINED and value.name != own_name:
                raise errors.TypingError(f"NameError: name '{value.name}' is not defined", loc=assign.loc)


def _check_constructs(state: StateDict) -> None:
    """Python that device code cannot run, named in Python's words at its line (numba would
    report it later in terms of its own intrinsics and types)."""
    for block in state.func_ir.blocks.values():
        for assign in block.find_insts(ir.Assign):
            problem = _unsupported(assign.value)
            if problem:
                raise errors.UnsupportedError(problem, loc=assign.loc)


def _unsupported(value: object) -> str | None:
    if isinstance(value, ir.Expr) and value.op in ("build_map", "build_set"):
        kind = "dictionaries" if value.op == "build_map" else "sets"
        return f"{kind} are not supported in device code"
    if isinstance(value, (ir.Global, ir.FreeVar)):
        if getattr(value.value, "__name__", None) == "mark_try_block" and "numba" in str(type(value.value)):
            return "try/except is not supported in device code"
        if isinstance(value.value, (list, dict, set)):
            kind = type(value.value).__name__
            return (
                f"the global {value.name} is a {kind}, which device code cannot read: "
                "make it a tuple, or pass a NumPy array as an argument"
            )
    return None


def _postprocess(state: StateDict) -> None:
    postproc.PostProcessor(state.func_ir).run()


def _inline_closures(state: StateDict) -> None:
    """Inner functions defined in the kernel are inlined where they are called."""
    has_closure = any(
        isinstance(assign.value, ir.Expr) and assign.value.op == "make_function"
        for block in state.func_ir.blocks.values()
        for assign in block.find_insts(ir.Assign)
    )
    if not has_closure:
        return
    inline_closurecall.InlineClosureCallPass(state.func_ir, state.flags.auto_parallel, {}, True).run()
    postproc.PostProcessor(state.func_ir).run()
    fixup_var_define_in_scope(state.func_ir.blocks)


_INTEGER_RANGE = range(-(1 << 63), 1 << 64)  # what int64 or uint64 holds: numba types these literals
_FOLDED = {operator.add, operator.sub, operator.mul, operator.pow, operator.lshift}


def _wide_integers(state: StateDict) -> None:
    """Integer constants beyond int64 and uint64 are typed as ``WideIntegerConstant``s
    (types.py). CPython folds ``2**64`` but leaves ``2**70`` to be computed (it folds only
    small results), which would wrap in int64: integer arithmetic on constants whose exact
    result lies beyond that range is folded here, as CPython would fold it without limit."""
    known: dict[str, int] = {}  # variable -> its integer constant, for variables assigned once
    for block in state.func_ir.blocks.values():
        for assign in block.find_insts(ir.Assign):
            value = _exact_integer(assign.value, known)
            if value is None:
                continue
            if value not in _INTEGER_RANGE:
                assign.value = ir.Const(value, assign.value.loc, use_literal_type=False)
            if len(state.func_ir._definitions[assign.target.name]) == 1:
                known[assign.target.name] = value


def _exact_integer(value: object, known: dict[str, int]) -> int | None:
    """The integer an assignment's value is, when it is a constant or integer arithmetic on
    constants whose result leaves the 64-bit range; else None."""
    if isinstance(value, (ir.Const, ir.Global, ir.FreeVar)):  # a global int is a constant, as in numba
        return value.value if type(value.value) is int else None
    if not isinstance(value, ir.Expr):
        return None
    if value.op == "unary" and value.fn in (operator.neg, operator.pos) and value.value.name in known:
        result = value.fn(known[value.value.name])
    elif value.op == "binop" and value.fn in _FOLDED and value.lhs.name in known and value.rhs.name in known:
        lhs, rhs = known[value.lhs.name], known[value.rhs.name]
        if value.fn in (operator.pow, operator.lshift) and (rhs < 0 or rhs * max(lhs.bit_length(), 1) > 1 << 16):
            return None  # a float, an error, or a number too large to compute: left to numba
        result = value.fn(lhs, rhs)
    else:
        return None
    return result if result not in _INTEGER_RANGE else None


def _fold_constants(state: StateDict) -> None:
    analysis.rewrite_semantic_constants(state.func_ir, state.args)
    analysis.dead_branch_prune(state.func_ir, state.args)


def _rewrite(state: StateDict) -> None:
    rewrites.rewrite_registry.apply("before-inference", state)
    # raise statements numba could not make static carry their arguments as values
    untyped_passes.RewriteDynamicRaises().run_pass(state)


def _unroll_literals(state: StateDict) -> None:
    untyped_passes.LiteralUnroll().run_pass(state)


def _ssa(state: StateDict) -> None:
    untyped_passes.ReconstructSSA().run_pass(state)


def _infer_types(state: StateDict) -> None:
    typed_passes.NopythonTypeInference().run_pass(state)


def _strip_phis(state: StateDict) -> None:
    typed_passes.PreLowerStripPhis().run_pass(state)


# The frontend stages, in the order numba's nopython pipeline runs them.
STAGES = (
    _bytecode,
    _interpret,
    _check_names,
    _check_constructs,
    _postprocess,
    _inline_closures,
    _wide_integers,
    _fold_constants,
    _rewrite,
    _unroll_literals,
    _ssa,
    _infer_types,
    _strip_phis,
)
