"""The runtime's one set of layout helpers (runtime/layout.py): compact strides,
contiguity by NumPy's rules (checked against NumPy's own flags on random arrays), the
kernel layout letter, and the dtype of a CUDA Array Interface dict."""

import numpy as np
import pytest

from cumlir.runtime.layout import array_layout, cai_dtype, contiguous_strides, is_contiguous


def _random_shape(rng):
    ndim = int(rng.integers(0, 5))
    # extents 0 and 1 are the edge cases of the rules: draw them often
    return tuple(int(rng.choice([0, 1, 1, 2, 3, 4, 5])) for _ in range(ndim))


def _random_arrays(rng, count):
    """Real NumPy arrays: C and F allocations, transposes, slices (with steps and reversals),
    added unit axes, and views with arbitrary strides."""
    for _ in range(count):
        shape = _random_shape(rng)
        dtype = np.dtype(rng.choice(["u1", "<i2", "<f4", "<f8", "<c16"]))
        base = np.zeros(shape, dtype, order=str(rng.choice(["C", "F"])))
        kind = int(rng.integers(0, 5))
        if kind == 1 and base.ndim:
            base = base.transpose(rng.permutation(base.ndim))
        elif kind == 2 and base.ndim:
            key = []
            for extent in base.shape:
                start = int(rng.integers(0, extent + 1))
                stop = int(rng.integers(start, extent + 1))
                step = int(rng.choice([1, 1, 2, 3, -1, -2]))
                key.append(slice(start, stop, step) if step > 0 else slice(stop - 1 if stop else None, None, step))
            base = base[tuple(key)]
        elif kind == 3:
            axis = int(rng.integers(0, base.ndim + 1))
            base = np.expand_dims(base, axis)
        elif kind == 4 and base.ndim:
            memory = np.zeros(4096, np.uint8)
            strides = tuple(int(rng.choice([0, 1, 2, 3, 4]) * dtype.itemsize * rng.choice([1, 1, 2, 5])) for _ in shape)
            base = np.lib.stride_tricks.as_strided(memory[: dtype.itemsize].view(dtype), shape, strides)
        yield base


def test_contiguity_matches_numpy_flags():
    rng = np.random.default_rng(20261123)
    seen = set()
    for a in _random_arrays(rng, 4000):
        c, f = a.flags.c_contiguous, a.flags.f_contiguous
        seen.add((c, f))
        assert is_contiguous(a.shape, a.strides, a.itemsize, "C") == c, (a.shape, a.strides, a.itemsize)
        assert is_contiguous(a.shape, a.strides, a.itemsize, "F") == f, (a.shape, a.strides, a.itemsize)
        assert array_layout(a.shape, a.strides, a.itemsize) == ("C" if c else "F" if f else "A")
    assert seen == {(True, True), (True, False), (False, True), (False, False)}


def test_zero_length_and_single_element_arrays_are_both_orders():
    assert is_contiguous((0, 3), (999, 16), 8, "C") and is_contiguous((0, 3), (999, 16), 8, "F")
    assert is_contiguous((3, 0), (8, 8), 8, "C") and is_contiguous((3, 0), (8, 8), 8, "F")
    assert is_contiguous((1, 1), (7, -3), 4, "C") and is_contiguous((1, 1), (7, -3), 4, "F")
    assert is_contiguous((), (), 4, "C") and is_contiguous((), (), 4, "F")
    assert is_contiguous((4, 1, 5), (20, 999, 4), 4, "C") and not is_contiguous((4, 1, 5), (20, 999, 4), 4, "F")
    # strides=None is the CUDA Array Interface's compact C order
    assert is_contiguous((3, 4), None, 4, "C") and not is_contiguous((3, 4), None, 4, "F")
    assert array_layout((3, 4), None, 4) == "C"


def test_the_layout_letter_is_numbas():
    from numba import typeof

    rng = np.random.default_rng(7)
    for a in _random_arrays(rng, 300):
        assert array_layout(a.shape, a.strides, a.itemsize) == typeof(a).layout, (a.shape, a.strides)


