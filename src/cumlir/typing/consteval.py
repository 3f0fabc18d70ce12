"""``consteval``: Python run while a kernel compiles, its results constants of the kernel.

numba-cuda-mlir's ``cuda.experimental.consteval`` in its three forms:

- ``x = consteval(expr)``: *expr* is evaluated once, at compile time, in the function's
  globals and closure (and the names the blocks below bind), and becomes a constant; where
  this is x's only assignment, the consteval expressions after it read x as that value;
- ``for i in consteval(iterable):``: the loop is unrolled, the body repeated for each value
  with the loop variable a constant (``break`` and ``continue`` are refused there);
- ``with consteval(): ...``: the block runs at compile time; the names it binds are
  constants in the rest of the function.

The function's parameters are, in these, numba's types of the arguments it is being typed
for (``arr.dtype``, ``arr.ndim``, ``n == types.int32``; a kernel's ``*args`` the StarArgTuple of
its members), and an unrolled loop's variable is each value in turn.
``current_target_options()`` (typing/target_options.py) read in these gives the options of
the kernel being compiled (``cuda.current_target_options()`` too, as numba-cuda-mlir reads
any ``X.current_target_options()`` there). An ``if`` whose test has become a constant keeps
only the branch taken. The function is rewritten from its source (its syntax tree) before
numba reads it, keeping its file and line numbers, so errors and line tables point at the
user's code. Only functions whose code names ``consteval`` (or ``local_array_from``), under
any name, are rewritten; the rewritten function is made once per function, or once per
tuple of argument types where the rewriting read a parameter, and per compilation's options
where it read them. Values that are not plain Python constants (arrays, dtypes, functions)
are given to the rewritten function as globals of its own, which numba freezes as it does
every global.
"""

from __future__ import annotations

import ast
import copy
import inspect
import itertools
import textwrap
import threading
import weakref
from collections.abc import Sequence
from types import CodeType
from typing import Any

from numba import typeof
from numba.core import errors, types
from numba.core import ir as numba_ir

from .. import operations
from . import array_from, target_options

_NAME = "consteval"
_REWRITTEN_NAMES = (_NAME, "local_array_from")
_TARGET_OPTIONS = "__cumlir_current_target_options__"  # what ``X.current_target_options()`` reads
_lock = threading.RLock()  # user code run while rewriting may compile another function that uses consteval
_expanded: weakref.WeakKeyDictionary[Any, _Rewritings] = weakref.WeakKeyDictionary()  # function -> rewritten


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


def expanded(pyfunc: Any, argtypes: Sequence[types.Type] = ()) -> Any:
    """*pyfunc*, or the function its consteval forms rewrite it into for the argument types
    *argtypes* and the compilation under way (see the module's text)."""
    if not _rewrites(pyfunc):
        return pyfunc
    with _lock:
        rewritings = _expanded.get(pyfunc)
        if rewritings is None:
            rewritings = _expanded[pyfunc] = _Rewritings()
        return rewritings.function(pyfunc, tuple(argtypes))


class _Rewritings(dict[tuple[Any, Any], Any]):
    """The rewritten functions of one function, by what their rewriting read: (the argument
    types, or None where it read no parameter; the options' key, or None where it read no
    option). A rewriting that read neither serves every typing."""

    def function(self, pyfunc: Any, argtypes: tuple[types.Type, ...]) -> Any:
        options = target_options.key()
        for key in ((None, None), (argtypes, None), (None, options), (argtypes, options)):
            found = self.get(key)
            if found is not None:
                if key[1] is not None:
                    target_options.consulted()
                return found
        with target_options.compiling(None, None) as typing:
            rewriter = _Rewriter(pyfunc, argtypes)
            function = rewriter.function()
        consulted = typing is not None and typing.consulted
        self[(argtypes if rewriter.read_parameters else None, options if consulted else None)] = function
        return function


def _rewrites(pyfunc: Any) -> bool:
    """Whether the code of *pyfunc* (its inner functions' included) names consteval or
    local_array_from, by these names or by any global or closure name bound to them."""
    code = getattr(pyfunc, "__code__", None)
    if code is None:
        return False
    names: set[str] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        names.update(current.co_names, current.co_freevars)
        stack += [c for c in current.co_consts if isinstance(c, CodeType)]
    if any(name in names for name in _REWRITTEN_NAMES):
        return True
    rewriting = (consteval, operations.stub("local_array_from"))
    cells = dict(zip(code.co_freevars, pyfunc.__closure__ or ()))
    for name in names:
        value = pyfunc.__globals__.get(name)
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:  # a cell not filled yet
                continue
        if any(value is r for r in rewriting):
            return True
    return False


def _scope_of(pyfunc: Any) -> dict[str, Any]:
    """The names *pyfunc*'s code reads from outside: its globals, then its closure's cells."""
    scope = dict(pyfunc.__globals__)
    if pyfunc.__closure__:
        for name, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # a cell not filled yet (a name the enclosing function binds later)
                pass
    return scope


