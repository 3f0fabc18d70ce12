"""Plain argument types (runtime/plain_types.py): the types a launch from the on-disk
cache finds without numba. Each must name itself exactly as numba's type of the same
value is named in the cache's key, become that numba type, and pack the same bytes;
every value numba would type otherwise (or refuse) must have no plain type."""

import collections
import ctypes

import numpy as np
import pytest

from cumlir import cuda
from cumlir.cache import type_name
from cumlir.runtime import arguments
from cumlir.runtime.plain_types import plain_type, plain_types

from .fake_arrays import FakeCupyArray, InterfaceOnly
from .support import FakeLaunch

NUMBERS = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
NUMBERS += ["float16", "float32", "float64", "complex64", "complex128"]
rng = np.random.default_rng(20261123)


def _arrays(dtype):
    """Host arrays of *dtype* of every layout numba tells apart, writeable and not."""
    base = rng.integers(0, 2, (4, 6, 5)).astype(dtype)
    found = [base, base[0], base[0, 0], base[..., 1:3], base.transpose(), base[:, ::2, 0], np.asfortranarray(base[0])]
    found += [np.zeros((), dtype), np.zeros((0, 3), dtype), np.zeros((3, 1), dtype)[:, 0], base[::-1]]
    readonly = base[1].copy()
    readonly.flags.writeable = False
    return found + [readonly]


def _scalars():
    values = [True, False, 0, -(2**63), 2**64 - 1, 1.5, float("nan"), 2 + 3j, np.bool_(True)]
    return values + [np.dtype(name).type(1) for name in NUMBERS]


def _numba_type(value, index=0):
    return arguments.argument_type(value, index)


def _same(value):
    plain, ty = plain_type(value), _numba_type(value)
    assert plain is not None, value
    assert plain.cache_name == type_name(ty), (plain.cache_name, type_name(ty))
    assert str(plain) == str(ty) and plain.numba() == ty


@pytest.mark.parametrize("dtype", NUMBERS)
def test_host_and_interface_arrays_name_numbas_types(dtype):
    for array in _arrays(dtype):
        _same(array)
        _same(cuda.In(array))
        _same(FakeCupyArray(array))
        _same(InterfaceOnly(array, readonly=not array.flags.writeable))


def test_numbers_name_numbas_types():
    for value in _scalars():
        _same(value)


def test_equal_types_are_one_key_and_differing_ones_are_not():
    a, b = plain_type(np.zeros(3, np.float32)), plain_type(FakeCupyArray(np.ones(7, np.float32)))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    others = [np.zeros(3, np.float64), np.zeros((3, 1), np.float32), np.zeros((3, 2), np.float32, order="F")]
    assert all(plain_type(o) != a for o in others)
    assert plain_type(np.float32(1)) != plain_type(np.zeros(1, np.float32))
    assert plain_type(1) != plain_type(1.0) and plain_type(True) != plain_type(1)


def test_what_only_numba_types_has_no_plain_type():
    Pair = collections.namedtuple("Pair", "x y")
    record = np.zeros(2, np.dtype([("x", np.float32), ("y", np.int32)]))
    refused = [
        (1, 2.0),
        Pair(1, 2),
        record,
        record[0],
        ctypes.c_void_p(16),
        np.zeros(3, ">f4"),  # numba refuses other byte orders
        np.zeros(3, np.longdouble),
        np.zeros(3, "datetime64[ns]"),
        np.datetime64(1, "ns"),
        np.zeros(3, object),
        "text",
        None,
    ]
    for value in refused:
        assert plain_type(value) is None, value
    assert plain_types((np.zeros(3), (1, 2))) is None
    assert plain_types((np.zeros(3), 2)) == (plain_type(np.zeros(3)), plain_type(2))


def test_an_interface_that_fails_has_no_plain_type():
    class Broken:
        @property
        def __cuda_array_interface__(self):
            raise RuntimeError("no device")

    missing = InterfaceOnly(np.zeros(3, np.float32))
    del missing.__cuda_array_interface__["shape"]
    assert plain_type(Broken()) is None and plain_type(missing) is None


def test_plain_types_pack_the_bytes_numbas_types_pack():
    host = rng.standard_normal((5, 7)).astype(np.float32)
    args = (
        FakeCupyArray(host),
        InterfaceOnly(np.asfortranarray(host)),
        InterfaceOnly(host[:, ::2], readonly=True),
        np.zeros((2, 3), np.int16),
        np.float32(1.25),
        -7,
        2.5,
        True,
        np.uint8(200),
        3 - 4j,
        np.complex64(1 + 2j),
        np.float16(0.5),
    )
    plain = plain_types(args)
    numba_types = tuple(map(_numba_type, args))
    assert tuple(t.numba() for t in plain) == numba_types
    ours, theirs = arguments.ArgumentPacker(plain), arguments.ArgumentPacker(numba_types)
    assert ours.slots == theirs.slots
    assert bytes(ours.pack(args, FakeLaunch())[1]) == bytes(theirs.pack(args, FakeLaunch())[1])
    with pytest.raises(OverflowError, match="does not fit in int64"):
        ours.pack((*args[:5], 2**70, *args[6:]), FakeLaunch())
