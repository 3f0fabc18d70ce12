"""``cuda.atomic``: read-modify-write operations on one array element, each returning the
value the element held before it (see docs/memory.md, "Atomics").

Each operation is ``op(ary, idx, val)`` on a global or shared array of any ndim, indexed
by an integer (1-D) or a tuple of one integer per axis; ``cas(ary, idx, old, val)`` and
``compare_and_swap(ary, old, val)`` (the first element of a 1-D array) swap in *val*
where the element equals *old*. The dtypes each accepts are Numba-CUDA's.

Where the hardware has the operation it is one ``llvm.atomicrmw`` (float ``sub`` is an
add of the negated value, which IEEE arithmetic defines to be the same); where it has
none (float max/min and their nan- forms, 64-bit inc/dec) a compare-and-swap loop.
Everything is ``monotonic`` (relaxed), as in Numba-CUDA and CUDA C++'s atomicAdd & co.
"""

from .. import Namespace
from .._support.modules import arith, errors, ir, llvm, scf, templates, types

atomic = Namespace("atomic", "Atomic operations on array elements; each returns the element's old value.")

_INTS = ("int32", "int64", "uint32", "uint64")
_FLOATS = ("float32", "float64")
_UNSIGNED = ("uint32", "uint64")


# ---- the operations: hardware read-modify-writes and compare-and-swap loops ---------------


# the GPU (CUDA's atomicAdd & co. and PTX's default scope); LLVM's default is the whole system
_SCOPE = "device"


def _monotonic():
    return llvm.AtomicOrdering.monotonic


def _rmw(bin_op):
    def emit(lower, dtype, ptr, val):
        return llvm.atomicrmw(getattr(llvm.AtomicBinOp, bin_op), ptr, val, _monotonic(), syncscope=_SCOPE)

    return emit


def _negated_add(lower, dtype, ptr, val):
    # x - v is x + (-v) exactly in IEEE arithmetic, and the add is one instruction
    return llvm.atomicrmw(llvm.AtomicBinOp.fadd, ptr, arith.negf(val), _monotonic(), syncscope=_SCOPE)


def _bits_type(value):
    """The integer type a compare-and-swap on *value*'s type works with."""
    width = ir.FloatType(value.type).width if _is_float(value) else ir.IntegerType(value.type).width
    return ir.IntegerType.get_signless(width)


def _is_float(value):
    return isinstance(value.type, ir.FloatType)


def _cmpxchg(ptr, expected, new):
    """(the value seen, whether it was expected and *new* was written)."""
    pair = llvm.cmpxchg(ptr, expected, new, _monotonic(), _monotonic(), syncscope=_SCOPE)
    seen = llvm.extractvalue(expected.type, pair, ir.DenseI64ArrayAttr.get([0]))
    done = llvm.extractvalue(ir.IntegerType.get_signless(1), pair, ir.DenseI64ArrayAttr.get([1]))
    return seen, done


def _cas_loop(update):
    """A compare-and-swap loop: ``update(current, val) -> (new, write)`` gives the value to
    store and an i1 saying whether to store it (None: always). Returns the element's value
    just before this thread's store, or the value it saw when it decided not to store."""

    def emit(lower, dtype, ptr, val):
        bits = _bits_type(val)
        as_value = (lambda b: arith.bitcast(val.type, b)) if _is_float(val) else (lambda b: b)
        as_bits = (lambda v: arith.bitcast(bits, v)) if _is_float(val) else (lambda v: v)
        i1 = ir.IntegerType.get_signless(1)
        first = llvm.load(bits, ptr, volatile_=True)  # a stale read only costs one more round
        loop = scf.WhileOp([bits], [first])
        before = loop.before.blocks.append(bits)
        with ir.InsertionPoint(before):
            current = before.arguments[0]
            new, write = update(as_value(current), val)
            if write is None:
                seen, done = _cmpxchg(ptr, current, as_bits(new))
            else:
                branch = scf.IfOp(write, [bits, i1], has_else=True)
                with ir.InsertionPoint(branch.then_block):
                    scf.YieldOp(list(_cmpxchg(ptr, current, as_bits(new))))
                with ir.InsertionPoint(branch.else_block):
                    scf.YieldOp([current, arith.constant(i1, 1)])
                seen, done = branch.results
            scf.ConditionOp(arith.xori(done, arith.constant(i1, 1)), [seen])
        after = loop.after.blocks.append(bits)
        with ir.InsertionPoint(after):
            scf.YieldOp([after.arguments[0]])
        return as_value(loop.results[0])

    return emit


