"""The warp's matrix multiply-accumulate on the tensor cores: ``mma_sync(d, a, b, c, shape)``
is PTX's ``mma.sync.aligned.<shape>.row.col``: the 32 threads of the warp together compute
D = A @ B + C for one tile of *shape* (a literal string, "m16n8k16"), each thread giving and
receiving its elements of the tiles in 1-d local arrays laid out as PTX's fragments
(docs/tensor_cores.md). The element types come from the arrays' dtypes. Numba-CUDA and
numba-cuda-mlir have no names for it: this one reads as CUDA's ``mma.sync``."""

from .. import Stub
from .._support.modules import errors, llvm, types
from .._support.ptx_asm import require
from ._fragments import check_length, load, pack, store, unpack

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


def _fragments(lower, name, sig, args, counts):
    """The elements of a, b and c; each local array's length checked, d's too, where it is known."""
    a_count, b_count, c_count = counts
    expected = (c_count, a_count, b_count, c_count)  # d, a, b, c: the order of the arguments
    for k, operand in enumerate("dabc"):
        check_length(lower, f"intrin.mma_sync({name}): {operand}", sig.args[k], args[k], expected[k])
    return [load(lower, sig.args[k], args[k], expected[k]) for k in (1, 2, 3)]


def _registers(ptx_type, dtype, values):
    """The 32-bit (or, for f64, 64-bit) registers of the elements of an operand of *ptx_type*:
    f32, s32, tf32 and f64 elements one to a register, f16 and bf16 two, 8-bit ones four."""
    return values if ptx_type in ("f32", "s32", "f64") else pack(dtype, values)


def _operand_groups(*sizes):
    """'{$0, $1}, {$2, ...}': the braces of the operands, numbered in order."""
    groups, number = [], 0
    for size in sizes:
        groups.append("{" + ", ".join(f"${number + k}" for k in range(size)) + "}")
        number += size
    return ", ".join(groups)


@mma_sync.lower("Any", "Any", "Any", "Any", "Any", "*Any")
def _lowering(lower, sig, args):
    dt, at, bt, ct, shape = sig.args[:5]
    family, name = _family(at.dtype), shape.literal_value
    counts, cc, ptx = _SHAPES[(name, family)]
    require(lower, f"intrin.mma_sync({name}, {at.dtype})", cc, ptx)
    a, b, c = _fragments(lower, name, sig, args, counts)
    a_type, b_type = _INPUTS[family][str(at.dtype)], _INPUTS[family][str(bt.dtype)]
    accumulator = _ACCUMULATORS[family][str(dt.dtype)]
    a_regs, b_regs = _registers(a_type, at.dtype, a), _registers(b_type, bt.dtype, b)
    c_regs = _registers(accumulator, ct.dtype, c)
    satfinite = ".satfinite" if len(sig.args) > 5 and _satfinite(sig.args[5]) else ""
    groups = _operand_groups(len(c_regs), len(a_regs), len(b_regs), len(c_regs))
    text = f"mma.sync.aligned.{name}.row.col{satfinite}.{accumulator}.{a_type}.{b_type}.{accumulator} {groups};"
    out, letter = _ACCUMULATOR_LETTER[accumulator], "d" if family == "f64" else "r"
    constraints = [f"={out}"] * len(c_regs) + [letter] * (len(a_regs) + len(b_regs)) + [out] * len(c_regs)
    register_type = c_regs[0].type
    result = llvm.inline_asm(
        llvm.StructType.get_literal([register_type] * len(c_regs)),
        [*a_regs, *b_regs, *c_regs],
        text,
        ",".join(constraints),
    )
    d_regs = [llvm.extractvalue(register_type, result, [k]) for k in range(len(c_regs))]
    store(lower, dt, args[0], d_regs if accumulator != "f16" else unpack(lower, dt.dtype, d_regs))
