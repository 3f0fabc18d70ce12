"""Shared, local and constant memory without a GPU: typing, PTX accepted by ptxas,
the address spaces the PTX uses, and errors at the source line."""

import inspect
import pickle
import re

import numpy as np
import pytest
from numba import float32, float64, int32, uint64
from numba.core import types
from numba.core.errors import LoweringError, TypingError

from cumlir import compiler, cuda
from cumlir.codegen import targets

from ... import support
from ...cases import memory_kernels as mk
from ...test_codegen import ARCHS, _module_ptx

DTYPES = [np.int32, np.uint64, np.float32, np.float64]


def _array(dtype, ndim=1):
    return types.Array(support.numba_type(np.dtype(dtype).name), ndim, "C")


def _entries(dtype):
    a1, a2 = _array(dtype), _array(dtype, 2)
    return [
        (mk.tiled_matmul(dtype), (a2, a2, a2)),
        (mk.block_sum(dtype), (a1, a1)),
        (mk.dynamic_alias(dtype), (a1, a1, _array(np.int64))),
        (mk.dynamic_fill(dtype), (a1, a1)),
        (mk.dynamic_after_control_flow(dtype), (a1, a1, types.int64)),
        (mk.local_sort(dtype), (a2, a2, a2)),
        (mk.const_gather(np.arange(7, dtype=dtype)), (_array(np.int64), a1)),
        (mk.const_gather(np.arange(12, dtype=dtype).reshape(3, 4)), (_array(np.int64), a1)),
    ]


@pytest.mark.parametrize("cc", ARCHS, ids=lambda cc: targets.chip(cc))
def test_memory_kernels_assemble(cc):
    entries = [e for dtype in DTYPES for e in _entries(dtype)]
    entries += [(mk.aligned_arrays(a), (_array(np.int64),)) for a in (None, 16, 64, 256)]
    ptx, symbols = _module_ptx(entries, cc)
    assert len(symbols) == len(entries)
    support.ptxas(ptx, targets.chip(cc))


def _ptx(kernel, argtypes, cc=(9, 0)):
    return compiler.kernel_ptx(compiler.type_function(kernel, argtypes), cc).ptx


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_shared_accesses_use_the_shared_space(dtype):
    a2 = _array(dtype, 2)
    ptx = _ptx(mk.tiled_matmul(dtype), (a2, a2, a2))
    # both tiles are static shared arrays, read and written with shared-space instructions
    assert ptx.count(".shared .align 16 .b8 cumlir_shared") == 2
    assert "st.shared." in ptx and "ld.shared." in ptx
    assert ptx.count("bar.sync \t0") == 2


def test_reduction_reads_and_writes_shared_memory():
    ptx = _ptx(mk.block_sum(np.float32), (_array(np.float32), _array(np.float32)))
    assert f".shared .align 16 .b8 cumlir_shared_2[{mk.BLOCK * 4}]" in ptx or f"[{mk.BLOCK * 4}]" in ptx
    assert "ld.shared.b32" in ptx and "st.shared.b32" in ptx


def test_dynamic_arrays_alias_one_extern_buffer():
    ptx = _ptx(mk.dynamic_alias(np.float64), (_array(np.float64), _array(np.float64), _array(np.int64)))
    assert ptx.count(".extern .shared .align 16 .b8 cumlir_dynamic_shared[]") == 1
    assert "%dynamic_smem_size" in ptx
    assert "st.shared.b64" in ptx and "ld.shared.b64" in ptx
    support.ptxas(ptx)


def test_const_array_lives_in_constant_memory():
    table = np.array([3.5, -1.0, 2.25], dtype=np.float64)
    ptx = _ptx(mk.const_gather(table), (_array(np.int64), _array(np.float64)))
    assert ".const .align 16 .b8 cumlir_constant[24]" in ptx
    assert "ld.const.b64" in ptx


