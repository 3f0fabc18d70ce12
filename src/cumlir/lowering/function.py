"""MLIRLower: lowers one typed Numba function into an MLIR function.

Each Numba IR block becomes an MLIR block whose arguments are the variables live
on entry to it (computed by numba's liveness analysis), so no variable needs a
stack slot: a jump passes the current value of each live variable. Operations are
lowered by rules looked up in the registry (registry.py); this class walks the IR,
keeps the variable -> value map, inserts casts between Numba types and reports
errors at the source line that caused them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mlir import ir
from mlir.dialects import cf, func, gpu, llvm, ub
from numba.core import analysis, errors, postproc, types
from numba.core import ir as nir
from numba.core.typing.templates import Signature

from .. import operations
from ..models import default_manager
from ..typing.target import target_override
from . import debug_variables, kernel_abi, places, refcount, returned_arrays
from .builder_api import BuilderAPI
from .exceptions import end_thread, record_raise
from .expressions import NO_VALUE, ExpressionLowering, setitem_key, zero_or_poison
from .printing import lower_print
from .registry import registry

if TYPE_CHECKING:
    from ..operations._support.builder import Lower, MLIRType, ModuleBuilder, NumbaType, Value
    from ..options import Options
    from ..typing.frontend import DeviceFunction, TypedFunction

    class _Module(ModuleBuilder, Protocol):
        """What an MLIRLower uses of the module it builds into (module.ModuleBuilder, which
        imports this module: named by this protocol, not imported)."""

        options: Options
        typing_context: Any
        gpu_module: Any  # the gpu.module op
        body: Any  # the gpu.module's block

        def device_callee(self, key: object) -> DeviceFunction | None: ...

        def emit_device_call(
            self, lower: MLIRLower, callee: DeviceFunction, sig: Signature, args: Sequence[Value]
        ) -> Value: ...

        def call_python(
            self, lower: MLIRLower, pyfunc: Callable[..., Any], sig: Signature, args: Sequence[Value]
        ) -> Value: ...


class MLIRLower(BuilderAPI, ExpressionLowering):
    """Builds one function; ``kind`` is "kernel" (a gpu.func) or "device" (a func.func)."""

    module: _Module

    def __init__(
        self, module: _Module, typed: TypedFunction, kind: str, symbol: str, options: Options | None = None
    ) -> None:
        self.module = module
        self._options = options  # a device function's own, where they differ from the module's
        self.typed = typed
        self.func_ir = typed.func_ir
        self.typemap = typed.typemap
        self.calltypes = typed.calltypes
        self.kind = kind
        self.symbol = symbol
        self.dmm = default_manager
        self.typing_context = module.typing_context
        self._values: dict[str, Any] = {}  # variable name -> its value
        self.places: dict[str, Any] = {}  # temporary -> where it was read from (places.py)
        self._args: list[Value] = []
        self._blocks: dict[int, Any] = {}  # Numba IR block label -> its MLIR block
        self._live_in: dict[int, list[str]] = {}
        self.loc: nir.Loc | None = None
        self._debug: debug_variables.DebugVariables | None = None  # debug=True: the kernel's DWARF variables
        self._label: int | None = None  # the Numba IR block being lowered
        self._loop_labels: set[int] | None = None  # the blocks inside loops, found when first asked
        # with NRT on, every variable holding arrays owns a reference (refcount.py, docs/nrt.md)
        self.refcounting = bool(module.options.nrt)
        self._fresh: Value | None = None  # the last value an expression made with a reference of its own
        self.refcount_calls: list[tuple[Any, ...]] = []  # (helper, call op, memref): what refcount.prune looks at

    # ---- the public builder interface used by lowering rules ------------------------

    @property
    def mlir_gpu_module(self) -> Any:
        return self.module.gpu_module

    def get_numba_type(self, var: str | nir.Var) -> NumbaType:
        return self.typemap[var if isinstance(var, str) else var.name]

    def get_mlir_type(self, numba_type: NumbaType) -> MLIRType:
        return self.dmm.value_type(numba_type)

    def has_value(self, numba_type: NumbaType) -> bool:
        return self.dmm.lookup(numba_type).has_value

    def flat_types(self, numba_types: Iterable[NumbaType]) -> list[MLIRType]:
        """The MLIR types that carry values of *numba_types* as function arguments or results."""
        return [t for ty in numba_types if self.has_value(ty) for t in self.dmm.lookup(ty).flat_types()]

    def load_var(self, var: str | nir.Var) -> Value:
        name = var if isinstance(var, str) else var.name
        try:
            return self._values[name]
        except KeyError:
            if name in self.typemap and not self.has_value(self.typemap[name]):
                return NO_VALUE  # never materialised, so not carried into later blocks
            raise errors.LoweringError(f"variable '{name}' may be used before it is assigned", self.loc) from None

    def current_value(self, name: str, default: Value) -> Value:
        """The value *name* holds now, or *default* where it holds none (deleted, with NRT on)."""
        return self._values.get(name, default)

    def load_vars(self, vars: Iterable[str | nir.Var]) -> list[Value]:
        return [self.load_var(v) for v in vars]

    def store_var(self, var: str | nir.Var, value: Value, value_type: NumbaType | None = None) -> None:
        """Bind *var*; a value of another Numba type is first cast to the variable's type."""
        name = var if isinstance(var, str) else var.name
        ty = self.typemap[name]
        if value_type is not None:
            value = self.cast(value, value_type, ty)
        self._values[name] = value
        if self._debug is not None:
            self._debug.assigned(name, value)

    def cast(self, value: Value, fromty: NumbaType, toty: NumbaType) -> Value:
        """Convert *value* from Numba type *fromty* to *toty* (the lower_cast rules)."""
        if fromty == toty:
            return value
        if not self.has_value(toty):
            return NO_VALUE
        rule = registry.find_cast(fromty, toty)
        if rule is not None:
            return rule(self, fromty, toty, value)
        if isinstance(fromty, types.Literal) and types.unliteral(fromty) == toty:
            return value
        raise errors.LoweringError(f"cannot convert a value of type {fromty} to {toty}", self.loc)

    def constant(self, ty: NumbaType, pyval: Any) -> Value:
        """An MLIR value of Numba type *ty* holding the Python value *pyval*."""
        if not self.has_value(ty):
            return NO_VALUE
        if isinstance(pyval, operations.Register):  # cuda.laneid: typed as a value, read here
            if pyval.read_rule is None:
                message = f"cuda.{pyval.__name__} has no lowering (no @read rule is declared)"
                raise errors.LoweringError(message, self.loc)
            return pyval.read_rule(self)
        rule = registry.find_constant(ty)
        if rule is None:
            raise errors.LoweringError(f"constants of type {ty} are not supported ({pyval!r})", self.loc)
        return rule(self, ty, pyval)

    def call(self, key: Any, sig: Signature, args: Sequence[Value]) -> Value | None:
        """Lower a call of operation *key* with signature *sig* on already-cast *args*."""
        callee = self.module.device_callee(key)
        if callee is not None:
            return self.module.emit_device_call(self, callee, sig, args)
        rule = registry.find_call(key, sig.args)
        if rule is None:
            raise errors.LoweringError(_no_lowering_message(key, sig), self.loc)
        return rule(self, sig, args)

    def call_function(
        self, fn: Callable[..., Any], argtypes: Sequence[NumbaType], args: Sequence[Value]
    ) -> tuple[Value, NumbaType]:
        """Type ``fn(*args)`` for the Numba *argtypes* as user code would be, and lower it.

        Returns (value, result type). For rules that apply Python operations to parts
        of their operands (comparing tuple members, say)."""
        with target_override():
            fnty = self.typing_context.resolve_value_type(fn)
            sig = self.typing_context.resolve_function_type(fnty, tuple(argtypes), {})
        if not isinstance(sig, Signature):
            raise TypeError(f"{getattr(fn, '__name__', fn)}{tuple(argtypes)} cannot be typed")
        values = [self.cast(v, t, u) for v, t, u in zip(args, argtypes, sig.args)]
        return self.call(fnty.get_impl_key(sig), sig, values), sig.return_type

    def call_python(self, pyfunc: Callable[..., Any], sig: Signature, args: Sequence[Value]) -> Value:
        """Lower a call by compiling the Python function *pyfunc* (see ModuleBuilder.call_python)."""
        return self.module.call_python(self, pyfunc, sig, args)

    def call_external(self, name: str, result_type: MLIRType | None, args: Sequence[Value]) -> Value | None:
        """Call an external function, declared on first use (libdevice routines); a
        *result_type* of None calls a function returning nothing."""
        results = [] if result_type is None else [result_type]
        symbol = self.module.declare_function(name, [a.type for a in args], results)
        call = func.CallOp(results, ir.FlatSymbolRefAttr.get(symbol), list(args))
        return call.result if results else None

    @property
    def options(self) -> Options:
        return self._options or self.module.options

    def poison(self, mlir_type: MLIRType) -> Value:
        return ub.PoisonOp(mlir_type).result

    @contextlib.contextmanager
    def alloca_insertion_point(self) -> Iterator[None]:
        """Insert at the start of the entry block, where allocas can be promoted to registers."""
        with ir.InsertionPoint.at_block_begin(self._entry):
            yield

    # ---- building the function -------------------------------------------------------

    def runs_once_per_array(self) -> bool:
        """Whether an array made by the statement being lowered may live in a stack slot of
        the kernel: the statement is in a kernel (whose arrays end with the launch) and in
        no loop (each array it makes would reuse the slot while an earlier one may live)."""
        if self.kind != "kernel":
            return False
        if self._loop_labels is None:
            self._loop_labels = {label for loop in self._cfg.loops().values() for label in loop.body}
        return self._label not in self._loop_labels

    def mark_fresh(self, value: Value) -> Value:
        """*value* comes with a reference of its own (a new array, a device function's result):
        the variable it is assigned to takes no other."""
        self._fresh = value
        return value

    def is_fresh(self, value: Value) -> bool:
        return value is not None and value is self._fresh

    def lower(self) -> Any:
        """Emit the function into the module's gpu.module; returns the function op."""
        if self.kind == "device":
            returned_arrays.check(self.typed, self.refcounting, automatic=self.options.nrt is None)
        if self.refcounting:
            self.func_ir = _with_dels(self.func_ir)
        self._debug = debug_variables.DebugVariables(self) if debug_variables.wanted(self) else None
        location = _location(self.func_ir.loc)  # the def line: line tables name the source file
        with self._debug.location(location) if self._debug else location:
            self.function_op = self._create_function()
        with ir.Location.unknown():
            with ir.InsertionPoint(self._entry):
                self._bind_arguments(self.typed.args)
            self._create_blocks()
            with ir.InsertionPoint(self._entry):
                cf.BranchOp([], self._blocks[self._cfg.entry_point()])
            for label, block in self.func_ir.blocks.items():
                if label in self._blocks:
                    self._lower_block(label, block)
            refcount.prune(self.refcount_calls)
        return self.function_op

    def _create_function(self) -> ir.OpView:
        argtypes = self.typed.args
        with ir.InsertionPoint(self.module.body):
            if self.kind == "kernel":  # typed as returning None (compiler.KernelEntry checks)
                params = kernel_abi.kernel_params(self, argtypes, self.func_ir.arg_names, self.func_ir.loc)
                fn_type = ir.FunctionType.get(params, [])
                op = gpu.GPUFuncOp(ir.TypeAttr.get(fn_type), sym_name=self.symbol, kernel=True)
                kernel_abi.mark_by_value_params(self, op, argtypes)
            else:
                params = self.flat_types(argtypes)
                results = self.flat_types([self.typed.return_type])
                fn_type = ir.FunctionType.get(params, results)
                op = func.FuncOp(self.symbol, fn_type, visibility="private")
                # internal linkage: LLVM may inline it everywhere and drop the definition
                op.attributes["llvm.linkage"] = ir.Attribute.parse("#llvm.linkage<internal>")
            self._entry = op.body.blocks.append(*params)
        return op

    def _bind_arguments(self, argtypes: Sequence[NumbaType]) -> None:
        params = list(self._entry.arguments)
        for ty in argtypes:
            if self.kind == "kernel":
                n = len(kernel_abi.param_types(self, ty))
                self._args.append(kernel_abi.value_from_params(self, ty, params[:n]))
                params = params[n:]
            elif self.has_value(ty):
                model = self.dmm.lookup(ty)
                n = len(model.flat_types())
                self._args.append(model.unflatten(params[:n]))
                params = params[n:]
            else:
                self._args.append(NO_VALUE)

    def _create_blocks(self) -> None:
        blocks = self.func_ir.blocks
        self._cfg = analysis.compute_cfg_from_blocks(blocks)
        usedefs = analysis.compute_use_defs(blocks)
        live = analysis.compute_live_map(self._cfg, blocks, usedefs.usemap, usedefs.defmap)
        dead = set(self._cfg.dead_nodes())
        for label in blocks:
            if label in dead:
                continue
            names = sorted(
                n for n in live[label] | self._deleted_on_entry(blocks[label]) if self.has_value(self.typemap[n])
            )
            self._live_in[label] = names
            argtypes = [t for n in names for t in self.dmm.lookup(self.typemap[n]).flat_types()]
            locs = [ir.Location.unknown()] * len(argtypes)
            self._blocks[label] = self.function_op.body.blocks.append(*argtypes, arg_locs=locs)

    def _deleted_on_entry(self, block: nir.Block) -> set[str]:
        """Variables holding arrays whose reference the block gives back before defining them:
        those the predecessors still held on the way in (numba's escaping ``del``s)."""
        if not self.refcounting:
            return set()
        defined, deleted = set(), set()
        for stmt in block.body:
            if isinstance(stmt, nir.Del) and stmt.value not in defined:
                if refcount.holds_arrays(self.dmm, self.typemap[stmt.value]):
                    deleted.add(stmt.value)
            elif isinstance(stmt, nir.Assign):
                defined.add(stmt.target.name)
        return deleted

    def _successor_operands(self, label: int) -> list[Value]:
        operands = []
        for name in self._live_in[label]:
            value = self._values.get(name)
            if value is None:  # not assigned on this path: the target never reads it
                operands += self._unassigned(self.typemap[name])
            else:
                operands += self.dmm.lookup(self.typemap[name]).flatten(value)
        return operands

    def _unassigned(self, numba_type: NumbaType) -> list[Value]:
        """The flat value of a variable on a path that never assigned it: undefined, except that
        arrays own nothing there (a later ``del`` gives nothing back)."""
        types_ = self.flat_types([numba_type])
        if self.refcounting and refcount.holds_arrays(self.dmm, numba_type):
            return [
                refcount.null_memref(t) if isinstance(t, ir.MemRefType) else zero_or_poison(self, t) for t in types_
            ]
        return [zero_or_poison(self, t) if self.refcounting else self.poison(t) for t in types_]

    def _lower_block(self, label: int, block: nir.Block) -> None:
        self._label = label
        mlir_block = self._blocks[label]
        arguments, start = list(mlir_block.arguments), 0
        self._values = {}
        for name in self._live_in[label]:
            model = self.dmm.lookup(self.typemap[name])
            n = len(model.flat_types())
            self._values[name] = model.unflatten(arguments[start : start + n])
            start += n
        with ir.InsertionPoint(mlir_block):
            for stmt in block.body:
                self.loc = stmt.loc
                with _location(stmt.loc):
                    try:
                        self._lower_stmt(stmt)
                    except errors.NumbaError:
                        raise
                    except Exception as e:
                        raise errors.LoweringError(f"{type(e).__name__}: {e}", stmt.loc) from e

    # ---- statements ------------------------------------------------------------------

    def _lower_stmt(self, stmt: Any) -> None:  # a numba IR statement (nir.Stmt)
        handler = _STATEMENTS.get(type(stmt))
        if handler is None:
            raise errors.UnsupportedError(f"the statement '{stmt}' is not supported in kernels", stmt.loc)
        handler(self, stmt)

    def _assign(self, stmt: nir.Assign) -> None:
        target, value = stmt.target, stmt.value
        ty = self.typemap[target.name]
        old = self._values.get(target.name) if self.refcounting else None
        if isinstance(value, nir.Expr):
            self._fresh = None
            result, result_type = self._lower_expr(value, ty)
            if result is not self._fresh:
                self._take_reference(result_type, result)
            self.store_var(target, result, result_type)
            if value.op in places.PLACE_EXPRESSIONS and target.name[0] == "$" and places.written_back(ty):
                places.remember(self, target.name, value)
        elif isinstance(value, nir.Var):
            self._take_reference(self.typemap[value.name], self.load_var(value))
            self.store_var(target, self.load_var(value), self.typemap[value.name])
            if target.name[0] == "$" and places.written_back(ty):  # a value carried to another block
                places.remember_copy(self, target.name, value.name)
        elif isinstance(value, nir.Arg):
            self._take_reference(self.typed.args[value.index], self._args[value.index])
            self.store_var(target, self._args[value.index], self.typed.args[value.index])
        elif isinstance(value, (nir.Const, nir.Global, nir.FreeVar)):
            self.store_var(target, self.constant(ty, value.value))  # constants are never owned
        else:
            raise errors.UnsupportedError(f"cannot lower the assignment '{stmt}'", stmt.loc)
        if old is not None:  # assigned again: the old value's reference goes
            refcount.decref(self, ty, old)

    def _take_reference(self, numba_type: NumbaType, value: Value) -> None:
        if self.refcounting and value is not NO_VALUE:
            refcount.incref(self, numba_type, value)

    def _del(self, stmt: nir.Del) -> None:
        """A variable dies: with NRT on, its reference goes."""
        if not self.refcounting:
            return
        value = self._values.pop(stmt.value, None)
        if value is not None:
            refcount.decref(self, self.typemap[stmt.value], value)

    def _setitem(self, stmt: nir.SetItem | nir.StaticSetItem) -> None:
        sig = self.calltypes[stmt]
        index = stmt.index if isinstance(stmt, nir.SetItem) else stmt.index_var
        operands = (stmt.target, index, stmt.value)
        self._call_with_vars(setitem_key(), sig, operands)

    def _setattr(self, stmt: nir.SetAttr) -> None:
        sig = self.calltypes[stmt]
        rule = registry.find_setattr(sig.args[0], stmt.attr)
        if rule is None:
            raise errors.LoweringError(f"no lowering for assigning to {sig.args[0]}.{stmt.attr}", stmt.loc)
        args = [
            self.cast(self.load_var(v), self.typemap[v.name], t) for v, t in zip((stmt.target, stmt.value), sig.args)
        ]
        new_value = rule(self, sig, args, stmt.attr)
        if new_value is not None:  # a value assigned by value (a C struct): the target's new value
            places.assign_field(self, stmt.target, stmt.attr, args[1], new_value)

    def _branch(self, stmt: nir.Branch) -> None:
        cond = self.cast(self.load_var(stmt.cond), self.typemap[stmt.cond.name], types.boolean)
        cf.CondBranchOp(
            cond,
            self._successor_operands(stmt.truebr),
            self._successor_operands(stmt.falsebr),
            self._blocks[stmt.truebr],
            self._blocks[stmt.falsebr],
        )

    def _jump(self, stmt: nir.Jump) -> None:
        cf.BranchOp(self._successor_operands(stmt.target), self._blocks[stmt.target])

    def _return(self, stmt: nir.Return) -> None:
        if self.kind == "kernel":
            gpu.ReturnOp([])
            return
        ret = self.typed.return_type
        if self.has_value(ret):
            value = self.cast(self.load_var(stmt.value), self.typemap[stmt.value.name], ret)
            func.ReturnOp(self.dmm.lookup(ret).flatten(value))
        else:
            func.ReturnOp([])

    def _print(self, stmt: nir.Print) -> None:
        lower_print(self, stmt)

    def _ignore(self, stmt: nir.Stmt) -> None:
        pass

    def _raise(self, stmt: nir.StaticRaise | nir.Raise | nir.DynamicRaise) -> None:
        if self.options.debug:
            if isinstance(stmt, (nir.StaticRaise, nir.DynamicRaise)):
                # the message keeps the constant arguments; values known only at run time show as "?"
                exc_args = tuple(a if not isinstance(a, nir.Var) else "?" for a in stmt.exc_args or ())
                record_raise(self, stmt.exc_class, exc_args, stmt.loc)
            else:
                exc_type = self.typemap[stmt.exception.name] if stmt.exception is not None else None
                record_raise(self, getattr(exc_type, "exc_class", None), (), stmt.loc)
        end_thread(self)

    def make_struct(self, ty: NumbaType, values: Sequence[Value]) -> Value:
        if getattr(self.dmm.lookup(ty), "held_apart", False):
            return tuple(values)
        struct = self.poison(self.get_mlir_type(ty))
        for i, (member_type, value) in enumerate(zip(self.dmm.lookup(ty).member_types(), values)):
            if self.has_value(member_type):
                struct = llvm.insertvalue(struct, value, ir.DenseI64ArrayAttr.get([i]))
        return struct

    def empty_value(self, ty: NumbaType) -> Value:
        """A value of *ty* holding nothing (what an Optional holds beside None): zero where its
        MLIR types have one, arrays owning no memory (a decref finds them harmless)."""
        parts = [
            refcount.null_memref(t) if isinstance(t, ir.MemRefType) else zero_or_poison(self, t)
            for t in self.flat_types([ty])
        ]
        return self.dmm.lookup(ty).unflatten(parts) if parts else NO_VALUE

    def extract(self, struct: Value, ty: NumbaType, index: int) -> Value:
        model = self.dmm.lookup(ty)
        member_type = model.member_types()[index]
        if not self.has_value(member_type):
            return NO_VALUE
        if model.held_apart:
            return struct[index]
        return llvm.extractvalue(self.get_mlir_type(member_type), struct, ir.DenseI64ArrayAttr.get([index]))


