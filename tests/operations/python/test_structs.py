"""C structs and unions (``cuda.experimental.struct``/``union``) on the CPU: their layout against
ctypes (and GCC where it is installed), values on the host, the errors declarations and kernels
get, PTX for every kernel of tests/cases/struct_kernels.py assembled by ptxas, and those kernels
run by the simulator on random inputs against their host references, bit for bit."""

import ctypes
import pathlib
import random
import re
import shutil
import subprocess

import numpy as np
import pytest
from numba.core import errors

from cumlir import cuda, types
from cumlir.cuda.experimental import struct, union
from cumlir.typerecords.c_structs import AggregateParameter

from ... import support
from ...cases import struct_kernels as K
from ...simulator.conftest import simulating

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture
def simulated(monkeypatch):
    with simulating(monkeypatch) as simulator:
        yield simulator


# ---- layout and host values against ctypes ------------------------------------------------------

SCALARS = {
    types.boolean: ctypes.c_bool,
    types.int8: ctypes.c_int8,
    types.uint8: ctypes.c_uint8,
    types.int16: ctypes.c_int16,
    types.uint16: ctypes.c_uint16,
    types.int32: ctypes.c_int32,
    types.uint32: ctypes.c_uint32,
    types.int64: ctypes.c_int64,
    types.uint64: ctypes.c_uint64,
    types.float32: ctypes.c_float,
    types.float64: ctypes.c_double,
}
INTEGERS = [t for t in SCALARS if isinstance(t, types.Integer)]


def _random_declaration(rng, depth=0):
    """(our class, the ctypes class) of a random struct or union of scalars, C arrays, float16
    (as ctypes' uint16) and, nested, other such structs and unions."""
    fields, ctypes_fields = [], []
    for k in range(rng.randint(1, 6)):
        roll = rng.random()
        if roll < 0.15 and depth < 2:
            ours, theirs = _random_declaration(rng, depth + 1)
        elif roll < 0.25:
            ours, theirs = types.float16, ctypes.c_uint16
        else:
            ours, theirs = rng.choice(list(SCALARS.items()))
        if rng.random() < 0.2 and not hasattr(ours, "_type"):  # C arrays of structs: test_arrays_of_structs
            count = rng.randint(1, 4)
            ours = types.UniTuple(getattr(ours, "_type", ours), count)
            theirs = theirs * count
        fields.append((f"f{k}", ours))
        ctypes_fields.append((f"f{k}", theirs))
    is_union = rng.random() < 0.3
    base = ctypes.Union if is_union else ctypes.Structure
    return (union if is_union else struct)(fields), type("C", (base,), {"_fields_": ctypes_fields})


def _random_value(ty, rng):
    if isinstance(ty, types.Boolean):
        return bool(rng.getrandbits(1))
    if isinstance(ty, types.Integer):
        return (
            rng.randrange(-(2 ** (ty.bitwidth - 1)), 2 ** (ty.bitwidth - 1))
            if ty.signed
            else rng.getrandbits(ty.bitwidth)
        )
    if isinstance(ty, types.Float):
        return float(np.float16(rng.gauss(0, 10)))  # exact in every float type
    if isinstance(ty, types.UniTuple):
        return tuple(_random_value(ty.dtype, rng) for _ in range(ty.count))
    return None  # a struct or union: filled field by field


def _fill(ours, theirs, rng):
    """Give each field of a struct (each of a union: the last one given wins in both) random values."""
    for name, ty, _ in ours._type.fields:
        value = _random_value(ty, rng)
        if value is None:
            _fill(getattr(ours, name), getattr(theirs, name), rng)
            continue
        setattr(ours, name, value)
        if ty == types.float16:
            setattr(theirs, name, int(np.float16(value).view(np.uint16)))
        elif isinstance(ty, types.UniTuple) and ty.dtype == types.float16:
            setattr(theirs, name, type(getattr(theirs, name))(*np.array(value, np.float16).view(np.uint16).tolist()))
        elif isinstance(ty, types.UniTuple):
            setattr(theirs, name, type(getattr(theirs, name))(*value))
        else:
            setattr(theirs, name, value)