def test_local_arrays_stay_off_shared_and_global_memory():
    a2 = _array(np.int32, 2)
    ptx = _ptx(mk.local_sort(np.int32), (a2, a2, a2))
    assert ".shared" not in ptx
    support.ptxas(ptx)


@pytest.mark.parametrize("alignment", [16, 64, 256])
def test_alignment_reaches_the_ptx(alignment):
    ptx = _ptx(mk.aligned_arrays(alignment), (_array(np.int64),))
    assert f".shared .align {alignment} .b8 cumlir_shared" in ptx
    assert f".local .align {alignment} .b8" in ptx


@pytest.mark.parametrize("dtype", [float32, np.float32, np.dtype("float32"), "float32"], ids=repr)
def test_dtype_spellings(dtype):
    def k(out):
        s = cuda.shared.array((2, 3), dtype)
        loc = cuda.local.array(4, dtype)
        s[1, 2] = 1.5
        loc[3] = 2.0
        out[0] = s[1, 2] + loc[3]

    typed = compiler.type_function(k, (_array(np.float64),))
    arrays = {str(t) for t in typed.typemap.values() if isinstance(t, types.Array)}
    assert arrays >= {"array(float32, 2d, C)", "array(float32, 1d, C)"}


def test_shared_arrays_are_ordinary_arrays():
    def k(out):
        s = cuda.shared.array((4, 5), int32)
        out[0] = s.shape[1] + s.size + s.ndim + len(s)

    typed = compiler.type_function(k, (_array(np.int64),))
    assert typed.typemap["s"] == types.Array(int32, 2, "C")
    support.ptxas(_ptx(k, (_array(np.int64),)))


def test_stubs_only_work_in_kernels():
    with pytest.raises(RuntimeError, match="cuda.shared.array can only be used inside"):
        cuda.shared.array(4, np.float32)
    with pytest.raises(RuntimeError, match="cuda.syncthreads can only be used inside"):
        cuda.syncthreads()
    for stub in (cuda.shared.array, cuda.local.array, cuda.const.array_like, cuda.syncthreads, cuda.shared):
        assert pickle.loads(pickle.dumps(stub)) is stub


# ---- errors at the source line ------------------------------------------------------


def non_constant_shape(out, n):
    s = cuda.shared.array(n, float32)
    out[0] = s[0]


def bad_dtype(out):
    s = cuda.shared.array(4, "not_a_dtype")
    out[0] = s[0]


def array_as_dtype(out):
    s = cuda.local.array(4, out)
    out[0] = s[0]


def negative_extent(out):
    s = cuda.shared.array((4, -2), float32)
    out[0] = s[0, 0]


def alignment_not_power_of_two(out):
    s = cuda.shared.array(4, float32, alignment=24)
    out[0] = s[0]


def alignment_below_itemsize(out):
    s = cuda.local.array(4, float64, alignment=4)
    out[0] = s[0]


def alignment_not_constant(out, n):
    s = cuda.local.array(4, float64, alignment=n)
    out[0] = s[0]


def dynamic_2d(out):
    s = cuda.shared.array((0, 4), float32)
    out[0] = s[0, 0]


def const_of_a_number(out):
    t = cuda.const.array_like(3.0)
    out[0] = t[0]


TYPING_ERRORS = [
    (non_constant_shape, "the shape must be an int or a tuple of ints known at compile time"),
    (bad_dtype, "Invalid NumPy dtype specified: 'not_a_dtype'"),
    (array_as_dtype, "the dtype must be a numeric, boolean, datetime64 or timedelta64 type"),
    (negative_extent, r"the shape \(4, -2\) has a negative extent"),
    (alignment_not_power_of_two, "alignment must be a power of 2, got 24"),
    (alignment_below_itemsize, r"alignment 4 is less than the item size of float64 \(8 bytes\)"),
    (alignment_not_constant, "alignment must be an int known at compile time"),
    (dynamic_2d, r"a dynamic shared array \(shape 0\) is 1-D"),
    (const_of_a_number, "cuda.const.array_like needs a module-level NumPy array"),
]


