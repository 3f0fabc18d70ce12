"""Hopper's tensor memory accelerator (sm_90): bulk copies between global and shared memory
done by the copy engine, completing on an mbarrier (loads) or in bulk groups (stores).

numba-cuda-mlir's ``cuda.intrin`` names: ``cp_async_bulk_tensor_2d(dst, tmap, c0, c1, bar)``
(and ``_multicast(..., mask)``), ``cp_async_bulk_load(dst, src, bar, nbytes)``,
``cp_async_bulk_store(dst, src, nbytes)``, ``prefetch_tensormap(tmap)``; their coordinates are
PTX's, the innermost first. cumlir's general forms take the coordinates of a tensor map of any
rank as one tuple in the array's axis order, as an index is written:
``cp_async_bulk_tensor_load(dst, tmap, coords, bar, multicast=None)``,
``cp_async_bulk_tensor_store(tmap, coords, src)``; and the bulk groups and the proxy fence:
``cp_async_bulk_commit_group()``, ``cp_async_bulk_wait_group(n)``,
``cp_async_bulk_wait_group_read(n)``, ``fence_proxy_async_shared()`` (docs/hopper.md, "TMA").

Shared-memory operands are the first elements of shared arrays, the mbarrier the first element
of a shared array of 64-bit integers (as mbarrier.py), a tensor map a kernel argument
(``types.TensorMap``: the generic address of its grid-constant parameter)."""

from ...marks import SHARED_ALIGNMENT
from .. import Stub
from .._support.modules import errors, ir, llvm, templates, types
from .._support.ptx_asm import (
    as_i32,
    check_barrier,
    check_integer,
    check_number_array,
    first_element_address,
    i64,
    require,
    statement,
)

HOPPER = (9, 0)
BULK_PTX = 80
MAX_RANK = 5
BOX_ALIGNMENT = 128  # where the shared array of a box copy must start

cp_async_bulk_tensor_load = Stub(
    "cp_async_bulk_tensor_load",
    "cp_async_bulk_tensor_load(dst, tmap, coords, bar, multicast=None): start copying the box of the tensor map "
    "at coords (a tuple in the array's axis order) into the shared array dst, completing on the mbarrier bar[0]; "
    "with a multicast mask, into dst of every block of the cluster in the mask (sm_90).",
)
cp_async_bulk_tensor_store = Stub(
    "cp_async_bulk_tensor_store",
    "cp_async_bulk_tensor_store(tmap, coords, src): start copying the shared array src into the box of the "
    "tensor map at coords, in the current bulk group (sm_90).",
)
cp_async_bulk_tensor_2d = Stub(
    "cp_async_bulk_tensor_2d",
    "cp_async_bulk_tensor_2d(dst, tmap, c0, c1, bar): load the box of a 2-d tensor map at (c0 innermost, c1) "
    "into the shared array dst, completing on bar[0] (sm_90).",
)
cp_async_bulk_tensor_2d_multicast = Stub(
    "cp_async_bulk_tensor_2d_multicast",
    "cp_async_bulk_tensor_2d_multicast(dst, tmap, c0, c1, bar, mask): cp_async_bulk_tensor_2d into every "
    "block of the cluster whose rank is set in the 16-bit mask (sm_90).",
)
cp_async_bulk_load = Stub(
    "cp_async_bulk_load",
    "cp_async_bulk_load(dst, src, bar, nbytes): start copying nbytes (a multiple of 16) from the global array "
    "src to the shared array dst, completing on bar[0] (sm_90).",
)
cp_async_bulk_store = Stub(
    "cp_async_bulk_store",
    "cp_async_bulk_store(dst, src, nbytes): start copying nbytes (a multiple of 16) from the shared array src "
    "to the global array dst, in the current bulk group (sm_90).",
)
prefetch_tensormap = Stub(
    "prefetch_tensormap", "prefetch_tensormap(tmap): bring the tensor map's descriptor into the cache (sm_90)."
)
cp_async_bulk_commit_group = Stub(
    "cp_async_bulk_commit_group",
    "cp_async_bulk_commit_group(): close the bulk group of the bulk stores started since the last one (sm_90).",
)
cp_async_bulk_wait_group = Stub(
    "cp_async_bulk_wait_group",
    "cp_async_bulk_wait_group(n): wait until at most n (a literal) bulk groups are pending (sm_90).",
)
cp_async_bulk_wait_group_read = Stub(
    "cp_async_bulk_wait_group_read",
    "cp_async_bulk_wait_group_read(n): wait until at most n (a literal) bulk groups still read their source "
    "(the shared memory may then be written again) (sm_90).",
)
fence_proxy_async_shared = Stub(
    "fence_proxy_async_shared",
    "fence_proxy_async_shared(): order the block's generic accesses to shared memory before the asynchronous "
    "copies after it (fence.proxy.async.shared::cta), as before a TMA store (sm_90).",
)


