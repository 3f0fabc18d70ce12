"""Warp intrinsics: ``laneid``, ``warpsize``, ``activemask()``, ``lanemask_lt()``, the
shuffles ``shfl_sync``/``shfl_up_sync``/``shfl_down_sync``/``shfl_xor_sync``, the votes
``all_sync``/``any_sync``/``eq_sync``/``ballot_sync``, and ``match_any_sync``/``match_all_sync``.

Types follow Numba-CUDA: ``laneid``/``warpsize`` int32, ``activemask()``/``lanemask_lt()``
uint32, a shuffle returns its value's type, the votes a boolean, ``ballot_sync`` and
``match_any_sync`` an int32 mask, ``match_all_sync`` a tuple (int32 mask, boolean).
Numba-CUDA shuffles int32, int64, float32 and float64; cumlir also shuffles the other
integer widths, booleans and float16 (widened to 32 bits and back). A 64-bit value is
shuffled as two 32-bit halves, as the hardware moves 32 bits per lane. Masks, lanes and
deltas are integers of any width, taken modulo 2**32.
"""

from .. import Register, Stub
from .._support.modules import arith, errors, ir, llvm, nvvm, templates, types


def _i(width):
    return ir.IntegerType.get_signless(width)


# ---- registers ----------------------------------------------------------------------------

laneid = Register("laneid", "int32", "laneid: the thread's lane within its warp, 0 to 31 (int32).")
warpsize = Register("warpsize", "int32", "warpsize: the number of threads in a warp, 32 (int32).")
activemask = Stub("activemask", "activemask(): the mask of the warp's lanes executing this call (uint32).")
lanemask_lt = Stub("lanemask_lt", "lanemask_lt(): the mask of the lanes below this one (uint32).")


@laneid.read
def _laneid(lower):
    return nvvm.LaneIdOp(_i(32)).result


@warpsize.read
def _warpsize(lower):
    return nvvm.WarpSizeOp(_i(32)).result


@activemask.cases
@lanemask_lt.cases
def _mask_cases():
    return [templates.signature(types.uint32)]


@activemask.lower
def _activemask(lower, sig, args):
    # LLVM's intrinsic is convergent: no pass merges the calls of two branches into one
    # above them (activemask's value is the set of lanes that reach the call)
    return llvm.call_intrinsic(_i(32), "llvm.nvvm.activemask", [], [], [])


@lanemask_lt.lower
def _lanemask_lt(lower, sig, args):
    return nvvm.LaneMaskLtOp(_i(32)).result


# ---- typing helpers -----------------------------------------------------------------------


def _mask(name, what, ty):
    if not isinstance(ty, types.Integer):
        raise errors.TypingError(f"cuda.{name}: the {what} must be an integer, got {ty}")
    return types.unliteral(ty)


def _value(name, ty):
    """The type of a value moved or compared bitwise: an integer, boolean or float."""
    ty = types.unliteral(ty)
    if isinstance(ty, (types.Integer, types.Boolean)) or ty in (types.float16, types.float32, types.float64):
        return ty
    raise errors.TypingError(
        f"cuda.{name}: the value must be an integer, boolean or float (16, 32 or 64 bits), got {ty}"
    )


def _width(ty):
    return 1 if isinstance(ty, types.Boolean) else ty.bitwidth


def _to_bits(value, ty):
    """The bits of *value* (numba type *ty*) as an i32, or an i64 for 64-bit types."""
    if isinstance(ty, types.Float):
        value = arith.bitcast(_i(ty.bitwidth), value)
    return arith.extui(_i(32), value) if _width(ty) < 32 else value


def _from_bits(bits, ty):
    """The inverse of _to_bits."""
    if _width(ty) < 32:
        bits = arith.trunci(_i(_width(ty)), bits)
    if isinstance(ty, types.Float):
        bits = arith.bitcast(
            ir.F16Type.get() if ty.bitwidth == 16 else ir.F32Type.get() if ty.bitwidth == 32 else ir.F64Type.get(), bits
        )
    return bits


def _i32(lower, value):
    return lower.mlir_convert(value, _i(32))  # masks and lanes: the low 32 bits


# ---- shuffles -----------------------------------------------------------------------------

# stub -> (what the third argument is called, NVVM shuffle kind, PTX c operand: the lane
# bound, 0x1f for idx/down/bfly so lanes past 31 keep their own value, 0 for up)
_SHUFFLES = {
    "shfl_sync": ("src_lane", "idx", 0x1F),
    "shfl_up_sync": ("delta", "up", 0x0),
    "shfl_down_sync": ("delta", "down", 0x1F),
    "shfl_xor_sync": ("lane_mask", "bfly", 0x1F),
}