@pytest.mark.parametrize("seed", range(40))
def test_layout_and_bytes_match_ctypes(seed):
    rng = random.Random(seed)
    ours, theirs = _random_declaration(rng)
    assert (ours.size, ours.alignment) == (ctypes.sizeof(theirs), ctypes.alignment(theirs))
    for name, _, _ in ours.fields:
        assert ours.offsetof(name) == getattr(theirs, name).offset, name
    for _ in range(3):
        value, reference = ours(), theirs()
        _fill(value, reference, rng)
        assert bytes(value) == bytes(reference)
        assert ours.from_bytes(bytes(reference)) == value


def test_arrays_of_structs():
    pair = struct([("a", types.int8), ("b", types.float64)])
    ours = struct([("n", types.int16), ("pairs", types.UniTuple(pair._type, 2)), ("m", types.int8)])
    c_pair = type("P", (ctypes.Structure,), {"_fields_": [("a", ctypes.c_int8), ("b", ctypes.c_double)]})
    theirs = type(
        "C", (ctypes.Structure,), {"_fields_": [("n", ctypes.c_int16), ("pairs", c_pair * 2), ("m", ctypes.c_int8)]}
    )
    assert (ours.size, ours.offsetof("pairs"), ours.offsetof("m")) == (ctypes.sizeof(theirs), 8, 40)
    value = ours(n=-3, pairs=(pair(1, 2.5), {"a": -1, "b": -0.5}), m=9)
    reference = theirs(-3, (c_pair * 2)(c_pair(1, 2.5), c_pair(-1, -0.5)), 9)
    assert bytes(value) == bytes(reference)
    assert value.pairs[1].b == -0.5 and value.pairs[0] == pair(1, 2.5)


@pytest.mark.parametrize("seed", range(30))
def test_bit_fields_of_one_type_match_ctypes(seed):
    """Bit fields of one integer type, as ctypes lays them out like GCC (mixed types it does
    not: test_bit_fields_match_gcc); signed ones read back sign-extended."""
    rng = random.Random(seed)
    ty = rng.choice(INTEGERS)
    widths = [rng.randint(1, ty.bitwidth) for _ in range(rng.randint(1, 6))]
    ours = struct([(f"b{k}", ty, w) for k, w in enumerate(widths)])
    theirs = type("C", (ctypes.Structure,), {"_fields_": [(f"b{k}", SCALARS[ty], w) for k, w in enumerate(widths)]})
    assert (ours.size, ours.alignment) == (ctypes.sizeof(theirs), ctypes.alignment(theirs))
    value, reference = ours(), theirs()
    for k, w in enumerate(widths):
        number = rng.getrandbits(w + 3) - (1 << (w + 2))  # beyond the field: C keeps the low bits
        setattr(value, f"b{k}", number)
        setattr(reference, f"b{k}", number)
    assert bytes(value) == bytes(reference)
    assert [getattr(value, f"b{k}") for k in range(len(widths))] == [
        getattr(reference, f"b{k}") for k in range(len(widths))
    ]


_C_NAMES = {
    types.boolean: "_Bool",
    types.int8: "signed char",
    types.uint8: "unsigned char",
    types.int16: "short",
    types.uint16: "unsigned short",
    types.int32: "int",
    types.uint32: "unsigned int",
    types.int64: "long long",
    types.uint64: "unsigned long long",
    types.float32: "float",
    types.float64: "double",
}


def _random_bit_fields(rng):
    fields = []
    for k in range(rng.randint(1, 7)):
        ty = rng.choice(list(_C_NAMES))
        if isinstance(ty, types.Float) or rng.random() < 0.25:
            fields.append((f"f{k}", ty))
            continue
        width = 1 if ty == types.boolean else ty.bitwidth
        if rng.random() < 0.15:
            fields.append((None, ty, rng.randint(0, width)))
        else:
            fields.append((f"f{k}", ty, rng.randint(1, width)))
    return fields + [("last", types.int8)]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="GCC is not installed")
