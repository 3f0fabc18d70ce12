"""Hopper's warpgroup tensor cores (wgmma, sm_90a; docs/tensor_cores.md): a warpgroup of 128
threads multiplies a 64 x K tile of A by a K x N tile of B, both in shared memory and described
by 64-bit matrix descriptors, into a float32 accumulator spread over the threads' registers.

``wgmma_mma_async(acc, a_desc, b_desc, shape, scale_d=1, trans_a=0, trans_b=0, dtype=...)``
starts ``wgmma.mma_async`` on *acc*, a 1-D float32 array (a ``cuda.local.array``) of N/2
elements per thread; ``wgmma_fence()`` orders the accumulator's registers and shared memory
before it, ``wgmma_commit_group()`` closes a group of them and ``wgmma_wait_group(n)``
waits until at most *n* groups are in flight (``wgmma_wait_group(0, acc)`` also orders the
accumulator's reads after the wait). ``wgmma_descriptor(smem, lbo, sbo, swizzle)``
packs the descriptor of a shared array's first element (cumlir/wgmma_layout.py);
``fence_proxy_async()`` makes the block's ordinary writes to shared memory visible to them.

The accumulator stays in registers: its elements are loaded, tied to the instruction's outputs
and stored back at constant indices, which LLVM keeps in registers when the array is local."""

import inspect

from ... import wgmma_layout
from .. import Stub
from .._support.elements import dim
from .._support.modules import arith, errors, ir, llvm, memref, nvvm, scf, templates, types
from .._support.ptx_asm import (
    check_integer,
    check_number_array,
    first_element_address,
    i32,
    i64,
    read,
    require,
    statement,
)
from ._fragments import check_length, known_length, load, pack, unpack

HOPPER = (9, 0)

