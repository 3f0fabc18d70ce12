"""The warp's 8x8 matrix loads and stores (operations/tensor_cores/ldmatrix.py: cuda.intrin's
ldmatrix and stmatrix) on the CPU: the PTX each gives on both code generators for every fragment
type, checked by ptxas; the chips and PTX versions they need; their bad arguments; and the
generated code run on the host (tests/nrt_harness.py), the instruction itself (inline PTX) made a
call of a one-thread stand-in that moves the words at the address it is given, which checks the
address of the row each thread gives and how the fragment's elements fill the 32-bit registers
and come back from them."""

import ctypes
import re

import numpy as np
import pytest
from numba import typeof
from numba.core.errors import TypingError

from cumlir import cuda, types
from cumlir.cuda import intrin

from ... import nrt_harness, support
from ...cases import tensor_core_kernels as tk


def _instructions(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _compiled(kernel, sig, backend, cc=(8, 0)):
    """PTX for *cc*, assembled by ptxas for it and for sm_90 (PTX of an older target runs on newer chips)."""
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend)
    for chip in sorted({f"sm_{cc[0]}{cc[1]}", "sm_90"}):
        support.ptxas(ptx, chip)
    return ptx


def _ptx_version(ptx):
    return tuple(map(int, re.search(r"^\.version (\d+)\.(\d+)", ptx, re.M).groups()))


# ---- PTX ----------------------------------------------------------------------------------


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix(backend, num, trans):
    ptx = _compiled(tk.ldmatrix_kernel(num, trans), "void(uint16[:, ::1], uint16[:, ::1])", backend)
    registers = ", ".join([r"%r\d+"] * num)
    form = f"x{num}{'.trans' if trans else ''}"
    assert (
        len(_instructions(ptx, rf"^ldmatrix\.sync\.aligned\.m8n8\.{form}\.shared\.b16 \{{{registers}\}}, \[smem\];"))
        == 1
    )
    # the row's generic address, made a shared one
    assert len(_instructions(ptx, r"^cvta\.to\.shared\.u64 smem, %rd\d+;")) == 1


def test_ldmatrix_into_words(backend):
    ptx = _compiled(tk.ldmatrix_words_kernel, "void(uint16[:, ::1], uint32[:, ::1])", backend)
    assert len(_instructions(ptx, r"^ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 ")) == 1


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_stmatrix(backend, num, trans):
    ptx = _compiled(tk.stmatrix_kernel(num, trans), "void(uint16[:, ::1], uint16[:, ::1])", backend, (9, 0))
    form = f"x{num}{'.trans' if trans else ''}"
    registers = ", ".join([r"%r\d+"] * num)
    assert (
        len(_instructions(ptx, rf"^stmatrix\.sync\.aligned\.m8n8\.{form}\.shared\.b16 \[smem\], \{{{registers}\}};"))
        == 1
    )


def _round_trip_kernel(dtype, count, num, smem_dtype):
    """Each lane loads its fragment of *dtype* through its row of a shared array of
    *smem_dtype*, stores it back transposed (sm_90) and writes it out."""

    def kernel(out):
        sm = cuda.shared.array((32, 8), smem_dtype)
        lane = cuda.threadIdx.x
        frag = cuda.local.array(count, dtype)
        intrin.ldmatrix(frag, sm[lane, 0:], num)
        intrin.stmatrix(sm[lane, 0:], frag, num, True)
        for i in range(count):
            out[lane, i] = frag[i]

    return kernel


# fragment dtype, its elements per 32-bit register, the shared array's dtype
FRAGMENTS = [
    (types.uint32, 1, types.uint16),
    (types.int32, 1, types.int32),
    (types.float16, 2, types.uint16),
    (types.bfloat16, 2, types.float16),
    (types.int16, 2, types.float32),
    (types.uint16, 2, types.int16),
]


@pytest.mark.parametrize("num", [1, 4])
@pytest.mark.parametrize("dtype, per_register, smem_dtype", FRAGMENTS, ids=[str(f[0]) for f in FRAGMENTS])
def test_every_fragment_type_in_registers(dtype, per_register, smem_dtype, num, backend):
    if backend == "nvvm" and dtype == types.bfloat16:
        pytest.skip("arrays of bfloat16 need backend='nvptx' below sm_100")
    kernel = _round_trip_kernel(dtype, num * per_register, num, smem_dtype)
    ptx = _compiled(kernel, (types.Array(dtype, 2, "C"),), backend, (9, 0))
    form = rf"x{num}\.shared\.b16"
    registers = ", ".join([r"%r\d+"] * num)
    assert len(_instructions(ptx, rf"^ldmatrix\.sync\.aligned\.m8n8\.{form} \{{{registers}\}}, \[smem\];")) == 1
    assert len(_instructions(ptx, rf"^stmatrix\.sync\.aligned\.m8n8\.x{num}\.trans\.shared\.b16 ")) == 1
    # the fragment is read and written at constant indices: it never leaves the registers
    assert not re.search(r"\b(?:ld|st)\.local\b", ptx), ptx


