"""The typing context keeps the typings of pure calls (scalar operators, ``bool``, ``max``,
``math`` functions, arrays indexed by integers): a kept typing is the one numba's templates
give, a call outside those kinds is not kept, and a failed typing fails every time."""

import math
import operator

import pytest
from numba.core import types
from numba.core.errors import TypingError
from numba.core.typing.context import BaseContext

from cumlir import cuda
from cumlir.typing.context import _scalar_operator_key, typing_context

f32_1d = types.Array(types.float32, 1, "C")
f64_2d = types.Array(types.float64, 2, "C")
i64x2 = types.UniTuple(types.int64, 2)

KEPT = [
    (operator.getitem, (f32_1d, types.int64)),
    (operator.getitem, (f64_2d, i64x2)),
    (operator.getitem, (f64_2d, types.int32)),  # a row: a view, typed by the types alone
    (operator.setitem, (f32_1d, types.int32, types.float32)),
    ("static_getitem", (i64x2, 1)),
]
KEPT_FUNCTIONS = [
    (bool, (types.int64,)),
    (max, (types.float32, types.float32)),
    (min, (types.int32, types.int64)),
    (abs, (types.float64,)),
    (math.exp, (types.float32,)),
    (operator.irshift, (types.int64, types.IntegerLiteral(1))),
]


def _function_type(ctx, value):
    return ctx.resolve_value_type(value)


@pytest.mark.parametrize("func, args", KEPT)
def test_indexing_typings_are_kept_and_agree_with_numbas(func, args):
    ctx = typing_context()
    assert _scalar_operator_key(func, args, {}) == (func, args)
    expected = BaseContext.resolve_function_type(ctx, func, args, {})
    assert expected is not None
    assert ctx.resolve_function_type(func, args, {}) == expected
    assert ctx.resolve_function_type(func, args, {}) == expected  # the kept one


@pytest.mark.parametrize("func, args", KEPT_FUNCTIONS)
def test_pure_function_typings_are_kept_and_agree_with_numbas(func, args):
    ctx = typing_context()
    fnty = _function_type(ctx, func)
    assert _scalar_operator_key(fnty, args, {}) == (fnty, args)
    expected = BaseContext.resolve_function_type(ctx, fnty, args, {})
    assert expected is not None
    assert ctx.resolve_function_type(fnty, args, {}) == expected
    assert ctx.resolve_function_type(fnty, args, {}) == expected


def test_a_function_type_of_more_templates_is_typed_for_itself():
    # templates registered later make a new function type for the same function (numba's
    # augment): lowering asks that one for the implementation of what it typed
    ctx = typing_context()
    fnty = _function_type(ctx, bool)
    args = (types.boolean,)
    sig = ctx.resolve_function_type(fnty, args, {})
    augmented = types.Function((*fnty.templates, *fnty.templates[:1]))
    assert augmented is not fnty
    again = ctx.resolve_function_type(augmented, args, {})
    assert again == sig
    assert augmented.get_impl_key(again) == fnty.get_impl_key(sig)


@pytest.mark.parametrize(
    "func, args",
    [
        (operator.getitem, (f32_1d, types.slice2_type)),  # a slice: left to the templates each time
        (operator.getitem, (f64_2d, types.Tuple((types.int64, types.slice2_type)))),
        (operator.getitem, (i64x2, types.int64)),  # not an array
        ("static_getitem", (i64x2, "name")),
        ("static_getitem", (types.Record.make_c_struct([("x", types.float32)]), "x")),
    ],
)
def test_other_indexing_is_not_kept(func, args):
    assert _scalar_operator_key(func, args, {}) is None


def test_a_call_with_keywords_or_arrays_is_not_kept():
    ctx = typing_context()
    assert _scalar_operator_key(_function_type(ctx, max), (types.float32, types.float32), {"key": types.none}) is None
    assert _scalar_operator_key(_function_type(ctx, operator.add), (f32_1d, f32_1d), {}) is None


def test_a_failed_typing_fails_again():
    # the typing that found nothing is not kept as an answer
    def index_by_float(a):
        a[0] = a[1.5]

    for _ in range(2):
        with pytest.raises(TypingError):
            cuda.compile_ptx(index_by_float, "void(float32[:])", cc=(9, 0))


def test_refresh_forgets_the_kept_typings():
    ctx = typing_context()
    ctx.resolve_function_type(operator.getitem, (f32_1d, types.int64), {})
    assert ctx._scalar_operators
    ctx.refresh()
    assert not ctx._scalar_operators
