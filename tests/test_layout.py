"""The layout docs/architecture.md describes, held by checks: every operation module has its
tests, the import contracts name every domain and every code generator the registries hold,
no module grows past 600 lines, and imports inside functions stay few, each with its reason."""

import ast
from pathlib import Path

import pytest

import cumlir.operations
from cumlir import backends

tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "cumlir"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LARGEST = 600  # lines
INNER_IMPORTS = 20  # imports inside functions, outside the lazy seams cuda/ and dispatcher/


def _contract(start):
    contracts = PYPROJECT["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["name"].startswith(start))


def _domains():
    return sorted(p.name for p in (SRC / "operations").iterdir() if (p / "__init__.py").exists() and p.name[0] != "_")


def test_every_operation_module_has_its_test_file():
    missing = []
    for module in cumlir.operations.modules():
        domain, name = module.__name__.split(".")[-2:]
        if not (ROOT / "tests" / "operations" / domain / f"test_{name}.py").exists():
            missing.append(f"tests/operations/{domain}/test_{name}.py")
    assert not missing, f"operation modules without their test file: {missing}"
    assert len(cumlir.operations.modules()) > 40


def test_the_forbidden_contract_names_every_domain():
    forbidden = _contract("The compiler reads the operations")["forbidden_modules"]
    assert sorted(m.removeprefix("cumlir.operations.") for m in forbidden) == _domains()


def test_the_code_generation_contract_names_every_registered_code_generator():
    layers = _contract("Code generation:")["layers"]
    assert sorted(layers[0].split(" | ")) == sorted(backends.REGISTRY)
    for name, entry in backends.REGISTRY.items():
        assert entry.package == f"cumlir.codegen.{name}"


def test_no_module_is_longer_than_600_lines():
    long = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py") if (n := len(p.read_text().splitlines())) > LARGEST}
    assert not long, f"modules over {LARGEST} lines: {long}"


def _imports_inside_functions(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    yield inner.lineno


def test_imports_inside_functions_are_few_and_say_why():
    lines = []
    for path in SRC.rglob("*.py"):
        if path.relative_to(SRC).parts[0] in ("cuda", "dispatcher"):
            continue
        text = path.read_text().splitlines()
        for lineno in _imports_inside_functions(path):
            said = "#" in text[lineno - 1] or text[lineno - 2].strip().startswith("#")
            lines.append((f"{path.relative_to(SRC)}:{lineno}", said))
    assert len(lines) <= INNER_IMPORTS, f"{len(lines)} imports inside functions: {[where for where, _ in lines]}"
    unsaid = [where for where, said in lines if not said]
    assert not unsaid, f"imports inside functions that do not say why they wait: {unsaid}"
