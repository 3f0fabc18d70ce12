"""The differential test's kernels compiled here, without a GPU, and accepted by ptxas
for sm_80 and sm_90 (one module per left operand type)."""

import pytest

from cumlir import compiler
from cumlir.codegen import targets
from cumlir.lowering.module import ModuleBuilder
from cumlir.typing.context import typing_context

from . import support
from .cases import differential_cases

CASES = differential_cases.cases()


def _entries(left):
    for case in CASES:
        name, case_left, right, literal, sig, result = case
        if case_left != left:
            continue
        if name in differential_cases.UNARY:
            expression = differential_cases.UNARY[name].format(a="a[i]")
        else:
            expression = differential_cases.expression_for(name, right_literal=literal)
        argtypes = (
            differential_cases.array_type(left),
            differential_cases.array_type(right),
            differential_cases.array_type(str(result)),
        )
        yield differential_cases.make_kernel(expression), argtypes


@pytest.mark.corpus
@pytest.mark.parametrize("left", differential_cases.TYPES)
def test_cases_assemble(left):
    entries = list(_entries(left))
    assert len(entries) > 100
    entries = support.corpus(entries, every=3)
    typed = [compiler.type_function(kernel, argtypes) for kernel, argtypes in entries]  # once for both chips
    for cc in ((8, 0), (9, 0)):
        builder = ModuleBuilder(typing_context())
        for function in typed:
            builder.add_kernel(function)
        with builder.context:
            compiled = compiler.run(compiler.from_module(builder, cc), "codegen")
            ptx = compiled.ptx
        assert ptx.count(".entry ") == len(entries)
        support.ptxas(ptx, targets.chip(cc))
