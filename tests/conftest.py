import pytest

from cumlir.backends import REGISTRY

# the code generators of the GPU (the simulator's host code is tested by tests/simulator)
GPU_BACKENDS = tuple(name for name, entry in REGISTRY.items() if entry.code_format != "host")


def _gpu_available():
    from cumlir import cuda

    return cuda.is_available()


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        _skip_what_the_simulator_cannot_run(items)
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


class _GpuLibrariesUnderTheSimulator:
    """An import finder, while the simulator is on, under which importing CuPy or PyTorch
    skips the test (or test module) importing it: their arrays live in a GPU's memory,
    which the simulator's kernels cannot read."""

    NAMES = ("cupy", "cupyx", "torch")

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.NAMES:
            raise pytest.skip.Exception(
                f"not on the simulator: {name.split('.')[0]}'s arrays are in a GPU", allow_module_level=True
            )
        return None


def pytest_configure(config):
    import sys

    from cumlir import simulation

    if simulation.requested() and not simulation.python_mode():
        sys.meta_path.insert(0, _GpuLibrariesUnderTheSimulator())


def _skip_what_the_simulator_cannot_run(items):
    from cumlir import simulation

    if not simulation.requested():
        return
    for item in items:
        marker = item.get_closest_marker("not_simulated")
        if marker is not None:
            reason = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
            item.add_marker(pytest.mark.skip(reason=f"not on the simulator: {reason}"))
        elif _uses_gpu_libraries(item):
            item.add_marker(pytest.mark.skip(reason="not on the simulator: CuPy's and PyTorch's arrays are in a GPU"))


def _uses_gpu_libraries(item):
    """Whether the test imports CuPy or PyTorch (their arrays live in a GPU's memory)."""
    import inspect

    try:
        source = inspect.getsource(item.function)
    except (OSError, TypeError, AttributeError):
        return False
    return 'importorskip("cupy")' in source or 'importorskip("torch")' in source


@pytest.fixture(params=GPU_BACKENDS)
def backend(request):
    """The name of each code generator of the GPU in the registry (cumlir/backends.py), in
    turn: a test taking ``backend`` runs once per code generator."""
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


@pytest.fixture(params=["simulator", pytest.param("gpu", marks=pytest.mark.gpu)])
def simulator_or_gpu(request, monkeypatch):
    """Kernels launched in the test run on the CPU simulator (tests/simulator/conftest.py's
    ``simulating``) in the CPU tier, and on the GPU in the gpu tier: the test runs once each way."""
    if request.param == "gpu":
        yield "gpu"
        return
    from .simulator.conftest import simulating

    with simulating(monkeypatch):
        yield "simulator"
