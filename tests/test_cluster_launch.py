"""Launches in thread-block clusters (``kernel[grid, block, stream, shared, cluster]``,
``kernel.configure(..., cluster=)``, docs/hopper.md) on a fake driver (tests/fake_driver.py):
what cuLaunchKernelEx is given, every launch in clusters taking it, and the configurations
refused."""

import numpy as np
import pytest

from cumlir import cuda

from . import fake_driver

CLUSTER = "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION"


def _add_one(a):
    a[cuda.grid(1)] += 1


@pytest.fixture
def fake(monkeypatch):
    return fake_driver.install(monkeypatch)


@pytest.fixture
def kernel():
    return cuda.jit("void(float32[:])")(_add_one)


def _device_array(n):
    return cuda.to_device(np.zeros(n, np.float32))


def test_the_cluster_shape_reaches_cuLaunchKernelEx(fake, kernel):
    a = _device_array(8 * 32)
    kernel[8, 32, 0, 0, 2](a)
    kernel[(4, 2), (32, 1), 0, 16, (2, 2)](a)
    kernel.configure((8, 1, 2), 32, cluster=(4, 1, 2))(a)
    first, second, third = fake.launches
    assert first["grid"] == (8, 1, 1) and first["block"] == (32, 1, 1)
    assert first["attributes"] == {CLUSTER: (2, 1, 1)}
    assert second["grid"] == (4, 2, 1) and second["shared"] == 16 and second["attributes"] == {CLUSTER: (2, 2, 1)}
    assert third["grid"] == (8, 1, 2) and third["attributes"] == {CLUSTER: (4, 1, 2)}
    # the arguments are packed as for any launch
    assert first["params"] == second["params"] == third["params"]


def test_every_launch_in_clusters_takes_cuLaunchKernelEx(fake, kernel):
    a = _device_array(64)
    launcher = kernel[4, 16, 0, 0, 2]
    for _ in range(3):  # the later launches would take the fast path of cuLaunchKernel
        launcher(a)
    assert [launch.get("attributes") for launch in fake.launches] == [{CLUSTER: (2, 1, 1)}] * 3
    kernel[4, 16](a)
    kernel[4, 16, 0, 0, None](a)
    assert "attributes" not in fake.launches[-1] and "attributes" not in fake.launches[-2]


@pytest.mark.parametrize(
    "config, error, message",
    [
        ((6, 32, 0, 0, 4), ValueError, r"its x dimension 6 is not a multiple of the cluster's 4"),
        (((4, 3), 32, 0, 0, (2, 2)), ValueError, r"its y dimension 3 is not a multiple of the cluster's 2"),
        ((32, 32, 0, 0, 32), ValueError, r"32 blocks is more than the 16 any chip with clusters allows"),
        ((32, 32, 0, 0, (4, 8)), ValueError, r"4x8x1 = 32 blocks is more than the 16"),
        ((8, 32, 0, 0, 0), ValueError, r"every cluster \(blocks per cluster\) dimension must be at least 1"),
        (
            (8, 32, 0, 0, 2.0),
            TypeError,
            r"cluster must be a sequence of integers, got \[2.0\]: the cluster \(blocks per cluster\) is an int",
        ),
        ((8, 32, 0, 0, 2, 1), TypeError, r"a launch configuration is"),
    ],
)
def test_bad_cluster_shapes(kernel, config, error, message):
    with pytest.raises(error, match=message):
        kernel[config]


NON_PORTABLE = "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED"


def test_clusters_over_8_blocks_opt_in_once(fake, kernel):
    a = _device_array(32 * 16)
    kernel[32, 16, 0, 0, 8](a)
    assert (NON_PORTABLE, 1) not in fake.function_attributes  # 8 blocks are portable
    kernel[32, 16, 0, 0, 16](a)
    kernel[(8, 4), 16, 0, 0, (4, 4)](a)
    assert fake.function_attributes.count((NON_PORTABLE, 1)) == 1
    assert [launch["attributes"][CLUSTER] for launch in fake.launches] == [(8, 1, 1), (16, 1, 1), (4, 4, 1)]


def test_a_cluster_larger_than_the_device_runs_is_refused(fake, kernel):
    fake.largest_cluster = 12  # as for blocks with much shared memory
    a = _device_array(32 * 16)
    with pytest.raises(
        ValueError, match=r"16 blocks is more than the 12 this device runs at once for blocks of 16x1x1"
    ):
        kernel[32, 16, 0, 0, 16](a)
    assert fake.launches == []


def test_clusters_need_compute_capability_9(monkeypatch):
    # the limit comes before the driver: a finalizer of an earlier test's memory, run by the
    # collector once the driver is in place, would otherwise make the context of a 9.0 device
    monkeypatch.setitem(fake_driver.LIMITS, "COMPUTE_CAPABILITY_MAJOR", 8)
    fake = fake_driver.install(monkeypatch)
    kernel = cuda.jit("void(float32[:])")(_add_one)
    a = _device_array(64)
    with pytest.raises(ValueError, match=r"cluster shape \(2, 1, 1\) needs a device of compute capability 9.0 .* 8.0"):
        kernel[4, 16, 0, 0, 2](a)
    assert fake.launches == []


PDL = "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION"


def test_a_programmatic_dependent_launch_takes_cuLaunchKernelEx_every_time(fake, kernel):
    a = _device_array(64)
    launcher = kernel.configure(4, 16, 0, 0, pdl=True)
    assert kernel.configure(4, 16, 0, 0, pdl=True) is launcher
    for _ in range(3):  # the later launches would take the fast path of cuLaunchKernel
        launcher(a)
    kernel.configure((4, 2), 8, 0, 0, cluster=(2, 2), pdl=True)(a)
    kernel.configure(4, 16)(a)
    kernel.configure(4, 16, pdl=False)(a)
    attributes = [launch.get("attributes") for launch in fake.launches]
    assert attributes[:3] == [{PDL: 1}] * 3
    assert attributes[3] == {CLUSTER: (2, 2, 1), PDL: 1}
    assert attributes[4:] == [None, None]  # cuLaunchKernel, without attributes
    assert fake.launches[0]["params"] == fake.launches[4]["params"]


def test_a_programmatic_dependent_launch_needs_compute_capability_9(monkeypatch):
    monkeypatch.setitem(fake_driver.LIMITS, "COMPUTE_CAPABILITY_MAJOR", 8)
    fake = fake_driver.install(monkeypatch)
    kernel = cuda.jit("void(float32[:])")(_add_one)
    a = _device_array(64)
    with pytest.raises(
        ValueError, match=r"pdl=True needs a device of compute capability 9.0 .*programmatic dependent launch.* 8.0"
    ):
        kernel.configure(4, 16, pdl=True)(a)
    assert fake.launches == []


@pytest.mark.parametrize("pdl", ["yes", 0, 1, None])
def test_pdl_is_a_bool(kernel, pdl):
    with pytest.raises(TypeError, match=r"pdl \(programmatic dependent launch\) must be True or False, got "):
        kernel.configure(4, 16, pdl=pdl)


def test_programmatic_dependent_launchers_share_the_bounded_cache(fake, kernel):
    for blocks in range(1, 1100):  # grids sized by the data
        kernel.configure(blocks, 16, pdl=True)
    assert len(kernel._launching().launchers) <= 1024
