"""``arr.view(dtype)`` in kernels with another item size, as numba changes the shape: the
last axis of a C array, the first of an F array, and for an A array whichever axis has unit
stride when the kernel runs. Compared with the bytes NumPy holds, read in the array's order."""

import numpy as np
import pytest

from cumlir import cuda


def _copy_2d(source, out):
    view = source.view(out.dtype)
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            out[i, j] = view[i, j]


def _copy_3d(source, out):
    view = source.view(out.dtype)
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            for k in range(view.shape[2]):
                out[i, j, k] = view[i, j, k]


def _viewed(array, dtype, order):
    """What numba's view of *array* as *dtype* holds: its bytes in *order*, with the
    contiguous axis (the last for C, the first for F) rescaled."""
    old, new = array.dtype.itemsize, np.dtype(dtype).itemsize
    shape = list(array.shape)
    axis = -1 if order == "C" else 0
    shape[axis] = shape[axis] * old // new
    flat = np.frombuffer(array.tobytes(order=order), dtype=dtype)
    return flat.reshape(shape, order=order)


CASES = [
    ((2, 4), np.int64, np.int32),
    ((8, 4), np.int16, np.int64),
    ((2, 3, 4), np.int32, np.int64),
    ((4, 3, 2), np.float64, np.float32),
]


def _run(source, dtype, expected):
    kernel = _copy_2d if source.ndim == 2 else _copy_3d
    out = np.full(expected.shape, -7, dtype=dtype)
    cuda.jit(kernel)[1, 1](cuda.to_device(source), out)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.gpu
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape, old, new", CASES)
def test_view_of_a_contiguous_array(shape, old, new, order, rng):
    source = np.asarray(rng.integers(-1000, 1000, size=shape), dtype=old, order=order)
    _run(source, new, _viewed(source, new, order))


@pytest.mark.gpu
@pytest.mark.parametrize("order", ["C", "F"])
def test_view_of_an_array_of_layout_a(order, rng):
    # a slice along the other axis keeps the contiguous one: the kernel is typed for layout A
    base = np.asarray(rng.integers(-1000, 1000, size=(6, 8)), dtype=np.int64, order=order)
    source = base[:, 2:6] if order == "C" else base[1:5, :]
    device = cuda.to_device(base)[:, 2:6] if order == "C" else cuda.to_device(base)[1:5, :]
    assert not (device.is_c_contiguous() or device.is_f_contiguous())
    expected = _viewed(np.asarray(source, order=order), np.int32, order)
    out = np.full(expected.shape, -7, dtype=np.int32)
    cuda.jit(_copy_2d)[1, 1](device, out)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_views_compile_for_each_layout(layout):
    sig = f"void(int64[{'::1, :' if layout == 'F' else ':, ::1' if layout == 'C' else ':, :'}], int32[:, :])"
    ptx, _ = cuda.compile_ptx(_copy_2d, sig, cc=(9, 0))
    assert ".entry" in ptx