# ---- typing ---------------------------------------------------------------------------------


def _check_tensor_map(name, tmap, rank=None):
    if not isinstance(tmap, types.TensorMap):
        raise errors.TypingError(
            f"intrin.{name}: the tensor map must be a kernel argument made by cuda.tensor_map (a CUtensorMap), "
            f"got {tmap}"
        )
    if rank is not None and tmap.rank is not None and tmap.rank != rank:
        raise errors.TypingError(
            f"intrin.{name}: the tensor map has rank {tmap.rank}, the copy gives {rank} coordinates"
        )


def _check_coordinates(name, coords):
    if not isinstance(coords, types.BaseTuple) or not 1 <= len(coords) <= MAX_RANK:
        raise errors.TypingError(
            f"intrin.{name}: the coordinates must be a tuple of 1 to {MAX_RANK} integers, got {coords}"
        )
    for member in coords.types:
        check_integer(f"intrin.{name}: a coordinate", member)
    return len(coords)


def _check_size(name, nbytes):
    check_integer(f"intrin.{name}: the byte count (a multiple of 16)", nbytes)


def _check_mask(name, mask):
    check_integer(f"intrin.{name}: the multicast mask (a 16-bit mask of cluster ranks)", mask)


@cp_async_bulk_tensor_load.typer
def _tensor_load_typer(dst, tmap, coords, bar, multicast=None):
    name = "cp_async_bulk_tensor_load"
    check_number_array(f"intrin.{name}: dst (a cuda.shared.array)", dst)
    _check_tensor_map(name, tmap, _check_coordinates(name, coords))
    check_barrier(name, bar)
    if multicast is None:
        return templates.signature(types.none, dst, tmap, coords, bar)
    _check_mask(name, multicast)
    return templates.signature(types.none, dst, tmap, coords, bar, multicast)


@cp_async_bulk_tensor_store.typer
def _tensor_store_typer(tmap, coords, src):
    name = "cp_async_bulk_tensor_store"
    _check_tensor_map(name, tmap, _check_coordinates(name, coords))
    check_number_array(f"intrin.{name}: src (a cuda.shared.array)", src)
    return templates.signature(types.none, tmap, coords, src)


def _check_tensor_2d(name, dst, tmap, c0, c1, bar):
    check_number_array(f"intrin.{name}: dst (a cuda.shared.array)", dst)
    _check_tensor_map(name, tmap, 2)
    check_integer(f"intrin.{name}: c0", c0)
    check_integer(f"intrin.{name}: c1", c1)
    check_barrier(name, bar)


@cp_async_bulk_tensor_2d.typer
def _tensor_2d_typer(dst, tmap, c0, c1, bar):
    _check_tensor_2d("cp_async_bulk_tensor_2d", dst, tmap, c0, c1, bar)
    return templates.signature(types.none, dst, tmap, c0, c1, bar)


@cp_async_bulk_tensor_2d_multicast.typer
def _tensor_2d_multicast_typer(dst, tmap, c0, c1, bar, mask):
    _check_tensor_2d("cp_async_bulk_tensor_2d_multicast", dst, tmap, c0, c1, bar)
    _check_mask("cp_async_bulk_tensor_2d_multicast", mask)
    return templates.signature(types.none, dst, tmap, c0, c1, bar, mask)


@cp_async_bulk_load.typer
def _bulk_load_typer(dst, src, bar, nbytes):
    name = "cp_async_bulk_load"
    check_number_array(f"intrin.{name}: dst (a cuda.shared.array)", dst)
    check_number_array(f"intrin.{name}: src (an array in global memory)", src)
    check_barrier(name, bar)
    _check_size(name, nbytes)
    return templates.signature(types.none, dst, src, bar, nbytes)