@pytest.mark.parametrize("order", ["C", "F"])
def test_contiguous_strides_are_numpys(order):
    rng = np.random.default_rng(11)
    for _ in range(300):
        shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(0, 5))))
        itemsize = int(rng.choice([1, 2, 4, 8, 16]))
        expected = np.empty(shape, f"V{itemsize}", order=order).strides
        assert contiguous_strides(shape, itemsize, order) == expected
        assert is_contiguous(shape, expected, itemsize, order)
    # a zero extent counts as one, so no stride is 0 (NumPy's own strides vary here)
    assert contiguous_strides((3, 0, 2), 4, "C") == (8, 8, 4)
    assert contiguous_strides((3, 0, 2), 4, "F") == (4, 12, 12)
    with pytest.raises(ValueError, match="order"):
        contiguous_strides((3,), 4, "K")
    with pytest.raises(ValueError, match="order"):
        is_contiguous((3,), (4,), 4, "A")


# ---- the dtype of a CUDA Array Interface ---------------------------------------------------

PACKED = np.dtype([("x", "<f4"), ("y", "<i2"), ("z", "<f8")])
ALIGNED = np.dtype([("x", "<f4"), ("y", "<i2"), ("z", "<f8")], align=True)
NESTED = np.dtype([("p", [("a", "u1"), ("b", "<i4")]), ("v", "<f4", (2, 3)), ("c", "<c8")], align=True)
TITLED = np.dtype([(("the x", "x"), "<f4"), ("y", "<i8")])
GAPPED = np.dtype({"names": ["a", "b"], "formats": ["<i4", "<f8"], "offsets": [8, 16], "itemsize": 32})


@pytest.mark.parametrize("dtype", ["<f4", "|u1", "<i8", "|b1", "<c16", "<f2", "|V8"])
def test_cai_dtype_of_plain_types(dtype):
    dtype = np.dtype(dtype)
    assert cai_dtype({"typestr": dtype.str}) == dtype
    # the default descr, and any descr next to a non-void typestr, change nothing
    assert cai_dtype({"typestr": dtype.str, "descr": [("", dtype.str)]}) == dtype
    assert cai_dtype({"typestr": dtype.str, "descr": None}) == dtype
    assert cai_dtype({"typestr": dtype.str, "descr": []}) == dtype
    assert cai_dtype({"typestr": dtype.str, "descr": dtype.descr}).names is None


@pytest.mark.parametrize(
    "dtype", [PACKED, ALIGNED, NESTED, TITLED, GAPPED], ids=["packed", "aligned", "nested", "titled", "gapped"]
)
def test_cai_dtype_of_records_reads_descr(dtype):
    read = cai_dtype({"typestr": dtype.str, "descr": dtype.descr})
    assert read == dtype and read.itemsize == dtype.itemsize
    # padding in descr places the fields and is not a field itself
    assert read.names == dtype.names
    assert [read.fields[n][1] for n in read.names] == [dtype.fields[n][1] for n in dtype.names]
    # descr as JSON would give it: lists for tuples
    as_lists = [list(entry) for entry in dtype.descr]
    assert cai_dtype({"typestr": dtype.str, "descr": as_lists}) == dtype
    # without descr, a record is only its bytes
    assert cai_dtype({"typestr": dtype.str}) == np.dtype(f"V{dtype.itemsize}")


def test_cai_dtype_of_a_numpy_array_interface():
    a = np.zeros(3, ALIGNED)
    assert cai_dtype(a.__array_interface__) == ALIGNED


@pytest.mark.parametrize(
    "cai, message",
    [
        ({}, "typestr is a string"),
        ({"typestr": None}, "typestr is a string"),
        ({"typestr": np.dtype("<f4")}, "typestr is a string"),
        ({"typestr": "<q9"}, "not a NumPy type string"),
        ({"typestr": "|O8"}, "Python objects"),
        ({"typestr": "|V12", "descr": [("a", "<f4"), ("b", "<f4")]}, "8-byte elements, but its typestr '|V12' 12-byte"),
        ({"typestr": "|V8", "descr": [("a", "<f4", "oops"), ("b", "<q9")]}, "descr .* is not a NumPy array descr"),
        ({"typestr": "|V8", "descr": [("a",)]}, "descr .* is not a NumPy array descr"),
        ({"typestr": "|V8", "descr": [("a", "|O")]}, "Python objects"),
    ],
)
def test_cai_dtype_errors(cai, message):
    with pytest.raises(TypeError, match=message):
        cai_dtype(cai)
