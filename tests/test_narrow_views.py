"""``arr.view(dtype)`` of arrays of the types NumPy has no dtype for (bfloat16, the narrow
floats): their item size comes from their width. A bfloat16 pair read as a 32-bit word is the
form a kernel stores rounded pairs in (one ``cvt.rn.bf16x2.f32`` and one 32-bit store). And
ml_dtypes' own classes (``ml_dtypes.bfloat16``) as dtypes and conversions in kernels. PTX
through ptxas on both code generators, float8 codes run on the host (tests/nrt_harness.py);
(marked gpu) the bits against ml_dtypes."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.types import bfloat16

from . import support

ml_dtypes = pytest.importorskip("ml_dtypes")

# (ml_dtypes name, the unsigned integer of its width)
FORMATS = [("bfloat16", np.uint16), ("float8_e4m3fn", np.uint8), ("float8_e5m2", np.uint8)]
NUMBA_NAMES = {"bfloat16": "bfloat16", "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2"}


def pack_pairs(x, words):
    """Each pair of float32s rounded to bfloat16 together, stored as one uint32 word."""
    pair = cuda.local.array(2, bfloat16)
    i = cuda.grid(1)
    if i < words.size:
        pair[0], pair[1] = x[2 * i], x[2 * i + 1]
        words[i] = pair.view(np.uint32)[0]


def bits_of(values, out):
    """out (of unsigned integers) = the bits of values, read through a view of the same bytes."""
    bits = values.view(out.dtype)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = bits[i]


def pack_pairs_ml_dtypes(x, words):
    """pack_pairs spelled with ml_dtypes' class, as a dtype and as a conversion."""
    pair = cuda.local.array(2, ml_dtypes.bfloat16)
    i = cuda.grid(1)
    if i < words.size:
        pair[0], pair[1] = ml_dtypes.bfloat16(x[2 * i]), x[2 * i + 1]
        words[i] = pair.view(np.uint32)[0]


def float8_codes(x, codes):
    """The float8_e4m3fn code of each value, through a local array of ml_dtypes' class."""
    staged = cuda.local.array(1, ml_dtypes.float8_e4m3fn)
    for i in range(codes.size):
        staged[0] = ml_dtypes.float8_e4m3fn(x[i])
        codes[i] = staged.view(np.uint8)[0]


def _pack_ptx(backend, cc=(9, 0)):
    ptx, _ = cuda.compile_ptx(pack_pairs, "void(float32[::1], uint32[::1])", cc=cc, backend=backend)
    return ptx


def test_a_bfloat16_pair_is_stored_as_one_word():
    ptx = _pack_ptx("nvptx")
    support.ptxas(ptx, "sm_90")
    assert ptx.count("cvt.rn.bf16x2.f32") == 1
    assert ptx.count("st.global.b32") == 1 and "st.global.b16" not in ptx


def test_ml_dtypes_bfloat16_is_a_dtype_and_a_conversion():
    ptx, _ = cuda.compile_ptx(pack_pairs_ml_dtypes, "void(float32[::1], uint32[::1])", cc=(9, 0))
    support.ptxas(ptx, "sm_90")
    assert ptx.count("cvt.rn.bf16x2.f32") == 1 and ptx.count("st.global.b32") == 1


def test_ml_dtypes_float8_codes_match_on_the_host(rng):
    from numba.core import types

    from .nrt_harness import Kernel

    x = np.concatenate([rng.standard_normal(500) * 30, [0.0, -0.0, 448.0, 1e-9, np.inf, -np.inf, np.nan]])
    x = x.astype(np.float32)
    codes = np.zeros(x.size, np.uint8)
    argtypes = (types.Array(types.float32, 1, "C"), types.Array(types.uint8, 1, "C"))
    Kernel(float8_codes, argtypes, cc=(8, 0))(x, codes)  # sm_80: the software conversion
    np.testing.assert_array_equal(codes, x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))


def test_an_ml_dtypes_class_without_a_kernel_type_is_named():
    def kernel(out):
        staged = cuda.local.array(2, ml_dtypes.int4)
        out[0] = staged[0]

    with pytest.raises(Exception, match=r"ml_dtypes\.int4 has no type in kernels"):
        cuda.compile_ptx(kernel, "void(int8[::1])", cc=(9, 0))


@pytest.mark.parametrize("name, unsigned", FORMATS)
def test_views_of_narrow_arrays_compile(backend, name, unsigned):
    if backend == "nvvm" and name == "bfloat16":
        pytest.skip("libNVVM has bfloat16 from sm_100 (docs/nvvm.md)")
    sig = f"void({NUMBA_NAMES[name]}[::1], {np.dtype(unsigned).name}[::1])"
    ptx, _ = cuda.compile_ptx(bits_of, sig, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    width = np.dtype(unsigned).itemsize * 8
    # the view reads items of the format's width, as many as it has (no scaling of the index)
    assert f"ld.global.u{width}" in ptx or f"ld.global.b{width}" in ptx or f"ld.global.nc.u{width}" in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", [pack_pairs, pack_pairs_ml_dtypes], ids=["cumlir_type", "ml_dtypes_class"])
def test_pairs_round_as_ml_dtypes(rng, kernel):
    x = (rng.standard_normal(2 * 1000) * 100).astype(np.float32)
    words = support.poisoned(1000, np.uint32)
    cuda.jit(kernel, backend="nvptx")[8, 128](x, words)  # libNVVM: bfloat16 from sm_100
    np.testing.assert_array_equal(words, x.astype(ml_dtypes.bfloat16).view(np.uint32))


@pytest.mark.gpu
@pytest.mark.parametrize("name, unsigned", FORMATS)
def test_views_read_the_bits(rng, name, unsigned):
    values = rng.standard_normal(300).astype(getattr(ml_dtypes, name))
    out = support.poisoned(300, unsigned)
    backend = "nvptx" if name == "bfloat16" else None  # libNVVM: bfloat16 from sm_100
    cuda.jit(bits_of, backend=backend)[3, 128](cuda.to_device(values), out)
    np.testing.assert_array_equal(out, values.view(unsigned))
