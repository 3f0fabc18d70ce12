"""Loops over a range of constant length (codegen/passes/constant_trip_loops.py): the pass
on a hand-checked module (MLIR in, MLIR out), the unrolled loops in the PTX of both code
generators, and their results on the host (tests/nrt_harness.py)."""

import math
import re
from pathlib import Path

import numpy as np
import pytest
from mlir import ir
from numba import typeof

from cumlir import cuda
from cumlir.codegen.passes import constant_trip_loops
from cumlir.codegen.passes.pipeline import gpu_module_of

from . import support

MATH_LOOP = (Path(__file__).parent / "mlir" / "constant_trip_loop.mlir").read_text()
LATCH = "llvm.br ^bb2(%67"  # the loop's back edge
TRIPS_STORED = "llvm.store %0, %45 : i64, !llvm.ptr"  # 8, into the slot of the trips left


def _marked(text):
    """The back edge of *text*'s loop after the pass, and the number of loops it marked."""
    with ir.Context():
        module = ir.Module.parse(text)
        marked = constant_trip_loops.mark(gpu_module_of(module))
        latch = next(line for line in str(module).splitlines() if LATCH in line)
        return latch, marked


def test_a_large_body_is_unrolled_twice():
    latch, marked = _marked(MATH_LOOP)
    assert marked == 1 and "loop_annotation" in latch
    assert "loop_unroll<count = 2 : i32>" in _marked_attributes(MATH_LOOP)


def _marked_attributes(text):
    with ir.Context():
        module = ir.Module.parse(text)
        constant_trip_loops.mark(gpu_module_of(module))
        return str(module)


def test_a_small_body_is_unrolled_fully():
    # the calls taken out: the body is a few operations, eight copies stay small
    small = re.sub(r"llvm\.call @__nv_\w+\((%\d+)\) : \(f64\) -> f64", r"llvm.fneg \1 : f64", MATH_LOOP)
    assert "loop_unroll<full = true>" in _marked_attributes(small)


def test_a_count_not_known_is_left_alone():
    latch, marked = _marked(MATH_LOOP.replace(TRIPS_STORED, "llvm.store %arg2, %45 : i64, !llvm.ptr"))
    assert marked == 0 and "loop_annotation" not in latch


def test_a_state_passed_elsewhere_is_left_alone():
    # a callee could change the trips left
    escaping = MATH_LOOP.replace(
        "llvm.func @__nv_fabs(f64) -> f64", "llvm.func @__nv_fabs(f64) -> f64\n    llvm.func @touch(!llvm.ptr)"
    ).replace(TRIPS_STORED, f"{TRIPS_STORED}\n      llvm.call @touch(%8) : (!llvm.ptr) -> ()")
    latch, marked = _marked(escaping)
    assert marked == 0 and "loop_annotation" not in latch


def test_a_second_write_of_the_count_is_left_alone():
    rewritten = MATH_LOOP.replace(
        "%73 = llvm.sitofp", "llvm.store %5, %45 : i64, !llvm.ptr\n      %73 = llvm.sitofp"
    ).replace("%45 = llvm.getelementptr", "%45 = llvm.getelementptr", 1)
    # %45 is defined in ^bb1, which dominates the loop: the body writes the trips left
    latch, marked = _marked(rewritten)
    assert marked == 0 and "loop_annotation" not in latch


def tile_product(a, b, out):
    acc = np.float32(0)
    for k in range(32):
        acc += a[k] * b[k]
    out[0] = acc


def sines(x, out):
    acc = 0.0
    for k in range(8):
        acc += math.sin(x[0] * k) * math.exp(-x[0]) + math.sqrt(abs(x[0]) + k)
    out[0] = acc


def sum_to(x, out):
    acc = 0.0
    for k in range(x.shape[0]):
        acc += x[k]
    out[0] = acc


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_the_tile_loop_of_matmul_is_unrolled_fully(backend, cc):
    # nvcc's shape: 32 FMAs, the shared loads at constant offsets, no inner loop
    from benchmarks.kernels import matmul

    ptx, _ = cuda.compile_ptx(matmul.matmul, matmul.KERNELS[0][1], cc=cc, backend=backend)
    assert len(re.findall(r"\bfma\.rn\.f32", ptx)) == 32
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_the_loop_of_sines_of_math_loop_is_unrolled_twice(backend, cc):
    # two independent sines a trip (two square roots), as nvcc's; not eight copies of sin
    from benchmarks.kernels import math_loop

    ptx, _ = cuda.compile_ptx(math_loop.math_loop, math_loop.KERNELS[0][1], cc=cc, backend=backend)
    assert ptx.count("sqrt.rn.f64") == 2
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}")


def test_the_unroll_request_reaches_llvm_ir(backend):
    from numba.core import types

    from cumlir import compiler
    from cumlir.options import Options

    vector = types.Array(types.float32, 1, "C")
    ir_text = compiler.emit(tile_product, (vector,) * 3, "llvm", (9, 0), Options(backend=backend))
    assert "llvm.loop.unroll.full" in ir_text
    counted = compiler.emit(sum_to, (vector, vector), "llvm", (9, 0), Options(backend=backend))
    assert "llvm.loop.unroll" not in counted  # a length known at run time: LLVM's own choice


@pytest.mark.parametrize(
    "fn, dtype, expected",
    [
        (tile_product, np.float32, lambda a, b: np.float32(np.dot(a[:32].astype(np.float64), b[:32]))),
        (
            sines,
            np.float64,
            lambda x, _: sum(math.sin(x[0] * k) * math.exp(-x[0]) + math.sqrt(abs(x[0]) + k) for k in range(8)),
        ),
    ],
    ids=["32 products", "8 sines"],
)
def test_unrolled_loops_compute_what_rolled_ones_do(fn, dtype, expected):
    from . import nrt_harness

    rng = np.random.default_rng(7)
    a, b, out = rng.standard_normal(32).astype(dtype), rng.standard_normal(32).astype(dtype), np.zeros(1, dtype)
    if fn is sines:
        nrt_harness.Kernel(fn, (typeof(a), typeof(out)))(a, out).check_balanced()
    else:
        nrt_harness.Kernel(fn, (typeof(a), typeof(b), typeof(out)))(a, b, out).check_balanced()
    assert out[0] == pytest.approx(expected(a, b), rel=1e-5)
