"""``cuda.experimental.local_array_from((expr for v in iterable), dtype)``: a local array
filled from a generator expression, as numba-cuda-mlir spells it. typing/consteval.py
rewrites the assignment before numba reads the function into ``cuda.local.array`` of the
iterable's length and a loop filling it; what reaches typing here is a form it could not
rewrite. ``compile_time_len(t)`` is the length of a tuple as a literal, which a local
array's shape must be."""

from .._support.api import Stub
from .._support.modules import errors, types

FORM = (
    "local_array_from must be assigned to a name and given a generator expression with one for "
    "clause and no if: a = local_array_from((f(v) for v in values), dtype=np.float32)"
)


class _Rewritten(Stub):
    """A stub the frontend rewrites before typing; ``form`` is what typing/array_from.py says
    of a use it cannot rewrite."""

    form = FORM


local_array_from = _Rewritten(
    "local_array_from",
    "local_array_from((expr for v in iterable), dtype): a local array of the iterable's length "
    "holding expr for each of its values.",
)

compile_time_len = Stub("compile_time_len", "compile_time_len(t): the length of a tuple, known while compiling.")


@local_array_from.typer
def _unrewritten(*args, **kwargs):
    raise errors.TypingError(FORM)


@compile_time_len.typer
def _length_typing(sequence):
    if isinstance(sequence, types.BaseTuple):
        return types.IntegerLiteral(len(sequence))
    raise errors.TypingError(
        f"local_array_from needs an iterable whose length is known while compiling (a tuple, a range "
        f"of constants, a global or consteval sequence), got {sequence}"
    )


@compile_time_len.lower("BaseTuple")
def _length(lower, sig, args):
    return lower.constant(types.int64, len(sig.args[0]))
