"""Signature strings are parsed, never evaluated: the grammar numba's signatures use gives
the types numba's ``eval`` gives, over every signature string of the project (its sources,
tests, examples, benchmarks and docs) and those of signature_corpus.txt (numba-cuda's
documented ones, each form of the grammar, those the test suite builds); anything outside
it (calls of builtins, attributes, lambdas, comprehensions, format strings) is a TypeError
naming the signature, and runs nothing."""

import ast
import os
import re
import sys

import pytest

pytest.importorskip("numba")

from numba.core import sigutils, types  # noqa: E402

from cumlir import cuda  # noqa: E402
from cumlir import types as cumlir_types  # noqa: E402
from cumlir.operations.cuda.vectors import constructors  # noqa: E402
from cumlir.typing.signature_text import read_signature, signature_names  # noqa: E402
from cumlir.typing.signatures import parse_signature  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "signature_corpus.txt")


# ---- the way signatures were read before: numba's eval, kept here to compare with --------------


def _evaluated_names():
    names = {}
    for name, stub in constructors.items():
        for spelling in (name, *stub.aliases):
            names[spelling] = cumlir_types.vector_types[name]
    names.update(types.__dict__)
    names.update(bfloat16=cumlir_types.bfloat16, complex32=cumlir_types.complex32, tf32=cumlir_types.tf32)
    names.update(tensor_map=cumlir_types.tensor_map)
    names.update((t.name, t) for t in cumlir_types.narrow_floats.values())
    names.update(cumlir_types.narrow_floats)
    return names


_EVALUATED_NAMES = _evaluated_names()


def _evaluated(sig):
    """parse_signature as it was: eval in numba's namespace with cumlir's types."""
    try:
        parsed = eval(sig, {}, _EVALUATED_NAMES)
        argtypes, return_type = sigutils.normalize_signature(parsed)
    except (NameError, SyntaxError, TypeError, AttributeError) as e:
        raise TypeError(f"cannot read the signature {sig!r}: {e}") from None
    return tuple(argtypes), return_type


# ---- the corpus: every string of the project that may be a signature ---------------------------

_LOOKS = re.compile(r"^[\w\s\[\]:,().'\"=]*\([\w\s\[\]:,().'\"=]*\)\s*$")
# names whose evaluation is harmless: numba's types and classes of types, cumlir's types
_HARMLESS = {k for k, v in _EVALUATED_NAMES.items() if isinstance(v, types.Type)} | {
    k for k, v in vars(types).items() if isinstance(v, type) and issubclass(v, types.Type)
}


_QUOTED = re.compile(r"[\"'`]([^\"'`\n]+)[\"'`]")  # a quoted span of a line of text