@cp_async_bulk_store.typer
def _bulk_store_typer(dst, src, nbytes):
    name = "cp_async_bulk_store"
    check_number_array(f"intrin.{name}: dst (an array in global memory)", dst)
    check_number_array(f"intrin.{name}: src (a cuda.shared.array)", src)
    _check_size(name, nbytes)
    return templates.signature(types.none, dst, src, nbytes)


@prefetch_tensormap.typer
def _prefetch_typer(tmap):
    _check_tensor_map("prefetch_tensormap", tmap)
    return templates.signature(types.none, tmap)


@cp_async_bulk_commit_group.cases
@fence_proxy_async_shared.cases
def _nullary_cases():
    return [templates.signature(types.none)]


def _wait_typer(name):
    def typer(n):
        if not isinstance(n, types.IntegerLiteral) or not 0 <= n.literal_value <= 63:
            raise errors.TypingError(f"intrin.{name}(n): n must be a literal from 0 to 63, got {n}")
        return templates.signature(types.none, n)

    return typer


cp_async_bulk_wait_group.typer(_wait_typer("cp_async_bulk_wait_group"))
cp_async_bulk_wait_group_read.typer(_wait_typer("cp_async_bulk_wait_group_read"))


# ---- lowering -------------------------------------------------------------------------------

# shared-memory operands are given as generic addresses and converted in the braces
_TENSOR_LOAD = """{{
\t.reg .u64 dst, bar;
\tcvta.to.shared.u64 dst, $0;
\tcvta.to.shared.u64 bar, $1;
\tcp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes{multicast} \
[dst], [$2, {{{coords}}}], [bar]{mask};
\t}}"""

_TENSOR_STORE = """{{
\t.reg .u64 src;
\tcvta.to.shared.u64 src, $1;
\tcp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group [$0, {{{coords}}}], [src];
\t}}"""

_BULK_LOAD = """{
\t.reg .u64 dst, src, bar;
\tcvta.to.shared.u64 dst, $0;
\tcvta.to.global.u64 src, $1;
\tcvta.to.shared.u64 bar, $2;
\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], $3, [bar];
\t}"""

_BULK_STORE = """{
\t.reg .u64 dst, src;
\tcvta.to.global.u64 dst, $0;
\tcvta.to.shared.u64 src, $1;
\tcp.async.bulk.global.shared::cta.bulk_group [dst], [src], $2;
\t}"""


def _operands(first, count):
    return ", ".join(f"${first + k}" for k in range(count))


def _box_copy(lower, what):
    """A copy of a box needs its shared array on 128 bytes (codegen/passes/shared_alignment.py)."""
    require(lower, what, HOPPER, BULK_PTX)
    lower.mlir_gpu_module.attributes[SHARED_ALIGNMENT] = ir.IntegerAttr.get(i64(), BOX_ALIGNMENT)


def _tensor_load(lower, what, dst, tmap, coords, bar, mask):
    """The load of the box at *coords* (MLIR i32 values, innermost first)."""
    _box_copy(lower, what)
    operands = [dst, bar, tmap, *coords]
    constraints = ["l", "l", "l", *["r"] * len(coords)]
    multicast = mask_text = ""
    if mask is not None:
        multicast, mask_text = ".multicast::cluster", f", ${len(operands)}"
        operands.append(mask)
        constraints.append("h")
    ptx = _TENSOR_LOAD.format(rank=len(coords), coords=_operands(3, len(coords)), multicast=multicast, mask=mask_text)
    statement(ptx, operands, constraints)


def _i16(lower, numba_type, value):
    return lower.cast(value, numba_type, types.uint16)


def _tuple_i32s(lower, tuple_type, value):
    return [as_i32(lower, t, lower.extract(value, tuple_type, k)) for k, t in enumerate(tuple_type.types)]


