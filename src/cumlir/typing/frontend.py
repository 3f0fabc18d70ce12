"""Python function -> typed Numba IR, with numba's passes and cumlir's typing context.

Numba's own compiler driver also lowers; cumlir only needs the frontend, so the
passes run directly, in the order numba's nopython pipeline uses.
"""

from dataclasses import dataclass, field

from numba.core import analysis, bytecode, compiler, errors, interpreter, ir, postproc, rewrites
from numba.core import typed_passes, untyped_passes

from .context import typing_context
from .target import TargetInfo, target_override

def _bytecode(state):
    state.bc = bytecode.ByteCode(state.func_id)


def _interpret(state):
    state.func_ir = interpreter.Interpreter(state.func_id).interpret(state.bc)
    if state.func_ir.arg_count != len(state.args):
        raise TypeError(
            f"{state.func_id.func_name}() takes {state.func_ir.arg_count} arguments, "
            f"but the signature gives {len(state.args)}"
        )


def _check_names(state):
    """A name that is neither local nor global is an error at the line that uses it."""
    for block in state.func_ir.blocks.values():
        for assign in block.find_insts(ir.Assign):
            value = assign.value
            if isinstance(value, (ir.Global, ir.FreeVar)) and value.value is ir.UNDEFINED:
                raise errors.TypingError(f"NameError: name '{value.name}' is not defined", loc=assign.loc)


def _postprocess(state):
    postproc.PostProcessor(state.func_ir).run()


def _inline_closures(state):
    """Inner functions defined in the kernel are inlined where they are called."""
    has_closure = any(
        isinstance(assign.value, ir.Expr) and assign.value.op == "make_function"
        for block in state.func_ir.blocks.values()
        for assign in block.find_insts(ir.Assign)
    )
    if not has_closure:
        return
    from numba.core.inline_closurecall import InlineClosureCallPass
    from numba.core.ir_utils import fixup_var_define_in_scope

    InlineClosureCallPass(state.func_ir, state.flags.auto_parallel, {}, True).run()
    postproc.PostProcessor(state.func_ir).run()
    fixup_var_define_in_scope(state.func_ir.blocks)


def _fold_constants(state):
    analysis.rewrite_semantic_constants(state.func_ir, state.args)
    analysis.dead_branch_prune(state.func_ir, state.args)


def _rewrite(state):
    rewrites.rewrite_registry.apply("before-inference", state)
    # raise statements numba could not make static carry their arguments as values
    untyped_passes.RewriteDynamicRaises().run_pass(state)


def _unroll_literals(state):
    untyped_passes.LiteralUnroll().run_pass(state)


def _ssa(state):
    untyped_passes.ReconstructSSA().run_pass(state)


def _infer_types(state):
    typed_passes.NopythonTypeInference().run_pass(state)


def _strip_phis(state):
    typed_passes.PreLowerStripPhis().run_pass(state)


# The frontend stages, in the order numba's nopython pipeline runs them.
STAGES = (_bytecode, _interpret, _check_names, _postprocess, _inline_closures, _fold_constants, _rewrite, _unroll_literals, _ssa, _infer_types, _strip_phis)


@dataclass
class TypedFunction:
    """The frontend's result: a function's Numba IR with a type for every variable."""

    pyfunc: object
    func_ir: object
    args: tuple
    return_type: object
    typemap: dict
    calltypes: dict
    name: str = field(default="")

    @property
    def signature(self):
        from numba.core.typing.templates import signature

        return signature(self.return_type, *self.args)

    def dump(self):
        """The typed IR as text: each statement, then each variable's type."""
        import io
        import contextlib

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.func_ir.dump()
        lines = [out.getvalue().rstrip(), "", "types:"]
        for name in sorted(self.typemap):
            lines.append(f"  {name}: {self.typemap[name]}")
        lines.append(f"  return: {self.return_type}")
        return "\n".join(lines) + "\n"


def _flags():
    flags = compiler.Flags()
    flags.no_cpython_wrapper = True
    flags.no_cfunc_wrapper = True
    flags.nrt = False
    flags.error_model = "numpy"
    return flags


def type_function(pyfunc, argtypes, return_type=None):
    """Run numba's frontend on *pyfunc* for *argtypes*; raise numba's TypingError on failure."""
    state = compiler.StateDict()
    state.func_id = bytecode.FunctionIdentity.from_function(pyfunc)
    state.typingctx = typing_context()
    state.targetctx = TargetInfo()
    state.args = tuple(argtypes)
    state.return_type = return_type
    state.flags = _flags()
    state.locals = {}
    state.metadata = {}
    state.func_ir = None
    state.lifted = ()
    state.lifted_from = None
    state.typemap = None
    state.calltypes = None
    state.library = None
    state.status = compiler._CompileStatus(can_fallback=False)
    with target_override():
        for stage in STAGES:
            stage(state)
    return TypedFunction(
        pyfunc=pyfunc,
        func_ir=state.func_ir,
        args=state.args,
        return_type=state.return_type,
        typemap=state.typemap,
        calltypes=state.calltypes,
        name=pyfunc.__name__,
    )