def test_bit_fields_match_gcc(tmp_path):
    """Random structs mixing bit fields of every type, padding, zero widths and ordinary
    fields: each field's offset (a bit field's first bit and width), the size and the alignment
    as GCC lays them out, which NVCC follows in device code."""
    rng = random.Random(7)
    cases = [_random_bit_fields(rng) for _ in range(120)]
    source = ["#include <stdio.h>", "#include <string.h>", "#include <stddef.h>"]
    main = ["int main(void) {"]
    for i, fields in enumerate(cases):
        members = "".join(f"  {_C_NAMES[f[1]]} {f[0] or ''}{'' if len(f) == 2 else f':{f[2]}'};\n" for f in fields)
        source.append(f"struct S{i} {{\n{members}}};")
        main.append(f'  {{ struct S{i} s; printf("%zu %zu", sizeof s, _Alignof(struct S{i}));')
        for f in fields:
            if f[0] is None:
                continue
            if len(f) == 2:
                main.append(f'    printf(" %zu", offsetof(struct S{i}, {f[0]}));')
            else:  # the bit field's bits: all ones in an all-zero struct
                main.append(
                    f"    {{ memset(&s, 0, sizeof s); s.{f[0]} = -1; unsigned char *b = (unsigned char *)&s;"
                    " int lo = -1, n = 0; for (int k = 0; k < 8 * (int)sizeof s; k++)"
                    " if (b[k / 8] >> (k % 8) & 1) { if (lo < 0) lo = k; n++; }"
                    ' printf(" %d:%d", lo, n); }'
                )
        main.append('    printf("\\n"); }')
    (tmp_path / "layout.c").write_text("\n".join(source + main + ["}"]))
    subprocess.run(["gcc", "-w", "-o", str(tmp_path / "layout"), str(tmp_path / "layout.c")], check=True)
    lines = subprocess.run([str(tmp_path / "layout")], capture_output=True, text=True, check=True).stdout.splitlines()
    for fields, line in zip(cases, lines, strict=True):
        ours = struct(fields)
        described = [str(ours.size), str(ours.alignment)]
        for f in fields:
            if f[0] is not None:
                described.append(str(ours.offsetof(f[0])) if len(f) == 2 else f"{ours.bit_offset(f[0])}:{f[2]}")
        assert " ".join(described) == line, fields


# ---- host values --------------------------------------------------------------------------------


def test_union_fields_share_their_bytes():
    w = K.Word(f=-1.5)
    bits = int(np.float32(-1.5).view(np.uint32))
    assert (w.u, w.halves.lo, w.halves.hi, w.bytes) == (
        bits,
        bits & 0xFFFF,
        bits >> 16,
        tuple(bits.to_bytes(4, "little")),
    )
    assert (w.bits.sign, w.bits.exponent, w.bits.mantissa) == (1, 127, 1 << 22)
    w.bits.sign = 0  # a nested value shares the enclosing one's bytes
    assert w.f == 1.5
    assert K.Word.size == 4 and K.Word.variants[0] == ("u", types.uint32)


def test_values_are_their_bytes():
    e = K.random_every(np.random.default_rng(3))
    copy = e.copy()
    assert copy == e and bytes(copy) == bytes(e) and copy is not e
    copy.inner.x = 99.0
    assert e.inner.x != 99.0 and copy != e
    assert repr(K.Inner(1.5, -2)) == "Inner(x=1.5, y=-2)"
    assert K.Inner(y=7) == K.Inner(0.0, 7)
    assert K.Flags(level=-3).level == -3 and K.Flags(level=17).level == -15  # 5 bits, sign-extended
    assert K.Flags(count=4097).count == 1  # 12 bits
    with pytest.raises(ValueError, match=r"is 8 bytes, got 3"):
        K.Inner.from_bytes(b"abc")


@pytest.mark.parametrize(
    "make, error, words",
    [
        (lambda: K.Inner(q=1), TypeError, "struct Inner has no field 'q' (fields: x, y)"),
        (lambda: K.Inner(1.0, 2, 3), TypeError, "Inner() takes at most 2 field values, got 3"),
        (lambda: K.Inner(1.0, x=2.0), TypeError, "the field 'x' is given twice"),
        (lambda: K.Word(u=1, f=2.0), TypeError, "a union is made from one of its fields, got u, f"),
        (lambda: K.Inner(y=1 << 20), OverflowError, "struct Inner, field 'y' (int16): 1048576 does not fit in int16"),
        (lambda: K.Inner(x="a"), TypeError, "field 'x' (float32): expected a float, got 'a'"),
        (lambda: K.Every(arr=(1, 2)), TypeError, "UniTuple(int16 x 3) takes a sequence of 3 values"),
        (lambda: K.Every(inner=K.Flags()), TypeError, "expected a value of struct Inner"),
        (lambda: K.Inner().z, AttributeError, "struct Inner has no field 'z' (fields: x, y)"),
        (lambda: setattr(K.Inner(), "z", 1), AttributeError, "struct Inner has no field 'z'"),
    ],
)
def test_host_values_refuse_what_does_not_fit(make, error, words):
    with pytest.raises(error, match=re.escape(words)):
        make()