def _parameter_values(pyfunc: Any, argtypes: tuple[types.Type, ...]) -> dict[str, Any]:
    """The function's parameters as consteval reads them: numba's types of its arguments (an
    omitted argument's default value typed as numba types it)."""
    names = list(inspect.signature(pyfunc).parameters)
    values: dict[str, Any] = {}
    for name, ty in zip(names, argtypes):
        if isinstance(ty, types.Omitted):
            try:
                ty = typeof(ty.value)
            except ValueError:
                pass
        values[name] = ty
    return values


class _Rewriter:
    def __init__(self, pyfunc: Any, argtypes: tuple[types.Type, ...] = ()) -> None:
        self.pyfunc = pyfunc
        self.filename = pyfunc.__code__.co_filename
        self.env = _scope_of(pyfunc)
        self.env[_TARGET_OPTIONS] = target_options.current_target_options
        self.parameters = _parameter_values(pyfunc, argtypes)  # name -> numba type
        self.read_parameters = False  # whether an evaluation named a parameter
        # names the consteval blocks, assignments and unrolled loops bound
        self.constants: dict[str, Any] = {}
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

    def scope(self, node: ast.AST) -> dict[str, Any]:
        """What the compile-time code *node* reads: the function's globals and closure, its
        parameters (numba's types), then the names bound by the consteval forms before it."""
        shadowed = set(self.constants)
        if any(isinstance(n, ast.Name) and n.id in self.parameters and n.id not in shadowed for n in ast.walk(node)):
            self.read_parameters = True
        return {**self.env, **self.parameters, **self.constants}

    def evaluate(self, node: ast.expr) -> Any:
        try:
            expression = ast.fix_missing_locations(ast.Expression(_TargetOptionsRead().visit(copy.deepcopy(node))))
            code = compile(expression, self.filename, "eval")
            return eval(code, self.scope(node))  # the user's compile-time expression
        except Exception as e:
            raise errors.TypingError(
                f"consteval could not evaluate {ast.unparse(node)!r} at compile time: {type(e).__name__}: {e}",
                loc=numba_ir.Loc(self.filename, node.lineno),
            ) from None

    def _run_block(self, node: ast.With) -> None:
        if node.items[0].optional_vars is not None:
            raise errors.UnsupportedError(
                f"'with consteval() as {ast.unparse(node.items[0].optional_vars)}:' binds nothing: write "
                "'with consteval():' and read the names the block binds with consteval(name) after it",
                numba_ir.Loc(self.filename, node.lineno),
            )
        module = ast.Module(body=node.body, type_ignores=[])
        scope = self.scope(module)
        before = set(scope)
        module = ast.fix_missing_locations(_TargetOptionsRead().visit(copy.deepcopy(module)))
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

    def _bound(self, target: ast.expr, value: Any) -> dict[str, Any]:
        """The names an unrolled loop's *target* binds to *value*, unpacked as Python would."""
        if isinstance(target, ast.Name):
            return {target.id: value}
        where = numba_ir.Loc(self.filename, target.lineno)
        if not isinstance(target, (ast.Tuple, ast.List)) or any(isinstance(t, ast.Starred) for t in target.elts):
            raise errors.UnsupportedError(
                f"a loop unrolled by consteval binds names or tuples of names, not {ast.unparse(target)!r}", where
            )
        try:
            values = list(value)
        except TypeError:
            raise errors.TypingError(
                f"consteval cannot unpack {value!r} into {ast.unparse(target)}", loc=where
            ) from None
        if len(values) != len(target.elts):
            raise errors.TypingError(
                f"consteval cannot unpack {value!r} into {ast.unparse(target)}: "
                f"{len(values)} values for {len(target.elts)} names",
                loc=where,
            )
        bound: dict[str, Any] = {}
        for element, member in zip(target.elts, values):
            bound.update(self._bound(element, member))
        return bound

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
        reassigned = _assigned(node.body)
        result: list[ast.stmt] = []
        for value in values:
            bound = self._bound(node.target, value)
            # the loop's names, constants in its body unless the body assigns them; assigned
            # for the code after the loop too where they are plain constants
            assigns = [
                ast.copy_location(
                    ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=self.constant(member, node)), node
                )
                for name, member in bound.items()
                if _literal(member) or name in reassigned
            ]
            saved = {name: self.constants.get(name, _UNBOUND) for name in bound}
            self.constants.update({name: member for name, member in bound.items() if name not in reassigned})
            result.extend(self.block([*assigns, *_copied(node.body)]))
            for name, previous in saved.items():
                if previous is _UNBOUND:
                    self.constants.pop(name, None)
                else:
                    self.constants[name] = previous
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


_UNBOUND = object()


class _TargetOptionsRead(ast.NodeTransformer):
    """``X.current_target_options()`` (``cuda.current_target_options()``, numba-cuda-mlir's
    spelling) read as cumlir's current_target_options()."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "current_target_options" and not node.args:
            return ast.copy_location(
                ast.Call(func=ast.Name(id=_TARGET_OPTIONS, ctx=ast.Load()), args=[], keywords=node.keywords), node
            )
        return node


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
