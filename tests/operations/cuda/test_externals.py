"""External device functions (operations/cuda/externals.py: what cuda.declare_device returns,
called by their C name with Numba's ABI) on the CPU: the generated code run on the host
(tests/nrt_harness.py) against C stand-ins bound to the functions' names, which check the
arguments each call passes (converted to the declared signature) and give results back through
the result slot; the PTX of the calls on both code generators, assembled by ptxas; the link
items a kernel records; names, cache keys, pickling and the errors of bad calls."""

import ctypes
import pickle
import re

import numpy as np
import pytest
from numba import typeof
from numba.core import types
from numba.core.errors import TypingError, UnsupportedError
from numba.core.typing.templates import signature

from cumlir import compiler, cuda
from cumlir.linkable import PTXSource
from cumlir.operations.cuda.externals import ExternalFunction

from ... import nrt_harness, support

# ---- calls run on the host ----------------------------------------------------------------

affine = cuda.declare_device("cumlir_test_affine", "float64(float64, int32, float32)")
store = cuda.declare_device("cumlir_test_store", "void(CPointer(int64), int64)")
odd = cuda.declare_device("cumlir_test_odd", "boolean(int64, boolean)")


def affine_calls(out, a, k, b):
    for i in range(out.size):
        out[i] = affine(a[i], k[i], b[i])


def affine_converted(out, a, n):
    # n is int64 and a float64: converted to the declared int32 and float32
    for i in range(out.size):
        out[i] = affine(a[i], n[i], a[i])


def stores(p, n):
    store(p, n)
    store(p, n + 1)  # a second call: the first one's store is not the last word


def odd_calls(out, x, flip):
    for i in range(x.size):
        out[i] = odd(x[i], flip[i])


class Recorder:
    """A C stand-in of an external function: each call's arguments and result slot kept, a
    non-zero status returned (the caller must ignore it). An exception raised in a ctypes
    callback is only printed, so what it saw is checked afterwards (check)."""

    def __init__(self, restype, argtypes, compute):
        self.calls, self.slots = [], []

        def called(result, *args):
            self.calls.append(args)
            self.slots.append(result)
            value = compute(*args)
            if restype is not None:
                ctypes.cast(result, ctypes.POINTER(restype))[0] = value
            return 7

        self.callback = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, *argtypes)(called)

    def check(self, expected_calls):
        assert self.calls == expected_calls
        assert all(self.slots), "a null result slot"


def test_arguments_reach_the_function_and_its_result_comes_back(rng):
    recorder = Recorder(ctypes.c_double, (ctypes.c_double, ctypes.c_int32, ctypes.c_float), lambda a, k, b: a * k + b)
    n = 50
    a = support.random_values("float64", n, rng)
    k = support.random_values("int32", n, rng)
    b = support.random_values("float32", n, rng)
    out = support.poisoned(n, np.float64)
    kernel = nrt_harness.Kernel(
        affine_calls, tuple(typeof(v) for v in (out, a, k, b)), [(affine.name, recorder.callback)]
    )
    kernel(out, a, k, b)
    recorder.check([(float(x), int(y), float(z)) for x, y, z in zip(a, k, b)])
    np.testing.assert_array_equal(out, [float(x) * int(y) + float(z) for x, y, z in zip(a, k, b)])


def test_arguments_are_converted_to_the_declared_types(rng):
    recorder = Recorder(ctypes.c_double, (ctypes.c_double, ctypes.c_int32, ctypes.c_float), lambda a, k, b: a - k * b)
    size = 40
    a = support.random_values("float64", size, rng)
    n = np.concatenate([support.boundary_values("int64"), support.random_values("int64", size, rng)])[:size]
    out = support.poisoned(size, np.float64)
    argtypes = tuple(typeof(v) for v in (out, a, n))
    nrt_harness.Kernel(affine_converted, argtypes, [(affine.name, recorder.callback)])(out, a, n)
    # as numba converts: int64 to int32 keeps the low 32 bits, float64 to float32 rounds
    expected = [(float(x), int(y), float(np.float32(x))) for x, y in zip(a, n.astype(np.int32))]
    recorder.check(expected)
    np.testing.assert_array_equal(out, [x - k * b for x, k, b in expected])


def test_a_void_function_is_called_for_its_effect():
    def write(p, n):
        ctypes.c_int64.from_address(p).value = n

    recorder = Recorder(None, (ctypes.c_void_p, ctypes.c_int64), write)
    buffer = np.zeros(1, np.int64)
    argtypes = (types.CPointer(types.int64), types.int64)
    nrt_harness.Kernel(stores, argtypes, [(store.name, recorder.callback)])(buffer.ctypes.data, 2**40 + 3)
    recorder.check([(buffer.ctypes.data, 2**40 + 3), (buffer.ctypes.data, 2**40 + 4)])
    assert buffer[0] == 2**40 + 4


def test_bool_arguments_and_results_travel_as_bytes(rng):
    recorder = Recorder(ctypes.c_uint8, (ctypes.c_int64, ctypes.c_uint8), lambda x, flip: (x % 2) ^ flip)
    x = support.random_values("int64", 64, rng)
    flip = rng.integers(0, 2, 64).astype(bool)
    kernel = nrt_harness.Kernel(odd_calls, (typeof(flip), typeof(x), typeof(flip)), [(odd.name, recorder.callback)])
    # a bool has no value a kernel cannot give: run on all True, then on all False
    for initial in (True, False):
        out = np.full(64, initial)
        kernel(out, x, flip)
        np.testing.assert_array_equal(out, (x % 2 == 1) ^ flip)
    recorder.check([(int(v), int(f)) for v, f in zip(x, flip)] * 2)


# ---- PTX ----------------------------------------------------------------------------------


