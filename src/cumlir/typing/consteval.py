"""``consteval``: Python run while a kernel compiles, its results constants of the kernel.

numba-cuda-mlir's ``cuda.experimental.consteval`` in its three forms:

- ``x = consteval(expr)``: *expr* is evaluated once, at compile time, in the function's
  globals and closure (and the names the blocks below bind), and becomes a constant; where
  this is x's only assignment, the consteval expressions after it read x as that value;
- ``for i in consteval(iterable):``: the loop is unrolled, the body repeated for each value
  with the loop variable a constant (``break`` and ``continue`` are refused there);
- ``with consteval(): ...``: the block runs at compile time; the names it binds are
  constants in the rest of the function.

``current_target_options()`` (typing/target_options.py) read in these gives the options of
the kernel being compiled. An ``if`` whose test has become a constant keeps only the branch taken. The function is
rewritten from its source (its syntax tree) before numba reads it, keeping its file and
line numbers, so errors and line tables point at the user's code. Only functions whose
code names ``consteval`` are rewritten; the rewritten function is made once per function (once
per compilation's options, for one reading them).
Values that are not plain Python constants (arrays, dtypes, functions) are given to the
rewritten function as globals of its own, which numba freezes as it does every global.
"""

from __future__ import annotations

import ast
import copy
import inspect
import itertools
import textwrap
import threading
import weakref
from typing import Any

from numba.core import errors
from numba.core import ir as numba_ir

from . import array_from, target_options

_NAME = "consteval"
_REWRITTEN_NAMES = (_NAME, "local_array_from")
_lock = threading.Lock()
_expanded: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()  # function -> rewritten


