"""Loads and stores of global memory with a cache hint: ``ldca``, ``ldcg``, ``ldcs``,
``ldlu``, ``ldcv`` (``value = cuda.ldcg(ary, idx)``) and ``stcg``, ``stcs``, ``stwb``,
``stwt`` (``cuda.stcg(ary, idx, value)``): PTX's ``ld.global.<hint>`` and
``st.global.<hint>``.

As in Numba-CUDA, *ary* is an array (indexed by an integer, or a tuple of one per axis)
or a pointer (an integer index) of integers or floats of 8, 16, 32 or 64 bits; a stored
value is converted to the element type. Indices wrap and are bounds-checked with
debug=True, as element access is. The hint changes where the data is cached, never the
value read or written.
"""

from .. import Stub
from .._support.modules import arith, errors, ir, llvm, templates, types

# the hints, with the PTX cache operator each emits
_LOADS = {
    "ldca": "cache at all levels",
    "ldcg": "cache in L2, not L1",
    "ldcs": "evict first (streaming data)",
    "ldlu": "last use",
    "ldcv": "do not cache; fetch again",
}
_STORES = {
    "stcg": "cache in L2, not L1",
    "stcs": "evict first (streaming data)",
    "stwb": "write back",
    "stwt": "write through to system memory",
}
_WIDTHS = (8, 16, 32, 64)


# ---- typing -----------------------------------------------------------------------------------


def _check(name, ary, idx):
    """The index type, after checking *ary* and *idx* as Numba-CUDA does."""
    if not isinstance(ary, (types.Array, types.CPointer)):
        raise errors.TypingError(f"cuda.{name} operates on arrays or pointers, got {ary}")
    dtype = ary.dtype
    if not isinstance(dtype, (types.Integer, types.Float)) or dtype.bitwidth not in _WIDTHS:
        raise errors.TypingError(
            f"cuda.{name} needs an array or pointer of integers or floats of 8, 16, 32 or 64 bits, got {ary}"
        )
    if isinstance(ary, types.CPointer):
        if not isinstance(idx, types.Integer):
            raise errors.TypingError(f"cuda.{name} indexes a pointer with one integer, got {idx}")
        return types.unliteral(idx)
    members = idx.types if isinstance(idx, types.BaseTuple) else (idx,)
    if not all(isinstance(m, types.Integer) for m in members) or len(members) != ary.ndim:
        want = "an integer" if ary.ndim == 1 else f"a tuple of {ary.ndim} integers"
        raise errors.TypingError(f"cuda.{name} on the {ary.ndim}-D array {ary} needs {want} as its index, got {idx}")
    return types.unliteral(idx)


# ---- lowering ---------------------------------------------------------------------------------


def _register(bitwidth):
    """(the integer type the asm operand has, its constraint): PTX moves 8-bit data
    through 32-bit registers (loads zero-extend, stores take the low byte)."""
    if bitwidth == 8:
        return ir.IntegerType.get_signless(32), "r"
    return ir.IntegerType.get_signless(bitwidth), {16: "h", 32: "r", 64: "l"}[bitwidth]


def _as_bits(value, bitwidth):
    bits = ir.IntegerType.get_signless(bitwidth)
    return arith.bitcast(bits, value) if isinstance(value.type, ir.FloatType) else value


def _declare_load(name, doc):
    stub = Stub(name, f"{name}(ary, idx): ary[idx], loaded with ld.global.{name[2:]} ({doc}).")

    @stub.typer
    def _typer(ary, idx):
        index = _check(name, ary, idx)
        return templates.signature(ary.dtype, ary, index)

    @stub.lower("Any", "Any")
    def _lower(lower, sig, args):
        ary_type, idx_type = sig.args
        bitwidth = ary_type.dtype.bitwidth
        register, constraint = _register(bitwidth)
        ptx = f"ld.global.{name[2:]}.{'u8' if bitwidth == 8 else f'b{bitwidth}'} $0, [$1];"
        address = lower.element_pointer(ary_type, args[0], idx_type, args[1])
        # side effects: the hint must not be dropped by merging with an ordinary load
        bits = llvm.inline_asm(register, [address], ptx, f"={constraint},l,~{{memory}}", has_side_effects=True)
        if bitwidth == 8:
            bits = arith.trunci(ir.IntegerType.get_signless(8), bits)
        element = lower.dmm.lookup(ary_type.dtype).get_value_type()
        return arith.bitcast(element, bits) if isinstance(element, ir.FloatType) else bits

    return stub


def _declare_store(name, doc):
    stub = Stub(name, f"{name}(ary, idx, value): ary[idx] = value, stored with st.global.{name[2:]} ({doc}).")

    @stub.typer
    def _typer(ary, idx, value):
        index = _check(name, ary, idx)
        if isinstance(ary, types.Array) and not ary.mutable:
            raise errors.TypingError(f"cuda.{name} cannot write to the read-only array {ary}")
        if not isinstance(value, (types.Number, types.Boolean)):
            raise errors.TypingError(f"cuda.{name}: the value stored must be a number, got {value}")
        return templates.signature(types.none, ary, index, ary.dtype)

    @stub.lower("Any", "Any", "Any")
    def _lower(lower, sig, args):
        ary_type, idx_type, _ = sig.args
        bitwidth = ary_type.dtype.bitwidth
        register, constraint = _register(bitwidth)
        bits = _as_bits(args[2], bitwidth)
        if bitwidth == 8:
            bits = arith.extui(register, bits)
        address = lower.element_pointer(ary_type, args[0], idx_type, args[1])
        ptx = f"st.global.{name[2:]}.b{bitwidth} [$0], $1;"
        llvm.inline_asm(None, [address, bits], ptx, f"l,{constraint},~{{memory}}", has_side_effects=True)

    return stub


for _name, _doc in _LOADS.items():
    globals()[_name] = _declare_load(_name, _doc)
for _name, _doc in _STORES.items():
    globals()[_name] = _declare_store(_name, _doc)
