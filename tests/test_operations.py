"""Operation modules: a new operation is one module of cumlir/operations.

The example module of docs/architecture.md ("Adding an operation") is written to a
temporary folder on the package's path, found like any module, and compiled to PTX; the
page's list of operation modules is checked against the package, and every module is
imported without numba or MLIR.
"""

import itertools
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.errors import TypingError

import cumlir.operations
from cumlir import cuda
from cumlir.extending import nvvm_ops

from . import support

DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
AREA = "doc_example_area"  # the module name the example is found under


def _example_source():
    text = DOC.read_text()
    after = text[text.index("is the file `src/cumlir/operations/cuda/example.py`:") :]
    return re.search(r"```python\n(.*?)```", after, re.S).group(1)


@pytest.fixture(scope="module")
def area_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("areas")
    (folder / f"{AREA}.py").write_text(_example_source())
    return folder


@pytest.fixture
def example_area(area_folder, monkeypatch):
    domain = cumlir.operations.cuda
    monkeypatch.setattr(domain, "__path__", [*domain.__path__, str(area_folder)])
    return area_folder


def _bit_reverse_kernel(a, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.example_intrinsic(a[i])


def test_the_documented_area_compiles_to_ptx(example_area):
    for name, instruction in (("int32", "brev.b32"), ("uint64", "brev.b64")):
        ptx, _ = cuda.compile_ptx(_bit_reverse_kernel, f"void({name}[:], {name}[:])", cc=(9, 0))
        assert instruction in ptx
        support.ptxas(ptx)


def test_the_documented_area_types_and_behaves_as_a_stub(example_area):
    def on_floats(a, out):
        out[0] = cuda.example_intrinsic(a[0])

    with pytest.raises(TypingError, match="cuda.example_intrinsic needs a 32- or 64-bit integer, got float32"):
        cuda.compile_ptx(on_floats, "void(float32[:], float32[:])", cc=(9, 0))
    stub = cuda.example_intrinsic
    assert stub is sys.modules[f"cumlir.operations.cuda.{AREA}"].example_intrinsic
    with pytest.raises(RuntimeError, match="cuda.example_intrinsic can only be used inside"):
        stub(1)
    assert pickle.loads(pickle.dumps(stub)) is stub


def test_the_documented_list_of_modules_is_the_package_s():
    section = DOC.read_text().split("### The operation modules", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+/\w+)\.py` \|", section, re.M)
    groups = [(domain, list(names)) for domain, names in itertools.groupby(listed, lambda n: n.split("/")[0])]
    assert len({domain for domain, _ in groups}) == len(groups), "keep each domain's modules together"
    assert all(names == sorted(names) for _, names in groups), "keep each domain's modules sorted"
    assert set(listed) == {"/".join(m.__name__.split(".")[-2:]) for m in cumlir.operations.modules()}


def test_no_operation_module_loads_numba_or_mlir():
    code = (
        "import sys, cumlir.operations as operations\n"
        "names = [m.__name__ for m in operations.modules()]\n"
        "print(len(names) > 20, sorted(m for m in ('mlir', 'numba', 'cuda.bindings') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True []"


def test_an_area_loads_neither_numba_nor_mlir(area_folder):
    code = (
        "import sys, cumlir.operations as areas, cumlir.operations.cuda as domain\n"
        f"domain.__path__.append({str(area_folder)!r})\n"
        "from cumlir import cuda\n"
        "print(cuda.example_intrinsic, len(areas.modules()) > 1, "
        "sorted(m for m in ('mlir', 'numba', 'cuda.bindings') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "<cumlir.cuda.example_intrinsic> True []"


def test_cuda_namespace_gives_every_stub_and_no_stub_hides_a_function():
    names = cumlir.operations.cuda_names()
    for name, stub in names.items():
        assert getattr(cuda, name) is stub, f"cuda.{name} is not the intrinsic stub"
    assert set(names) <= set(cuda.__all__) and set(names) <= set(dir(cuda))
    namespace = {}
    exec("from cumlir.cuda import *", namespace)
    assert namespace["syncthreads"] is names["syncthreads"] and namespace["jit"] is cuda.jit


def test_every_cuda_stub_pickles_by_name():
    names = cumlir.operations.cuda_names()
    assert {"threadIdx", "grid", "gridsize", "syncthreads", "shared", "local", "const", "carray", "farray"} <= set(
        names
    )
    for stub in [*names.values(), cuda.shared.array, cuda.local.array, cuda.const.array_like]:
        assert pickle.loads(pickle.dumps(stub)) is stub


def test_register_attributes_raise_on_the_host():
    with pytest.raises(RuntimeError, match=r"cuda.blockIdx.y can only be read inside"):
        cuda.blockIdx.y
    with pytest.raises(AttributeError):
        cuda.blockIdx.w


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="unknown table 'registers'"):
        nvvm_ops(registers={"nvvm.x": "llvm.x"})
    with pytest.raises(ValueError, match="declared as both"):
        nvvm_ops(nullary={"nvvm.barrier0": "llvm.nvvm.barrier0.other"})
    with pytest.raises(ValueError, match="declared twice"):
        cuda.shared.function("array")
    with pytest.raises(ValueError, match="declare its typing"):
        cuda.threadIdx.lower_attribute("w")(lambda lower, attr: None)