# ---- chips and PTX versions ---------------------------------------------------------------


def test_ldmatrix_runs_from_sm_75_in_ptx_6_5(backend):
    ptx = _compiled(tk.ldmatrix_kernel(2, False), "void(uint16[:, ::1], uint16[:, ::1])", backend, (7, 5))
    assert _ptx_version(ptx) >= (6, 5)  # sm_75's own minimum, 6.3, lacks ldmatrix


@pytest.mark.parametrize("cc", [(7, 5), (8, 0), (8, 9)])
def test_stmatrix_needs_sm_90(cc):
    with pytest.raises(ValueError, match=rf"intrin\.stmatrix needs sm_90 or newer; .* sm_{cc[0]}{cc[1]}"):
        cuda.compile_ptx(tk.stmatrix_kernel(1, False), "void(uint16[:, ::1], uint16[:, ::1])", cc=cc)


def test_stmatrix_in_ptx_7_8():
    ptx, _ = cuda.compile_ptx(
        tk.stmatrix_kernel(2, False), "void(uint16[:, ::1], uint16[:, ::1])", cc=(9, 0), backend="nvptx"
    )
    assert _ptx_version(ptx) >= (7, 8)


def test_the_names_are_cuda_intrin_stubs():
    assert "ldmatrix" in dir(intrin) and "stmatrix" in dir(intrin)
    assert intrin.ldmatrix.__name__ == "ldmatrix" and intrin.stmatrix.__name__ == "stmatrix"
    with pytest.raises(RuntimeError, match="cuda.ldmatrix can only be used inside"):
        intrin.ldmatrix(None, None, 4)


def test_they_return_nothing():
    def both(frag, sm):
        intrin.ldmatrix(frag, sm, 2)
        intrin.stmatrix(sm, frag, 2, True)

    argtypes = (types.uint32[::1], types.uint16[::1])
    assert cuda.compile_ptx(both, argtypes, device=True, cc=(9, 0))[1] == types.none


# ---- bad arguments ------------------------------------------------------------------------


def _bad(body, arrays):
    namespace = {"cuda": cuda, "intrin": intrin, "np": np, "types": types}
    lines = [f"    {name} = cuda.local.array({n}, {dtype})" for name, (n, dtype) in arrays.items()]
    exec("def kernel(out, sm):\n" + "\n".join(lines) + f"\n    {body}\n", namespace)
    return lambda: cuda.compile_ptx(namespace["kernel"], "void(float32[:], uint16[:, ::1])", cc=(9, 0))


_F16 = {"a": (8, "np.float16"), "b": (4, "np.float16"), "c": (4, "np.float32"), "d": (4, "np.float32")}


@pytest.mark.parametrize(
    "body, arrays, message",
    [
        ("intrin.ldmatrix(a, sm[0, 0:], 3)", _F16, r"num must be the literal 1, 2 or 4, got Literal\[int\]\(3\)"),
        ("intrin.ldmatrix(a, sm[0, 0:], 4, out[0] > 0)", _F16, r"trans must be the literal True or False"),
        (
            "intrin.ldmatrix(c, sm[0, 0:], 4)",
            _F16,
            r"frag must be a 1-d local array of uint32 or int32 \(4 registers\)",
        ),
        (
            "intrin.ldmatrix(a, sm[0, 0:], 2)",
            _F16,
            r"intrin\.ldmatrix\(num=2\): frag must hold 4 elements of float16, got a local array of 8",
        ),
        ("intrin.ldmatrix(a, out[0], 4)", _F16, r"smem must be an array of 16- or 32-bit elements in shared memory"),
        (
            "intrin.stmatrix(sm[0, 0:], b, 4)",
            _F16,
            r"intrin\.stmatrix\(num=4\): frag must hold 8 elements of float16, got a local array of 4",
        ),
    ],
)
def test_bad_arguments(body, arrays, message):
    with pytest.raises(TypingError, match=message):
        _bad(body, arrays)()


def _typing_error(body, *argtypes):
    namespace = {"intrin": intrin}
    names = ", ".join(f"a{k}" for k in range(len(argtypes)))
    exec(f"def f({names}):\n    {body}\n", namespace)
    with pytest.raises(TypingError) as info:
        cuda.compile_ptx(namespace["f"], argtypes, device=True, cc=(9, 0))
    return str(info.value)


U16, U32 = types.uint16[::1], types.uint32[::1]


