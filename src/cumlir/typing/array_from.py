"""The rewriting of ``a = local_array_from((expr for v in iterable), dtype)`` (numba-cuda-
mlir's ``cuda.experimental.local_array_from``) into what numba types:

    a = cuda.local.array(N, dtype)
    for k, v in enumerate(iterable):
        a[k] = expr

N is the iterable's length: computed while rewriting where the iterable is known then
(a range of constants, a global tuple, a consteval name), else ``compile_time_len(iterable)``,
a literal for a tuple argument. Made by the consteval rewriter (consteval.py), which keeps
the function's file and lines.
"""

from __future__ import annotations

import ast
import itertools
from typing import Any

from numba.core import errors
from numba.core import ir as numba_ir

from .. import operations

_counter = itertools.count()


def rewritten(rewriter: Any, node: ast.stmt) -> list[ast.stmt] | None:
    """The statements replacing *node*, or None where it uses no local_array_from; a use
    that cannot be rewritten is refused at its line (numba would stop at its generator)."""
    form = _form(rewriter, node)
    if form is None:
        for call in _own_calls(node):
            if _names_local_array_from(rewriter, call.func):
                raise errors.UnsupportedError(
                    operations.stub("local_array_from").form, numba_ir.Loc(rewriter.filename, call.lineno)
                )
        return None
    call, generator, name = form
    clause = generator.generators[0]
    index = f"__local_array_from_{next(_counter)}"
    allocation = ast.Assign(
        targets=[ast.Name(id=name, ctx=ast.Store())],
        value=ast.Call(
            func=rewriter.constant(operations.stub("local.array"), node),
            args=[_length(rewriter, clause.iter, node), *call.args[1:]],
            keywords=call.keywords,
        ),
    )
    loop = ast.For(
        target=ast.Tuple(elts=[ast.Name(id=index, ctx=ast.Store()), clause.target], ctx=ast.Store()),
        iter=ast.Call(func=ast.Name(id="enumerate", ctx=ast.Load()), args=[clause.iter], keywords=[]),
        body=[
            ast.Assign(
                targets=[
                    ast.Subscript(
                        value=ast.Name(id=name, ctx=ast.Load()),
                        slice=ast.Name(id=index, ctx=ast.Load()),
                        ctx=ast.Store(),
                    )
                ],
                value=generator.elt,
            )
        ],
        orelse=[],
    )
    return [ast.fix_missing_locations(ast.copy_location(s, node)) for s in (allocation, loop)]


def _form(rewriter: Any, node: ast.stmt) -> tuple[ast.Call, ast.GeneratorExp, str] | None:
    """(the call, its generator, the name) of ``name = local_array_from((expr for v in it), ...)``."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target = node.targets[0]
    if not isinstance(target, ast.Name):
        return None
    call = node.value
    if not (isinstance(call, ast.Call) and call.args and _names_local_array_from(rewriter, call.func)):
        return None
    generator = call.args[0]
    if not isinstance(generator, ast.GeneratorExp) or len(generator.generators) != 1 or generator.generators[0].ifs:
        return None
    return call, generator, target.id


def _own_calls(node: ast.stmt) -> list[ast.Call]:
    """The calls in a statement's own expressions (not in the statements of its bodies,
    which are rewritten one by one)."""
    calls = []
    for _, value in ast.iter_fields(node):
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, ast.expr):
                calls += [n for n in ast.walk(item) if isinstance(n, ast.Call)]
    return calls


def _names_local_array_from(rewriter: Any, func: ast.expr) -> bool:
    try:
        target = eval(compile(ast.Expression(func), rewriter.filename, "eval"), dict(rewriter.env))
    except Exception:
        return False
    return target is operations.stub("local_array_from")


def _length(rewriter: Any, iterable: ast.expr, where: ast.AST) -> ast.expr:
    """The iterable's length as a literal where it is known while rewriting, else its
    ``compile_time_len`` (a literal while typing, for a tuple)."""
    try:
        code = compile(ast.fix_missing_locations(ast.Expression(iterable)), rewriter.filename, "eval")
        length = len(eval(code, {**rewriter.env, **rewriter.constants}))  # the user's compile-time value
    except Exception:
        return ast.Call(
            func=rewriter.constant(operations.stub("compile_time_len"), where), args=[iterable], keywords=[]
        )
    return ast.copy_location(ast.Constant(value=length), where)