@cp_async_bulk_tensor_load.lower("*Any")
def _lower_tensor_load(lower, sig, args):
    dst_type, tmap_type, coords_type, bar_type = sig.args[:4]
    coords = _tuple_i32s(lower, coords_type, args[2])[::-1]  # PTX's order: the innermost first
    mask = _i16(lower, sig.args[4], args[4]) if len(args) == 5 else None
    dst = first_element_address(lower, dst_type, args[0])
    bar = first_element_address(lower, bar_type, args[3])
    _tensor_load(lower, "intrin.cp_async_bulk_tensor_load", dst, _address(args[1]), coords, bar, mask)


def _lower_tensor_2d(what):
    def rule(lower, sig, args):
        dst = first_element_address(lower, sig.args[0], args[0])
        coords = [as_i32(lower, sig.args[k], args[k]) for k in (2, 3)]
        bar = first_element_address(lower, sig.args[4], args[4])
        mask = _i16(lower, sig.args[5], args[5]) if len(args) == 6 else None
        _tensor_load(lower, f"intrin.{what}", dst, _address(args[1]), coords, bar, mask)

    return rule


cp_async_bulk_tensor_2d.lower("*Any")(_lower_tensor_2d("cp_async_bulk_tensor_2d"))
cp_async_bulk_tensor_2d_multicast.lower("*Any")(_lower_tensor_2d("cp_async_bulk_tensor_2d_multicast"))


def _address(tmap):
    """The generic address (i64) of the tensor map's parameter."""
    return llvm.ptrtoint(i64(), tmap)


@cp_async_bulk_tensor_store.lower("Any", "Any", "Any")
def _lower_tensor_store(lower, sig, args):
    _box_copy(lower, "intrin.cp_async_bulk_tensor_store")
    tmap_type, coords_type, src_type = sig.args
    coords = _tuple_i32s(lower, coords_type, args[1])[::-1]
    src = first_element_address(lower, src_type, args[2])
    ptx = _TENSOR_STORE.format(rank=len(coords), coords=_operands(2, len(coords)))
    statement(ptx, [_address(args[0]), src, *coords], ["l", "l", *["r"] * len(coords)])


@cp_async_bulk_load.lower("Any", "Any", "Any", "Any")
def _lower_bulk_load(lower, sig, args):
    require(lower, "intrin.cp_async_bulk_load", HOPPER, BULK_PTX)
    addresses = [first_element_address(lower, t, a) for t, a in zip(sig.args[:3], args[:3])]
    statement(_BULK_LOAD, [*addresses, as_i32(lower, sig.args[3], args[3])], ["l", "l", "l", "r"])


@cp_async_bulk_store.lower("Any", "Any", "Any")
def _lower_bulk_store(lower, sig, args):
    require(lower, "intrin.cp_async_bulk_store", HOPPER, BULK_PTX)
    addresses = [first_element_address(lower, t, a) for t, a in zip(sig.args[:2], args[:2])]
    statement(_BULK_STORE, [*addresses, as_i32(lower, sig.args[2], args[2])], ["l", "l", "r"])


@prefetch_tensormap.lower("Any")
def _lower_prefetch(lower, sig, args):
    require(lower, "intrin.prefetch_tensormap", HOPPER, BULK_PTX)
    statement("prefetch.tensormap [$0];", [_address(args[0])], ["l"])


@cp_async_bulk_commit_group.lower
def _lower_commit(lower, sig, args):
    require(lower, "intrin.cp_async_bulk_commit_group", HOPPER, BULK_PTX)
    statement("cp.async.bulk.commit_group;")


@cp_async_bulk_wait_group.lower("Any")
def _lower_wait(lower, sig, args):
    require(lower, "intrin.cp_async_bulk_wait_group", HOPPER, BULK_PTX)
    statement(f"cp.async.bulk.wait_group {sig.args[0].literal_value};")


@cp_async_bulk_wait_group_read.lower("Any")
def _lower_wait_read(lower, sig, args):
    require(lower, "intrin.cp_async_bulk_wait_group_read", HOPPER, BULK_PTX)
    statement(f"cp.async.bulk.wait_group.read {sig.args[0].literal_value};")


@fence_proxy_async_shared.lower
def _lower_fence(lower, sig, args):
    require(lower, "intrin.fence_proxy_async_shared", HOPPER, BULK_PTX)
    statement("fence.proxy.async.shared::cta;")
