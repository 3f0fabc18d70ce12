"""The warp's matrix multiply-accumulate on the tensor cores: ``mma_sync(d, a, b, c, shape)``
is PTX's ``mma.sync.aligned.<shape>.row.col``: the 32 threads of the warp together compute
D = A @ B + C for one tile of *shape* (a literal string, "m16n8k16"), each thread giving and
receiving its elements of the tiles in 1-d local arrays laid out as PTX's fragments
(docs/tensor_cores.md). The element types come from the arrays' dtypes. Numba-CUDA and
numba-cuda-mlir have no names for it: this one reads as CUDA's ``mma.sync``."""

from . import Stub
from ._fragments import check_length, load, pack, store, unpack
from ._modules import errors, llvm, types
from ._ptx_asm import require

mma_sync = Stub(
    "mma_sync",
    "mma_sync(d, a, b, c, shape, satfinite=False): the warp's D = A @ B + C on the tensor cores for one tile "
    "of shape (a literal such as 'm16n8k16'); a, b, c, d are local arrays of this thread's fragments (sm_80).",
)

# the element types of A and B, by family: the Numba type's name -> its PTX type
_INPUTS = {
    "f16": {"float16": "f16"},
    "bf16": {"bfloat16": "bf16"},
    "tf32": {"float32": "tf32", "tf32": "tf32"},
    "int8": {"int8": "s8", "uint8": "u8"},
    "fp8": {"f8E4M3FN": "e4m3", "f8E5M2": "e5m2"},
    "f64": {"float64": "f64"},
}
# the element types C and D may have (both the same), by family
_ACCUMULATORS = {
    "f16": {"float32": "f32", "float16": "f16"},
    "bf16": {"float32": "f32"},
    "tf32": {"float32": "f32"},
    "int8": {"int32": "s32"},
    "fp8": {"float32": "f32"},
    "f64": {"float64": "f64"},
}
# (shape, family) -> elements per thread of A, B and C/D; the chip and PTX ISA version it needs
_SHAPES = {
    ("m16n8k8", "f16"): ((4, 2, 4), (7, 5), 65),
    ("m16n8k16", "f16"): ((8, 4, 4), (8, 0), 70),
    ("m16n8k8", "bf16"): ((4, 2, 4), (8, 0), 70),
    ("m16n8k16", "bf16"): ((8, 4, 4), (8, 0), 70),
    ("m16n8k4", "tf32"): ((2, 1, 4), (8, 0), 70),
    ("m16n8k8", "tf32"): ((4, 2, 4), (8, 0), 70),
    ("m8n8k16", "int8"): ((4, 4, 2), (7, 5), 65),
    ("m16n8k16", "int8"): ((8, 4, 4), (8, 0), 70),
    ("m16n8k32", "int8"): ((16, 8, 4), (8, 0), 70),
    ("m16n8k32", "fp8"): ((16, 8, 4), (8, 9), 84),
    ("m8n8k4", "f64"): ((1, 1, 2), (8, 0), 70),
}
# PTX's register classes: constraint letters of a register of the accumulator / of A and B
_ACCUMULATOR_LETTER = {"f32": "f", "s32": "r", "f16": "r", "f64": "d"}


def _family(dtype):
    for family, names in _INPUTS.items():
        if str(dtype) in names:
            return family
    return None


def _shapes_of(family):
    return ", ".join(shape for shape, f in _SHAPES if f == family)


def _check_array(operand, ty):
    if not (isinstance(ty, types.Array) and ty.ndim == 1 and isinstance(ty.dtype, types.Number)):
        raise errors.TypingError(
            f"intrin.mma_sync(d, a, b, c, shape): {operand} must be a 1-d local array of numbers, got {ty}"
        )


def _satfinite(value):
    if value is None or isinstance(value, (types.Omitted, types.NoneType)):
        return False
    if isinstance(value, types.BooleanLiteral):
        return value.literal_value
    raise errors.TypingError(f"intrin.mma_sync: satfinite must be the literal True or False, got {value}")