def _shuffle_typer(name, lane_name):
    def typer(mask, value, lane):
        ty = _value(name, value)
        return templates.signature(ty, _mask(name, "mask", mask), ty, _mask(name, lane_name, lane))

    return typer


def _shuffle_rule(kind, clamp):
    def rule(lower, sig, args):
        mask, value, lane = _i32(lower, args[0]), args[1], _i32(lower, args[2])
        c = arith.constant(_i(32), clamp)
        shuffle_kind = getattr(nvvm.ShflKind, kind)

        def shuffle(word):
            return nvvm.shfl_sync(_i(32), mask, word, lane, c, shuffle_kind)

        ty = sig.args[1]
        bits = _to_bits(value, ty)
        if _width(ty) == 64:  # two 32-bit shuffles of the halves
            wide = _i(64)
            low = shuffle(arith.trunci(_i(32), bits))
            high = shuffle(arith.trunci(_i(32), arith.shrui(bits, arith.constant(wide, 32))))
            high = arith.shli(arith.extui(wide, high), arith.constant(wide, 32))
            return _from_bits(arith.ori(high, arith.extui(wide, low)), ty)
        return _from_bits(shuffle(bits), ty)

    return rule


for _name, (_lane_name, _kind, _clamp) in _SHUFFLES.items():
    _stub = Stub(_name, f"{_name}(mask, value, {_lane_name}): value as held by another lane of the warp.")
    _stub.typer(_shuffle_typer(_name, _lane_name))
    _stub.lower(_shuffle_rule(_kind, _clamp))
    globals()[_name] = _stub


# ---- votes --------------------------------------------------------------------------------

# stub -> (NVVM vote kind, numba result type name)
_VOTES = {
    "all_sync": ("all", "boolean"),
    "any_sync": ("any", "boolean"),
    "eq_sync": ("uni", "boolean"),
    "ballot_sync": ("ballot", "int32"),
}


def _vote_typer(name, result):
    def typer(mask, predicate):
        if not isinstance(predicate, (types.Boolean, types.Integer, types.Float)):
            raise errors.TypingError(f"cuda.{name}: the predicate must be a boolean or a number, got {predicate}")
        # the predicate is converted to a boolean (nonzero is true) before the rule runs
        return templates.signature(getattr(types, result), _mask(name, "mask", mask), types.boolean)

    return typer


def _vote_rule(kind):
    def rule(lower, sig, args):
        result = _i(32) if kind == "ballot" else _i(1)
        return nvvm.vote_sync(result, _i32(lower, args[0]), args[1], getattr(nvvm.VoteSyncKind, kind))

    return rule


for _name, (_kind, _result) in _VOTES.items():
    _stub = Stub(_name, f"{_name}(mask, predicate): a vote of the lanes in mask on predicate ({_result}).")
    _stub.typer(_vote_typer(_name, _result))
    _stub.lower(_vote_rule(_kind))
    globals()[_name] = _stub


# ---- match --------------------------------------------------------------------------------

match_any_sync = Stub(
    "match_any_sync",
    "match_any_sync(mask, value): the mask of the lanes in mask whose value equals this lane's (int32).",
)
match_all_sync = Stub(
    "match_all_sync",
    "match_all_sync(mask, value): (mask, True) if every lane in mask holds the same value, else (0, False).",
)


@match_any_sync.typer
def _match_any_typing(mask, value):
    ty = _value("match_any_sync", value)
    return templates.signature(types.int32, _mask("match_any_sync", "mask", mask), ty)


@match_all_sync.typer
def _match_all_typing(mask, value):
    ty = _value("match_all_sync", value)
    return templates.signature(types.Tuple((types.int32, types.boolean)), _mask("match_all_sync", "mask", mask), ty)


def _match(lower, sig, args, kind, result):
    # equal values have equal bits (floats compared by their bits, as the hardware does)
    return nvvm.match_sync(result, _i32(lower, args[0]), _to_bits(args[1], sig.args[1]), kind)


@match_any_sync.lower
def _match_any(lower, sig, args):
    return _match(lower, sig, args, nvvm.MatchSyncKind.any, _i(32))


@match_all_sync.lower
def _match_all(lower, sig, args):
    pair = _match(lower, sig, args, nvvm.MatchSyncKind.all, llvm.StructType.get_literal([_i(32), _i(1)]))
    members = [llvm.extractvalue(t, pair, [i]) for i, t in enumerate((_i(32), _i(1)))]
    return lower.make_struct(sig.return_type, members)
