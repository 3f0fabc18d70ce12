"""``from cumlir import cuda`` must stay cheap: no numba, MLIR or driver until needed."""

from .support import python_output


def test_import_loads_no_compiler():
    out = python_output(
        "import sys; from cumlir import cuda; "
        "print(sorted(m for m in ('mlir', 'numba', 'cuda.bindings', 'llvmlite') if m in sys.modules))"
    )
    assert out == "[]"


def test_plain_import_has_no_mlir():
    assert python_output("import cumlir, sys; print('mlir' in sys.modules)") == "False"


def test_decorating_compiles_nothing():
    out = python_output(
        "import sys\n"
        "from cumlir import cuda\n"
        "@cuda.jit\n"
        "def k(a):\n"
        "    a[0] = 1\n"
        "print('mlir' in sys.modules, 'numba' in sys.modules)"
    )
    assert out == "False False"