# ---- declarations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "declare, error, words",
    [
        (
            lambda: struct([("a", types.int8, 9)], "S"),
            ValueError,
            "struct S, field 'a': 9 bits do not fit in its type int8 (8 bits)",
        ),
        (lambda: struct([("a", types.boolean, 2)]), ValueError, "2 bits do not fit in its type bool (1 bit)"),
        (
            lambda: struct([("a", types.float32, 3)]),
            TypeError,
            "a bit field is of an integer or bool type, not float32",
        ),
        (
            lambda: struct([("a", types.int32, 0)]),
            ValueError,
            "the bit width must be at least 1 (width 0 is for padding",
        ),
        (lambda: struct([(None, types.int32, -1), ("b", types.int8)]), ValueError, "the bit width must be at least 0"),
        (lambda: struct([("a", types.int32, 2.5)]), TypeError, "the bit width is an int, got 2.5"),
        (lambda: struct([("a", types.int8), ("a", types.int16)]), ValueError, "the name 'a' is given to two fields"),
        (
            lambda: struct([(None, types.int8)]),
            ValueError,
            "only bit-field padding, (None, type, bits), may have no name",
        ),
        (lambda: struct([("a b", types.int8)]), ValueError, "a field's name is a Python identifier, got 'a b'"),
        (lambda: struct([("_a", types.int8)]), ValueError, "may not start with an underscore"),
        (lambda: struct([("a", "int8")]), TypeError, "a field's type is a numba type (types.int32)"),
        (lambda: struct([("a", types.float32[:])]), TypeError, "has no C layout"),
        (lambda: struct([("a", types.UniTuple(types.int8, 0))]), TypeError, "has no C layout"),
        (lambda: struct([("a",)]), TypeError, "expected (name, type) or (name, type, bits), got ('a',)"),
        (lambda: struct("not a list"), TypeError, "the fields are a list of (name, type) tuples"),
        (lambda: struct([(None, types.int8, 3)]), ValueError, "has no named field"),
        (lambda: union([("a", types.int8, 3)]), TypeError, "a union's fields are not bit fields"),
        (lambda: union([]), ValueError, "has no field"),
        (lambda: struct([("a", types.int8)], "not-a-name"), ValueError, "the name of a struct is a Python identifier"),
    ],
)
def test_declarations_refuse_bad_fields(declare, error, words):
    with pytest.raises(error, match=re.escape(words)):
        declare()


def test_field_types_given_every_way():
    s = struct(
        [("a", np.float32), ("b", np.dtype("int16")), ("c", cuda.float32x2), ("d", K.Inner), ("e", types.float32)]
    )
    assert [ty for _, ty, _ in s.fields] == [types.float32, types.int16, types.float32x2, K.Inner._type, types.float32]
    assert struct("Named", [("a", types.int8)]).name == "Named"  # the name first, as numba-cuda-mlir's text has it
    assert struct([("a", types.int8)]).name.startswith("AnonymousStruct_")
    # one declaration of a name with other fields is another type
    assert struct([("a", types.int8)], "Same")._type != struct([("a", types.int16)], "Same")._type


# ---- kernels: typing and lowering errors ----------------------------------------------------------