def _store_if(predicate, skip_nan_val=False):
    """Float max/min: store *val* where ``fcmp predicate current, val`` holds. The ordered
    predicates (max, min) hold for no NaN, so a NaN element stays and a NaN val is ignored,
    as in Numba-CUDA; the unordered ones (nanmax, nanmin) also replace a NaN element, and
    a NaN val is ignored (NaN counts as missing)."""

    def update(current, val):
        write = arith.cmpf(getattr(arith.CmpFPredicate, predicate.upper()), current, val)
        if skip_nan_val:
            write = arith.andi(write, arith.cmpf(arith.CmpFPredicate.ORD, val, val))
        return val, write

    return _cas_loop(update)


def _wrap_step(increment):
    """64-bit inc/dec, which PTX's atom.inc/atom.dec lack: inc stores (old >= val) ? 0 : old + 1,
    dec stores (old == 0 or old > val) ? val : old - 1."""

    def update(current, val):
        one = arith.constant(current.type, 1)
        if increment:
            wraps = arith.cmpi(arith.CmpIPredicate.uge, current, val)
            return arith.select(wraps, arith.constant(current.type, 0), arith.addi(current, one)), None
        lower_value = arith.subi(current, one)  # 0 - 1 wraps to the largest value, which is > val or == val
        stays = arith.cmpi(arith.CmpIPredicate.ult, lower_value, val)
        return arith.select(stays, lower_value, val), None

    return _cas_loop(update)


def _wrapping(bin_op, increment):
    """atom.inc/atom.dec for 32 bits; a compare-and-swap loop for 64."""
    hardware, loop = _rmw(bin_op), _wrap_step(increment)

    def emit(lower, dtype, ptr, val):
        return (hardware if dtype.bitwidth == 32 else loop)(lower, dtype, ptr, val)

    return emit


# op -> (docstring, {"signed" | "unsigned" | "float": emit(lower, dtype, ptr, val) -> old}),
# the kinds present are the dtypes the op accepts (inc and dec: unsigned only)
_OPS = {
    "add": ("ary[idx] += val", {"signed": _rmw("add"), "unsigned": _rmw("add"), "float": _rmw("fadd")}),
    "sub": ("ary[idx] -= val", {"signed": _rmw("sub"), "unsigned": _rmw("sub"), "float": _negated_add}),
    "and_": ("ary[idx] &= val", {"signed": _rmw("_and"), "unsigned": _rmw("_and")}),
    "or_": ("ary[idx] |= val", {"signed": _rmw("_or"), "unsigned": _rmw("_or")}),
    "xor": ("ary[idx] ^= val", {"signed": _rmw("_xor"), "unsigned": _rmw("_xor")}),
    "exch": ("ary[idx] = val", {"signed": _rmw("xchg"), "unsigned": _rmw("xchg")}),
    "max": (
        "ary[idx] = max(ary[idx], val); for floats a NaN element stays NaN and a NaN val is ignored",
        {"signed": _rmw("max"), "unsigned": _rmw("umax"), "float": _store_if("olt")},
    ),
    "min": (
        "ary[idx] = min(ary[idx], val); for floats a NaN element stays NaN and a NaN val is ignored",
        {"signed": _rmw("min"), "unsigned": _rmw("umin"), "float": _store_if("ogt")},
    ),
    "nanmax": (
        "ary[idx] = max(ary[idx], val), NaN counting as missing: nanmax(NaN, n) == nanmax(n, NaN) == n",
        {"signed": _rmw("max"), "unsigned": _rmw("umax"), "float": _store_if("ult", skip_nan_val=True)},
    ),
    "nanmin": (
        "ary[idx] = min(ary[idx], val), NaN counting as missing: nanmin(NaN, n) == nanmin(n, NaN) == n",
        {"signed": _rmw("min"), "unsigned": _rmw("umin"), "float": _store_if("ugt", skip_nan_val=True)},
    ),
    "inc": ("ary[idx] = 0 if ary[idx] >= val else ary[idx] + 1", {"unsigned": _wrapping("uinc_wrap", True)}),
    "dec": (
        "ary[idx] = val if ary[idx] == 0 or ary[idx] > val else ary[idx] - 1",
        {"unsigned": _wrapping("udec_wrap", False)},
    ),
}

_KIND_DTYPES = {"signed": ("int32", "int64"), "unsigned": _UNSIGNED, "float": _FLOATS}


def _kind(dtype):
    if isinstance(dtype, types.Float):
        return "float"
    return "signed" if dtype.signed else "unsigned"


