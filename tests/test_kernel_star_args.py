"""Kernels declaring ``*args``: the launch's arguments past the named parameters are one
tuple in the kernel (numba's StarArgTuple), of any length and of mixed types; a kernel is
compiled per tuple of the launch's flat argument types (typing/star_parameters.py)."""

import pickle

import numpy as np
import pytest
from numba import literal_unroll
from numba.core import types

from cumlir import cuda

from .support import checked_ptx

POISON = -7777.0


@cuda.jit
def counted(out, *args):
    out[0] = len(args)


@cuda.jit
def only_star(*args):
    args[0][0] = len(args)


@cuda.jit
def indexed(out, *args):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = args[0][i] * args[1] + args[2][i] - args[3]


@cuda.jit
def unrolled(out, *args):
    # members of several types: each unrolled iteration is typed for its own
    i = cuda.grid(1)
    if i < out.size:
        total = 0.0
        k = 1.0
        for a in literal_unroll(args):
            total += k * _value_at(a, i)
            k += 1.0
        out[i] = total


@cuda.jit(device=True)
def _value_at(a, i):
    return a


@cuda.jit(device=True)
def _array_value_at(a, i):
    return a[i]


@cuda.jit(device=True)
def combined(x, y, scale):
    return x * scale + y


@cuda.jit(device=True)
def star_total(*values):
    s = 0.0
    for v in literal_unroll(values):
        s += v
    return s


@cuda.jit
def passed_on(out, x, *args):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = combined(x[i], *args) + star_total(*args, x[i])


@cuda.jit
def nested_tuple(out, *args):
    out[0] = args[0][0] * args[0][1][1] + args[1][2]


def _arrays(rng, n, count):
    return [rng.uniform(-3, 3, n) for _ in range(count)]


def test_len_of_the_bundle_for_each_count(simulator_or_gpu, rng):
    for count in (0, 1, 2, 5):
        out = np.full(1, POISON)
        counted[1, 1](out, *_arrays(rng, 3, count))
        assert out[0] == count
    assert len(counted.overloads) == 4  # one kernel per tuple of launch types


def test_a_kernel_of_star_args_only(simulator_or_gpu):
    for count in (1, 3):
        first = np.full(1, POISON, np.float32)
        only_star[1, 1](first, *[np.zeros(1, np.int64)] * (count - 1))
        assert first[0] == count


def test_members_indexed_arrays_and_scalars_mixed(simulator_or_gpu, rng):
    n = 50
    x, y = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n).astype(np.float32)
    scale, shift = float(rng.uniform(1, 2)), np.int32(rng.integers(-9, 9))
    out = np.full(n, POISON)
    indexed[2, 32](out, x, scale, y, shift)
    np.testing.assert_allclose(out, x * scale + y.astype(np.float64) - shift, rtol=1e-6)


def test_literal_unroll_over_members_of_several_types(simulator_or_gpu, rng):
    n = 40
    a, b, c = float(rng.uniform(-1, 1)), int(rng.integers(-50, 50)), np.float32(rng.uniform(-1, 1))
    out = np.full(n, POISON)
    unrolled[2, 32](out, a, b, c, True)
    np.testing.assert_allclose(out, np.full(n, 1 * a + 2 * b + 3 * float(c) + 4 * 1.0), rtol=1e-6)


def test_the_bundle_passed_on_to_device_functions(simulator_or_gpu, rng):
    n = 40
    x = rng.uniform(-2, 2, n)
    y, scale = float(rng.uniform(-1, 1)), float(rng.uniform(1, 3))
    out = np.full(n, POISON)
    passed_on[2, 32](out, x, y, scale)
    np.testing.assert_allclose(out, x * scale + y + (y + scale + x), rtol=1e-12)


def test_tuples_among_the_members(simulator_or_gpu, rng):
    x = rng.uniform(-2, 2, 4)
    out = np.full(1, POISON)
    nested_tuple[1, 1](out, (2.5, (7, -1.5)), x)
    assert out[0] == 2.5 * -1.5 + x[2]


