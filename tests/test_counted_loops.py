"""Counted loops with a runtime step (codegen/passes/counted_loops.py) are unrolled with their
loads in one block (eight copies of a loop that only reads, four of one that writes), on both
code generators; other loops are left as they were, and
the marking survives line tables. The results are checked on the GPU
(test_gpu_counted_loops.py)."""

import re

import pytest

from cumlir import cuda

from . import support
from .cases.loop_kernels import (
    branchy,
    constant_trips,
    grid_stride_copy,
    grid_stride_sum,
    row_scale,
    row_sums,
    shared_histogram,
)


def _most_loads_in_one_block(ptx):
    """The largest number of global loads in one basic block of *ptx*."""
    blocks = re.split(r"^\$L\w+:|^\s*@%p\d+ bra|^\s*bra(?:\.uni)? ", ptx, flags=re.M)
    return max(block.count("ld.global") for block in blocks)


def _has_eight_loads_in_flight(fn, sig, backend):
    ptx, _ = cuda.compile_ptx(fn, sig, cc=(9, 0), backend=backend)
    assert _most_loads_in_one_block(ptx) >= 8, "the loop was not unrolled with its loads together"
    support.ptxas(ptx, "sm_90")


@pytest.mark.parametrize(
    "sig",
    ["void(int64[::1], int64[::1])", "void(float32[:], float64[::1])"],
    ids=["grid-stride int64", "grid-stride float32 any layout"],
)
def test_a_reading_loop_with_a_runtime_step_has_eight_loads_in_flight(sig, backend):
    _has_eight_loads_in_flight(grid_stride_sum, sig, backend)


def test_a_reading_loop_stepping_by_the_block_size_has_eight_loads_in_flight():
    # libNVVM does not count a loop stepping by the block size (it unrolls it with an exit
    # test after each load): only the NVPTX back end is held to it
    _has_eight_loads_in_flight(row_sums, "void(float32[:, ::1], float64[:, ::1])", "nvptx")


@pytest.mark.parametrize("opt", [True, False])
def test_the_counter_and_the_back_edge_are_marked_in_llvm_ir(backend, opt):
    from numba.core import types

    from cumlir import compiler
    from cumlir.options import Options

    argtypes = (types.Array(types.int64, 1, "C"), types.Array(types.int64, 1, "C"))
    ir = compiler.emit(grid_stride_sum, argtypes, "llvm", (9, 0), Options(backend=backend, opt=opt))
    assert ("llvm.loop.unroll.count" in ir) is opt
    assert (re.search(r"= add nsw i64", ir) is not None) is opt
    assert "cumlir." not in ir.replace("cumlir_", "")  # no marker reaches LLVM


def test_a_loop_llvm_counts_itself_is_left_to_it(backend):
    ptx, _ = cuda.compile_ptx(constant_trips, "void(float64[::1], float64[::1])", cc=(9, 0), backend=backend)
    assert "fma.rn.f64" in ptx or "mul.f64" in ptx
    assert '.pragma "nounroll"' not in ptx and "bra" not in ptx.split("ld.global", 1)[1].split("st.global")[0]


def _llvm_ir(fn, argtypes, backend):
    from numba.core import types

    from cumlir import compiler
    from cumlir.options import Options

    argtypes = tuple(types.Array(getattr(types, dtype), ndim, "C") for dtype, ndim in argtypes)
    return compiler.emit(fn, argtypes, "llvm", (9, 0), Options(backend=backend))


def test_a_grid_stride_loop_that_stores_each_trip_is_left_alone(backend):
    # its copies could not issue their loads together (a store comes between), and the
    # count would cost each thread, which runs few trips, a division: as unmarked
    ir = _llvm_ir(grid_stride_copy, [("int64", 1)] * 2, backend)
    assert "llvm.loop.unroll.count" not in ir and not re.search(r"= add nsw i64", ir)
    ptx, _ = cuda.compile_ptx(grid_stride_copy, "void(int64[::1], int64[::1])", cc=(9, 0), backend=backend)
    assert "div." not in ptx and _most_loads_in_one_block(ptx) == 1
    support.ptxas(ptx, "sm_90")


def test_a_loop_stepping_by_the_block_size_is_unrolled_though_it_stores(backend):
    # a block's threads share a row: many trips each, where the count's division pays
    assert "llvm.loop.unroll.count" in _llvm_ir(row_scale, [("float32", 2)] * 2, backend)
    ptx, _ = cuda.compile_ptx(row_scale, "void(float32[:, ::1], float32[:, ::1])", cc=(9, 0), backend=backend)
    assert ptx.count("st.global") >= 4
    support.ptxas(ptx, "sm_90")


def test_a_loop_writing_only_shared_memory_is_unrolled(backend):
    # the bins' address is followed back through the descriptor the loop carries to the
    # shared array: LLVM can issue the next trips' loads ahead of the atomics
    assert "llvm.loop.unroll.count" in _llvm_ir(shared_histogram, [("uint8", 1), ("int32", 1)], backend)
    ptx, _ = cuda.compile_ptx(shared_histogram, "void(uint8[::1], int32[::1])", cc=(9, 0), backend=backend)
    assert _most_loads_in_one_block(ptx) >= 4
    support.ptxas(ptx, "sm_90")


def _far_stepping(indent):
    """A loop whose step is blockDim doubled 40 times, computed at *indent* (before the
    loop, or inside it): 2**40 paths lead back from the step to blockDim."""
    doublings = [f"{indent}step = cuda.blockDim.x"] + [f"{indent}step = step + step"] * 40
    before, inside = (doublings, []) if indent == "    " else ([], doublings)
    lines = [
        "def far_stepping(out):",
        *before,
        "    i = cuda.threadIdx.x",
        "    while i < out.shape[0]:",
        "        out[i] = 1",
        *inside,
        "        i += step",
    ]
    namespace = {"cuda": cuda}
    exec(compile("\n".join(lines) + "\n", "<far_stepping>", "exec"), namespace)
    return namespace["far_stepping"]


@pytest.mark.parametrize("indent", ["    ", "        "], ids=["step before the loop", "step inside the loop"])
def test_a_step_reached_by_many_paths_is_searched_once(indent):
    # the searches for the grid's size and for values fixed in the loop look at each value once
    ptx, _ = cuda.compile_ptx(_far_stepping(indent), "void(int64[::1])", cc=(9, 0))
    support.ptxas(ptx, "sm_90")


def test_a_loop_of_several_blocks_compiles_unchanged(backend):
    ptx, _ = cuda.compile_ptx(branchy, "void(int64[::1], int64[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")


def test_marked_loops_keep_their_line_tables(backend):
    ptx, _ = cuda.compile_ptx(
        grid_stride_sum, "void(int64[::1], int64[::1])", cc=(9, 0), backend=backend, lineinfo=True
    )
    assert _most_loads_in_one_block(ptx) >= 4
    assert re.search(r"^\s*\.loc\s+\d+ \d+ \d+", ptx, flags=re.M), "no line table entries"
    support.ptxas(ptx, "sm_90")