def _first_line_of(kernel):
    lines, start = inspect.getsourcelines(kernel)
    return start + 1, lines[1].strip()


@pytest.mark.parametrize("kernel,message", TYPING_ERRORS, ids=[k.__name__ for k, _ in TYPING_ERRORS])
def test_typing_errors_name_the_problem_and_line(kernel, message):
    argtypes = (_array(np.float64),) + ((types.int64,) if "n" in inspect.signature(kernel).parameters else ())
    with pytest.raises(TypingError, match=message) as info:
        compiler.type_function(kernel, argtypes)
    line, text = _first_line_of(kernel)
    assert f'test_memory.py", line {line}' in str(info.value) or f"test_memory.py ({line})" in str(info.value)
    assert text in str(info.value)


def too_much_static_shared(out):
    a = cuda.shared.array(8192, float32)  # 32 KiB
    b = cuda.shared.array((64, 32), uint64)  # 16 KiB: 48 KiB in all, the limit
    c = cuda.shared.array(1, int32)
    out[0] = a[0] + b[0, 0] + c[0]


def test_static_shared_memory_over_48_kib_is_a_compile_error():
    with pytest.raises(
        LoweringError, match="49156 bytes of static shared memory in one function is more than the 49152"
    ) as info:
        _ptx(too_much_static_shared, (_array(np.float64),))
    lines, start = inspect.getsourcelines(too_much_static_shared)
    assert f"line {start + 3}" in str(info.value)


def test_48_kib_of_static_shared_memory_is_allowed():
    def at_limit(out):
        a = cuda.shared.array(8192, float32)
        b = cuda.shared.array((64, 32), uint64)
        out[0] = a[0] + b[0, 0]

    support.ptxas(_ptx(at_limit, (_array(np.float64),)))


def test_each_call_site_is_its_own_allocation():
    def k(out):
        i = cuda.threadIdx.x
        a = cuda.shared.array(4, float32)
        b = cuda.shared.array(4, float32)
        a[i % 4] = out[i]
        b[i % 4] = out[i] + 1
        cuda.syncthreads()
        out[i] = a[(i + 1) % 4] * b[(i + 2) % 4]

    ptx = _ptx(k, (_array(np.float64),))
    assert ptx.count(".shared .align 16 .b8 cumlir_shared") == 2


def test_dynamic_arrays_of_other_alignments_view_one_buffer():
    def k(out):
        a = cuda.shared.array(0, float32)
        b = cuda.shared.array(0, float64, alignment=128)
        a[0] = 1.0
        out[0] = b[0] + len(a)

    ptx = _ptx(k, (_array(np.float64),))
    # one buffer, declared with the 16 bytes the driver gives; b's start is rounded up to 128
    assert ptx.count("cumlir_dynamic_shared[]") == 1
    assert ".extern .shared .align 16 .b8 cumlir_dynamic_shared[]" in ptx
    assert re.search(r"and\.b64\s+%rd\d+, %rd\d+, (127|112);", ptx), ptx
    support.ptxas(ptx)


def _after_static_arrays(out):
    flags = cuda.shared.array(3, uint64)  # static shared memory first: the dynamic one starts after it
    tile = cuda.shared.array(0, float32, alignment=1024)
    t = cuda.threadIdx.x
    flags[t % 3] = 1
    tile[t] = t
    cuda.syncthreads()
    out[t] = tile[len(tile) - 1 - t] + flags[0]


def test_a_dynamic_array_aligned_past_16_bytes_starts_on_its_alignment():
    ptx = _ptx(_after_static_arrays, (_array(np.float32),))
    support.ptxas(ptx)
    # the start rounded up at run time (the negated address masked to the alignment), from a
    # buffer declared with the 16 bytes the driver gives, so that no compiler assumes more
    assert re.search(r"neg\.s64\s+(%rd\d+), %rd\d+;\s+and\.b64\s+%rd\d+, \1, (1023|1008);", ptx), ptx
    assert ".extern .shared .align 16 .b8 cumlir_dynamic_shared[]" in ptx


