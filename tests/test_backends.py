"""The code generators behind one interface (codegen/backend.py), found by name from the
registry (cumlir/backends.py): a new one is a package defining ``BACKEND`` and one line of
the registry, as the toy one here shows, and the registered ones keep what the interface
says of them."""

import re

import pytest

from cumlir import backends, compiler, cuda
from cumlir.codegen import backend_for, get_backend
from cumlir.codegen.backend import Backend
from cumlir.codegen.passes.pipeline import llvm_ir_of
from cumlir.codegen.targets import CODE_FORMATS
from cumlir.options import Options
from cumlir.typing.signatures import parse_signature

TOY = "llvm-ir"


class LlvmIrBackend(Backend):
    """A toy code generator: its "PTX" is the LLVM IR MLIR translates the module to."""

    name = TOY
    formats = ("ptx",)

    def code(self, module, cc, options, code_format):
        return self.llvm_ir(module, cc, options)

    def llvm_ir(self, module, cc, options):
        return f"; {self.name} for sm_{cc[0]}{cc[1]}\n{llvm_ir_of(module)}"


BACKEND = LlvmIrBackend()  # what the registry's line names: this module


@pytest.fixture
def toy(monkeypatch):
    """The toy code generator, registered for one test (the line a new one adds)."""
    monkeypatch.setitem(backends.REGISTRY, TOY, backends.Registration(__name__))
    return TOY


def axpy(a, x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = a * x[i] + y[i]


SIG = "void(float32, float32[::1], float32[::1])"


def test_a_registered_toy_compiles_a_kernel(toy):
    code, _ = cuda.compile_ptx(axpy, SIG, cc=(9, 0), backend=toy)
    assert code.startswith("; llvm-ir for sm_90\n")
    assert re.search(r"define ptx_kernel void @\w*axpy\w*\(float", code)
    assert "fmul contract float" in code and "fadd contract float" in code
    # the same through @cuda.jit and the compiler's stages
    assert cuda.jit(backend=toy)(axpy).inspect_ptx(SIG, cc=(9, 0)) == code
    c = compiler.kernel(axpy, parse_signature(SIG)[0], (9, 0), Options(backend=toy))
    assert c.done == "codegen" and c.code == code and get_backend(toy) is BACKEND


def test_an_unregistered_backend_is_refused():
    with pytest.raises(ValueError, match=f"unknown backend 'llvm-ir'; choose one of {', '.join(backends.REGISTRY)}$"):
        Options(backend=TOY)
    with pytest.raises(ValueError, match="unknown backend"):
        cuda.jit(backend=TOY)


def test_ltoir_comes_from_a_code_generator_that_makes_it(toy):
    assert backend_for(toy, "ptx") is BACKEND
    assert backend_for(toy, "ltoir") is get_backend("nvvm") is backend_for("nvptx", "ltoir")
    ltoir, _ = cuda.compile(axpy, SIG, device=False, abi="numba", cc=(9, 0), output="ltoir", backend=toy)
    assert isinstance(ltoir, bytes) and ltoir


def test_each_registered_backend_is_found_by_its_name(backend):
    found = get_backend(backend)
    assert isinstance(found, Backend) and found.name == backend
    assert found.formats and set(found.formats) <= set(CODE_FORMATS)


@pytest.mark.parametrize("cc", [(9, 0), (10, 0)], ids=["sm_90", "sm_100"])
def test_keeps_line_tables_says_whether_lineinfo_gives_them(backend, cc):
    ptx, _ = cuda.compile_ptx(axpy, SIG, cc=cc, backend=backend, lineinfo=True)
    assert get_backend(backend).keeps_line_tables(cc) == (".loc" in ptx)