def _strings_in_sources():
    """The string constants of the project's Python files and the quoted text of its docs
    (not this file's: it holds what is refused on purpose)."""
    paths = [os.path.join(ROOT, "README.md")]
    for folder in ("src", "tests", "examples", "benchmarks", "docs"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            paths += [os.path.join(dirpath, name) for name in files if name.endswith((".py", ".md"))]
    for path in paths:
        if os.path.samefile(path, __file__):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if path.endswith(".py"):
            yield from (n.value for n in ast.walk(ast.parse(text)) if _is_text(n))
        else:
            yield from _QUOTED.findall(text)


def _is_text(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _recorded():
    """The strings of signature_corpus.txt, one Python literal a line: those no scan of the
    sources sees (numba-cuda's, the grammar's forms, those tests build with f-strings)."""
    with open(RECORDED, encoding="utf-8") as f:
        return [ast.literal_eval(line) for line in f if line.strip() and not line.startswith("#")]


def _safe_to_evaluate(text):
    """Whether *text* names only numba's and cumlir's types and classes of types and reaches
    no attribute: what the old path may evaluate in a test without running anything else."""
    try:
        tree = ast.parse(text.lstrip(" \t"), mode="eval")
    except SyntaxError:
        return False
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return bool(names) and names <= _HARMLESS and not any(isinstance(n, ast.Attribute) for n in ast.walk(tree))


def _corpus():
    found = {s for s in _strings_in_sources() if _LOOKS.match(s) and len(s) < 2000} | set(_recorded())
    return sorted(s for s in found if _safe_to_evaluate(s))


CORPUS = _corpus()


def test_the_corpus_covers_the_grammar():
    assert len(CORPUS) > 350
    assert set(_recorded()) <= set(CORPUS)  # none of the file is skipped as unsafe to evaluate
    needles = ["[:, ::1]", "[::1, :]", "[:, :]", "[:,:,:]", "UniTuple(", "Tuple((", "Tuple([", "CPointer(", "Optional("]
    needles += ["optional(", "FunctionType(", "NPDatetime(", "readonly=True", "layout=", "float4", "float32x4", "f4"]
    needles += ["intp", "bfloat16", "void()", "\n"]
    for needle in needles:
        assert any(needle in s for s in CORPUS), needle
    assert any(s.startswith("(") for s in CORPUS)  # argument types alone


def _outcome(read, sig):
    """(the types read, None) or (None, the exception)."""
    try:
        argtypes, return_type = read(sig)
    except Exception as e:  # the old path let numba's KeyError and ValueError through
        return None, e
    return (tuple(argtypes), return_type), None


def _same(sig, old, new):
    if old[1] is not None:  # refused before: refused now, by a TypeError naming the signature
        return isinstance(new[1], TypeError) and str(new[1]).startswith(f"cannot read the signature {sig!r}")
    if new[1] is not None:
        return False
    (old_args, old_result), (new_args, new_result) = old[0], new[0]
    pairs = list(zip((*old_args, old_result), (*new_args, new_result)))
    return len(old_args) == len(new_args) and all(type(a) is type(b) and a == b and str(a) == str(b) for a, b in pairs)


def test_every_signature_of_the_corpus_reads_as_numbas_eval_read_it():
    differ = []
    for sig in CORPUS:
        old, new = _outcome(_evaluated, sig), _outcome(parse_signature, sig)
        if not _same(sig, old, new):
            differ.append((sig, old, new))
    assert differ == []


# ---- the grammar -------------------------------------------------------------------------------

f4, i8 = types.float32, types.int64


def _array(dtype, ndim, layout, **kw):
    return types.Array(dtype, ndim, layout, **kw)


@pytest.mark.parametrize(
    "text,argtypes,result",
    [
        ("void(float32[:], int64)", (_array(f4, 1, "A"), i8), types.none),
        ("float32(float32, float32)", (f4, f4), f4),
        ("void(float32[::1], float32[:, ::1], float32[::1, :], float32[:, :])", None, types.none),
        ("void(f4, i8, intp, b1, c8, u1)", (f4, i8, types.intp, types.boolean, types.complex64, types.uint8), None),
        ("none(bool)", (types.boolean,), types.none),
        ("(int32,)", (types.int32,), None),
        ("()", (), None),
        ("  void()", (), types.none),  # leading blanks, as eval allows
        ("void(UniTuple(int64, 2), Tuple((int64, float32)), Tuple([f4, f4]))", None, types.none),
        ("void(Array(float32, 2, 'F'), Array(float32, 1, 'C', readonly=True))", None, types.none),
        ("void(CPointer(float32), voidptr, Optional(int64), optional(f4))", None, types.none),
        ("float32[:](float32[:, :])", (_array(f4, 2, "A"),), _array(f4, 1, "A")),
        ("void(float4, float32x4[::1], int2, ulonglong3, bfloat16)", None, types.none),
        ("UniTuple(float32, 2)(float32)", (f4,), types.UniTuple(f4, 2)),
    ],
)
def test_the_grammar(text, argtypes, result):
    got = parse_signature(text)
    assert got == _evaluated(text)
    if argtypes is not None:
        assert got[0] == argtypes
    if result is not None:
        assert got[1] == result


def test_layouts_are_numbas():
    layouts = {s: parse_signature(f"void({s})")[0][0].layout for s in ("f4[:]", "f4[::1]", "f4[:, ::1]", "f4[::1, :]")}
    assert layouts == {"f4[:]": "A", "f4[::1]": "C", "f4[:, ::1]": "C", "f4[::1, :]": "F"}
    assert parse_signature("void(f4[:, :, :])")[0][0].ndim == 3


def _type_names():
    """Every name of a type a signature may use, numba's aliases (f4, i8, intp, b1, c8 ...)
    and cumlir's (bfloat16, float32x4, float4 ...) included."""
    return sorted(k for k, v in signature_names().items() if isinstance(v, types.Type))


def test_every_type_name_reads_as_numbas_eval_read_it():
    differ = []
    for name in _type_names():
        texts = [f"void({name})", f"({name},)", f"{name}()"]
        if isinstance(signature_names()[name], (types.Number, types.Boolean)) or name in cumlir_types.vector_types:
            texts += [f"void({name}[:], {name}[:, ::1], {name}[::1, :])", f"{name}({name}, {name})"]
        for sig in texts:
            old, new = _outcome(_evaluated, sig), _outcome(parse_signature, sig)
            if not _same(sig, old, new):
                differ.append((sig, old, new))
    assert differ == []
    assert {"f4", "i8", "u1", "b1", "c8", "intp", "uintp", "float16", "bool_", "boolean", "void", "none"} <= set(
        _type_names()
    )
    assert {"bfloat16", "complex32", "float32x4", "float4", "int2", "uchar4", "double2"} <= set(_type_names())


def test_an_unknown_name_is_said_as_before():
    for sig in ("void(foo)", "void(float32[:], flot32)", "foo(int32)", "(int32, Foo)"):
        with pytest.raises(TypeError) as before:
            _evaluated(sig)
        with pytest.raises(TypeError) as now:
            parse_signature(sig)
        assert str(now.value) == str(before.value)
    assert str(now.value) == "cannot read the signature '(int32, Foo)': name 'Foo' is not defined"


def test_vector_types_go_by_both_their_names():
    assert parse_signature("void(float4, float32x4)")[0] == (cumlir_types.vector_types["float32x4"],) * 2
    assert signature_names()["bfloat16"] is cumlir_types.bfloat16


@pytest.mark.parametrize(
    "text",
    [
        "void(flot32[:])",  # an unknown name
        "int32",  # a type, not a signature
        "[int32]",
        "void(float32[1:])",  # bounds
        "void(float32[0])",
        "void(float32[()])",
        "void(Tuple(int64, int32))",  # Tuple takes one iterable
        "void(Array(float32, 1, 'Q'))",  # numba's own check of the layout
        "void(Array(float32, 1, 'C', name='x'))",  # a keyword Array does not take here
        "void(x=float32)",
        "void(*float32)",
        "void(int32, 5)",
        "void(float32",  # not Python
        "",
        "void(Record([], 0))",  # records come as types (numba.from_dtype), not as text
        "void(" + "f4[:]" * 2000 + ")",
        "f4" + "[:]" * 100_000,
        "(" * 500 + ")" * 500,
    ],
)
def test_what_is_not_a_signature_is_a_type_error_naming_it(text):
    with pytest.raises(TypeError) as refused:
        parse_signature(text)
    assert str(refused.value).startswith(f"cannot read the signature {text!r}")


@pytest.mark.parametrize(
    "text",
    [
        "(" * 40 + "int32" + ")" * 40,
        "void(" + "Tuple((" * 40 + "f4" + ",))" * 40 + ")",
        "void(f4" + "[:]" * 40 + ")",  # nested without nested brackets
        "void(" + "+".join(["f4"] * 20_000) + ")",  # a chain Python's parser cannot build
        "-" * 90_000 + "f4",
        "f4" + "[:]" * 30_000,
    ],
)
def test_deep_nesting_is_refused_not_a_recursion_error(text):
    with pytest.raises(TypeError, match="nested deeper than 32"):
        parse_signature(text)


@pytest.mark.parametrize("array", ["float32[1:]", "float32[:1]", "float32[:, 1]", "float32[2]", "float32[1:2:1]"])
def test_an_array_with_bounds_says_how_arrays_are_written(array):
    """numba's Type.__getitem__ raised a bare KeyError for these; the entry points say which
    signature, and how an array type is written."""

    def scale(x):
        x[0] *= 2

    sig = f"void({array})"
    expected = (
        f"cannot read the signature {sig!r}: {array!r} is not an array type: array types are written "
        "with empty slices, one a dimension: float32[:] (any layout), float32[:, ::1] (C order), "
        "float32[::1, :] (Fortran order)"
    )
    with pytest.raises(TypeError) as compiling:
        cuda.compile_ptx(scale, sig, cc=(9, 0))
    with pytest.raises(TypeError) as jitting:
        cuda.jit(sig)(scale)
    assert str(compiling.value) == str(jitting.value) == expected
    with pytest.raises(KeyError):  # what numba's eval gave
        _evaluated(sig)


# ---- malicious text runs nothing ---------------------------------------------------------------


def _malicious(marker):
    touch = f"open({str(marker)!r}, 'w')"
    return [
        f"__import__('os').system('touch {marker}')",
        f"__import__('pathlib').Path({str(marker)!r}).touch()",
        touch,
        f"void({touch})",
        f"void(float32[{touch}:])",
        f"void(float32[::{touch}])",
        f"Array(float32, 1, {touch})",
        f"UniTuple(float32, {touch})",
        f"Array(float32, 1, 'C', readonly={touch})",
        f"float32.__class__.__init__.__globals__['__builtins__']['open']({str(marker)!r}, 'w')",
        f"().__class__.__bases__[0].__subclasses__()[0]({touch})",
        "float32.__class__",
        "np.frombuffer",
        f"(lambda: {touch})()",
        f"[{touch} for _ in (1,)]",
        f"{{{touch} for _ in (1,)}}",
        f"void(*[{touch}])",
        f"(x := {touch})",
        f"f'{{{touch}}}'",
        f"void(float32) if {touch} else void()",
        f"void(float32)[{touch}]",
        "exit()",
        "breakpoint()",
        "input()",
        "void(float32); import os",
        # format tricks: a format string reaches attributes of what it formats
        "'{0.__class__.__init__.__globals__}'.format(float32)",
        "'%s' % float32",
        "Array(float32, 1, '{0.__class__}')",
        "Array(float32, 1, 'C', readonly=float32.__class__)",
        "NPDatetime('{0.__init__.__globals__}')",
        "void(float32[:]).__format__('')",
        "void(__builtins__)",
        "void(__import__)",
        "void(eval)",
    ]


def test_malicious_text_is_refused_and_runs_nothing(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    calls = []
    monkeypatch.setattr(sys, "breakpointhook", lambda *a: calls.append(a))
    monkeypatch.setattr("builtins.input", lambda *a: calls.append(a))
    for text in _malicious(marker):
        with pytest.raises(TypeError, match="cannot read the signature"):
            parse_signature(text)
        with pytest.raises(TypeError):
            read_signature(text)
    assert not marker.exists() and calls == []


@pytest.mark.parametrize(
    "text,refused",
    [
        ("__import__('os').system('touch X')", "\"__import__('os').system\" is not part of a signature"),
        ("float32.__class__", "'float32.__class__' is not part of a signature"),
        ("(lambda: float32)()", "'lambda: float32' is not part of a signature"),
        ("[f4 for f4 in ()]", "'[f4 for f4 in ()]' is not part of a signature"),
        ("f'{float32}'", "\"f'{float32}'\" is not part of a signature"),
        ("'{0.__class__}'.format(float32)", "\"'{0.__class__}'.format\" is not part of a signature"),
        ("void(__import__)", "name '__import__' is not defined"),
        ("void(*[float32])", "'void(*[float32])': * and ** are not part of a signature"),
        ("void(float32)[0]", "'void(float32)' is not a type"),
        (
            "Array(float32, 1, '{0.__class__}')",
            "\"Array(float32, 1, '{0.__class__}')\": Invalid layout '{0.__class__}'",
        ),
        ("x" * 100_001, "longer than 100000 characters"),
    ],
)
def test_the_refusal_names_what_was_refused(text, refused):
    with pytest.raises(TypeError) as caught:
        parse_signature(text)
    assert str(caught.value) == f"cannot read the signature {text!r}: {refused}"


def test_the_entry_points_refuse_it_too(tmp_path):
    marker = tmp_path / "ran"
    text = f"__import__('os').system('touch {marker}')"

    def scale(x):
        return x * 2

    with pytest.raises(TypeError, match="cannot read the signature"):
        cuda.jit(text)(scale)
    with pytest.raises(TypeError, match="cannot read the signature"):
        cuda.declare_device("f", text)
    with pytest.raises(TypeError, match="cannot read the ufunc signature"):
        cuda.vectorize([text])(scale)
    with pytest.raises(TypeError, match="cannot read the signature"):
        cuda.compile_ptx(scale, text, device=True)
    assert not marker.exists()
