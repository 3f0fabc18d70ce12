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


# What the public namespace and decorating load, listed so that an import added at these
# lazy seams is a decision: add it here and say why in docs/architecture.md ("Import cost").
NAMESPACE_MODULES = [
    "cumlir",
    "cumlir.cuda",
    "cumlir.cuda.arrays",
    "cumlir.cuda.compile_api",
    "cumlir.cuda.decorators",
    "cumlir.cuda.device_api",
    "cumlir.cuda.foreign",
    "cumlir.cuda.reduce_api",
    "cumlir.cuda.stream_api",
    "cumlir.cuda.ufunc_api",
    "cumlir.lazy",  # the lazy-module proxy pickling names numba's cloudpickle with: no import
    "cumlir.linkable",
    "cumlir.pickling",  # how ufuncs and reductions pickle their function: two standard modules
    "cumlir.refused",
    "cumlir.ufunc_geometry",
]
DECORATING_ADDS = [
    "cumlir.backends",
    "cumlir.chips",
    "cumlir.dispatcher",
    "cumlir.dispatcher.config_keys",
    "cumlir.dispatcher.device_code",  # a device function's code: the compiler is imported when asked
    "cumlir.dispatcher.handlers",
    "cumlir.dispatcher.made_once",
    "cumlir.dispatcher.surface",
    "cumlir.launch_needs",
    "cumlir.option_help",  # the keywords' lines: one dict
    "cumlir.options",
    "cumlir.simulation",
]
# of the project's dependencies, the namespace loads NumPy alone (its arrays are everywhere in the API)
DEPENDENCIES = ("numpy", "numba", "llvmlite", "mlir", "llvm", "cuda", "platformdirs", "filelock")


def test_the_namespace_and_decorating_load_only_these_modules():
    out = python_output(
        "import sys\n"
        "def ours(): return sorted(m for m in sys.modules if m.startswith('cumlir'))\n"
        "from cumlir import cuda\n"
        "namespace = ours()\n"
        "@cuda.jit\n"
        "def k(a):\n"
        "    a[0] = 1\n"
        f"loaded = sorted({{m.split('.')[0] for m in sys.modules}} & set({DEPENDENCIES!r}))\n"
        "print(namespace, sorted(set(ours()) - set(namespace)), loaded, sep='\\n')"
    )
    namespace, decorating, dependencies = out.splitlines()
    assert namespace == str(NAMESPACE_MODULES)
    assert decorating == str(DECORATING_ADDS)
    assert dependencies == "['numpy']"


def test_the_package_reaches_its_namespace_as_an_attribute():
    # numba-cuda-mlir's and numba's programs write `import pkg` then `pkg.cuda.jit`
    out = python_output(
        "import sys, cumlir; before = 'cumlir.cuda' in sys.modules; print(before, cumlir.cuda.jit.__module__)"
    )
    assert out == "False cumlir.cuda.decorators"


def test_the_implicit_copy_warning_loads_no_numba():
    # a process whose kernels all come from the disk cache never loads numba; warning of a
    # NumPy argument's copy must not load it either
    out = python_output(
        "import sys, warnings\n"
        "from cumlir.runtime.implicit_copies import warn_of_the_copy\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    warn_of_the_copy()\n"
        "print('numba' in sys.modules, caught[0].category.__name__)"
    )
    assert out == "False ImplicitCopyWarning"