def test_forall(simulator_or_gpu, rng):
    n = 70
    x, y = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
    out = np.full(n, POISON)
    indexed.forall(n)(out, x, 2.0, y, 1)
    np.testing.assert_allclose(out, x * 2.0 + y - 1, rtol=1e-12)


def test_too_few_arguments_is_a_type_error(simulator_or_gpu):
    with pytest.raises(TypeError, match=r"kernel passed_on takes at least 2 arguments but 1 were given"):
        passed_on[1, 1](np.zeros(1))


# ---- signatures ------------------------------------------------------------------------------


def _eager(sig):
    return cuda.jit(sig)(indexed.py_func)


def test_an_eager_signature_lists_the_launch_arguments(simulator_or_gpu, rng):
    kernel = _eager("void(float64[:], float64[:], float64, float64[:], int32)")
    x, y = rng.uniform(-2, 2, 8), rng.uniform(-2, 2, 8)
    out = np.full(8, POISON)
    kernel[1, 8](out, x, 3.0, y, np.int32(2))
    np.testing.assert_allclose(out, x * 3.0 + y - 2, rtol=1e-12)
    with pytest.raises(TypeError, match="no compiled signature accepts the arguments"):
        kernel[1, 8](out, x, 3.0, y)


def test_an_eager_signature_may_give_the_bundle_as_a_star_arg_tuple(simulator_or_gpu, rng):
    f64 = types.float64
    bundle = types.StarArgTuple.from_types((f64[:], f64, f64[:], types.int32))
    kernel = _eager([(f64[:], bundle)])
    (argtypes,) = kernel.overloads
    assert argtypes == (f64[:], f64[:], f64, f64[:], types.int32)  # the launch's types
    x, y = rng.uniform(-2, 2, 8), rng.uniform(-2, 2, 8)
    out = np.full(8, POISON)
    kernel[1, 8](out, x, 0.5, y, np.int32(-1))
    np.testing.assert_allclose(out, x * 0.5 + y + 1, rtol=1e-12)


def test_a_tuple_type_in_a_signature_is_one_member():
    # the signature lists the launch's arguments: a Tuple is one argument, args[0] a tuple
    def first_is_pair(out, *args):
        out[0] = len(args) * 10 + len(args[0])

    ptx = cuda.compile_ptx(first_is_pair, "void(int64[:], UniTuple(float64[:], 2))", cc=(9, 0))[0]
    assert "], 12;" in ptx  # 1 * 10 + 2, folded


@pytest.mark.parametrize("sig", ["void(float64[:], float64[:], float64, float64[:], int32)", "void(float64[:])"])
def test_the_code_assembles(sig, backend):
    kernel = indexed if "int32" in sig else counted
    checked_ptx(kernel, sig, backend, (9, 0))


def test_the_parameters_are_those_of_the_flat_arguments():
    flat = cuda.compile_ptx(counted, "void(float64[:], float32[:], int64)", cc=(9, 0))[0]

    def named(out, a, n):
        out[0] = 2

    expected = cuda.compile_ptx(named, "void(float64[:], float32[:], int64)", cc=(9, 0))[0]

    def params(ptx):
        return [line.strip().rstrip(",") for line in ptx.splitlines() if line.strip().startswith(".param")]

    assert params(flat) == [line.replace("named", "counted") for line in params(expected)]
    assert len(params(flat)) == 4 + 4 + 1


# ---- pickling -------------------------------------------------------------------------------


def test_pickled_with_its_signatures(simulator_or_gpu, rng):
    kernel = _eager("void(float64[:], float64[:], float64, float64[:], int64)")
    again = pickle.loads(pickle.dumps(kernel))
    assert list(again.overloads) == list(kernel.overloads)
    x, y = rng.uniform(-2, 2, 8), rng.uniform(-2, 2, 8)
    out = np.full(8, POISON)
    again[1, 8](out, x, -1.0, y, 4)
    np.testing.assert_allclose(out, -x + y - 4, rtol=1e-12)
