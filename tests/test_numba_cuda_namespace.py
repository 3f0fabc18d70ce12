"""Every public name of Numba-CUDA 0.30's ``numba.cuda`` and of its kernel dispatcher exists
in cumlir or is refused by name (cumlir/refused.py), and docs/compatibility.md lists each.

Numba-CUDA's names are read in a subprocess (importing it here would register its target
next to cumlir's); the test is skipped only where Numba-CUDA is not installed."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

from cumlir import cuda, refused
from cumlir.dispatcher import Dispatcher

ROOT = pathlib.Path(__file__).resolve().parents[1]

# names work in progress will provide: not checked here until it lands;
# each is listed in docs/compatibility.md as provided by that work
PROVIDED_BY_OTHER_WORK = frozenset()  # none at present


def provided_by_other_work(name):
    return name in PROVIDED_BY_OTHER_WORK


_READ_NAMES = """
import importlib.metadata
import json
import sys
try:
    version = importlib.metadata.version("numba-cuda")
except importlib.metadata.PackageNotFoundError:  # numba's own numba.cuda is not Numba-CUDA
    print(json.dumps({"missing": True}))
    sys.exit()
import numpy as np
np.row_stack = getattr(np, "row_stack", np.vstack)  # removed in NumPy 2.4, still used by Numba-CUDA 0.30
from numba import cuda
from numba.cuda.dispatcher import CUDADispatcher
print(json.dumps({
    "version": version,
    "cuda": [n for n in dir(cuda) if not n.startswith("_")],
    "dispatcher": [n for n in dir(CUDADispatcher) if not n.startswith("_")],
}))
"""


@pytest.fixture(scope="module")
def numba_cuda_names():
    done = subprocess.run([sys.executable, "-c", _READ_NAMES], capture_output=True, text=True)
    if done.returncode:
        raise AssertionError(f"reading Numba-CUDA's names failed:\n{done.stderr[-3000:]}")
    names = json.loads(done.stdout.strip().splitlines()[-1])
    if names.get("missing"):
        pytest.skip("numba-cuda is not installed (pip install numba-cuda==0.30.4: the test extra)")
    return names


def _status(owner, name, table, where):
    """'implemented', 'refused' (with a checked message) or None (missing)."""
    try:
        getattr(owner, name)
    except NotImplementedError as e:
        assert name in table, f"{name} raises NotImplementedError but is not on the refused list"
        assert name in str(e) and table[name] in str(e)
        return "refused"
    except AttributeError:
        return None
    assert name not in table, f"{name} is on the refused list of {where} but exists"
    return "implemented"


def test_version(numba_cuda_names):
    assert numba_cuda_names["version"].startswith("0.30"), numba_cuda_names["version"]


def test_every_namespace_name_is_implemented_or_refused(numba_cuda_names):
    missing = [
        name
        for name in numba_cuda_names["cuda"]
        if not provided_by_other_work(name) and _status(cuda, name, refused.NAMESPACE, "numba.cuda") is None
    ]
    assert not missing, f"numba.cuda names neither in cumlir.cuda nor refused: {missing}"


def test_every_dispatcher_name_is_implemented_or_refused(numba_cuda_names):
    missing = [
        name
        for name in numba_cuda_names["dispatcher"]
        if _status(Dispatcher, name, refused.DISPATCHER, "the dispatcher") is None
    ]
    assert not missing, f"CUDADispatcher attributes neither in cumlir's Dispatcher nor refused: {missing}"


def test_refused_lists_hold_only_numba_cuda_names(numba_cuda_names):
    assert set(refused.NAMESPACE) <= set(numba_cuda_names["cuda"])
    assert set(refused.DISPATCHER) <= set(numba_cuda_names["dispatcher"])


@pytest.mark.parametrize("name", sorted(refused.NAMESPACE))
def test_refused_namespace_name_raises(name):
    with pytest.raises(NotImplementedError, match=re.escape(refused.NAMESPACE[name])):
        getattr(cuda, name)
    assert not hasattr(cuda, "__dict__") or name not in vars(cuda)


@pytest.mark.parametrize("name", sorted(refused.DISPATCHER))
def test_refused_dispatcher_name_raises(name):
    @cuda.jit
    def kernel(a):
        a[0] = 1

    for owner in (kernel, Dispatcher):
        with pytest.raises(NotImplementedError, match=re.escape(refused.DISPATCHER[name])):
            getattr(owner, name)


def test_stored_names_are_numba_cuda_s(numba_cuda_names):
    # the doc is written from tests/numba_cuda_names.json; it must be Numba-CUDA's list
    stored = json.loads((ROOT / "tests" / "numba_cuda_names.json").read_text())
    assert sorted(stored["cuda"]) == sorted(numba_cuda_names["cuda"])
    assert sorted(stored["dispatcher"]) == sorted(numba_cuda_names["dispatcher"])


def test_doc_is_what_the_script_writes():
    # regenerate with: PYTHONPATH=src python tests/compatibility_doc.py > docs/compatibility.md
    from tests.compatibility_doc import read_names, render

    names, ncm_names = read_names(ROOT)
    written = (ROOT / "docs" / "compatibility.md").read_text()
    assert written == render(names, provided_by_other_work, ncm_names), (
        "docs/compatibility.md is out of date: PYTHONPATH=src python tests/compatibility_doc.py > docs/compatibility.md"
    )