@pytest.mark.parametrize(
    "body, words",
    [
        ("p = Inner(); a[0] = p.z", "struct Inner has no field 'z' (fields: x, y)"),
        ("p = Inner(); p.z = 1.0", "struct Inner has no field 'z' (fields: x, y)"),
        ("p = Inner(z=1.0)", "Inner(): struct Inner has no field 'z' (fields: x, y)"),
        ("p = Inner(1.0, 2, 3)", "Inner() takes at most 2 field values, got 3"),
        ("w = Word(u=1, f=2.0)", "a union is made from one of its fields, got u, f"),
        (
            "p = Inner(x=(1, 2))",
            "Inner(): the field 'x' is a float32; a Tuple(Literal[int](1), Literal[int](2)) does not",
        ),
        (
            "t = (Inner(), Inner()); t[0].x = 1.0",
            "a member of a UniTuple(Inner x 2) cannot be assigned, so neither can",
        ),
    ],
)
def test_kernels_refuse_unknown_fields_and_bad_values(body, words):
    compile_it = support.compiling(body, "void(float32[:], float32[:])", Inner=K.Inner, Word=K.Word)
    with pytest.raises((errors.TypingError, errors.UnsupportedError), match=re.escape(words)):
        compile_it()


def test_a_kernel_takes_only_its_struct(simulated):
    buffer = (ctypes.c_uint8 * 16)()
    with pytest.raises(TypeError, match=r"argument 0: expected a value of struct Inner, got Flags\("):
        AggregateParameter(K.Inner._type, 0).pack(K.Flags(), buffer, 0, None)
    AggregateParameter(K.Inner._type, 0).pack(K.Inner(1.0, 2), buffer, 0, None)
    assert bytes(buffer)[:8] == bytes(K.Inner(1.0, 2))

    @cuda.jit((K.Inner, types.float32[:]))
    def first(p, a):
        a[0] = p.x

    out = np.zeros(1, np.float32)
    first[1, 1](K.Inner(2.5, 1), out)
    assert out[0] == 2.5
    with pytest.raises(TypeError, match=r"Flags"):
        first[1, 1](K.Flags(), out)


# ---- PTX ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(K.KERNELS))
@pytest.mark.parametrize("cc", [(8, 0), (9, 0)])
def test_ptx_assembles(name, cc, backend):
    kernel, sig = K.KERNELS[name]
    if backend == "nvvm" and "every" in name:
        cc = (10, 0)  # a bfloat16 field: libNVVM reads it from sm_100 (docs/nvvm.md)
    ptx = support.checked_ptx(kernel, sig, backend, cc)
    assert ".local" not in ptx or name == "local_arrays"  # values live in registers


def test_a_struct_parameter_is_its_bytes():
    @cuda.jit
    def scale(p, a):
        a[0] = p.x * p.y

    ptx, _ = cuda.compile_ptx(scale, (K.Inner, types.float32[:]), cc=(9, 0))
    assert re.search(r"\.param \.align 4 \.b8 \w+_param_0\[8\]", ptx)  # as CUDA C++ passes a struct
    support.ptxas(ptx)


# ---- kernels on the simulator ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_read_every_field_of_an_argument(simulated, seed):
    e = K.random_every(np.random.default_rng(seed))
    ints, floats, raw = np.zeros(20, np.int64), np.zeros(13), np.zeros(K.Every.size, np.uint8)
    K.read_every[1, 1](e, ints, floats, raw)
    expected_ints, expected_floats, expected_raw = K.read_every_reference(e)
    np.testing.assert_array_equal(ints.view(np.uint64), expected_ints)
    np.testing.assert_array_equal(floats, expected_floats)
    np.testing.assert_array_equal(raw, expected_raw)


def test_build_values_field_by_field(simulated):
    ints, floats = K.build_every_inputs(np.random.default_rng(11), 70)
    raw = support.poisoned(70 * K.Every.size, np.uint8).reshape(70, K.Every.size)
    K.build_every[3, 32](ints, floats, raw)
    np.testing.assert_array_equal(raw, K.build_every_reference(ints, floats))


def test_union_views(simulated):
    values = np.random.default_rng(5).standard_normal(100).astype(np.float32) * 1000
    out = np.zeros((100, 9), np.int64)
    K.word_views[4, 32](values, out)
    np.testing.assert_array_equal(out, K.word_views_reference(values))


def test_local_arrays(simulated):
    values = np.random.default_rng(6).standard_normal((45, 8))
    out = np.zeros((45, 3))
    K.local_arrays[2, 32](values, out)
    np.testing.assert_allclose(out, K.local_arrays_reference(values), rtol=1e-14)  # contracted sums round once less


