"""Ampere's asynchronous copies, global -> shared (sm_80): ``cp_async(dst, src, nbytes)``
starts copying *nbytes* (the literal 4, 8 or 16) from the first element of the global array
*src* to the first element of the shared array *dst*, both aligned to *nbytes*;
``cp_async_commit_group()`` closes the group of the copies started since the last one;
``cp_async_wait_group(n)`` waits until at most *n* (a literal) groups are still in flight,
``cp_async_wait_all()`` until none is. Numba-CUDA and numba-cuda-mlir have no names for them:
these are PTX's (docs/hopper.md)."""

from .. import Stub
from .._support.modules import errors, templates, types
from .._support.ptx_asm import check_number_array, first_element_address, require, statement

_SIZES = (4, 8, 16)

cp_async = Stub(
    "cp_async",
    "cp_async(dst, src, nbytes): start copying nbytes (4, 8 or 16) from the global array src to the shared "
    "array dst, from their first elements (sm_80).",
)
cp_async_commit_group = Stub(
    "cp_async_commit_group", "cp_async_commit_group(): close the group of cp_async copies started since the last one."
)
cp_async_wait_group = Stub(
    "cp_async_wait_group", "cp_async_wait_group(n): wait until at most n (a literal) groups of copies are in flight."
)
cp_async_wait_all = Stub("cp_async_wait_all", "cp_async_wait_all(): wait until every cp_async copy has completed.")


@cp_async.typer
def _copy_typer(dst, src, nbytes):
    check_number_array("intrin.cp_async(dst, src, nbytes): dst (a cuda.shared.array)", dst)
    check_number_array("intrin.cp_async(dst, src, nbytes): src (an array in global memory)", src)
    if not isinstance(nbytes, types.IntegerLiteral) or nbytes.literal_value not in _SIZES:
        raise errors.TypingError(
            f"intrin.cp_async(dst, src, nbytes): nbytes must be the literal 4, 8 or 16, got {nbytes}"
        )
    return templates.signature(types.none, dst, src, nbytes)


# the shared and global addresses cp.async takes, from the generic addresses of the arrays
_COPY = """{{
\t.reg .u64 dst, src;
\tcvta.to.shared.u64 dst, $0;
\tcvta.to.global.u64 src, $1;
\tcp.async.{cache}.shared.global [dst], [src], {size};
\t}}"""


@cp_async.lower("Any", "Any", "Any")
def _copy(lower, sig, args):
    require(lower, "intrin.cp_async", (8, 0), 70)
    dst_type, src_type, size_type = sig.args
    size = size_type.literal_value
    # 16-byte copies may bypass L1 (.cg), as CUDA's memcpy_async does; smaller ones cannot
    ptx = _COPY.format(cache="cg" if size == 16 else "ca", size=size)
    addresses = [first_element_address(lower, dst_type, args[0]), first_element_address(lower, src_type, args[1])]
    statement(ptx, addresses, ["l", "l"])


@cp_async_commit_group.cases
@cp_async_wait_all.cases
def _nullary_cases():
    return [templates.signature(types.none)]


@cp_async_commit_group.lower
def _commit(lower, sig, args):
    require(lower, "intrin.cp_async_commit_group", (8, 0), 70)
    statement("cp.async.commit_group;")


@cp_async_wait_all.lower
def _wait_all(lower, sig, args):
    require(lower, "intrin.cp_async_wait_all", (8, 0), 70)
    statement("cp.async.wait_all;")


@cp_async_wait_group.typer
def _wait_group_typer(n):
    if not isinstance(n, types.IntegerLiteral) or not 0 <= n.literal_value <= 7:
        raise errors.TypingError(f"intrin.cp_async_wait_group(n): n must be a literal from 0 to 7, got {n}")
    return templates.signature(types.none, n)


@cp_async_wait_group.lower("Any")
def _wait_group(lower, sig, args):
    require(lower, "intrin.cp_async_wait_group", (8, 0), 70)
    statement(f"cp.async.wait_group {sig.args[0].literal_value};")