class _Block:
    """``with consteval():`` in plain Python (outside a kernel): the block just runs."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def consteval(value: Any = None) -> Any:
    """In a kernel or device function, evaluated while it compiles (see the module's text);
    called as plain Python, the value itself (or, without one, a block that just runs)."""
    return _Block() if value is None else value


def expanded(pyfunc: Any) -> Any:
    """*pyfunc*, or the function its consteval forms rewrite it into: one for every compilation,
    or, where the rewriting read ``current_target_options()``, one per compilation's options."""
    names = getattr(getattr(pyfunc, "__code__", None), "co_names", ())
    if not any(name in names for name in _REWRITTEN_NAMES):
        return pyfunc
    with _lock:
        found = _expanded.get(pyfunc)
        if found is None:
            found = _expanded[pyfunc] = _rewritten(pyfunc)
        if isinstance(found, _PerTarget):
            target_options.consulted()
            key = target_options.key()
            if key not in found:
                found[key] = _Rewriter(pyfunc).function()
            return found[key]
    return found


class _PerTarget(dict[Any, Any]):
    """The rewritten functions of a function whose consteval reads its compilation's options,
    by the options (target_options.key())."""


def _rewritten(pyfunc: Any) -> Any:
    with target_options.compiling(None, None) as typing:
        function = _Rewriter(pyfunc).function()
    if typing is not None and typing.consulted:
        return _PerTarget({typing.key(): function})
    return function


class _Rewriter:
    def __init__(self, pyfunc: Any) -> None:
        self.pyfunc = pyfunc
        code = pyfunc.__code__
        self.filename = code.co_filename
        self.env = dict(pyfunc.__globals__)
        if pyfunc.__closure__:
            self.env.update(zip(code.co_freevars, (cell.cell_contents for cell in pyfunc.__closure__)))
        self.constants: dict[str, Any] = {}  # names the consteval blocks and assignments bound
        self.assigned_once: set[str] = set()  # local names assigned in one place only
        self.injected: dict[str, Any] = {}  # globals of the rewritten function: values with no literal
        self._counter = itertools.count()

    # ---- the function -----------------------------------------------------------------

    def function(self) -> Any:
        try:
            lines, first = inspect.getsourcelines(self.pyfunc)
        except (OSError, TypeError) as e:
            raise errors.UnsupportedError(
                f"consteval and local_array_from need the source of {self.pyfunc.__name__} to rewrite it: {e}",
                numba_ir.Loc(self.filename, self.pyfunc.__code__.co_firstlineno),
            ) from None
        tree = ast.parse(textwrap.dedent("".join(lines)))
        ast.increment_lineno(tree, first - 1)
        definition = tree.body[0]
        if not isinstance(definition, ast.FunctionDef):
            raise errors.UnsupportedError(
                f"consteval rewrites functions defined with def, not {type(definition).__name__}",
                numba_ir.Loc(self.filename, first),
            )
        definition.decorator_list = []
        self.assigned_once = _assigned_once(definition)
        definition.body = self.block(definition.body) or [ast.Pass()]
        module = ast.fix_missing_locations(ast.Module(body=[definition], type_ignores=[]))
        namespace = {**self.env, **self.injected}
        exec(compile(module, self.filename, "exec"), namespace)  # the user's own code, rewritten
        rewritten = namespace[definition.name]
        rewritten.__qualname__ = self.pyfunc.__qualname__
        rewritten.__module__ = self.pyfunc.__module__
        return rewritten

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        result: list[ast.stmt] = []
        for statement in statements:
            result.extend(self.statement(statement))
        return result

    def statement(self, node: ast.stmt) -> list[ast.stmt]:
        filled = array_from.rewritten(self, node)
        if filled is not None:
            return self.block(filled)
        if isinstance(node, ast.With) and len(node.items) == 1 and self._is_call(node.items[0].context_expr, 0):
            self._run_block(node)
            return []
        if isinstance(node, ast.For) and self._is_call(node.iter, 1):
            return self._unrolled(node)
        bodies = {}  # rewritten after the statement's own expressions, in the order they run
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(node, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                bodies[field] = inner
                setattr(node, field, [])
        held = _held_name(node, self)  # ``name = consteval(...)``, its name's only assignment
        node = _Substituted(self).visit(node)
        if held is not None:
            value = node.value  # type: ignore[attr-defined]  # an Assign
            self.constants[held] = value.value if isinstance(value, ast.Constant) else self.injected[value.id]
        if isinstance(node, ast.If) and isinstance(node.test, ast.Constant):
            return self.block(bodies.get("body", []) if node.test.value else bodies.get("orelse", []))
        for field, inner in bodies.items():
            setattr(node, field, self.block(inner) or ([ast.Pass()] if field == "body" else []))
        return [node]

    # ---- the three forms ----------------------------------------------------------------

    def _is_call(self, node: ast.expr, nargs: int) -> bool:
        """Whether *node* is ``consteval(...)`` with *nargs* arguments, by the object named."""
        if not (isinstance(node, ast.Call) and len(node.args) == nargs and not node.keywords):
            return False
        try:
            target = eval(compile(ast.Expression(node.func), self.filename, "eval"), dict(self.env))
        except Exception:
            return False
        return target is consteval

    def evaluate(self, node: ast.expr) -> Any:
        try:
            code = compile(ast.fix_missing_locations(ast.Expression(node)), self.filename, "eval")
            return eval(code, {**self.env, **self.constants})  # the user's compile-time expression
        except Exception as e:
            raise errors.TypingError(
                f"consteval could not evaluate {ast.unparse(node)!r} at compile time: {type(e).__name__}: {e}",
                loc=numba_ir.Loc(self.filename, node.lineno),
            ) from None

    def _run_block(self, node: ast.With) -> None:
        scope = {**self.env, **self.constants}
        before = set(scope)
        module = ast.fix_missing_locations(ast.Module(body=node.body, type_ignores=[]))
        try:
            exec(compile(module, self.filename, "exec"), scope)  # the user's compile-time block
        except Exception as e:
            raise errors.TypingError(
                f"the consteval block failed at compile time: {type(e).__name__}: {e}",
                loc=numba_ir.Loc(self.filename, node.lineno),
            ) from None
        for name in _assigned(node.body):
            if name in scope and (name not in before or scope[name] is not self.env.get(name)):
                self.constants[name] = scope[name]

    def _unrolled(self, node: ast.For) -> list[ast.stmt]:
        for inner in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(inner, (ast.Break, ast.Continue)) and not _inside_loop(node, inner):
                raise errors.UnsupportedError(
                    "break and continue are not supported in a loop unrolled by consteval",
                    numba_ir.Loc(self.filename, inner.lineno),
                )
        if node.orelse:
            raise errors.UnsupportedError(
                "a loop unrolled by consteval cannot have an else block", numba_ir.Loc(self.filename, node.lineno)
            )
        values = self.evaluate(node.iter.args[0])  # type: ignore[attr-defined]
        try:
            values = list(values)
        except TypeError:
            raise errors.TypingError(
                f"consteval(...) of a for loop must be iterable at compile time, got {values!r}",
                loc=numba_ir.Loc(self.filename, node.lineno),
            ) from None
        result: list[ast.stmt] = []
        for value in values:
            assign = ast.Assign(targets=[node.target], value=self.constant(value, node))
            result.extend(self.block([ast.copy_location(assign, node), *_copied(node.body)]))
        return result

    def constant(self, value: Any, where: ast.AST) -> ast.expr:
        """An expression of the compile-time *value*: a literal, or a global of its own."""
        if _literal(value):
            node: ast.expr = ast.Constant(value=value)
        else:
            name = f"__consteval_{next(self._counter)}"
            self.injected[name] = value
            node = ast.Name(id=name, ctx=ast.Load())
        return ast.copy_location(node, where)


class _Substituted(ast.NodeTransformer):
    """``consteval(expr)`` replaced by its value, names the blocks bound by theirs."""

    def __init__(self, rewriter: _Rewriter) -> None:
        self.rewriter = rewriter

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if self.rewriter._is_call(node, 1):
            return self.rewriter.constant(self.rewriter.evaluate(node.args[0]), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.rewriter.constants:
            return self.rewriter.constant(self.rewriter.constants[node.id], node)
        return node


def _held_name(node: ast.stmt, rewriter: _Rewriter) -> str | None:
    """The name ``name = consteval(expr)`` binds, where it is the name's only assignment: a
    constant for the consteval expressions after it (``if consteval(name == 3)``)."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
        return None
    name = node.targets[0].id
    return name if name in rewriter.assigned_once and rewriter._is_call(node.value, 1) else None


def _assigned_once(definition: ast.FunctionDef) -> set[str]:
    """The local names the function assigns (or deletes) in exactly one place, parameters aside."""
    counts: dict[str, int] = {}
    for node in ast.walk(definition):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
    parameters = {a.arg for a in ast.walk(definition.args) if isinstance(a, ast.arg)}
    return {name for name, count in counts.items() if count == 1 and name not in parameters}


def _literal(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_literal(v) for v in value)
    return value is None or type(value) in (bool, int, float, complex, str)


def _assigned(statements: list[ast.stmt]) -> set[str]:
    names = set()
    for node in ast.walk(ast.Module(body=statements, type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            names.update(
                [node.name]
                if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                else [(a.asname or a.name).split(".")[0] for a in node.names]
            )
    return names


def _inside_loop(outer: ast.For, target: ast.AST) -> bool:
    """Whether *target* (a break or continue) belongs to a loop nested in *outer*'s body."""
    for node in ast.walk(ast.Module(body=outer.body, type_ignores=[])):
        if isinstance(node, (ast.For, ast.While)) and any(child is target for child in ast.walk(node)):
            return True
    return False


def _copied(statements: list[ast.stmt]) -> list[ast.stmt]:
    return [copy.deepcopy(statement) for statement in statements]