@mma_sync.typer
def _typer(d, a, b, c, shape, satfinite=None):
    if not isinstance(shape, types.StringLiteral):
        raise errors.TypingError(f"intrin.mma_sync: the shape must be a literal string such as 'm16n8k16', got {shape}")
    for operand, ty in zip("dabc", (d, a, b, c)):
        _check_array(operand, ty)
    family = _family(a.dtype)
    if family is None:
        known = ", ".join(name for names in _INPUTS.values() for name in names)
        raise errors.TypingError(f"intrin.mma_sync: a's dtype must be one of {known}, got {a.dtype}")
    if str(b.dtype) not in _INPUTS[family]:
        raise errors.TypingError(
            f"intrin.mma_sync: with a of {a.dtype}, b's dtype must be one of {', '.join(_INPUTS[family])}, got {b.dtype}"
        )
    name = shape.literal_value
    if (name, family) not in _SHAPES:
        raise errors.TypingError(
            f"intrin.mma_sync: no shape {name!r} for {a.dtype} inputs; the shapes are {_shapes_of(family)}"
        )
    accumulators = _ACCUMULATORS[family]
    for operand, ty in (("c", c), ("d", d)):
        if str(ty.dtype) not in accumulators:
            raise errors.TypingError(
                f"intrin.mma_sync({name}): with {a.dtype} inputs, {operand}'s dtype must be "
                f"{' or '.join(accumulators)}, got {ty.dtype}"
            )
    if c.dtype != d.dtype:
        raise errors.TypingError(
            f"intrin.mma_sync({name}): c and d must have the same dtype, got {c.dtype} and {d.dtype}"
        )
    if _satfinite(satfinite) and family != "int8":
        raise errors.TypingError(f"intrin.mma_sync({name}): satfinite applies to int8 and uint8 inputs only")
    if not d.mutable:
        raise errors.TypingError(f"intrin.mma_sync({name}): d must be a writable array, got {d}")
    return types.none


def _operands(lower, name, sig, args, counts):
    """The local arrays' elements: A, B and C as registers; the PTX type of each operand."""
    (dt, at, bt, ct), (_, a, b, c) = sig.args[:4], args[:4]
    values = []
    for operand, ty, array, count in (("a", at, a, counts[0]), ("b", bt, b, counts[1]), ("c", ct, c, counts[2])):
        check_length(lower, f"intrin.mma_sync({name}): {operand}", ty, array, count)
        values.append(load(lower, ty, array, count))
    check_length(lower, f"intrin.mma_sync({name}): d", dt, args[0], counts[2])
    return values


def _registers(accumulator, dtype, values):
    # f32, s32 and f64 values are one register each; f16 ones, two to a register
    return pack(dtype, values) if accumulator == "f16" else values


@mma_sync.lower("Any", "Any", "Any", "Any", "Any", "*Any")
def _lowering(lower, sig, args):
    dt, at, bt, ct, shape = sig.args[:5]
    family = _family(at.dtype)
    name = shape.literal_value
    counts, cc, ptx = _SHAPES[(name, family)]
    require(lower, f"intrin.mma_sync({name}, {at.dtype})", cc, ptx)
    a, b, c = _operands(lower, name, sig, args, counts)
    accumulator = _ACCUMULATORS[family][str(dt.dtype)]
    if family == "f64":
        a_regs, b_regs, letter = a, b, "d"
    else:
        a_regs, b_regs, letter = pack(at.dtype, a), pack(bt.dtype, b), "r"
    c_regs = _registers(accumulator, ct.dtype, c)
    n_d = len(c_regs)
    groups, number = [], 0
    for count in (n_d, len(a_regs), len(b_regs), len(c_regs)):
        groups.append("{" + ", ".join(f"${number + k}" for k in range(count)) + "}")
        number += count
    satfinite = ".satfinite" if len(sig.args) > 5 and _satfinite(sig.args[5]) else ""
    inputs = _INPUTS[family]
    text = (
        f"mma.sync.aligned.{name}.row.col{satfinite}.{accumulator}.{inputs[str(at.dtype)]}."
        f"{inputs[str(bt.dtype)]}.{accumulator} {', '.join(groups)};"
    )
    out_letter = _ACCUMULATOR_LETTER[accumulator]
    constraints = [f"={out_letter}"] * n_d + [letter] * (len(a_regs) + len(b_regs)) + [out_letter] * n_d
    register_type = c_regs[0].type
    result_type = llvm.StructType.get_literal([register_type] * n_d)
    out = llvm.inline_asm(result_type, [*a_regs, *b_regs, *c_regs], text, ",".join(constraints))
    d_regs = [llvm.extractvalue(register_type, out, [k]) for k in range(n_d)]
    d = unpack(lower, dt.dtype, d_regs) if accumulator == "f16" else d_regs
    store(lower, dt, args[0], d)


def fragment_counts(shape, a_dtype):
    """(elements of A, of B, of C and D) per thread for *shape* and inputs of *a_dtype*
    (a Numba type or its name); KeyError if PTX has no such mma."""
    return _SHAPES[(shape, _family(a_dtype))][0]