@pytest.mark.parametrize(
    "body, argtypes, message",
    [
        (
            "intrin.ldmatrix(a0, a1, a2)",
            (U32, U16, types.int32),
            r"intrin\.ldmatrix\(frag, smem, num, trans\): num must be the literal",
        ),
        (
            "intrin.stmatrix(a1, a0, 0)",
            (U32, U16),
            r"intrin\.stmatrix\(smem, frag, num, trans\): num must be the literal 1, 2 or 4",
        ),
        ("intrin.ldmatrix(a0, a1, 8)", (U32, U16), r"num must be the literal 1, 2 or 4, got Literal\[int\]\(8\)"),
        (
            "intrin.ldmatrix(a0, a1, 2, 1)",
            (U32, U16),
            r"trans must be the literal True or False, got Literal\[int\]\(1\)",
        ),
        (
            "intrin.ldmatrix(a0, a1, 1)",
            (types.float32[::1], U16),
            r"frag must be a 1-d local array .* got array\(float32",
        ),
        ("intrin.ldmatrix(a0, a1, 1)", (types.int8[::1], U16), r"frag must be a 1-d local array .* got array\(int8"),
        (
            "intrin.ldmatrix(a0, a1, 1)",
            (types.uint32[:, ::1], U16),
            r"frag must be a 1-d local array .* got array\(uint32, 2d",
        ),
        (
            "intrin.stmatrix(a1, a0, 2)",
            (types.float64[::1], U16),
            r"intrin\.stmatrix\(smem, frag, num, trans\): frag must be",
        ),
        ("intrin.ldmatrix(a0, a1, 1)", (U32, types.int8[::1]), r"smem must be an array of 16- or 32-bit elements"),
        ("intrin.stmatrix(a1, a0, 1)", (U32, types.float64[::1]), r"smem must be an array of 16- or 32-bit elements"),
        ("intrin.ldmatrix(a0, a1, 1)", (U32, types.uint16), r"smem must be an array .* got uint16"),
        (
            "intrin.ldmatrix(a0, a1, 1)",
            (types.Array(types.uint32, 1, "C", readonly=True), U16),
            r"intrin\.ldmatrix\(frag, smem, num, trans\): frag must be a writable array",
        ),
    ],
)
def test_bad_operands_are_typing_errors_naming_the_call(body, argtypes, message):
    assert re.search(message, _typing_error(body, *argtypes))


def test_stmatrix_reads_a_read_only_fragment():
    def store(frag, sm):
        intrin.stmatrix(sm, frag, 1)

    argtypes = (types.Array(types.uint32, 1, "C", readonly=True), U16)
    assert cuda.compile_ptx(store, argtypes, device=True, cc=(9, 0))[1] == types.none


# ---- the generated code run on the host ---------------------------------------------------


def _standins():
    """LLVM IR of the stand-ins: ldmatrix x{num} gives the *num* 32-bit words at the address,
    stmatrix x{num} stores its words there: one thread's part, its registers from its own row."""
    text = []
    for num in (1, 2, 4):
        result = "i32" if num == 1 else "{" + ", ".join(["i32"] * num) + "}"
        body = ["  %p = inttoptr i64 %a to ptr"]
        for k in range(num):
            body += [f"  %q{k} = getelementptr i32, ptr %p, i64 {k}", f"  %w{k} = load i32, ptr %q{k}, align 2"]
        if num == 1:
            body.append("  ret i32 %w0")
        else:
            previous = "undef"
            for k in range(num):
                body.append(f"  %s{k} = insertvalue {result} {previous}, i32 %w{k}, {k}")
                previous = f"%s{k}"
            body.append(f"  ret {result} {previous}")
        text += [f"define {result} @cumlir_test_ldmatrix_x{num}(i64 %a) {{", *body, "}"]
        words = ", ".join(f"i32 %w{k}" for k in range(num))
        body = ["  %p = inttoptr i64 %a to ptr"]
        for k in range(num):
            body += [f"  %q{k} = getelementptr i32, ptr %p, i64 {k}", f"  store i32 %w{k}, ptr %q{k}, align 2"]
        text += [f"define void @cumlir_test_stmatrix_x{num}(i64 %a, {words}) {{", *body, "  ret void", "}"]
    return "\n".join(text) + "\n"


_INSTRUCTION = re.compile(r'asm sideeffect "[^"]*(ldmatrix|stmatrix)\.sync\.aligned\.m8n8\.x(\d)[^"]*", "[^"]*"')


