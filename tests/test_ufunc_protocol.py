"""GPU ufuncs given an operand that implements NumPy's ``__array_ufunc__`` (Dask arrays,
xarray objects): the container is asked to apply the ufunc (cuda/ufunc_protocol.py), with
what Dask needs to know beforehand. A stand-in container records what it was asked; the
GPU tests (test_scaling_examples.py) run real Dask arrays of CuPy chunks."""

import pickle

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cuda.ufunc_protocol import PerChunk


@cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def hypot2(x, y):
    return x * x + y * y


@cuda.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")
def dot(x, y, out):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * y[i]
    out[0] = acc


class Container:
    """Records the ``__array_ufunc__`` call and answers with a marker."""

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self.calls = []

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self.calls.append((ufunc, method, inputs, kwargs))
        return "applied"


class DaskLike(Container):
    pass


DaskLike.__module__ = "dask.array.core"


def test_a_container_operand_is_asked_to_apply_the_ufunc():
    box = Container(np.float32)
    assert hypot2(box, np.float32(2)) == "applied"
    ((ufunc, method, inputs, kwargs),) = box.calls
    assert isinstance(ufunc, PerChunk) and ufunc.ufunc is hypot2
    assert method == "__call__" and inputs == (box, np.float32(2)) and kwargs == {}
    assert (ufunc.nin, ufunc.nout, ufunc.signature, ufunc.__name__) == (2, 1, None, "hypot2")


def test_dask_is_told_the_result_dtype():
    box = DaskLike(np.float64)
    hypot2(np.float64(1.5), box)
    assert box.calls[0][3] == {"dtype": np.dtype(np.float64)}
    box = DaskLike(np.float32)
    dot(box, box)
    assert box.calls[0][3] == {"output_dtypes": np.dtype(np.float32)}
    assert box.calls[0][0].signature == "(n),(n)->()"


def test_out_goes_to_the_container_as_a_tuple():
    box, out = Container(np.float32), Container(np.float32)
    hypot2(box, box, out=out)
    assert box.calls[0][3] == {"out": (out,)}


def test_a_stream_cannot_be_given_with_a_container():
    with pytest.raises(TypeError, match="stream= cannot be given with a Container operand"):
        hypot2(Container(np.float32), np.float32(1), stream=5)


def test_no_loop_for_the_container_dtype_is_a_type_error():
    with pytest.raises(TypeError, match=r"no signature accepts inputs of dtypes \(complex128, complex128\)"):
        hypot2(DaskLike(np.complex128), DaskLike(np.complex128))


def test_the_per_chunk_ufunc_pickles():
    again = pickle.loads(pickle.dumps(PerChunk(hypot2)))
    assert isinstance(again, PerChunk) and again.__name__ == "hypot2" and again.nin == 2
    assert again.types == hypot2.types


def test_arrays_are_not_containers():
    from cumlir.cuda.ufunc_protocol import container

    assert container((np.zeros(3), 1.0, np.float32(2)), None) is None
