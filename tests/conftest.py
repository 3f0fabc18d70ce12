import pytest

from cumlir.backends import REGISTRY


def _gpu_available():
    from cumlir import cuda

    return cuda.is_available()


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=tuple(REGISTRY))
def backend(request):
    """The name of each code generator of the registry (cumlir/backends.py), in turn: a test
    taking ``backend`` runs once per code generator."""
    return request.param


@pytest.fixture
def rng(request):
    import zlib

    import numpy as np

    # a fresh stream of random inputs per test, the same in every process and run (str's
    # hash() is salted per process)
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(scope="module")
def numba_cuda_usable():
    """Skips the test unless numba-cuda is installed and works here (tests comparing with it)."""
    from .support import numba_cuda_problem

    problem = numba_cuda_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture
def general(monkeypatch):
    """The launches that took the general path (typing the arguments), each its arguments."""
    from cumlir.dispatcher import launching

    calls = []
    original = launching.loaded_for

    def counting(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(launching, "loaded_for", counting)
    return calls
