"""Every public name of numba-cuda-mlir 0.6's ``cuda``, ``cuda.experimental`` and ``cuda.intrin``
namespaces exists in cumlir or is refused by name (cumlir/refused.py, ``NUMBA_CUDA_MLIR``), but
those still to do, listed below with why; ``extending``'s are implemented or refused (``EXTENDING``).

The names are tests/numba_cuda_mlir_names.json, read from numba-cuda-mlir's sources by
tests/ncm_names.py (``python -m tests.ncm_names SRC > tests/numba_cuda_mlir_names.json``); with
NUMBA_CUDA_MLIR_SRC naming those sources, the stored list is checked against them."""

import importlib
import json
import os
import pathlib
import re

import pytest

from cumlir import refused

ROOT = pathlib.Path(__file__).resolve().parents[1]
NAMES = json.loads((ROOT / "tests" / "numba_cuda_mlir_names.json").read_text())
CHECKED = ("cuda", "cuda.experimental", "cuda.intrin")

# names neither implemented nor refused yet: namespace -> {name: why}. Each is checked to be
# still missing, so this list only shrinks.
EXPECTED_MISSING: dict[str, dict[str, str]] = {
    "cuda": {},
    "cuda.experimental": {},
    "cuda.intrin": {},
}


def _module(namespace):
    """cumlir's module for *namespace*, or None where cumlir has none yet."""
    try:
        return importlib.import_module(f"cumlir.{namespace}")
    except ImportError:
        return None


def _status(namespace, name):
    """'implemented', 'refused' (with its message checked) or None (missing)."""
    module = _module(namespace)
    if module is None:
        return None
    table = refused.NUMBA_CUDA_MLIR.get(namespace, {})
    try:
        getattr(module, name)
    except NotImplementedError as e:
        if name in table:
            assert name in str(e) and table[name] in str(e)
        else:  # a Numba-CUDA name cumlir refuses (refused.NAMESPACE)
            assert namespace == "cuda" and name in refused.NAMESPACE, f"{namespace}.{name} refused without a reason"
        return "refused"
    except AttributeError:
        return None
    assert name not in table, f"{name} is on the refused list of numba-cuda-mlir's {namespace} but exists"
    return "implemented"


@pytest.mark.parametrize("namespace", CHECKED)
def test_every_name_is_implemented_refused_or_expected_missing(namespace):
    missing = sorted(name for name in NAMES[namespace] if _status(namespace, name) is None)
    unexpected = [name for name in missing if name not in EXPECTED_MISSING[namespace]]
    assert not unexpected, f"numba-cuda-mlir's {namespace} names neither in cumlir nor refused: {unexpected}"
    done = sorted(set(EXPECTED_MISSING[namespace]) - set(missing))
    assert not done, f"now provided or refused, take them off EXPECTED_MISSING[{namespace!r}]: {done}"


@pytest.mark.parametrize("namespace", CHECKED)
def test_lists_hold_only_numba_cuda_mlir_names(namespace):
    assert set(EXPECTED_MISSING[namespace]) <= set(NAMES[namespace])
    assert set(refused.NUMBA_CUDA_MLIR[namespace]) <= set(NAMES[namespace])
    assert not set(EXPECTED_MISSING[namespace]) & set(refused.NUMBA_CUDA_MLIR[namespace])


@pytest.mark.parametrize(
    "namespace, name", [(namespace, name) for namespace, table in refused.NUMBA_CUDA_MLIR.items() for name in table]
)
def test_refused_name_raises_naming_it(namespace, name):
    module = importlib.import_module(f"cumlir.{namespace}")
    with pytest.raises(NotImplementedError, match=re.escape(refused.NUMBA_CUDA_MLIR[namespace][name])) as raised:
        getattr(module, name)
    assert repr(name) in str(raised.value) and namespace in str(raised.value)


def test_every_extending_name_is_implemented_or_refused():
    from cumlir import extending

    for name in NAMES["extending"]:
        if name in refused.EXTENDING:
            with pytest.raises(NotImplementedError, match=re.escape(refused.EXTENDING[name])):
                getattr(extending, name)
        else:
            assert getattr(extending, name) is not None, name


def test_stored_names_cover_each_namespace():
    assert NAMES["version"] == "0.6.0"
    for namespace in (*CHECKED, "extending"):
        names = NAMES[namespace]
        assert names == sorted(set(names)) and all(not name.startswith("_") for name in names)
    assert {"jit", "compile_mlir", "inline_ptx", "float32x4", "float4", "int32", "local_array"} <= set(NAMES["cuda"])
    assert {"consteval", "struct", "union"} <= set(NAMES["cuda.experimental"])
    assert {"mbarrier_init", "tcgen05_mma", "define"} <= set(NAMES["cuda.intrin"])


@pytest.mark.skipif(not os.environ.get("NUMBA_CUDA_MLIR_SRC"), reason="NUMBA_CUDA_MLIR_SRC (its sources) not given")
def test_stored_names_are_what_the_sources_hold():
    from tests.ncm_names import read

    assert read(os.environ["NUMBA_CUDA_MLIR_SRC"]) == NAMES


def test_numba_cudas_intrinsic_modules_import_from_its_module_tree():
    # numba-cuda-mlir keeps Numba-CUDA's tree as numba_cuda_mlir.numba_cuda: bf16 and fp16 are there
    import cumlir.numba_cuda.fp16 as fp16

    from cumlir import cuda
    from cumlir.numba_cuda import bf16

    assert bf16 is cuda.bf16 and fp16 is cuda.fp16
    assert callable(bf16.htrunc) and callable(fp16.hadd)
    with pytest.raises(ImportError, match="cumlir.numba_cuda.no_such_namespace"):
        importlib.import_module("cumlir.numba_cuda.no_such_namespace")
