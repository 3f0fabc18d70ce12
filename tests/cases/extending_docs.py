"""The code of docs/extending.md, executed once per process: its blocks, in order, in one namespace."""

import pathlib
import re

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "extending.md"

_namespace = None


def code_blocks():
    return re.findall(r"^```python\n(.*?)^```", DOCS.read_text(), flags=re.S | re.M)


def namespace():
    global _namespace
    if _namespace is None:
        ns = {"__name__": "extending_docs"}
        for i, block in enumerate(code_blocks()):
            exec(compile(block, f"{DOCS}:block{i + 1}", "exec"), ns)
        _namespace = ns
    return _namespace
