"""The code of every compilation a test run makes (a pytest plugin), for checking that a
change of the compiler's structure leaves the generated code byte for byte as it was.

Loaded with ``-p tests.code_record`` while ``CUMLIR_CODE_RECORD`` names a folder, it
writes one line per compiled module: the code format, the SHA-256 of the PTX or LTO-IR,
the entry's symbol and the chip, into ``<folder>/<pid>.txt``, and the PTX itself into
``<folder>/code/<digest>.ptx``. The checkout's own path is replaced by ``<root>`` first, so
that line tables of two checkouts compare. Two runs are compared as sets of lines with
``python -m tests.code_record BEFORE AFTER``.
"""

import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _record(path, compilation):
    code = compilation.code
    if code is None:
        return
    data = code.encode() if isinstance(code, str) else bytes(code)
    data = data.replace(ROOT.encode(), b"<root>")
    digest = hashlib.sha256(data).hexdigest()
    cc = "".join(map(str, compilation.cc or ()))
    with open(path, "a") as out:
        out.write(f"{compilation.code_format} {digest} {compilation.symbol} sm_{cc}\n")
    if isinstance(code, str):
        folder = os.path.join(os.path.dirname(path), "code")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{digest}.ptx"), "wb") as out:
            out.write(data)


def pytest_configure(config):
    folder = os.environ.get("CUMLIR_CODE_RECORD")
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{os.getpid()}.txt")
    from cumlir import compiler

    original = compiler.run

    def run(compilation, until):
        had_code = compilation.code is not None
        result = original(compilation, until)
        if not had_code:
            _record(path, compilation)
        return result

    compiler.run = run


def _lines(folder):
    lines = set()
    for name in os.listdir(folder):
        if not name.endswith(".txt"):
            continue
        with open(os.path.join(folder, name)) as f:
            lines.update(line.strip() for line in f if line.strip())
    return lines


def without_line_tables(ptx):
    """PTX without its line tables (``.file``, ``.loc`` and the DWARF sections), which name
    the source files and lines of the kernels: what stays when only the sources' layout moved."""
    kept = []
    for line in ptx.splitlines():
        text = line.strip()
        if text.startswith(".section") and ".debug_" in text:
            break  # the DWARF sections close the module
        if not text.startswith((".loc", ".file")):
            kept.append(line)
    return "\n".join(kept)


def without_test_modules(ptx):
    """PTX with the test module of each mangled name (``_ZN5tests10operations4cuda9test_warp...``
    or ``_ZN5tests9test_warp...``) made one placeholder: what stays when tests moved between
    modules and kernels kept their names."""
    out, start = [], 0
    for found in re.finditer(r"5tests(?=\d)", ptx):
        if found.start() < start:
            continue
        end = found.end()
        while True:
            digits = re.match(r"\d+", ptx[end:])
            if digits is None:
                break
            size = int(digits.group())
            part = ptx[end + digits.end() : end + digits.end() + size]
            end += digits.end() + size
            if part.startswith("test_") or len(part) < size:
                break
        out.append(ptx[start : found.start()] + "5tests6module")
        start = end
    out.append(ptx[start:])
    return "".join(out)


def _text(folder, line):
    digest = line.split()[1]
    path = os.path.join(folder, "code", f"{digest}.ptx")
    return open(path).read() if os.path.exists(path) else None


def main(before, after):
    old, new = _lines(before), _lines(after)
    print(f"{len(old)} distinct modules before, {len(new)} after, {len(old & new)} identical")
    stripped = {}
    for folder, lines in ((before, old - new), (after, new - old)):
        for line in lines:
            text = _text(folder, line)
            stripped.setdefault(folder, {})[line] = (
                None if text is None else without_test_modules(without_line_tables(text))
            )
    before_texts = set(stripped.get(before, {}).values()) - {None}
    after_texts = set(stripped.get(after, {}).values()) - {None}
    same_code = {line for line, text in stripped.get(after, {}).items() if text in before_texts}
    matched = {line for line, text in stripped.get(before, {}).items() if text in after_texts}
    print(f"{len(same_code)} after differ from one before only in their line tables or test modules' names")
    for line in sorted(old - new - matched):
        print("only before:", line)
    for line in sorted(new - old - same_code):
        print("only after: ", line)
    return 0 if not (old - new - matched) and not (new - old - same_code) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
