"""The warp's 8x8 matrix loads and stores between shared memory and fragments:
``ldmatrix(frag, smem, num, trans=False)`` is PTX's ``ldmatrix.sync.aligned.m8n8.x{num}[.trans]
.shared.b16`` (sm_75), ``stmatrix(smem, frag, num, trans=False)`` its ``stmatrix`` (sm_90).
Each thread gives the address of one row of 16-bit elements, the first element of the shared
array *smem* (threads 0-7 the rows of matrix 0, 8-15 of matrix 1, ...), and receives or gives
*num* 32-bit registers, register i holding its two elements of matrix i. The fragment *frag*
is a 1-d local array of *num* uint32 or int32 (the registers) or of 2 * *num* 16-bit elements
(float16, bfloat16, int16, uint16: element 2i in the low half of register i), the element
types mma_sync takes (docs/tensor_cores.md)."""

from .. import Stub
from .._support.modules import errors, llvm, types
from .._support.ptx_asm import first_element_address, require, statement
from ._fragments import check_length, i32, load, pack, store, unpack

ldmatrix = Stub(
    "ldmatrix",
    "ldmatrix(frag, smem, num, trans=False): the warp loads num (1, 2 or 4) 8x8 matrices of 16-bit elements "
    "from shared memory, each thread giving one row's address and receiving num registers into frag (sm_75).",
)
stmatrix = Stub(
    "stmatrix",
    "stmatrix(smem, frag, num, trans=False): the warp stores num (1, 2 or 4) 8x8 matrices of 16-bit elements "
    "from frag to shared memory, each thread giving one row's address (sm_90).",
)

_NUMS = (1, 2, 4)


def _per_register(dtype):
    """Elements of *dtype* per 32-bit register of the fragment; None for a dtype it cannot have."""
    if isinstance(dtype, types.Integer) and dtype.bitwidth in (16, 32):
        return 32 // dtype.bitwidth
    if isinstance(dtype, (types.Float, types.Bfloat16)) and dtype.bitwidth == 16:
        return 2
    return None


def _matrix_typer(name, frag_first):
    def typer(first, second, num, trans=None):
        frag, smem = (first, second) if frag_first else (second, first)
        call = f"intrin.{name}({'frag, smem' if frag_first else 'smem, frag'}, num, trans)"
        if not isinstance(num, types.IntegerLiteral) or num.literal_value not in _NUMS:
            raise errors.TypingError(f"{call}: num must be the literal 1, 2 or 4, got {num}")
        if trans is not None and not isinstance(trans, (types.BooleanLiteral, types.Omitted)):
            raise errors.TypingError(f"{call}: trans must be the literal True or False, got {trans}")
        if not (isinstance(frag, types.Array) and frag.ndim == 1 and _per_register(frag.dtype)):
            raise errors.TypingError(
                f"{call}: frag must be a 1-d local array of uint32 or int32 ({num.literal_value} registers) or "
                f"of float16, bfloat16, int16 or uint16 ({2 * num.literal_value} elements), got {frag}"
            )
        if not (isinstance(smem, types.Array) and _element_bits(smem.dtype) in (16, 32)):
            raise errors.TypingError(
                f"{call}: smem must be an array of 16- or 32-bit elements in shared memory, got {smem}"
            )
        if frag_first and not frag.mutable:
            raise errors.TypingError(f"{call}: frag must be a writable array, got {frag}")
        return types.none

    return typer


def _element_bits(dtype):
    return getattr(dtype, "bitwidth", None) if isinstance(dtype, types.Number) else None


ldmatrix.typer(_matrix_typer("ldmatrix", frag_first=True))
stmatrix.typer(_matrix_typer("stmatrix", frag_first=False))


def _form(sig):
    num = sig.args[2].literal_value
    trans = len(sig.args) > 3 and isinstance(sig.args[3], types.BooleanLiteral) and sig.args[3].literal_value
    return num, ".trans" if trans else ""


def _fragment_registers(lower, name, frag_type, frag, num):
    per_register = _per_register(frag_type.dtype)
    count = num * per_register
    check_length(lower, f"intrin.{name}(num={num}): frag", frag_type, frag, count)
    return count, per_register


# the shared address the instruction takes, from the array's generic one
_ADDRESS = "\t.reg .u64 smem;\n\tcvta.to.shared.u64 smem, ${address};\n"


@ldmatrix.lower("Any", "Any", "Any", "*Any")
def _load(lower, sig, args):
    require(lower, "intrin.ldmatrix", (7, 5), 65)
    frag_type, smem_type = sig.args[:2]
    num, trans = _form(sig)
    count, per_register = _fragment_registers(lower, "ldmatrix", frag_type, args[0], num)
    registers = ", ".join(f"${k}" for k in range(num))
    text = (
        "{\n" + _ADDRESS.format(address=num) + f"\tldmatrix.sync.aligned.m8n8.x{num}{trans}.shared.b16 "
        f"{{{registers}}}, [smem];\n\t}}"
    )
    address = first_element_address(lower, smem_type, args[1])
    result_type = i32() if num == 1 else llvm.StructType.get_literal([i32()] * num)
    # reads shared memory: ordered with the block's stores to it (the ~{memory} clobber)
    out = llvm.inline_asm(
        result_type, [address], text, ",".join(["=r"] * num + ["l", "~{memory}"]), has_side_effects=True
    )
    words = [out] if num == 1 else [llvm.extractvalue(i32(), out, [k]) for k in range(num)]
    values = words if per_register == 1 else unpack(lower, frag_type.dtype, words)
    store(lower, frag_type, args[0], values[:count])


@stmatrix.lower("Any", "Any", "Any", "*Any")
def _store(lower, sig, args):
    require(lower, "intrin.stmatrix", (9, 0), 78)
    smem_type, frag_type = sig.args[:2]
    num, trans = _form(sig)
    count, per_register = _fragment_registers(lower, "stmatrix", frag_type, args[1], num)
    values = load(lower, frag_type, args[1], count)
    words = values if per_register == 1 else pack(frag_type.dtype, values)
    registers = ", ".join(f"${k + 1}" for k in range(num))
    text = (
        "{\n" + _ADDRESS.format(address=0) + f"\tstmatrix.sync.aligned.m8n8.x{num}{trans}.shared.b16 "
        f"[smem], {{{registers}}};\n\t}}"
    )
    address = first_element_address(lower, smem_type, args[0])
    statement(text, [address, *words], ["l"] + ["r"] * num)