def test_shared_arrays_field_by_field(simulated):
    threads = 32
    values = np.random.default_rng(8).standard_normal(3 * threads).astype(np.float32)
    out = np.zeros((3 * threads, 2))
    K.shared_arrays[3, threads, 0, threads * K.Word.size](values, out)  # the simulator checks for races
    np.testing.assert_array_equal(out, K.shared_arrays_reference(values, threads))


def test_device_functions_take_and_return_copies(simulated):
    values = np.random.default_rng(9).standard_normal(50).astype(np.float32)
    out = np.zeros((50, 5))
    K.through_functions[2, 32](values, out)
    np.testing.assert_array_equal(out, K.through_functions_reference(values))


def test_the_example_of_structs_md_runs(simulated):
    code = re.search(r"```python\n(.*?)```", (ROOT / "docs" / "structs.md").read_text(), re.S).group(1)
    exec(compile(code, "docs/structs.md", "exec"), {})  # the page's own example, asserting what it computes


ORIGIN = K.Inner(2.5, -7)
LEVELS = K.Flags(level=-5, count=77)


def test_values_read_as_globals_are_constants(simulated):
    @cuda.jit
    def read_globals(out):
        p = ORIGIN
        p.y += 1
        out[0] = p.x
        out[1] = p.y
        out[2] = LEVELS.level
        out[3] = LEVELS.count

    out = np.zeros(4)
    read_globals[1, 1](out)
    np.testing.assert_array_equal(out, [2.5, -6, -5, 77])


def test_the_disk_cache_tells_declarations_apart():
    first = struct([("a", types.int8)], "Same")
    second = struct([("a", types.int16)], "Same")
    assert first.cache_key() != second.cache_key() and first._type.cache_name != second._type.cache_name
    assert first(a=1).cache_key() != first(a=2).cache_key()


def test_fields_assigned_across_a_branch(simulated):
    """``a[i].x += (b if c else d)``: numba carries a[i] (and s) past the branch in temporaries;
    the assignment still reaches the element (and s)."""

    @cuda.jit
    def across(values, out):
        i = cuda.grid(1)
        a = cuda.local.array(4, K.Inner)
        for j in range(4):
            a[j] = K.Inner(values[i], j)
        a[i % 4].x += 1.0 if values[i] > 0 else -1.0
        s = K.Inner()
        s.x += 2.0 if values[i] > 0 else 3.0
        out[i, 0] = a[i % 4].x
        out[i, 1] = s.x

    values = np.array([1.5, -2.5, 3.0, -0.5], np.float32)
    out = np.zeros((4, 2))
    across[1, 4](values, out)
    np.testing.assert_array_equal(out, [[2.5, 2], [-3.5, 3], [4, 2], [-1.5, 3]])


def test_a_field_of_a_value_chosen_at_run_time_is_refused():
    def chosen(a, b):
        s = K.Inner()
        t = K.Inner()
        (s if a[0] > 0 else t).x = 1.0
        a[1] = s.x + t.x

    with pytest.raises(errors.UnsupportedError, match=r"a field of a value chosen at run time cannot be assigned"):
        cuda.compile_ptx(chosen, "void(float32[:], float32[:])", cc=(9, 0))


def test_arrays_of_structs_take_an_alignment_of_at_least_theirs(simulated):
    @cuda.jit
    def aligned(out):
        t = cuda.threadIdx.x
        s = cuda.shared.array((2, 16), K.Every, alignment=32)
        s[t % 2, t] = K.Every()  # a bit field's store reads the byte holding it: written first
        s[t % 2, t].small = t - 8
        s[t % 2, t].inner.y = t
        cuda.syncthreads()
        out[t] = s[t % 2, t].small * 1000 + s[t % 2, t].inner.y

    out = np.zeros(16, np.int64)
    aligned[1, 16](out)
    small = (np.arange(16) - 8 + 4) % 8 - 4  # 3 signed bits
    np.testing.assert_array_equal(out, small * 1000 + np.arange(16))
    with pytest.raises(errors.TypingError, match=r"alignment 8 is less than struct Every's \(16 bytes\)"):
        support.compiling(
            "s = cuda.local.array(4, Every, alignment=8)", "void(float32[:], float32[:])", Every=K.Every
        )()