# input type -> the K of one instruction; tf32, float8 and 8-bit integers read K-major operands only
_K = {"bf16": 16, "f16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}
_TRANSPOSABLE = ("bf16", "f16")
_INTEGER = ("s8", "u8")  # no scaling or transposing immediates: scale_d alone
# the accumulator's dtype -> its PTX type; and the types each input type accumulates in
_ACCUMULATOR = {"float32": "f32", "float16": "f16", "int32": "s32"}
_ACCUMULATES = {
    "bf16": ("f32",),
    "f16": ("f32", "f16"),
    "tf32": ("f32",),
    "e4m3": ("f32", "f16"),
    "e5m2": ("f32", "f16"),
    "s8": ("s32",),
    "u8": ("s32",),
}
# input type -> the Numba dtypes of an A fragment held in registers, and its elements per
# thread: four 32-bit registers of them (the layout of mma.sync's m16n8k16 A, a warp's 16 rows)
_REGISTER_A = {
    "bf16": ("bfloat16",),
    "f16": ("float16",),
    "tf32": ("float32", "tf32"),
    "e4m3": ("f8E4M3FN",),
    "e5m2": ("f8E5M2",),
    "s8": ("int8",),
    "u8": ("uint8",),
}
_A_ELEMENTS = {"bf16": 8, "f16": 8, "tf32": 4, "e4m3": 16, "e5m2": 16, "s8": 16, "u8": 16}
_A_REGISTERS = 4

wgmma_fence = Stub(
    "wgmma_fence",
    "wgmma_fence(): wgmma.fence: the accumulator registers and shared memory written before are "
    "ordered before the next wgmma_mma_async (sm_90a).",
)
wgmma_commit_group = Stub(
    "wgmma_commit_group", "wgmma_commit_group(): close the group of wgmma_mma_async started since the last (sm_90a)."
)
wgmma_wait_group = Stub(
    "wgmma_wait_group",
    "wgmma_wait_group(n, acc=None): wait until at most n (a literal) groups of wgmma_mma_async are in "
    "flight (sm_90a); with n = 0 and the accumulator, its reads after the wait are ordered after it.",
)
wgmma_descriptor = Stub(
    "wgmma_descriptor",
    "wgmma_descriptor(smem, leading_byte_offset, stride_byte_offset, swizzle): the 64-bit matrix "
    "descriptor (uint64) of the shared array smem from its first element; swizzle in bytes, the "
    "literal 0, 32, 64 or 128.",
)
wgmma_mma_async = Stub(
    "wgmma_mma_async",
    "wgmma_mma_async(acc, a_desc, b_desc, shape, scale_d=1, trans_a=0, trans_b=0, dtype=...): "
    "acc = A @ B + (acc if scale_d else 0) for the warpgroup, shape 'm64nNk16' (k8 for tf32, k32 "
    "for e4m3/e5m2/s8/u8), dtype 'bf16', 'f16', 'tf32', 'e4m3', 'e5m2', 's8' or 'u8'; acc an array "
    "of N/2 float32 (float16 too for f16 and float8 inputs, int32 for s8/u8); a_desc A's "
    "descriptor, or A's fragment in registers (a local array of 8 16-bit, 4 tf32 or 16 8-bit "
    "elements); for s8/u8, b_dtype='u8'/'s8' mixes them and satfinite=True saturates (sm_90a).",
)
fence_proxy_async = Stub(
    "fence_proxy_async",
    "fence_proxy_async(): fence.proxy.async.shared::cta: the thread's writes to shared memory are "
    "visible to asynchronous operations (wgmma) after it (sm_90).",
)


# ---- fences and groups ----------------------------------------------------------------------


@wgmma_fence.cases
@wgmma_commit_group.cases
@fence_proxy_async.cases
def _nullary_cases():
    return [templates.signature(types.none)]


@wgmma_fence.lower
def _fence(lower, sig, args):
    require(lower, "intrin.wgmma_fence", HOPPER, 80, arch_specific=True)
    statement("wgmma.fence.sync.aligned;")


@wgmma_commit_group.lower
def _commit(lower, sig, args):
    require(lower, "intrin.wgmma_commit_group", HOPPER, 80, arch_specific=True)
    statement("wgmma.commit_group.sync.aligned;")


@fence_proxy_async.lower
def _fence_proxy_async(lower, sig, args):
    require(lower, "intrin.fence_proxy_async", HOPPER, 80)
    statement("fence.proxy.async.shared::cta;")


def _check_accumulator(what, acc):
    if not (isinstance(acc, types.Array) and acc.ndim == 1 and str(acc.dtype) in _ACCUMULATOR):
        raise errors.TypingError(
            f"{what}: the accumulator must be a 1-D float32 array (cuda.local.array(N // 2, np.float32); "
            f"float16 or int32 for some input types), got {acc}"
        )


def _accumulator_registers(acc, acc_type, count):
    """The positions of the accumulator's *count* elements, and its elements loaded as the
    instruction's registers: a float32 or int32 element a register, two float16 (f16x2)."""
    index = ir.IndexType.get()
    positions = [arith.constant(index, r) for r in range(count)]
    values = [memref.load(acc, [p]) for p in positions]
    return positions, pack(types.float16, values) if acc_type == "f16" else values


def _store_registers(lower, acc, acc_type, positions, result, count):
    """The *count* registers of the struct *result* stored back as the accumulator's elements."""
    register_type = ir.F32Type.get() if acc_type == "f32" else i32()
    registers = [llvm.extractvalue(register_type, result, [r]) for r in range(count)]
    values = unpack(lower, types.float16, registers) if acc_type == "f16" else registers
    for value, p in zip(values, positions):
        memref.store(value, acc, [p])


def _register_struct(acc_type, count):
    return llvm.StructType.get_literal([ir.F32Type.get() if acc_type == "f32" else i32()] * count)


def _letter(acc_type):
    return "f" if acc_type == "f32" else "r"


@wgmma_wait_group.typer
def _wait_group_typer(n, acc=None):
    what = "intrin.wgmma_wait_group(n, acc=None)"
    if not isinstance(n, types.IntegerLiteral) or n.literal_value < 0:
        raise errors.TypingError(f"{what}: n must be a non-negative literal, got {n}")
    if acc is None:
        return templates.signature(types.none, n)
    _check_accumulator(what, acc)
    if n.literal_value != 0:
        # groups still in flight write the registers: a tie would read them early
        raise errors.TypingError(f"{what}: the accumulator is given with n = 0 only, when its products are done")
    return templates.signature(types.none, n, acc)


@wgmma_wait_group.lower("Any")
def _wait_group(lower, sig, args):
    require(lower, "intrin.wgmma_wait_group", HOPPER, 80, arch_specific=True)
    statement(f"wgmma.wait_group.sync.aligned {sig.args[0].literal_value};")


@wgmma_wait_group.lower("Any", "Any")
def _wait_group_tied(lower, sig, args):
    """The wait takes the accumulator's registers as outputs tied to its inputs: what reads
    them after it depends on it, so that no read (a conversion, say) is moved before it."""
    require(lower, "intrin.wgmma_wait_group", HOPPER, 80, arch_specific=True)
    acc = args[1]
    count = known_length(acc)
    if count is None:
        raise errors.UnsupportedError(
            "intrin.wgmma_wait_group(0, acc): the accumulator must be a cuda.local.array of this kernel "
            "(its length known where it is made)",
            lower.loc,
        )
    acc_type = _ACCUMULATOR[str(sig.args[1].dtype)]
    positions, registers = _accumulator_registers(acc, acc_type, count)
    ties = len(registers)
    constraints = [f"={_letter(acc_type)}"] * ties + [str(r) for r in range(ties)] + ["~{memory}"]
    out = llvm.inline_asm(
        _register_struct(acc_type, ties),
        registers,
        "wgmma.wait_group.sync.aligned 0;",
        ",".join(constraints),
        has_side_effects=True,
    )
    _store_registers(lower, acc, acc_type, positions, out, ties)


# ---- the descriptor -------------------------------------------------------------------------


@wgmma_descriptor.typer
def _descriptor_typer(smem, leading_byte_offset, stride_byte_offset, swizzle):
    what = "intrin.wgmma_descriptor(smem, leading_byte_offset, stride_byte_offset, swizzle)"
    check_number_array(f"{what}: smem (a cuda.shared.array)", smem)
    check_integer(f"{what}: leading_byte_offset", leading_byte_offset)
    check_integer(f"{what}: stride_byte_offset", stride_byte_offset)
    if not isinstance(swizzle, types.IntegerLiteral) or swizzle.literal_value not in wgmma_layout.SWIZZLE_CODES:
        raise errors.TypingError(f"{what}: swizzle must be the literal 0, 32, 64 or 128 (bytes), got {swizzle}")
    return templates.signature(types.uint64, smem, leading_byte_offset, stride_byte_offset, swizzle)


def _field(value, name):
    """*value* (i64) divided by 16 where the field holds bytes, cut to the field's width, in place."""
    first, width = wgmma_layout.FIELDS[name]
    if name != "base_offset":
        value = arith.shrui(value, arith.constant(i64(), 4))
    value = arith.andi(value, arith.constant(i64(), (1 << width) - 1))
    return arith.shli(value, arith.constant(i64(), first))


@wgmma_descriptor.lower("Any", "Any", "Any", "Any")
def _descriptor(lower, sig, args):
    smem_type, lbo_type, sbo_type, swizzle_type = sig.args
    generic = first_element_address(lower, smem_type, args[0])
    # the descriptor holds the shared-window address, bits 4 to 17
    shared = read(i64(), "cvta.to.shared.u64 $0, $1;", [generic], ["=l", "l"])
    fields = [
        _field(shared, "start_address"),
        _field(lower.cast(args[1], lbo_type, types.uint64), "leading_byte_offset"),
        _field(lower.cast(args[2], sbo_type, types.uint64), "stride_byte_offset"),
    ]
    code = wgmma_layout.SWIZZLE_CODES[swizzle_type.literal_value] << wgmma_layout.FIELDS["swizzle"][0]
    # the top bits as a signed i64: codes 2 and 3 set bit 63
    descriptor = arith.constant(i64(), code - (1 << 64) if code >> 63 else code)
    for value in fields:
        descriptor = arith.ori(descriptor, value)
    return descriptor


# ---- the multiply-accumulate ----------------------------------------------------------------


def _mma_parameters(
    acc, a_desc, b_desc, shape, scale_d=1, trans_a=0, trans_b=0, dtype=None, b_dtype=None, satfinite=False
):
    """The parameters of wgmma_mma_async, for binding a call's arguments."""


_MMA = inspect.signature(_mma_parameters)
_WHAT = "intrin.wgmma_mma_async"


def _literal_string(name, ty, choices):
    if not isinstance(ty, types.StringLiteral) or ty.literal_value not in choices:
        raise errors.TypingError(f"{_WHAT}: {name} must be a literal string, one of {', '.join(choices)}; got {ty}")
    return ty.literal_value


def _flag(name, ty):
    """0 or 1 from a literal (or the parameter left out: 0)."""
    if ty is None or isinstance(ty, types.Omitted):
        return 0
    if isinstance(ty, (types.IntegerLiteral, types.BooleanLiteral)) and ty.literal_value in (0, 1):
        return int(ty.literal_value)
    raise errors.TypingError(f"{_WHAT}: {name} must be the literal 0 or 1, got {ty}")


def mma_shape(shape_type, dtype_type):
    """(N, dtype) of a call, checked against wgmma's rules."""
    dtype = _literal_string("dtype", dtype_type, tuple(_K))
    k = _K[dtype]
    if dtype in _INTEGER:  # 8, 24 and the multiples of 16
        widths, rule = [8, 24, *range(16, 257, 16)], "N 8, 24 or a multiple of 16 up to 256"
    else:
        widths, rule = list(range(8, 257, 8)), "N a multiple of 8 from 8 to 256"
    shapes = [f"m64n{n}k{k}" for n in widths]
    if not isinstance(shape_type, types.StringLiteral) or shape_type.literal_value not in shapes:
        raise errors.TypingError(
            f"{_WHAT}: the shape of a {dtype} wgmma is the literal 'm64nNk{k}' with {rule}, got {shape_type}"
        )
    return int(shape_type.literal_value[4:].split("k")[0]), dtype


@wgmma_mma_async.generic
def _mma_typer(context, args, kws):
    try:
        bound = _MMA.bind(*args, **kws)
    except TypeError as error:
        raise errors.TypingError(f"{_WHAT}(acc, a_desc, b_desc, shape, ..., dtype=...): {error}") from None
    given = bound.arguments
    if "dtype" not in given:
        raise errors.TypingError(
            f"{_WHAT}: give the input type as dtype='bf16', 'f16', 'tf32', 'e4m3', 'e5m2', 's8' or 'u8'"
        )
    _check_accumulator(_WHAT, given["acc"])
    check_integer(f"{_WHAT}: b_desc", given["b_desc"])
    _, dtype = mma_shape(given["shape"], given["dtype"])
    accumulates = _ACCUMULATES[dtype]
    if _ACCUMULATOR[str(given["acc"].dtype)] not in accumulates:
        names = [name for name, ptx in _ACCUMULATOR.items() if ptx in accumulates]
        raise errors.TypingError(
            f"{_WHAT}: {dtype} inputs accumulate in {' or '.join(names)}, got an accumulator of {given['acc'].dtype}"
        )
    if "scale_d" in given:
        check_integer(f"{_WHAT}: scale_d", given["scale_d"])
    transposed = [_flag(name, given.get(name)) for name in ("trans_a", "trans_b")]
    if any(transposed) and dtype not in _TRANSPOSABLE:
        raise errors.TypingError(f"{_WHAT}: only bf16 and f16 operands may be transposed, not {dtype}")
    _check_a(given["a_desc"], dtype, transposed[0])
    _integer_options(dtype, given.get("b_dtype"), given.get("satfinite"))
    arg_types = [
        given[name] if name in given else types.Omitted(parameter.default)
        for name, parameter in _MMA.parameters.items()
    ]
    return templates.signature(types.none, *arg_types).replace(pysig=_MMA)


def _check_a(a, dtype, trans_a):
    """A's descriptor (an integer), or A's fragment in registers: a 1-D array of the input type."""
    if not isinstance(a, types.Array):
        check_integer(f"{_WHAT}: a_desc", a)
        return
    names = _REGISTER_A[dtype]
    if a.ndim != 1 or str(a.dtype) not in names:
        raise errors.TypingError(
            f"{_WHAT}: A in registers is a 1-D local array of {' or '.join(names)} for dtype={dtype!r} "
            f"({_A_ELEMENTS[dtype]} elements a thread), got {a}"
        )
    if trans_a:
        raise errors.TypingError(f"{_WHAT}: A in registers is never transposed: leave trans_a at 0")


def _length_checked(lower, acc, count):
    """An accumulator shorter than the shape needs raises ValueError (with debug=True; the thread
    ends otherwise); a local array's length is known, and the check folds away. The
    instruction goes in the branch of a long enough accumulator: left after the exit, ptxas
    meets it with registers never written, and crashes."""
    short = arith.cmpi(arith.CmpIPredicate.ult, dim(acc, 0), arith.constant(i64(), count))
    branch = scf.IfOp(short, has_else=True)
    with ir.InsertionPoint(branch.then_block):
        lower.record_raise(ValueError, (f"{_WHAT}: the accumulator holds fewer than the shape's {count} elements",))
        nvvm.exit()
        scf.YieldOp([])
    return branch.else_block


def _b_dtype(dtype, b_dtype):
    """B's input type: *dtype*, or the other 8-bit integer type given as b_dtype."""
    if b_dtype is None or isinstance(b_dtype, (types.Omitted, types.NoneType)):
        return dtype
    return _literal_string("b_dtype", b_dtype, _INTEGER)


def _saturating(satfinite):
    if satfinite is None or isinstance(satfinite, types.Omitted):
        return False
    if isinstance(satfinite, types.BooleanLiteral):
        return satfinite.literal_value
    raise errors.TypingError(f"{_WHAT}: satfinite must be the literal True or False, got {satfinite}")


def _integer_options(dtype, b_dtype, satfinite):
    """b_dtype (mixed signed and unsigned operands) and satfinite belong to 8-bit integers."""
    if (_b_dtype(dtype, b_dtype) != dtype or _saturating(satfinite)) and dtype not in _INTEGER:
        raise errors.TypingError(f"{_WHAT}: b_dtype and satfinite apply to s8 and u8 inputs only, not {dtype}")


def _ptx(n, dtype, acc_type, transposed, count, a_in_registers, b_dtype=None, satfinite=False):
    """The instruction: the accumulator's registers $0 to $count - 1, then A (its descriptor,
    or its four registers), B's descriptor and scale_d; B of *b_dtype* where it differs."""
    k = _K[dtype]
    registers = ", ".join(f"${r}" for r in range(count))
    a_operands = _A_REGISTERS if a_in_registers else 1
    a = "{" + ", ".join(f"${count + r}" for r in range(a_operands)) + "}" if a_in_registers else f"${count}"
    b, scale = f"${count + a_operands}", f"${count + a_operands + 1}"
    # transposes are spelled for the 16-bit types only; A in registers has B's alone
    spelled = transposed[1:] if a_in_registers else transposed
    trans = "".join(f", {t}" for t in spelled) if dtype in _TRANSPOSABLE else ""
    scales = "" if dtype in _INTEGER else f", 1, 1{trans}"  # integers have scale_d alone
    return (
        "{\n\t.reg .pred scale_d;\n"
        f"\tsetp.ne.b32 scale_d, {scale}, 0;\n"
        f"\twgmma.mma_async.sync.aligned.m64n{n}k{k}{'.satfinite' if satfinite else ''}.{acc_type}.{dtype}.{b_dtype or dtype} "
        f"{{{registers}}}, {a}, {b}, scale_d{scales};\n\t}}"
    )


@wgmma_mma_async.lower("*Any")
def _mma(lower, sig, args):
    arg_types = dict(zip(_MMA.parameters, sig.args))
    mixed = _b_dtype(str(arg_types["dtype"].literal_value), arg_types["b_dtype"]) != arg_types["dtype"].literal_value
    require(
        lower, _WHAT + (" of mixed integer types" if mixed else ""), HOPPER, 84 if mixed else 80, arch_specific=True
    )
    values = dict(zip(_MMA.parameters, args))
    n, dtype = mma_shape(arg_types["shape"], arg_types["dtype"])
    transposed = [_flag(name, arg_types[name]) for name in ("trans_a", "trans_b")]
    count = n // 2
    acc = values["acc"]
    long_enough = _length_checked(lower, acc, count)
    with ir.InsertionPoint(long_enough):
        _multiply(lower, values, arg_types, acc, n, dtype, transposed, count)
        scf.YieldOp([])


def _multiply(lower, values, arg_types, acc, n, dtype, transposed, count):
    if values.get("scale_d") is None:
        scale = arith.constant(i32(), 1)
    else:
        scale = lower.cast(values["scale_d"], arg_types["scale_d"], types.int32)
    a_type = arg_types["a_desc"]
    a_in_registers = isinstance(a_type, types.Array)
    if a_in_registers:
        elements = _A_ELEMENTS[dtype]
        check_length(lower, f"{_WHAT}: A in registers", a_type, values["a_desc"], elements)
        a_operands = pack(a_type.dtype, load(lower, a_type, values["a_desc"], elements))
    else:
        a_operands = [lower.cast(values["a_desc"], a_type, types.uint64)]
    b_descriptor = lower.cast(values["b_desc"], arg_types["b_desc"], types.uint64)
    acc_type = _ACCUMULATOR[str(arg_types["acc"].dtype)]
    positions, registers = _accumulator_registers(acc, acc_type, count)
    ties = len(registers)
    # outputs first, then the inputs: A, B's descriptor, scale_d and the registers tied to the outputs
    a_constraints = ["r"] * len(a_operands) if a_in_registers else ["l"]
    outputs = [f"={_letter(acc_type)}"] * ties
    constraints = outputs + a_constraints + ["l", "r"] + [str(r) for r in range(ties)] + ["~{memory}"]
    out = llvm.inline_asm(
        _register_struct(acc_type, ties),
        [*a_operands, b_descriptor, scale, *registers],
        _ptx(
            n,
            dtype,
            acc_type,
            transposed,
            ties,
            a_in_registers,
            _b_dtype(dtype, arg_types["b_dtype"]),
            _saturating(arg_types["satfinite"]),
        ),
        ",".join(constraints),
        has_side_effects=True,
    )
    _store_registers(lower, acc, acc_type, positions, out, ties)