def _host_kernel(pyfunc, argtypes):
    """The kernel's code run on the host, each ldmatrix and stmatrix a call of its stand-in."""
    text, symbol = nrt_harness.host_llvm_ir(pyfunc, argtypes)
    text, made = _INSTRUCTION.subn(lambda m: f"@cumlir_test_{m[1]}_x{m[2]}", text)
    assert made and "asm" not in text, text
    # an array's parameters: data, offset, then a size and a stride per axis
    count = sum(2 + 2 * t.ndim if isinstance(t, types.Array) else 1 for t in argtypes)
    function = nrt_harness.host_function(text + _standins(), symbol, None, *[ctypes.c_int64] * count)

    def run(*args):
        params = []
        for value in args:
            params += nrt_harness._array_params(value) if isinstance(value, np.ndarray) else [int(value)]
        function(*params)

    return run


def _loads(dtype, num, trans):
    count = num * (2 if np.dtype(dtype).itemsize == 2 else 1)

    def kernel(out, m, row, col):
        frag = cuda.local.array(count, dtype)
        intrin.ldmatrix(frag, m[row, col:], num, trans)
        for i in range(count):
            out[i] = frag[i]

    return kernel, count


def _stores(dtype, num, trans):
    count = num * (2 if np.dtype(dtype).itemsize == 2 else 1)

    def kernel(m, given, row, col):
        frag = cuda.local.array(count, dtype)
        for i in range(count):
            frag[i] = given[i]
        intrin.stmatrix(m[row, col:], frag, num, trans)

    return kernel, count


# fragment dtype, the matrix's dtype
HOST_CASES = [(np.uint16, np.uint16), (np.float16, np.uint16), (np.int16, np.int32), (np.uint32, np.uint16)]
HOST_CASES += [(np.int32, np.float32)]


def _words(m, row, col, count, dtype):
    """The *count* elements of *dtype* in the bytes of m from element (row, col) on."""
    start = (row * m.shape[1] + col) * m.itemsize
    return m.view(np.uint8).ravel()[start : start + count * np.dtype(dtype).itemsize].view(dtype)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("dtype, matrix_dtype", HOST_CASES, ids=[np.dtype(d).name for d, _ in HOST_CASES])
def test_ldmatrix_fills_the_fragment_from_the_registers_on_the_host(dtype, matrix_dtype, num, rng):
    kernel, count = _loads(dtype, num, num == 2)
    m = rng.integers(0, 2**16, (6, 16)).astype(np.uint16).view(np.uint8).view(matrix_dtype).reshape(6, -1)
    out = support.poisoned(count, dtype)
    run = _host_kernel(kernel, (typeof(out), typeof(m), types.int64, types.int64))
    for row, col in ((0, 0), (3, 2), (5, 1)):
        out[:] = support.poisoned(count, dtype)
        run(out, m, row, col)
        # the row's address is that of its view's first element; register k holds elements 2k
        # (low half) and 2k + 1 of a 16-bit fragment, element k of a 32-bit one
        expected = _words(m, row, col, count, dtype)
        np.testing.assert_array_equal(out.view(f"u{out.itemsize}"), expected.view(f"u{out.itemsize}"))


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("dtype, matrix_dtype", HOST_CASES, ids=[np.dtype(d).name for d, _ in HOST_CASES])
def test_stmatrix_packs_the_fragment_into_the_registers_on_the_host(dtype, matrix_dtype, num, rng):
    kernel, count = _stores(dtype, num, num == 4)
    given = rng.integers(0, 2**16, 2 * count).astype(np.uint16).view(np.uint8)[: count * np.dtype(dtype).itemsize]
    given = given.view(dtype).copy()
    before = rng.integers(0, 2**16, (6, 16)).astype(np.uint16).view(np.uint8).view(matrix_dtype).reshape(6, -1)
    run = _host_kernel(kernel, (typeof(before), typeof(given), types.int64, types.int64))
    for row, col in ((0, 0), (4, 3)):
        m = before.copy()
        run(m, given, row, col)
        expected = before.copy()
        _words(expected, row, col, count, dtype)[:] = given  # the bytes the words cover, and no others
        np.testing.assert_array_equal(m.view(np.uint8), expected.view(np.uint8))


def test_a_fragment_longer_than_the_registers_keeps_its_other_elements(rng):
    # a fragment whose length is not seen (an argument): num registers fill its first elements
    def kernel(frag, m, row, col):
        intrin.ldmatrix(frag, m[row, col:], 2)

    m = rng.integers(0, 2**16, (4, 8)).astype(np.uint16)
    frag = support.poisoned(10, np.uint16)
    _host_kernel(kernel, (typeof(frag), typeof(m), types.int64, types.int64))(frag, m, 2, 3)
    np.testing.assert_array_equal(frag[:4], m[2, 3:7])
    np.testing.assert_array_equal(frag[4:], support.poisoned(6, np.uint16))