# ---- typing ---------------------------------------------------------------------------------


def _check_array(name, ary, accepted):
    if not isinstance(ary, types.Array):
        raise errors.TypingError(f"{name} needs an array as its first argument, got {ary}")
    if str(ary.dtype) not in accepted:
        raise errors.TypingError(
            f"{name} does not support arrays of {ary.dtype}; it takes arrays of {', '.join(accepted)}"
        )
    if not ary.mutable:
        raise errors.TypingError(f"{name} cannot write to the read-only array {ary}")


def _check_index(name, ary, idx):
    """The index's type: an integer for a 1-D array, or a tuple of one integer per axis. A
    float member is converted to intp (truncated), as Numba-CUDA does: an index computed
    with numba's mixed-sign arithmetic (``uint64 % int64`` is a float64) still works."""
    members = idx.types if isinstance(idx, types.BaseTuple) else (idx,)
    if not all(isinstance(m, (types.Integer, types.Float)) for m in members) or len(members) != ary.ndim:
        want = "an integer or a tuple of 1 integer" if ary.ndim == 1 else f"a tuple of {ary.ndim} integers"
        raise errors.TypingError(f"{name} on the {ary.ndim}-D array {ary} needs {want} as its index, got {idx}")
    if any(isinstance(m, types.Float) for m in members):
        return types.UniTuple(types.intp, ary.ndim) if isinstance(idx, types.BaseTuple) else types.intp
    return types.unliteral(idx)


def _check_value(name, what, value):
    if not isinstance(value, (types.Number, types.Boolean)):
        raise errors.TypingError(f"{name}: {what} must be a number, got {value}")


def _accepted(kinds):
    return tuple(d for kind in kinds for d in _KIND_DTYPES[kind])


def _declare(op, doc, rules):
    stub = atomic.function(op, f"{op}(ary, idx, val): atomic {doc}; returns the old value of ary[idx].")
    name, accepted = f"cuda.atomic.{op}", _accepted(rules)

    @stub.typer
    def _typer(ary, idx, val):
        _check_array(name, ary, accepted)
        index = _check_index(name, ary, idx)
        _check_value(name, "val", val)
        return templates.signature(ary.dtype, ary, index, ary.dtype)

    @stub.lower("Array", "Any", "Any")
    def _lower(lower, sig, args):
        ary, idx, _ = sig.args
        ptr = lower.element_pointer(ary, args[0], idx, args[1])
        return rules[_kind(ary.dtype)](lower, ary.dtype, ptr, args[2])


for _op, (_doc, _rules) in _OPS.items():
    _declare(_op, _doc, _rules)


# ---- compare-and-swap -----------------------------------------------------------------------

cas = atomic.function(
    "cas",
    "cas(ary, idx, old, val): atomically, if ary[idx] == old then ary[idx] = val; returns the "
    "old value of ary[idx] (equal to old when the swap happened).",
)
compare_and_swap = atomic.function(
    "compare_and_swap",
    "compare_and_swap(ary, old, val): cas on the first element of the 1-D array ary.",
)


@cas.typer
def _cas_typer(ary, idx, old, val):
    _check_array("cuda.atomic.cas", ary, _INTS)
    index = _check_index("cuda.atomic.cas", ary, idx)
    _check_value("cuda.atomic.cas", "old", old)
    _check_value("cuda.atomic.cas", "val", val)
    return templates.signature(ary.dtype, ary, index, ary.dtype, ary.dtype)


@compare_and_swap.typer
def _compare_and_swap_typer(ary, old, val):
    name = "cuda.atomic.compare_and_swap"
    _check_array(name, ary, _INTS)
    if ary.ndim != 1:
        raise errors.TypingError(f"{name} needs a 1-D array (it swaps the first element), got {ary}")
    _check_value(name, "old", old)
    _check_value(name, "val", val)
    return templates.signature(ary.dtype, ary, ary.dtype, ary.dtype)


@cas.lower("Array", "Any", "Any", "Any")
def _cas(lower, sig, args):
    ptr = lower.element_pointer(sig.args[0], args[0], sig.args[1], args[1])
    return _cmpxchg(ptr, args[2], args[3])[0]


@compare_and_swap.lower("Array", "Any", "Any")
def _compare_and_swap(lower, sig, args):
    first = arith.constant(ir.IntegerType.get_signless(64), 0)
    ptr = lower.element_pointer(sig.args[0], args[0], types.intp, first)
    return _cmpxchg(ptr, args[1], args[2])[0]
