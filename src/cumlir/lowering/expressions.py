"""The expressions of typed Numba IR lowered to MLIR: the part of the walker (function.py's
MLIRLower, which mixes this class in) that handles each ``ir.Expr``, by its op."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from mlir import ir
from mlir.dialects import arith, llvm
from numba.core import errors, types
from numba.core.typing.templates import signature

from ..typing.target import target_override
from . import places
from .registry import registry

if TYPE_CHECKING:
    from numba.core import ir as nir
    from numba.core.typing.templates import Signature

    from ..operations._support.builder import MLIRType, NumbaType, Value

NO_VALUE = None  # the value of a variable whose type has no runtime representation


class StarMember(NamedTuple):
    """Member *position* of the tuple a call spreads with ``f(*t)``: numba's IR keeps the tuple
    (``Expr.call``'s ``vararg``) and types the call with its members as further positional
    arguments, so each member stands where a variable would."""

    tuple_var: nir.Var
    position: int


class ExpressionLowering:
    """The lowering of each kind of expression, for MLIRLower."""

    if TYPE_CHECKING:  # what the methods below use of MLIRLower
        refcounting: bool
        typing_context: Any
        dmm: Any
        places: dict[str, Any]
        typemap: dict[str, NumbaType]
        calltypes: dict[nir.Inst, Signature]

        def has_value(self, numba_type: NumbaType) -> bool: ...

        def mark_fresh(self, value: Value) -> Value: ...

        def _unassigned(self, numba_type: NumbaType) -> list[Value]: ...

        def flat_types(self, numba_types: Iterable[NumbaType]) -> list[MLIRType]: ...

        def call(self, key: Any, sig: Signature, args: Sequence[Value]) -> Value | None: ...

        def cast(self, value: Value, fromty: NumbaType, toty: NumbaType) -> Value: ...

        def load_var(self, var: str | nir.Var) -> Value: ...

        def make_struct(self, ty: NumbaType, values: Sequence[Value]) -> Value: ...

        def constant(self, ty: NumbaType, pyval: Any) -> Value: ...

        def extract(self, struct: Value, ty: NumbaType, index: int) -> Value: ...

        def poison(self, mlir_type: MLIRType) -> Value: ...

        def get_mlir_type(self, numba_type: NumbaType) -> MLIRType: ...

    def _lower_expr(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        handler = _EXPRESSIONS.get(expr.op)
        if handler is None:
            raise errors.UnsupportedError(f"the operation '{expr.op}' is not supported in kernels", expr.loc)
        return handler(self, expr, result_type)

    def _null(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        """A variable that is not assigned on every path into a join (numba's SSA gives it
        this value on the others): zero where the type allows, as numba does, else undefined."""
        if not self.has_value(result_type):
            return NO_VALUE, result_type
        if self.refcounting:
            return self.mark_fresh(self.dmm.lookup(result_type).unflatten(self._unassigned(result_type))), result_type
        parts = [zero_or_poison(self, t) for t in self.flat_types([result_type])]
        return self.dmm.lookup(result_type).unflatten(parts), result_type

    def _call_with_vars(self, key: Any, sig: Signature, argvars: Iterable[nir.Var | StarMember | None]) -> Value | None:
        return self.call(key, sig, self._cast_arguments(argvars, sig.args))

    def _cast_arguments(
        self, argvars: Iterable[nir.Var | StarMember | None], argtypes: Iterable[NumbaType]
    ) -> list[Value]:
        """The values of *argvars* as *argtypes*; None (a parameter left to its default) stays None."""
        return [None if v is None else self.cast(*self.operand(v), t) for v, t in zip(argvars, argtypes)]

    def operand_type(self, item: nir.Var | StarMember | None) -> NumbaType | None:
        if isinstance(item, StarMember):
            return self.typemap[item.tuple_var.name].types[item.position]  # type: ignore[attr-defined]  # a BaseTuple
        return None if item is None else self.typemap[item.name]

    def operand(self, item: nir.Var | StarMember) -> tuple[Value, NumbaType]:
        """(value, Numba type) of a call's argument: a variable, or a member of a spread tuple."""
        if isinstance(item, StarMember):
            tuple_type = self.typemap[item.tuple_var.name]
            member = self.extract(self.load_var(item.tuple_var), tuple_type, item.position)
            return member, tuple_type.types[item.position]  # type: ignore[attr-defined]  # a BaseTuple
        return self.load_var(item), self.typemap[item.name]

    def _impl_key(self, fn: Any, sig: Signature) -> Any:
        fnty = self.typing_context.resolve_value_type(fn)
        try:
            return fnty.get_impl_key(sig)
        except KeyError:
            # declarations registered since typing (an extension, numba's lazy ones) gave
            # *fn* a new function type that has not seen this call yet: type it again
            with target_override():
                self.typing_context.resolve_function_type(fnty, sig.args, {})
            return fnty.get_impl_key(sig)

    def _binop(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        sig = self.calltypes[expr]
        key = self._impl_key(expr.fn, sig)
        if expr.op == "inplace_binop" and key is expr.fn and not self.typemap[expr.lhs.name].mutable:
            key = expr.immutable_fn  # x += y on a number is x = x + y
        return self._call_with_vars(key, sig, (expr.lhs, expr.rhs)), sig.return_type

    def _unary(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        sig = self.calltypes[expr]
        return self._call_with_vars(self._impl_key(expr.fn, sig), sig, (expr.value,)), sig.return_type

    def _call(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        fnty = self.typemap[expr.func.name]
        sig = self.calltypes[expr]
        argvars: list[Any] = [*expr.args, *self.spread(expr.vararg, expr.loc)]
        if expr.kws:
            argvars = _fold_keywords(fnty, sig, argvars, dict(expr.kws), expr.loc)
        if isinstance(fnty, types.BoundFunction):
            receiver = self.load_var(expr.func)
            args = self._cast_arguments(argvars, sig.args)
            full_sig = sig.as_function() if sig.recvr is not None else sig.replace(args=(fnty.this, *sig.args))
            # a rule of a method taking keywords reads which arguments were given from the pysig
            full_sig = full_sig.replace(pysig=sig.pysig)
            return self.call(fnty.get_impl_key(sig), full_sig, [receiver] + args), sig.return_type
        if isinstance(fnty, types.RecursiveCall):
            key = fnty.dispatcher_type.dispatcher.get_overload(sig.args, sig.return_type)
        else:
            key = fnty.get_impl_key(sig) if isinstance(fnty, types.Callable) else fnty
        if _takes_star_args(sig, [self.operand_type(v) for v in argvars]):
            return self._call_with_star_args(key, sig, argvars), sig.return_type
        return self._call_with_vars(key, sig, argvars), sig.return_type

    def spread(self, vararg: nir.Var | None, loc: nir.Loc) -> list[StarMember]:
        """The members of the tuple ``f(a, *t)`` spreads (*vararg*, ``t``), each an argument
        after the named ones: typing gave the call one parameter per member. ``f(**d)`` never
        reaches lowering: numba's bytecode reading refuses what it cannot fold into keywords."""
        if vararg is None:
            return []
        spread = self.typemap[vararg.name]
        if not isinstance(spread, types.BaseTuple):  # typing accepts nothing else
            raise errors.UnsupportedError(f"*args in a call must be a tuple, got {spread}", loc)
        return [StarMember(vararg, k) for k in range(len(spread))]

    def _call_with_star_args(self, key: Any, sig: Signature, argvars: Sequence[Any]) -> Value | None:
        """A call of a function taking ``*args``: the arguments past its named ones are
        packed into the tuple the function was typed for."""
        *named, star = sig.args
        args = self._cast_arguments(argvars, named)
        rest = argvars[len(named) :]
        members = [self.cast(*self.operand(v), t) for v, t in zip(rest, star.types)]
        return self.call(key, sig, [*args, self.make_struct(star, members)])

    def _getattr(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        if expr.value.name in self.places:  # a[i].x of a C struct: the bytes of x alone
            field = places.read_field(self, expr)  # type: ignore[arg-type]  # self is an MLIRLower
            if field is not None:
                return field, result_type
        ty, value = self._present(expr.value)
        if isinstance(result_type, types.BoundFunction):
            return self.cast(value, ty, result_type.this), result_type
        with target_override():  # attributes declared for cumlir (overload_attribute) resolve only here
            attrty = self.typing_context.resolve_getattr(ty, expr.attr)
        if not self.has_value(attrty):
            return NO_VALUE, attrty
        if isinstance(ty, types.Module):  # a module-level constant such as math.pi
            return self.constant(attrty, getattr(ty.pymod, expr.attr)), attrty
        rule = registry.find_getattr(ty, expr.attr)
        if rule is None:
            raise errors.LoweringError(f"no lowering for the attribute {ty}.{expr.attr}", expr.loc)
        return rule(self, ty, value, expr.attr), attrty  # type: ignore[arg-type]  # self is an MLIRLower

    def _present(self, var: nir.Var) -> tuple[NumbaType, Value]:
        """(type, value) of *var*; an Optional(T) as its T, checked not None: typing read its
        attributes and constant indices on the T (numba's, and typing/context.py's)."""
        ty, value = self.typemap[var.name], self.load_var(var)
        if isinstance(ty, types.Optional):
            return ty.type, self.cast(value, ty, ty.type)
        return ty, value

    def _static_getitem(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        ty, value = self._present(expr.value)
        index = expr.index
        try:
            index_type = types.literal(index)
        except errors.LiteralTypingError:
            index_type = types.Omitted(index)
        rule = registry.find_call("static_getitem", (ty, index_type))
        if rule is not None:
            sig = signature(result_type, ty, index_type)
            return rule(self, sig, [value, index]), result_type  # type: ignore[arg-type]
        if expr.index_var is None:
            raise errors.LoweringError(f"no lowering for {ty}[{index!r}]", expr.loc)
        sig = self.calltypes[expr]
        return self._call_with_vars(_getitem_key(), sig, (expr.value, expr.index_var)), sig.return_type

    def _getitem(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        sig = self.calltypes[expr]
        return self._call_with_vars(_getitem_key(), sig, (expr.value, expr.index)), sig.return_type

    def _typed_getitem(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        # literal_unroll's access to one member of a heterogeneous tuple
        ty = self.typemap[expr.value.name]
        index_type = self.typemap[expr.index.name]
        if isinstance(ty, types.BaseTuple) and isinstance(index_type, types.IntegerLiteral):
            member = self.extract(self.load_var(expr.value), ty, index_type.literal_value)
            return member, ty.types[index_type.literal_value]  # type: ignore[attr-defined]  # numba's stubs
        # a run-time index: select among the members of the requested type
        value = self.load_var(expr.value)
        index = self.cast(self.load_var(expr.index), index_type, types.int64)
        result = self.poison(self.get_mlir_type(result_type))
        for k, member_type in enumerate(ty.types):  # type: ignore[attr-defined]
            if member_type == result_type:
                hit = arith.cmpi(arith.CmpIPredicate.eq, index, arith.constant(index.type, k))
                result = arith.select(hit, self.extract(value, ty, k), result)
        return result, result_type

    def _iterator_op(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        sig = self.calltypes[expr]
        return self._call_with_vars(expr.op, sig, (expr.value,)), sig.return_type

    def _pair_member(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        pair_type = self.typemap[expr.value.name]
        index = 0 if expr.op == "pair_first" else 1
        member_type = pair_type.first_type if index == 0 else pair_type.second_type  # type: ignore[attr-defined]
        return self.extract(self.load_var(expr.value), pair_type, index), member_type

    def _build_tuple(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        values = [self.cast(self.load_var(v), self.typemap[v.name], t) for v, t in zip(expr.items, result_type.types)]  # type: ignore[attr-defined]
        return self.make_struct(result_type, values), result_type

    def _exhaust_iter(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        ty = self.typemap[expr.value.name]
        if not isinstance(ty, types.BaseTuple) or len(ty) != expr.count:
            raise errors.UnsupportedError(f"cannot unpack {expr.count} values from {ty}", expr.loc)
        return self.load_var(expr.value), ty

    def _cast(self, expr: nir.Expr, result_type: NumbaType) -> tuple[Value, NumbaType]:
        return self.load_var(expr.value), self.typemap[expr.value.name]

    # ---- aggregates ------------------------------------------------------------------


def _getitem_key() -> Callable[[Any, Any], Any]:
    return operator.getitem


def setitem_key() -> Callable[[Any, Any, Any], None]:
    return operator.setitem


def _takes_star_args(sig: Signature, given: Sequence[NumbaType | None]) -> bool:
    """Whether the callee declares ``*args``, so that the arguments past its named ones are
    packed into the tuple its last parameter is typed as. A star tuple may also be passed on
    whole, to a parameter of its own (``literal_unroll(args)``, ``g(args)``)."""
    if not sig.args or not isinstance(sig.args[-1], (types.StarArgTuple, types.StarArgUniTuple)):
        return False
    if sig.pysig is not None:
        return any(p.kind is p.VAR_POSITIONAL for p in sig.pysig.parameters.values())
    return not (len(given) == len(sig.args) and given[-1] == sig.args[-1])


def _fold_keywords(
    fnty: NumbaType, sig: Signature, argvars: Sequence[Any], kws: dict[str, nir.Var], loc: nir.Loc
) -> list[Any]:
    pysig = sig.pysig
    if pysig is None:
        raise errors.UnsupportedError(f"{fnty} does not take keyword arguments here", loc)
    bound = pysig.bind(*argvars, **kws)
    names = list(pysig.parameters)
    given = [k for k, name in enumerate(names) if name in bound.arguments]
    # a parameter left to its default before the last one given: None, its type an Omitted
    return [bound.arguments.get(name) for name in names[: given[-1] + 1]] if given else []


_EXPRESSIONS: dict[str, Callable[[ExpressionLowering, nir.Expr, NumbaType], tuple[Value, NumbaType]]] = {
    "binop": ExpressionLowering._binop,
    "inplace_binop": ExpressionLowering._binop,
    "unary": ExpressionLowering._unary,
    "call": ExpressionLowering._call,
    "getattr": ExpressionLowering._getattr,
    "static_getitem": ExpressionLowering._static_getitem,
    "getitem": ExpressionLowering._getitem,
    "typed_getitem": ExpressionLowering._typed_getitem,
    "getiter": ExpressionLowering._iterator_op,
    "iternext": ExpressionLowering._iterator_op,
    "pair_first": ExpressionLowering._pair_member,
    "pair_second": ExpressionLowering._pair_member,
    "build_tuple": ExpressionLowering._build_tuple,
    "exhaust_iter": ExpressionLowering._exhaust_iter,
    "cast": ExpressionLowering._cast,
    "null": ExpressionLowering._null,
}


def zero_or_poison(lower: ExpressionLowering, mlir_type: MLIRType) -> Value:
    if isinstance(mlir_type, (ir.IntegerType, ir.FloatType)) or str(mlir_type).startswith("!llvm."):
        return llvm.mlir_zero(mlir_type)
    return lower.poison(mlir_type)  # memrefs have no zero value
