"""Ampere's asynchronous copies (operations/cuda/cp_async.py, cuda.intrin.cp_async and its groups,
docs/hopper.md) on the CPU: the PTX each gives on both code generators, checked by ptxas for
sm_80 and sm_90: the cache operator each size takes, the shared and global addresses of the
arrays' first elements, whatever their element type, reads of the copied data kept after the
wait; the chip each needs; bad arguments as typing errors. What the copies bring on an H200 is
test_cp_async_gpu.py's."""

import pickle
import re

import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.cuda import intrin

from ... import support
from ...cases import hopper_kernels as hk


def _instructions(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _kernel(body, params="src, out"):
    namespace = {"cuda": cuda, "intrin": intrin, "np": np}
    exec(f"def kernel({params}):\n    " + "\n    ".join(body.splitlines()) + "\n", namespace)
    return namespace["kernel"]


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=lambda cc: f"sm{cc[0]}{cc[1]}")
def test_async_copies(backend, cc):
    ptx, _ = cuda.compile_ptx(hk.async_copies, "void(float32[:], float32[:])", cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")
    assert _instructions(ptx, r"^cp\.async") == [
        "cp.async.cg.shared.global [dst], [src], 16;",
        "cp.async.commit_group;",
        "cp.async.ca.shared.global [dst], [src], 8;",
        "cp.async.ca.shared.global [dst], [src], 4;",
        "cp.async.commit_group;",
        "cp.async.wait_group 1;",
        "cp.async.wait_all;",
    ]
    # shared and global addresses, from the arrays' generic ones
    assert len(_instructions(ptx, r"^cvta\.to\.shared\.u64 dst")) == 3


# (element type, bytes copied, the cache operator): every copy holds at least one element
COPIES = [
    (dtype, nbytes, "cg" if nbytes == 16 else "ca")
    for dtype in ("int8", "float16", "uint32", "float64")
    for nbytes in (4, 8, 16)
    if np.dtype(dtype).itemsize <= nbytes
]


@pytest.mark.parametrize("dtype, nbytes, cache", COPIES)
def test_the_bytes_copied_are_nbytes_whatever_the_element_type(backend, dtype, nbytes, cache):
    body = f"sm = cuda.shared.array(64, np.{dtype})\nintrin.cp_async(sm, src, {nbytes})\nintrin.cp_async_wait_all()"
    body += "\nout[0] = sm[1]"
    ptx, _ = cuda.compile_ptx(_kernel(body), f"void({dtype}[::1], {dtype}[::1])", cc=(8, 0), backend=backend)
    support.ptxas(ptx, "sm_80")
    # only 16-byte copies may bypass L1
    assert _instructions(ptx, r"^cp\.async\.\w+\.shared") == [f"cp.async.{cache}.shared.global [dst], [src], {nbytes};"]


def _into_a_view(src, out):
    sm = cuda.shared.array(16, np.float32)
    intrin.cp_async(sm[3:], src[5:], 4)
    intrin.cp_async_wait_all()
    out[0] = sm[3]


def test_a_copy_starts_at_the_first_element_of_each_view(backend):
    ptx, _ = cuda.compile_ptx(_into_a_view, "void(float32[::1], float32[::1])", cc=(8, 0), backend=backend)
    support.ptxas(ptx, "sm_80")
    (dst,) = re.findall(r"cvta\.to\.shared\.u64 dst, (%rd\d+);", ptx)
    (src,) = re.findall(r"cvta\.to\.global\.u64 src, (%rd\d+);", ptx)
    # sm[3:] starts 12 bytes into the shared array, src[5:] 5 elements into the argument's
    assert re.search(rf"add\.s64\s+{dst}, %rd\d+, 12;", ptx)
    assert src != dst and re.search(r"min\.s64\s+%rd\d+, %rd\d+, 5;", ptx)


def test_the_copied_data_is_read_after_the_wait(backend):
    ptx, _ = cuda.compile_ptx(_into_a_view, "void(float32[::1], float32[::1])", cc=(8, 0), backend=backend)
    lines = [line.strip() for line in ptx.splitlines()]
    copy = next(k for k, line in enumerate(lines) if line.startswith("cp.async.ca.shared"))
    wait = lines.index("cp.async.wait_all;")
    read = next(k for k, line in enumerate(lines) if line.startswith("ld.shared"))
    # the load of the shared element is not hoisted above the wait that makes it valid
    assert copy < wait < read


@pytest.mark.parametrize("n", [0, 3, 7])
def test_wait_group_takes_a_literal_from_0_to_7(backend, n):
    kernel = _kernel(f"intrin.cp_async_commit_group()\nintrin.cp_async_wait_group({n})\nout[0] = 1")
    ptx, _ = cuda.compile_ptx(kernel, "void(float32[:], int32[:])", cc=(8, 0), backend=backend)
    support.ptxas(ptx, "sm_80")
    assert _instructions(ptx, r"^cp\.async") == ["cp.async.commit_group;", f"cp.async.wait_group {n};"]


def test_every_call_is_a_statement_returning_none():
    for call in ("cp_async_commit_group()", "cp_async_wait_group(2)", "cp_async_wait_all()"):
        _, restype = cuda.compile_ptx(_kernel(f"return intrin.{call}", params=""), (), device=True, cc=(8, 0))
        assert restype == types.none, call


def test_an_intrinsic_on_an_older_chip_is_a_clear_error(backend):
    with pytest.raises(ValueError, match=r"intrin\.cp_async needs sm_80 or newer; .* compiled for sm_75"):
        cuda.compile_ptx(hk.async_copies, "void(float32[:], float32[:])", cc=(7, 5), backend=backend)


@pytest.mark.parametrize("name, call", [
    ("cp_async_commit_group", "cp_async_commit_group()"),
    ("cp_async_wait_group", "cp_async_wait_group(0)"),
    ("cp_async_wait_all", "cp_async_wait_all()"),
])  # fmt: skip
def test_the_groups_need_sm_80(backend, name, call):
    with pytest.raises(ValueError, match=rf"intrin\.{name} needs sm_80 or newer; .* compiled for sm_75"):
        cuda.compile_ptx(_kernel(f"intrin.{call}"), "void(float32[:], float32[:])", cc=(7, 5), backend=backend)


def _bad(body, signature="void(float32[:], int64[:])"):
    return support.compiling(body, signature, intrin=intrin)


@pytest.mark.parametrize(
    "body, message",
    [
        ("intrin.cp_async(a, a, 3)", r"nbytes must be the literal 4, 8 or 16"),
        ("intrin.cp_async(a, a, b[0])", r"nbytes must be the literal 4, 8 or 16"),
        ("intrin.cp_async(a[0], a, 4)", r"dst \(a cuda.shared.array\) must be an array of numbers"),
        ("intrin.cp_async_wait_group(8)", r"n must be a literal from 0 to 7"),
        ("intrin.cp_async(a, a, 32)", r"nbytes must be the literal 4, 8 or 16, got Literal\[int\]\(32\)"),
        ("intrin.cp_async(a, a, 4.0)", r"nbytes must be the literal 4, 8 or 16, got float64"),
        ("intrin.cp_async(a, b[0], 8)", r"src \(an array in global memory\) must be an array of numbers"),
        ("intrin.cp_async(a, a)", r"missing a required argument: 'nbytes'"),
        ("intrin.cp_async_wait_group(-1)", r"n must be a literal from 0 to 7"),
        ("intrin.cp_async_wait_group(b[0])", r"n must be a literal from 0 to 7, got int64"),
        ("intrin.cp_async_wait_all(1)", r"cp_async_wait_all"),
    ],
)
def test_bad_arguments(body, message):
    with pytest.raises(TypingError, match=message):
        _bad(body)()


def test_the_stubs_refuse_the_host_and_pickle_by_name():
    for stub in (intrin.cp_async, intrin.cp_async_commit_group, intrin.cp_async_wait_group, intrin.cp_async_wait_all):
        with pytest.raises(RuntimeError, match=rf"cuda\.{stub.__name__} can only be used inside"):
            stub()
        assert pickle.loads(pickle.dumps(stub)) is stub
