"""The streams of the CUDA Array Interface, as Numba-CUDA has them: an array made on a stream
names it in its interface (device, mapped and managed arrays, and their views); an array
imported from an interface naming a stream takes it as its own, an external stream, and waits
for it once (unless sync=False or CUMLIR_/NUMBA_CUDA_ARRAY_INTERFACE_SYNC=0); ``Stream.external``
tells streams other code made from cumlir's. Run on the simulator and, in the gpu tier, on
the GPU."""

import numpy as np
import pytest

from cumlir import cuda
from cumlir.runtime.streams import Stream


class Foreign:
    """Another library's array: only its interface, naming the stream it was produced on."""

    def __init__(self, array, stream=None):
        interface = dict(array.__cuda_array_interface__)
        interface["stream"] = stream
        self.__cuda_array_interface__ = interface
        self.array = array  # keeps the memory alive


@pytest.fixture
def waits(monkeypatch):
    """The handles of the streams synchronised, in order."""
    handles = []
    original = Stream.synchronize

    def counting(self):
        handles.append(self.handle)
        original(self)

    monkeypatch.setattr(Stream, "synchronize", counting)
    return handles


def test_streams_made_elsewhere_are_external(simulator_or_gpu):
    made = cuda.stream()
    assert made.external is False and cuda.default_stream().external is False
    assert cuda.per_thread_default_stream().external is False
    other = cuda.external_stream(made.handle)
    assert other.external is True and int(other) == made.handle


@pytest.mark.parametrize("make", ["device_array", "mapped_array", "managed_array"])
def test_an_array_made_on_a_stream_names_it_in_its_interface(make, simulator_or_gpu):
    stream = cuda.stream()
    array = getattr(cuda, make)((4, 6), np.float32, stream=stream)
    assert array.__cuda_array_interface__["stream"] == stream.handle
    assert array[1:, ::2].__cuda_array_interface__["stream"] == stream.handle  # views keep it
    assert getattr(cuda, make)(3).__cuda_array_interface__["stream"] is None  # stream 0: none named


def test_a_result_of_host_arithmetic_on_a_mapped_array_has_no_stream(simulator_or_gpu):
    mapped = cuda.mapped_array(8, np.float32, stream=cuda.stream())
    mapped[...] = 1
    result = mapped + 1  # new host memory, not mapped
    assert result.stream == 0
    with pytest.raises(ValueError, match="does not view mapped host memory"):
        result.__cuda_array_interface__


@cuda.jit
def filled(out, value):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = value + i


def test_an_imported_array_takes_the_named_stream_and_waits_for_it_once(simulator_or_gpu, waits, rng):
    stream = cuda.stream()
    produced = cuda.device_array(300, np.float64, stream=stream)
    value = rng.standard_normal()
    filled[3, 128, stream](produced, value)  # queued on the producer's stream
    imported = cuda.as_cuda_array(Foreign(produced, stream.handle))
    assert waits == [stream.handle]
    assert isinstance(imported.stream, Stream) and imported.stream.external
    assert int(imported.stream) == stream.handle
    assert imported.__cuda_array_interface__["stream"] == stream.handle
    np.testing.assert_array_equal(imported.copy_to_host(), value + np.arange(300))


def test_no_wait_without_a_stream_or_when_turned_off(simulator_or_gpu, waits, monkeypatch):
    stream = cuda.stream()
    produced = cuda.device_array(10, stream=stream)
    assert cuda.as_cuda_array(Foreign(produced)).stream == 0  # none named: no stream of its own
    cuda.as_cuda_array(Foreign(produced, stream.handle), sync=False)
    for name in ("CUMLIR_CUDA_ARRAY_INTERFACE_SYNC", "NUMBA_CUDA_ARRAY_INTERFACE_SYNC"):
        with monkeypatch.context() as env:
            env.setenv(name, "0")
            imported = cuda.from_cuda_array_interface(produced.__cuda_array_interface__, owner=produced)
            assert imported.stream.external  # still the array's stream, only not waited for
    assert waits == []
