"""Hopper's warpgroup tensor cores in cuda.intrin (operations/tensor_cores/wgmma.py,
docs/tensor_cores.md): the PTX each gives on both code generators, assembled by ptxas for sm_90a;
the accumulator kept in registers; the descriptor's bits; the errors of the plain sm_90 target and
of bad arguments. elect.sync is tests/operations/hopper/test_elect.py's, setmaxnreg and
griddepcontrol test_hopper_control.py's."""

import re
import warnings

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda, types
from cumlir import wgmma_layout as wl
from cumlir.cuda import intrin
from cumlir.cuda.experimental import consteval

from ... import support
from ...cases import wgmma_kernels as wk

PRODUCT_SIG = "void(uint16[::1], uint16[::1], float32[:, ::1])"


def _instructions(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _product(n, k, dtype, layout):
    a, b = wk.operands(np.random.default_rng(0), n, k)
    return wk.make_product(n, k, dtype, *wk.layouts(a, b, dtype, layout))


@pytest.mark.parametrize("n, k, dtype, layout", [(64, 64, "bf16", "interleaved"), (256, 32, "f16", "swizzled_128b")])
def test_a_product_over_k_tiles_keeps_the_accumulator_in_registers(backend, n, k, dtype, layout):
    ptx, _ = cuda.compile_ptx(_product(n, k, dtype, layout), PRODUCT_SIG, cc="sm_90a", backend=backend)
    support.ptxas(ptx, "sm_90a")
    mmas = _instructions(ptx, r"^wgmma\.mma_async")
    assert len(mmas) == k // 16
    registers = re.search(r"\{([^}]*)\}", mmas[0]).group(1).split(", ")
    assert len(registers) == n // 2 and all(re.fullmatch(r"%[rf]\d+", r) for r in registers)
    assert all(f"m64n{n}k16.f32.{dtype}.{dtype}" in m and ", scale_d, 1, 1, 0, 0;" in m for m in mmas)
    # every k step reads and writes the same registers; none goes through local memory
    assert {re.search(r"\{([^}]*)\}", m).group(1) for m in mmas} == {", ".join(registers)}
    assert not re.search(r"\b(ld|st)\.local", ptx)
    assert len(_instructions(ptx, r"^setp\.ne\.b32 scale_d, ")) == k // 16
    assert _instructions(ptx, r"^wgmma\.(fence|commit|wait)") == [
        "wgmma.fence.sync.aligned;",
        "wgmma.commit_group.sync.aligned;",
        "wgmma.wait_group.sync.aligned 0;",
    ]
    assert _instructions(ptx, r"^fence\.proxy") == ["fence.proxy.async.shared::cta;"]
    assert len(_instructions(ptx, r"^cvta\.to\.shared\.u64")) == 2 * (k // 16)


def _mma(acc, a, b):
    intrin.wgmma_mma_async(acc, a[0], a[1], "m64n8k8", 0, dtype="tf32")
    intrin.wgmma_mma_async(acc, a[0], a[1], "m64n8k32", dtype="e5m2")
    intrin.wgmma_mma_async(acc, a[0], a[1], "m64n8k16", trans_b=1, dtype="f16")
    intrin.wgmma_mma_async(acc, a[0], a[1], "m64n8k16", b[0], 1, 0, dtype="bf16")


def test_the_other_input_types_and_transposes(backend):
    ptx, _ = cuda.compile_ptx(_mma, "void(float32[::1], uint64[::1], int32[::1])", cc="sm_90a", backend=backend)
    support.ptxas(ptx, "sm_90a")
    written = [re.sub(r"\{[^}]*\}, %rd\d+, %rd\d+", "D, A, B", m) for m in _instructions(ptx, r"^wgmma\.mma_async")]
    assert written == [
        "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 D, A, B, scale_d, 1, 1;",
        "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 D, A, B, scale_d, 1, 1;",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 D, A, B, scale_d, 1, 1, 0, 1;",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 D, A, B, scale_d, 1, 1, 1, 0;",
    ]


def _descriptor(smem_offsets, out):
    sm = cuda.shared.array(1024, np.uint16, alignment=1024)
    out[0] = intrin.wgmma_descriptor(sm[smem_offsets[0] :], 128, 1024, 0)
    out[1] = intrin.wgmma_descriptor(sm, smem_offsets[1], smem_offsets[2], 128)
    out[2] = intrin.wgmma_descriptor(sm, 16, 1024, 64) | intrin.wgmma_descriptor(sm, 16, 1024, 32)


def test_the_descriptor_packs_its_fields(backend):
    ptx, _ = cuda.compile_ptx(_descriptor, "void(int64[::1], uint64[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert len(_instructions(ptx, r"^cvta\.to\.shared\.u64")) >= 1
    # the constant fields: 128 >> 4 at bit 16, 1024 >> 4 at bit 32, the 128-byte swizzle's code 1 at 62
    assert str(((128 >> 4) << 16) | ((1024 >> 4) << 32)) in ptx
    assert str(1 << 62) in ptx or str((1 << 62) - (1 << 64)) in ptx


@pytest.mark.parametrize(
    "address, lbo, sbo, swizzle, expected",
    [
        (0, 0, 0, 0, 0),
        (0x400, 128, 256, 0, (0x40) | (8 << 16) | (16 << 32)),
        (0x3FFF0, 16, 1024, 128, 0x3FFF | (1 << 16) | (64 << 32) | (1 << 62)),
        (0x10, 0x3FFF0, 0x3FFF0, 64, 1 | (0x3FFF << 16) | (0x3FFF << 32) | (2 << 62)),
        (0x20, 16, 16, 32, 2 | (1 << 16) | (1 << 32) | (3 << 62)),
    ],
)
def test_the_descriptor_bit_layout(address, lbo, sbo, swizzle, expected):
    assert wl.matrix_descriptor(address, lbo, sbo, swizzle) == expected
    assert wl.matrix_descriptor(0, 0, 0, 0, base_offset=5) == 5 << 49


@pytest.mark.parametrize(
    "args, message",
    [((0, 0, 0, 16), "swizzle must be 0, 32, 64 or 128"), ((8, 0, 0, 0), "address must be a multiple of 16"),
     ((0, 1 << 18, 0, 0), "leading_byte_offset must be"), ((0, 0, 0, 0, 8), "base_offset must be 0 to 7")],
)  # fmt: skip
def test_bad_descriptor_fields(args, message):
    with pytest.raises(ValueError, match=message):
        wl.matrix_descriptor(*args)


def test_the_layouts_place_each_element():
    matrix = np.arange(16 * 128, dtype=np.uint16).reshape(16, 128)
    plain = wl.interleaved(matrix)
    assert (plain.leading_byte_offset, plain.stride_byte_offset, plain.swizzle) == (128, 16 * 128, 0)
    for r, c in [(0, 0), (3, 9), (9, 3), (15, 127)]:
        core = (r // 8) * 16 + c // 8
        assert plain.data[core * 64 + (r % 8) * 8 + c % 8] == matrix[r, c]
    assert plain.k_step_offset(3) == 3 * 2 * 64
    swizzled = wl.swizzled_128b(matrix)
    assert (swizzled.stride_byte_offset, swizzled.swizzle) == (1024, 128)
    for r, c in [(0, 0), (3, 9), (9, 3), (15, 127), (5, 70)]:
        column, chunk = divmod(c // 8, 8)
        assert swizzled.data[(column * 16 + r) * 64 + (chunk ^ (r % 8)) * 8 + c % 8] == matrix[r, c]
    assert swizzled.k_step_offset(1) == 16 and swizzled.k_step_offset(5) == 16 * 64 + 16
    # K padded with zeros to whole 128-byte rows
    assert wl.swizzled_128b(matrix[:, :16]).data.size == 16 * 64
    with pytest.raises(ValueError, match="a multiple of 8 rows"):
        wl.interleaved(matrix[:4])


def test_the_fragment_positions_cover_the_tile():
    n = 64
    seen = {wk.fragment_position(t, r) for t in range(128) for r in range(n // 2)}
    assert seen == {(row, col) for row in range(64) for col in range(n)}


def _fence(out):
    intrin.wgmma_fence()
    out[0] = 1


@pytest.mark.parametrize("kernel, name", [(_fence, "wgmma_fence")])
def test_plain_sm_90_asks_for_sm_90a(backend, kernel, name):
    with pytest.raises(ValueError, match=rf"intrin\.{name} needs the architecture-specific target sm_90a; the code is compiled for sm_90: give the option chip='sm_90a'"):  # fmt: skip
        cuda.compile_ptx(kernel, "void(int32[:])", cc=(9, 0), backend=backend)


def _bad(body):
    namespace = {"cuda": cuda, "intrin": intrin, "np": np}
    exec(f"def kernel(acc, d, i, sm):\n    {body}\n", namespace)
    return lambda: cuda.compile_ptx(namespace["kernel"], "void(float32[:], uint64[:], int32[:], uint16[:])", cc="sm_90a")  # fmt: skip


@pytest.mark.parametrize(
    "body, message",
    [
        ('intrin.wgmma_mma_async(acc, d[0], d[1], "m64n64k16")', r"give the input type as dtype="),
        ('intrin.wgmma_mma_async(acc, d[0], d[1], "m64n60k16", dtype="bf16")', r"N a multiple of 8 from 8 to 256"),
        ('intrin.wgmma_mma_async(acc, d[0], d[1], "m64n264k16", dtype="f16")', r"N a multiple of 8 from 8 to 256"),
        ('intrin.wgmma_mma_async(acc, d[0], d[1], "m64n64k16", dtype="tf32")', r"'m64nNk8'"),
        ('intrin.wgmma_mma_async(acc, d[0], d[1], "m64n64k16", dtype="f32")', r"dtype must be a literal string"),
        ('intrin.wgmma_mma_async(acc, d[0], d[1], "m64n64k8", trans_a=1, dtype="tf32")', r"only bf16 and f16"),
        (
            'intrin.wgmma_mma_async(acc, d[0], d[1], "m64n64k16", trans_b=2, dtype="f16")',
            r"trans_b must be the literal 0 or 1",
        ),
        (
            'intrin.wgmma_mma_async(acc, d[0], d[1], "m64n64k16", trans_b=i[0], dtype="f16")',
            r"trans_b must be the literal",
        ),
        ('intrin.wgmma_mma_async(d, d[0], d[1], "m64n64k16", dtype="f16")', r"accumulator must be a 1-D float32 array"),
        ('intrin.wgmma_mma_async(acc, acc[0], d[1], "m64n64k16", dtype="f16")', r"a_desc must be an integer"),
        (
            'intrin.wgmma_mma_async(acc, d[0], d[1], "m64n64k16", bias=1, dtype="f16")',
            r"unexpected keyword argument 'bias'",
        ),
        ("intrin.wgmma_wait_group(i[0])", r"n must be a non-negative literal"),
        ("intrin.wgmma_wait_group(1, acc)", r"the accumulator is given with n = 0 only"),
        ("intrin.wgmma_wait_group(0, d)", r"accumulator must be a 1-D float32 array"),
        ("d[0] = intrin.wgmma_descriptor(sm, 16, 16, 48)", r"swizzle must be the literal 0, 32, 64 or 128"),
        ("d[0] = intrin.wgmma_descriptor(sm[0], 16, 16, 0)", r"smem \(a cuda.shared.array\) must be an array"),
        ("d[0] = intrin.wgmma_descriptor(sm, 1.5, 16, 0)", r"leading_byte_offset must be an integer"),
    ],
)
def test_bad_arguments(body, message):
    with pytest.raises(TypingError, match=message):
        _bad(body)()


REGISTER_A = {  # dtype -> (the fragment's dtype, its elements, the shape's K)
    "bf16": (types.bfloat16, 8, 16),
    "f16": (np.float16, 8, 16),
    "tf32": (np.float32, 4, 8),
    "e4m3": (types.f8E4M3FN, 16, 32),
    "e5m2": (types.f8E5M2, 16, 32),
    "s8": (np.int8, 16, 32),
    "u8": (np.uint8, 16, 32),
}


def _register_a_kernel(dtype, length=None, trans_a=0):
    """A kernel multiplying A in registers (*length* elements) by B's descriptor; B transposed
    where the input type allows it (16-bit), so that the one flag spelled shows."""
    element, elements, k = REGISTER_A[dtype]
    length = elements if length is None else length
    shape = f"m64n32k{k}"
    trans_b = 1 if dtype in ("bf16", "f16") else 0
    acc_dtype = np.int32 if dtype in ("s8", "u8") else np.float32

    def kernel(descriptors, out):
        a = cuda.local.array(length, element)
        for e in consteval(range(length)):  # constant indices: the fragment stays in registers
            a[e] = e
        acc = cuda.local.array(16, acc_dtype)
        intrin.wgmma_fence()
        intrin.wgmma_mma_async(acc, a, descriptors[1], shape, 0, trans_a, trans_b, dtype=dtype)
        intrin.wgmma_commit_group()
        intrin.wgmma_wait_group(0, acc)
        for r in range(16):
            out[cuda.threadIdx.x, r] = acc[r]

    return kernel


@pytest.mark.parametrize("dtype", sorted(REGISTER_A))
def test_a_held_in_registers(backend, dtype):
    if dtype == "bf16" and backend == "nvvm":
        pytest.skip("arrays of bfloat16 need backend='nvptx' below sm_100")
    sig = "void(uint64[:], float32[:, ::1])"
    ptx, _ = cuda.compile_ptx(_register_a_kernel(dtype), sig, cc="sm_90a", backend=backend)
    support.ptxas(ptx, "sm_90a")
    (mma,) = _instructions(ptx, r"^wgmma\.mma_async")
    # four 32-bit registers of A, then B's descriptor; of the transposes, B's alone is spelled
    tails = {"bf16": ", scale_d, 1, 1, 1;", "f16": ", scale_d, 1, 1, 1;", "s8": ", scale_d;", "u8": ", scale_d;"}
    tail = tails.get(dtype, ", scale_d, 1, 1;")
    assert re.search(r"\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+" + re.escape(tail) + "$", mma), mma
    assert not re.search(r"\b(ld|st)\.local", ptx)


@pytest.mark.parametrize(
    "kernel, message",
    [
        (_register_a_kernel("f16", trans_a=1), r"A in registers is never transposed"),
        (_register_a_kernel("f16", length=4), r"must hold 8 elements of float16, got a local array of 4"),
    ],
)
def test_bad_a_in_registers(kernel, message):
    with pytest.raises(TypingError, match=message):
        cuda.compile_ptx(kernel, "void(uint64[:], float32[:, ::1])", cc="sm_90a")


def test_a_in_registers_of_another_type_is_refused():
    def kernel(descriptors, out):
        a = cuda.local.array(8, np.int16)
        acc = cuda.local.array(16, np.float32)
        intrin.wgmma_mma_async(acc, a, descriptors[1], "m64n32k16", 0, dtype="bf16")

    with pytest.raises(TypingError, match=r"A in registers is a 1-D local array of bfloat16 for dtype='bf16'"):
        cuda.compile_ptx(kernel, "void(uint64[:], float32[:, ::1])", cc="sm_90a")


ACCUMULATED = [  # (input type, accumulator dtype, its PTX type, registers of m64n32, K, A in registers)
    ("f16", np.float16, "f16", 8, 16, False),
    ("f16", np.float16, "f16", 8, 16, True),
    ("e4m3", np.float16, "f16", 8, 32, False),
    ("s8", np.int32, "s32", 16, 32, False),
    ("u8", np.int32, "s32", 16, 32, True),
]


def _accumulating_kernel(dtype, acc_dtype, k, a_in_registers, steps=2):
    """A kernel of *steps* wgmma into an accumulator of *acc_dtype* (m64n32), then the tied
    wait and the accumulator's elements converted and stored."""
    shape = f"m64n32k{k}"
    element, elements, _ = REGISTER_A.get(dtype, (np.float16, 8, 16))

    def kernel(descriptors, out):
        acc = cuda.local.array(16, acc_dtype)
        a = cuda.local.array(elements, element)
        for e in consteval(range(elements)):
            a[e] = e
        intrin.wgmma_fence()
        for step in consteval(range(steps)):
            if a_in_registers:
                intrin.wgmma_mma_async(acc, a, descriptors[step], shape, step, dtype=dtype)
            else:
                intrin.wgmma_mma_async(acc, descriptors[2 * step], descriptors[2 * step + 1], shape, step, dtype=dtype)
        intrin.wgmma_commit_group()
        intrin.wgmma_wait_group(0, acc)
        for r in consteval(range(16)):
            out[cuda.threadIdx.x, r] = acc[r] * 0.5

    return kernel


@pytest.mark.parametrize("dtype, acc_dtype, ptx_type, registers, k, a_in_registers", ACCUMULATED)
def test_float16_and_integer_accumulators(backend, dtype, acc_dtype, ptx_type, registers, k, a_in_registers):
    kernel = _accumulating_kernel(dtype, acc_dtype, k, a_in_registers)
    ptx, _ = cuda.compile_ptx(kernel, "void(uint64[:], float32[:, ::1])", cc="sm_90a", backend=backend)
    notes = support.ptxas(ptx, "sm_90a")
    assert "C7514" not in notes, notes  # no read of the accumulator inside the pipeline
    mmas = _instructions(ptx, r"^wgmma\.mma_async")
    assert len(mmas) == 2 and all(f".m64n32k{k}.{ptx_type}.{dtype}.{dtype} " in m for m in mmas)
    d = re.search(r"\{([^}]*)\}", mmas[0]).group(1).split(", ")
    assert len(d) == registers and all(re.fullmatch(r"%r\d+", r) for r in d)  # f16x2 pairs, or s32
    # the same registers through both steps; integers have scale_d alone
    assert {re.search(r"\{([^}]*)\}", m).group(1) for m in mmas} == {", ".join(d)}
    assert all(m.endswith(", scale_d;") == (ptx_type == "s32") for m in mmas)
    assert not re.search(r"\b(ld|st)\.local", ptx)


@pytest.mark.parametrize(
    "dtype, acc_dtype, shape, message",
    [
        ("bf16", np.float16, "m64n32k16", r"bf16 inputs accumulate in float32, got an accumulator of float16"),
        ("f16", np.int32, "m64n32k16", r"f16 inputs accumulate in float32 or float16, got an accumulator of int32"),
        ("s8", np.float32, "m64n32k32", r"s8 inputs accumulate in int32, got an accumulator of float32"),
        ("s8", np.int32, "m64n40k32", r"N 8, 24 or a multiple of 16 up to 256"),
        ("f16", np.int64, "m64n32k16", r"the accumulator must be a 1-D float32 array"),
    ],
)
def test_bad_accumulators(dtype, acc_dtype, shape, message):
    def kernel(descriptors, out):
        acc = cuda.local.array(16, acc_dtype)
        intrin.wgmma_mma_async(acc, descriptors[0], descriptors[1], shape, 0, dtype=dtype)

    with pytest.raises(TypingError, match=message):
        cuda.compile_ptx(kernel, "void(uint64[:], float32[:, ::1])", cc="sm_90a")


def _mixed_integers(d, out):
    acc = cuda.local.array(8, np.int32)
    intrin.wgmma_fence()
    intrin.wgmma_mma_async(acc, d[0], d[1], "m64n16k32", 0, dtype="s8", b_dtype="u8", satfinite=True)
    intrin.wgmma_commit_group()
    intrin.wgmma_wait_group(0, acc)
    out[0] = acc[0]


def test_mixed_and_saturating_integers(backend):
    ptx, _ = cuda.compile_ptx(_mixed_integers, "void(uint64[:], int32[:])", cc="sm_90a", backend=backend)
    support.ptxas(ptx, "sm_90a")
    (mma,) = _instructions(ptx, r"^wgmma\.mma_async")
    assert mma.startswith("wgmma.mma_async.sync.aligned.m64n16k32.satfinite.s32.s8.u8 ") and mma.endswith(", scale_d;")
    major, minor = map(int, re.search(r"^\.version (\d+)\.(\d+)", ptx, re.M).groups())
    assert (major, minor) >= (8, 4)  # mixed integer types came with PTX ISA 8.4


@pytest.mark.parametrize(
    "call, message",
    [
        ('acc, d[0], d[1], "m64n32k16", 0, dtype="f16", satfinite=True', r"b_dtype and satfinite apply to s8 and u8"),
        ('acc, d[0], d[1], "m64n32k16", 0, dtype="f16", b_dtype="u8"', r"b_dtype and satfinite apply to s8 and u8"),
        (
            'iacc, d[0], d[1], "m64n32k32", 0, dtype="s8", b_dtype="s4"',
            r"b_dtype must be a literal string, one of s8, u8",
        ),
        ('iacc, d[0], d[1], "m64n32k32", 0, dtype="s8", satfinite=1', r"satfinite must be the literal True or False"),
    ],
)
def test_bad_integer_options(call, message):
    namespace = {"cuda": cuda, "intrin": intrin, "np": np}
    source = (
        "def kernel(d, out):\n"
        "    acc = cuda.local.array(16, np.float32)\n"
        "    iacc = cuda.local.array(16, np.int32)\n"
        f"    intrin.wgmma_mma_async({call})\n"
    )
    exec(source, namespace)
    with pytest.raises(TypingError, match=message):
        cuda.compile_ptx(namespace["kernel"], "void(uint64[:], float32[:, ::1])", cc="sm_90a")


def _divided_steps(d, steps, parts, out):
    acc = cuda.local.array(16, np.float32)
    intrin.wgmma_fence()
    intrin.wgmma_mma_async(acc, d[0], d[1], "m64n32k16", 0, dtype="f16")
    intrin.wgmma_commit_group()
    intrin.wgmma_wait_group(0, acc)
    share = steps // parts  # in 64 bits, a routine nvJitLink links in: a call
    for r in consteval(range(16)):
        out[cuda.threadIdx.x, r] = acc[r] + share


def test_ptxas_notes_of_lost_performance_are_warnings():
    from cumlir.linking import PerformanceWarning

    sig = "void(uint64[:], int64, int64, float32[:, ::1])"
    kernel = cuda.jit(sig, chip="sm_90a")(_divided_steps)
    (overload,) = kernel.overloads.values()
    with pytest.warns(PerformanceWarning, match=r"ptxas: \(C7509\) .*wgmma.mma_async instructions are serialized"):
        overload.output("cubin")
    # the same kernel dividing in 32 bits: nothing to say
    narrow = cuda.jit(sig.replace("int64, int64", "uint32, uint32"), chip="sm_90a")(_divided_steps)
    (overload,) = narrow.overloads.values()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        assert overload.output("cubin")[:4] == b"\x7fELF"


def _scaled_product(a_desc, out):
    acc = cuda.local.array(32, np.float32)
    intrin.wgmma_fence()
    intrin.wgmma_mma_async(acc, a_desc[0], a_desc[1], "m64n64k16", 0, dtype="bf16")
    intrin.wgmma_commit_group()
    intrin.wgmma_wait_group(0, acc)
    t = cuda.threadIdx.x
    for r in range(32):
        out[t, r] = acc[r] * 0.5 + 1.0  # arithmetic on the registers, then the store


def test_the_last_wait_ties_the_accumulator(backend):
    ptx, _ = cuda.compile_ptx(_scaled_product, "void(uint64[:], float32[:, ::1])", cc="sm_90a", backend=backend)
    support.ptxas(ptx, "sm_90a")
    lines = [line.strip() for line in ptx.splitlines()]
    (mma,) = [k for k, line in enumerate(lines) if line.startswith("wgmma.mma_async")]
    (wait,) = [k for k, line in enumerate(lines) if line.startswith("wgmma.wait_group")]
    registers = re.search(r"\{([^}]*)\}", lines[mma]).group(1).split(", ")
    assert len(registers) == 32
    # every use of an accumulator register past the instruction comes after the wait
    uses = [
        k for k, line in enumerate(lines) if k > mma and any(re.search(rf"{re.escape(r)}\b", line) for r in registers)
    ]
    assert uses and min(uses) > wait


def _short_accumulator(descriptors, out):
    acc = cuda.local.array(8, np.float32)
    intrin.wgmma_mma_async(acc, descriptors[0], descriptors[1], "m64n64k16", 0, dtype="bf16")
    out[0] = acc[0]


@pytest.mark.parametrize("debug", [False, True])
def test_a_short_accumulator_leaves_no_instruction_behind_the_exit(backend, debug):
    # ptxas (CUDA 13.0) crashes on a wgmma left after an exit, its registers never written
    sig = "void(uint64[::1], float32[::1])"
    ptx, _ = cuda.compile_ptx(_short_accumulator, sig, cc=(9, 0, "a"), backend=backend, debug=debug)
    assert "wgmma.mma_async" not in ptx and "exit;" in ptx
    support.ptxas(ptx, "sm_90a")
