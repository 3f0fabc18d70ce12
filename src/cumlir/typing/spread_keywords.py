"""Calls spreading a tuple and passing keywords, ``f(*t, k=v)``, read into numba's IR.

Python compiles such a call into CALL_FUNCTION_EX with the tuple and a dict of the keywords.
numba's bytecode reader turns it back into an ordinary call by finding where both were
built: it takes the keywords from the dict's construction, but the positional arguments
only from a tuple written out in the same block (``(x, y)``), and refuses a tuple variable,
a function's argument or a slice. Its IR can hold what the call means as it is (a call's
``vararg`` beside its ``kws``), and typing and lowering read it so: this pass folds the
keywords of such calls first, leaving the spread tuple in place. Dicts of more than 15
keywords (built item by item) are left to numba.
"""

from __future__ import annotations

from numba.core import interpreter, ir


class Interpreter(interpreter.Interpreter):
    """numba's bytecode reader, with the keywords of spreading calls folded before its own
    rewriting of CALL_FUNCTION_EX."""

    def post_process(self, peepholes: list, func_ir: ir.FunctionIR) -> ir.FunctionIR:
        return super().post_process([_fold_with_spread if p is _NUMBA_FOLD else p for p in peepholes], func_ir)


_NUMBA_FOLD = interpreter.peep_hole_call_function_ex_to_call_function_kw


def _fold_with_spread(func_ir: ir.FunctionIR) -> ir.FunctionIR:
    for block in func_ir.blocks.values():
        built: dict[str, ir.Assign] = {}  # variable -> its assignment in this block, so far
        for stmt in block.body:
            if not isinstance(stmt, ir.Assign):
                continue
            call = stmt.value
            if isinstance(call, ir.Expr) and call.op == "call" and call.vararg is not None and call.varkwarg:
                keywords = _constant_keywords(func_ir, built.get(call.varkwarg.name))
                if keywords is not None and not call.kws:
                    block.body.remove(built[call.varkwarg.name])
                    func_ir._definitions[call.varkwarg.name].remove(built[call.varkwarg.name].value)
                    call.kws, call.varkwarg = keywords, None
            built[stmt.target.name] = stmt
    return _NUMBA_FOLD(func_ir)


def _constant_keywords(func_ir: ir.FunctionIR, assign: ir.Assign | None) -> list[tuple[str, ir.Var]] | None:
    """[(name, value)] of a dict built as ``{"k": v, ...}`` by the call's own bytecode (a
    temporary variable no other statement reads), or None."""
    if assign is None or not assign.target.name.startswith("$"):
        return None
    built = assign.value
    if not (isinstance(built, ir.Expr) and built.op == "build_map" and built.items):
        return None
    keywords = []
    for key, value in built.items:
        name = func_ir.get_definition(key)
        if not (isinstance(name, ir.Const) and isinstance(name.value, str)):
            return None
        keywords.append((name.value, value))
    return keywords
