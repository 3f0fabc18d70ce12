"""``cuda.inline_ptx(template, constraint, value, ...)``: PTX written into the kernel, with its
operands given as CUDA C++'s ``asm()`` gives them (numba-cuda-mlir's intrinsic).

After the template come (constraint, value) pairs, both constraints and the template string
literals. A constraint is a register letter, ``h`` (16-bit integer), ``r`` (32-bit), ``l``
(64-bit), ``f`` (float32), ``d`` (float64) or ``C`` (a pointer, in a 64-bit register),
alone for an operand the PTX reads, after ``=`` for one it writes (its value is a placeholder,
only its position counts) and after ``+`` for one it reads and writes. ``%0``, ``%1`` ... in the
template name the pairs in order; ``%%`` is a ``%``, and any other ``%`` (``%laneid``) stays.
The call returns the written (``=``) operands: None, the one value, or a tuple, as
numba-cuda-mlir's does. The PTX is emitted as LLVM inline assembly with side effects and a
memory clobber, so it is neither removed nor moved across memory accesses.
"""

import re

from .._support.api import Stub
from .._support.modules import errors, ir, llvm, templates, types

inline_ptx = Stub(
    "inline_ptx",
    "inline_ptx(template, constraint, value, ...): PTX in the kernel; %0, %1 ... name the "
    "(constraint, value) pairs, constraints are [=|+](h|r|l|f|d|C); returns the '=' operands.",
)

_CONSTRAINT = re.compile(r"([=+]?)([hrlfdC])\Z")
_TEMPLATE_PIECE = re.compile(r"%(%|\d+)|\$")
_BITS = {"h": 16, "r": 32, "l": 64, "C": 64}


def _numba_type(letter):
    return {"h": types.int16, "r": types.int32, "l": types.int64, "f": types.float32, "d": types.float64}.get(
        letter, types.voidptr
    )


def _literal_text(what, ty):
    if not isinstance(ty, types.StringLiteral):
        raise errors.TypingError(
            f"cuda.inline_ptx: the {what} must be a string literal (known at compile time), got {ty}"
        )
    return ty.literal_value


def _operands(template, count):
    """The operand numbers *template* names, checked against the *count* pairs given."""
    named = []
    for match in _TEMPLATE_PIECE.finditer(template):
        if match.group(1) not in (None, "%"):
            index = int(match.group(1))
            if index >= count:
                raise errors.TypingError(
                    f"cuda.inline_ptx: the template names %{index}, but {count} operand(s) are given "
                    f"(%0 to %{count - 1})"
                    if count
                    else f"cuda.inline_ptx: the template names %{index}, but no operands are given"
                )
            named.append(index)
    return named


def constraints_of(args):
    """[(access '' | '=' | '+', register letter)] of the pairs after the template, checked."""
    pairs = args[1:]
    if len(pairs) % 2:
        raise errors.TypingError(
            f"cuda.inline_ptx takes the template, then (constraint, value) pairs; got {len(pairs)} "
            "argument(s) after the template"
        )
    found = []
    for position in range(0, len(pairs), 2):
        text = _literal_text(f"constraint of operand %{position // 2}", pairs[position])
        match = _CONSTRAINT.match(text)
        if match is None:
            raise errors.TypingError(
                f"cuda.inline_ptx: operand %{position // 2} has the constraint {text!r}; a constraint is "
                "h, r, l, f, d or C, alone (read), after '=' (written) or after '+' (read and written)"
            )
        found.append(match.groups())
    return found


def _check_value(index, access, letter, ty):
    if access == "=":
        return ty  # a placeholder: its value is never read
    if letter == "C":
        if not isinstance(ty, (types.CPointer, types.RawPointer)):
            raise errors.TypingError(f"cuda.inline_ptx: operand %{index} (C) must be a pointer, got {ty}")
        return ty
    if not isinstance(ty, (types.Integer, types.Float, types.Boolean)):
        raise errors.TypingError(f"cuda.inline_ptx: operand %{index} ({letter}) must be a number, got {ty}")
    return _numba_type(letter)


@inline_ptx.generic
def _typing(context, args, kws):
    if kws:
        raise errors.TypingError(f"cuda.inline_ptx takes no keyword arguments, got {sorted(kws)}")
    if not args:
        raise errors.TypingError("cuda.inline_ptx needs the PTX template")
    template = _literal_text("PTX template", args[0])
    pairs = constraints_of(args)
    _operands(template, len(pairs))
    formal = [args[0]]
    results = []
    for index, (access, letter) in enumerate(pairs):
        formal += [args[1 + 2 * index], _check_value(index, access, letter, args[2 + 2 * index])]
        if access == "=":
            results.append(_numba_type(letter))
    result = types.none if not results else results[0] if len(results) == 1 else types.Tuple(results)
    return templates.signature(result, *formal)


def _register_type(letter):
    if letter == "f":
        return ir.F32Type.get()
    if letter == "d":
        return ir.F64Type.get()
    return ir.IntegerType.get_signless(_BITS[letter])


def _llvm_letter(letter):
    return "l" if letter == "C" else letter


@inline_ptx.lower("*Any")
def _lowering(lower, sig, args):
    template = sig.args[0].literal_value
    pairs = constraints_of(sig.args)
    values = args[2::2]
    # LLVM numbers the outputs first, then the inputs; a '+' operand is an output and an input tied to it
    outputs = [index for index, (access, _) in enumerate(pairs) if access in "=+" and access]
    number = {index: n for n, index in enumerate(outputs)}
    constraints = [f"={_llvm_letter(pairs[index][1])}" for index in outputs]
    inputs = []
    for index, (access, letter) in enumerate(pairs):
        if access == "=":
            continue
        value = values[index]
        if letter == "C":
            value = llvm.ptrtoint(ir.IntegerType.get_signless(64), value)
        if access == "+":
            constraints.append(str(number[index]))
        else:
            number[index] = len(outputs) + len(inputs)
            constraints.append(_llvm_letter(letter))
        inputs.append(value)

    def operand(match):
        if match.group(0) == "$":
            return "$$"
        return "%" if match.group(1) == "%" else f"${number[int(match.group(1))]}"

    asm = _TEMPLATE_PIECE.sub(operand, template)
    register_types = [_register_type(pairs[index][1]) for index in outputs]
    if not register_types:
        result_type = None
    elif len(register_types) == 1:
        result_type = register_types[0]
    else:
        result_type = llvm.StructType.get_literal(register_types)
    out = llvm.inline_asm(result_type, inputs, asm, ",".join([*constraints, "~{memory}"]), has_side_effects=True)
    written = []
    for n, index in enumerate(outputs):
        if pairs[index][0] != "=":
            continue  # read and written: the value stays in the PTX, as numba-cuda-mlir's does
        value = out if len(outputs) == 1 else llvm.extractvalue(register_types[n], out, [n])
        if pairs[index][1] == "C":
            value = llvm.inttoptr(llvm.PointerType.get(), value)
        written.append(value)
    if not written:
        return None
    if len(written) == 1:
        return written[0]
    return lower.make_struct(sig.return_type, written)