def test_launches_give_the_alignment_where_static_arrays_come_first(monkeypatch):
    from ... import fake_driver

    fake = fake_driver.install(monkeypatch)
    monkeypatch.setitem(fake_driver.FUNCTION, "SHARED_SIZE_BYTES", 24)  # the kernel's static bytes
    fake.slots = 4
    kernel = cuda.jit(_after_static_arrays)
    out = cuda.to_device(np.zeros(32, np.float32))
    for _ in range(3):  # the general path, then the fast path
        kernel[1, 32, 0, 4096](out)
    kernel[1, 32](out)  # no dynamic shared memory asked for: none given
    assert [launch["shared"] for launch in fake.launches] == [4096 + 1024] * 3 + [0]
    monkeypatch.setitem(fake_driver.FUNCTION, "SHARED_SIZE_BYTES", 0)  # no static arrays: the start is aligned
    fake_driver.forget_loaded(kernel)
    kernel[1, 32, 0, 4096](out)
    assert fake.launches[-1]["shared"] == 4096


def test_shared_and_local_arrays_in_device_functions():
    @cuda.jit(device=True)
    def rotate(x, i):
        s = cuda.shared.array(32, float32)
        loc = cuda.local.array(4, int32)
        s[i % 32] = x
        loc[i % 4] = i
        cuda.syncthreads()
        return s[(i + 1) % 32] + loc[i % 4]

    def k(out):
        i = cuda.threadIdx.x
        out[i] = rotate(out[i], i)

    ptx = _ptx(k, (_array(np.float32),))
    assert "ld.shared.b32" in ptx and "bar.sync" in ptx
    support.ptxas(ptx)


# ---- local arrays do not outlive their call ----------------------------------------------------


@cuda.jit(device=True)
def _returns_local_view():
    a = cuda.local.array(4, float64)
    a[0] = 1.0
    b = a[1:]
    return b


@cuda.jit(device=True)
def _returns_local_in_tuple(x):
    a = cuda.local.array((2, 2), float64)
    a[0, 0] = x
    return (x, a.T)


@cuda.jit(device=True)
def _returns_a_copy(x):
    a = cuda.local.array(3, float64)
    for i in range(3):
        a[i] = x + i
    out = np.empty(3)
    out[:] = a
    return out


@cuda.jit(device=True)
def _sums_a_local(x):
    a = cuda.local.array(3, float64)
    for i in range(3):
        a[i] = x * i
    return a[0] + a[1] + a[2]


def _calls_view(out):
    b = _returns_local_view()
    out[0] = b[0]


def _calls_tuple(out):
    t = _returns_local_in_tuple(out[0])
    out[0] = t[1][0, 0]


def _calls_copy(out):
    c = _returns_a_copy(out[0])
    out[0] = c[2]


def _calls_sum(out):
    out[0] = _sums_a_local(out[0])


@pytest.mark.parametrize("nrt", [False, True])
@pytest.mark.parametrize(
    "caller, callee", [(_calls_view, "_returns_local_view"), (_calls_tuple, "_returns_local_in_tuple")]
)
def test_a_device_function_cannot_return_its_local_array(caller, callee, nrt):
    from cumlir.options import Options

    with pytest.raises(LoweringError, match=f"{callee} returns memory of a cuda.local.array") as raised:
        compiler.kernel(caller, (types.float64[::1],), (9, 0), Options(nrt=nrt), until="codegen")
    assert "return" in str(raised.value)  # the source line of the return


def test_a_copy_or_a_value_of_a_local_array_may_be_returned(backend):
    from cumlir.options import Options

    for caller, nrt in ((_calls_copy, True), (_calls_sum, False)):
        c = compiler.kernel(caller, (types.float64[::1],), (9, 0), Options(nrt=nrt, backend=backend), until="codegen")
        assert ".entry" in c.code
