"""What a newcomer looks for in the repository: the license pyproject names, the changelog,
the contributing guide, an index of every documentation page, the project's addresses, and a
quick start whose two commands are what CI runs."""

import re
import subprocess
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_license_is_the_apache_text_pyproject_names():
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text


def test_the_changelog_and_contributing_guide_exist():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert changelog.startswith("# Changelog") and f"## {PYPROJECT['project']['version']}" in changelog
    contributing = (ROOT / "CONTRIBUTING.md").read_text()
    for section in ("## Setting up", "## The checks and the test tiers", "## Reporting a bug"):
        assert section in contributing
    assert "-m gpu" in contributing and "CUMLIR_BACKEND=nvvm" in contributing and "cumlir --version" in contributing


def test_the_docs_index_lists_every_page():
    index = (ROOT / "docs" / "README.md").read_text()
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    assert pages - linked == set(), "pages docs/README.md does not list"
    assert linked - pages == set(), "pages docs/README.md lists that do not exist"
    assert "docs/README.md" in (ROOT / "README.md").read_text()


def test_the_project_names_its_addresses():
    urls = PYPROJECT["project"]["urls"]
    assert {"Homepage", "Documentation", "Changelog", "Issues"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())


def test_the_quick_start_has_the_two_commands_ci_runs():
    """.ci/run reads the commands from the README (the fenced blocks under "Quick start")."""
    script = (
        'awk \'/^## /{section=$0} section=="## Quick start" && /^```/{inside=!inside; next} '
        'inside && section=="## Quick start"\' README.md'
    )
    commands = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    demo, tests = commands.stdout.strip().splitlines()
    assert demo == "python3 -m pip install . && python3 examples/vector_add.py"
    assert tests.startswith('python3 -m pip install -q -e ".[test]" && ') and tests.endswith(
        "python3 -m pytest -q -n auto"
    )
    assert 'awk \'/^## /{section=$0} section=="## Quick start"' in (ROOT / ".ci" / "run").read_text()


def test_each_extra_the_readme_names_exists():
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    named = set(re.findall(r"`\[([\w-]+)\]`", (ROOT / "README.md").read_text()))
    assert named == extras - {"test"}