def _no_lowering_message(key: Any, sig: Signature) -> str:
    argtypes = ", ".join(str(a) for a in sig.args)
    name = getattr(key, "__qualname__", None) or getattr(key, "__name__", None) or str(key)
    module = getattr(key, "__module__", "") or ""
    if module.startswith("numba.") and "<locals>" in name:
        owner = name.split(".<locals>")[0]
        return (
            f"{owner}({argtypes}) is a numba intrinsic implemented with llvmlite, "
            "which cumlir cannot compile (the construct using it is not supported)"
        )
    return f"no lowering for {name}({argtypes})"


def _location(loc: nir.Loc | None) -> ir.Location:
    if loc is None or loc.filename is None:
        return ir.Location.unknown()
    return ir.Location.file(loc.filename, loc.line or 0, loc.col or 0)


_STATEMENTS: dict[type, Callable[[MLIRLower, Any], None]] = {
    nir.Assign: MLIRLower._assign,
    nir.SetItem: MLIRLower._setitem,
    nir.StaticSetItem: MLIRLower._setitem,
    nir.SetAttr: MLIRLower._setattr,
    nir.Branch: MLIRLower._branch,
    nir.Jump: MLIRLower._jump,
    nir.Return: MLIRLower._return,
    nir.Del: MLIRLower._del,
    nir.Print: MLIRLower._print,
    nir.StaticRaise: MLIRLower._raise,
    nir.Raise: MLIRLower._raise,
    nir.DynamicRaise: MLIRLower._raise,
}


def _with_dels(func_ir: nir.FunctionIR) -> nir.FunctionIR:
    """A copy of *func_ir* with numba's ``del`` statements: where each variable dies."""
    copy = func_ir.copy()
    postproc.PostProcessor(copy).run(emit_dels=True)
    return copy


if TYPE_CHECKING:

    def _rules_get_an_mlir_lower(lower: MLIRLower) -> Lower:
        """What the type checker holds together: every rule is given an MLIRLower as its
        ``lower``, so MLIRLower (with BuilderAPI mixed in) implements the builder protocol,
        ``operations._support.builder.Lower``, method for method."""
        return lower