def ptx_calls(a, p, n):
    store(p, n)
    a[0] = affine(a[0], 3, a[1])


@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_calls_in_ptx_follow_numbas_abi(cc, backend):
    sig = (types.float64[::1], types.CPointer(types.int64), types.int64)
    ptx, _ = cuda.compile_ptx(ptx_calls, sig, cc=cc, backend=backend)
    support.ptxas(ptx, f"sm_{cc[0]}{cc[1]}", relocatable=True)  # the functions are linked later
    # an int status returned; the result slot's address first, then the arguments as C passes them
    params = {
        affine.name: [".b64", ".b64", ".b32", ".b32"],  # slot, float64, int32, float32
        store.name: [".b64", ".b64", ".b64"],  # slot, pointer, int64
    }
    for name, widths in params.items():
        declared = re.search(rf"\.extern \.func\s+\(\.param \.b32 func_retval0\) {name}\s*\(([^)]*)\)", ptx)
        assert declared, f"no declaration of {name}"
        assert re.findall(r"\.param (\.b\d+)", declared.group(1)) == widths, declared.group(0)
        assert re.search(rf"call\.uni\s+\(retval0\),\s*{name},", ptx), f"no call of {name}"


# ---- link items ---------------------------------------------------------------------------

A_PTX = PTXSource("// a", name="a.ptx")
B_PTX = PTXSource("// b", name="b.ptx")
first = cuda.declare_device("cumlir_test_first", "int32(int32)", link=[A_PTX])
second = cuda.declare_device("cumlir_test_second", "int32(int32)", link=[B_PTX, A_PTX])


def calls_two(out, x):
    out[0] = second(first(x))
    out[1] = second(first(x + 1))


def test_a_kernel_records_the_link_items_of_the_functions_it_calls():
    c = compiler.kernel(calls_two, (types.int32[::1], types.int32), (9, 0), until="mlir")
    # in the order of the first calls, each once
    assert c.link == [A_PTX, B_PTX]


# ---- the declared function itself ---------------------------------------------------------

SIG = signature(types.float64, types.float64, types.int32)


@pytest.mark.parametrize("name", ["f", "_x1", "Name_With_Caps9"])
def test_c_identifiers_are_accepted(name):
    ExternalFunction.check_name(name)
    assert ExternalFunction(name, SIG, []).__name__ == name


@pytest.mark.parametrize("name", ["1f", "a-b", "a b", "", "f\n", "é", None, b"f"])
def test_other_names_are_refused(name):
    with pytest.raises(ValueError, match="is not a C identifier"):
        ExternalFunction(name, SIG, [])


def test_calling_it_on_the_host_is_an_error_naming_it():
    f = ExternalFunction("cumlir_test_host", SIG, [])
    with pytest.raises(RuntimeError, match="cumlir_test_host is an external device function"):
        f(1.0, 2)
    assert "cumlir_test_host" in repr(f) and "(float64, int32) -> float64" in repr(f)


def test_the_cache_key_follows_the_name_signature_and_link_contents():
    def key(name="f", sig=SIG, link=(A_PTX,)):
        return ExternalFunction(name, sig, link).cache_key()

    assert key() == key(link=[PTXSource("// a", name="a.ptx")])  # equal contents, equal keys
    others = [
        key(name="g"),
        key(sig=signature(types.float64, types.float64, types.int64)),
        key(sig=signature(types.float32, types.float64, types.int32)),
        key(link=[PTXSource("// changed", name="a.ptx")]),
        key(link=[PTXSource("// a", name="renamed.ptx")]),
        key(link=[]),
    ]
    assert len({key(), *others}) == len(others) + 1


def test_it_pickles_by_its_declaration_and_the_copy_compiles():
    copy = pickle.loads(pickle.dumps(affine))
    assert (copy.name, copy.signature, copy.link) == (affine.name, affine.signature, affine.link)
    assert copy.cache_key() == affine.cache_key()

    def uses_copy(out, a, k, b):
        out[0] = copy(a[0], k[0], b[0])

    ptx, _ = cuda.compile_ptx(uses_copy, "void(float64[:], float64[:], int32[:], float32[:])", cc=(9, 0))
    assert "call.uni (retval0)" in ptx and affine.name in ptx


def test_its_numba_type_has_the_one_declared_signature():
    f = ExternalFunction("cumlir_test_typed", SIG, [])
    fnty = f._numba_type_
    assert fnty is f._numba_type_  # made once
    assert isinstance(fnty, types.Function) and fnty.templates[0].cases == [SIG]
    assert cuda.compile_ptx(lambda x: f(x, 2), (types.float32,), device=True, cc=(9, 0))[1] == types.float64


# ---- bad calls ----------------------------------------------------------------------------

takes_array = cuda.declare_device("cumlir_test_takes_array", "int32(float32[:])")


def passes_an_array(a):
    a[0] = takes_array(a)


def too_few(a):
    a[0] = affine(a[0], 1)


def an_array_for_a_number(a):
    a[0] = affine(a, 1, a[0])


def test_arrays_cannot_be_passed_to_external_functions():
    with pytest.raises(
        UnsupportedError, match=r"arrays \(array\(float32, 1d, A\)\) cannot be passed .*; pass a pointer"
    ):
        cuda.compile_ptx(passes_an_array, "void(float32[:])", cc=(9, 0))


@pytest.mark.parametrize("kernel", [too_few, an_array_for_a_number])
def test_calls_not_matching_the_signature_are_typing_errors_naming_the_function(kernel):
    with pytest.raises(TypingError, match=r"cumlir_test_affine\(float64, int32, float32\) -> float64") as info:
        cuda.compile_ptx(kernel, "void(float64[:])", cc=(9, 0))
    assert "test_externals.py" in str(info.value)
