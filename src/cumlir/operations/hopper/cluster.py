"""Thread-block clusters (sm_90): where the block sits in its cluster, the cluster barrier,
and distributed shared memory, by numba-cuda-mlir's ``cuda.intrin`` names (docs/hopper.md).

``cluster_ctarank()`` is the block's rank in its cluster, ``block_idx_in_cluster()`` its x
index there; cumlir adds the other registers by their PTX names, an axis (0, 1, 2 for x, y, z)
chosen by a literal. ``cluster_arrive[_relaxed]()`` and ``cluster_wait()`` split
``barrier.cluster``; ``cluster_sync()`` is both. ``mapa(array, rank)`` is the same array in the
shared memory of the block of that rank, read and written through ordinary indexing.
A kernel launched without a cluster runs in clusters of one block."""

from .. import Stub
from .._support.arrayviews import parts
from .._support.modules import arith, errors, llvm, templates, types
from .._support.ptx_asm import (
    as_i32,
    check_integer,
    check_number_array,
    first_element_address,
    i32,
    i64,
    read,
    require,
    statement,
)

_AXES = "xyz"
HOPPER = (9, 0)

# name -> (PTX register, what it is)
_SCALAR_REGISTERS = {
    "cluster_ctarank": ("%cluster_ctarank", "the block's rank in its cluster, 0 to cluster_nctarank() - 1"),
    "cluster_nctarank": ("%cluster_nctarank", "the number of blocks in the cluster"),
    "block_idx_in_cluster": ("%cluster_ctaid.x", "the block's x index in its cluster"),
}

# name -> (PTX register without its axis, what it is)
_AXIS_REGISTERS = {
    "cluster_ctaid": ("%cluster_ctaid", "the block's index in its cluster along the axis"),
    "cluster_nctaid": ("%cluster_nctaid", "the cluster's size in blocks along the axis"),
    "clusterid": ("%clusterid", "the cluster's index in the grid along the axis"),
    "nclusterid": ("%nclusterid", "the grid's size in clusters along the axis"),
}


def _scalar_register(name, register, doc):
    stub = Stub(name, f"{name}(): {doc}, as an int32 (sm_90).")

    @stub.cases
    def _cases():
        return [templates.signature(types.int32)]

    @stub.lower
    def _rule(lower, sig, args):
        require(lower, f"intrin.{name}", HOPPER, 78)
        return read(i32(), f"mov.u32 $0, {register};", constraints=["=r"])

    return stub


def _axis_register(name, register, doc):
    stub = Stub(name, f"{name}(axis): {doc}, axis 0, 1 or 2 (x, y, z) as a literal; an int32 (sm_90).")

    @stub.typer
    def _typer(axis):
        if not isinstance(axis, types.IntegerLiteral) or axis.literal_value not in (0, 1, 2):
            raise errors.TypingError(f"intrin.{name}(axis): the axis must be the literal 0, 1 or 2, got {axis}")
        return templates.signature(types.int32, axis)

    @stub.lower
    def _rule(lower, sig, args):
        require(lower, f"intrin.{name}", HOPPER, 78)
        axis = _AXES[sig.args[0].literal_value]
        return read(i32(), f"mov.u32 $0, {register}.{axis};", constraints=["=r"])

    return stub


for _name, (_register, _doc) in _SCALAR_REGISTERS.items():
    globals()[_name] = _scalar_register(_name, _register, _doc)
for _name, (_register, _doc) in _AXIS_REGISTERS.items():
    globals()[_name] = _axis_register(_name, _register, _doc)


# ---- the cluster barrier --------------------------------------------------------------------

# name -> (PTX, what it does)
_BARRIERS = {
    "cluster_arrive": (
        "barrier.cluster.arrive;",
        "this thread arrives at the cluster barrier; its memory accesses before are released to the cluster",
    ),
    "cluster_arrive_relaxed": (
        "barrier.cluster.arrive.relaxed;",
        "this thread arrives at the cluster barrier, ordering none of its memory accesses",
    ),
    "cluster_wait": (
        "barrier.cluster.wait;",
        "wait until every thread of the cluster has arrived; their released accesses are then visible",
    ),
    "cluster_sync": (
        "barrier.cluster.arrive;\n\tbarrier.cluster.wait;",
        "cluster_arrive() then cluster_wait(): every thread of every block of the cluster meets here",
    ),
}


def _barrier(name, ptx, doc):
    stub = Stub(name, f"{name}(): {doc} (sm_90).")

    @stub.cases
    def _cases():
        return [templates.signature(types.none)]

    @stub.lower
    def _rule(lower, sig, args):
        # .relaxed came with PTX 8.0
        require(lower, f"intrin.{name}", HOPPER, 80 if ".relaxed" in ptx else 78)
        statement(ptx)

    return stub


for _name, (_ptx, _doc) in _BARRIERS.items():
    globals()[_name] = _barrier(_name, _ptx, _doc)


# ---- distributed shared memory ----------------------------------------------------------------

mapa = Stub(
    "mapa",
    "mapa(array, rank): the shared array as the block of cluster rank *rank* has it (PTX mapa): "
    "an array of the same type and shape, read and written by indexing (sm_90).",
)


@mapa.typer
def _mapa_typer(array, rank):
    check_integer("intrin.mapa(array, rank): the rank", rank)
    if isinstance(array, types.CPointer):
        return templates.signature(array, array, rank)
    check_number_array("intrin.mapa(array, rank): the array (a cuda.shared.array) or a pointer", array)
    return templates.signature(array, array, rank)


def _mapped(lower, address, rank_type, rank):
    return read(i64(), "mapa.u64 $0, $1, $2;", [address, as_i32(lower, rank_type, rank)], ["=l", "l", "r"])


@mapa.lower("Any", "Any")
def _mapa(lower, sig, args):
    require(lower, "intrin.mapa", HOPPER, 78)
    array_type, rank_type = sig.args
    array, rank = args
    ptr_type = llvm.PointerType.get()
    if isinstance(array_type, types.CPointer):
        return llvm.inttoptr(ptr_type, _mapped(lower, llvm.ptrtoint(i64(), array), rank_type, rank))
    # the view's first element moves to the other block; its offset is then 0
    remote = llvm.inttoptr(ptr_type, _mapped(lower, first_element_address(lower, array_type, array), rank_type, rank))
    _, _, sizes, strides = parts(array, array_type.ndim)
    return lower.memref_from_params(array_type, [remote, arith.constant(i64(), 0), *sizes, *strides])
