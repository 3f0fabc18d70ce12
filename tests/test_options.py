"""Every keyword of Numba-CUDA's ``cuda.jit`` either changes the generated code as it should,
on both code generators, or is refused when the kernel is decorated."""

import math
import re
import warnings

import numpy as np
import pytest

from cumlir import cuda
from cumlir.options import Options

from . import support

SIG = "void(float32[:], float32[:], float32[:])"


def _fma(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] * b[i] + c[i]


def _ptx(backend, **options):
    kernel = cuda.jit(backend=backend, **options)(_fma)
    ptx = kernel.inspect_ptx(SIG, cc=(9, 0))
    support.ptxas(ptx)
    return ptx


def _calls_device_function(backend, **device_options):
    @cuda.jit(device=True, **device_options)
    def twice(x):
        return 2 * x

    @cuda.jit(opt=False, backend=backend)
    def k(a):
        a[0] = twice(a[0])

    ptx = k.inspect_ptx("void(float32[:])", cc=(9, 0))
    support.ptxas(ptx)
    return re.search(r"\bcall(\.uni)?\b", ptx) is not None


# ---- keywords that change the code -----------------------------------------------------------


def test_max_registers(backend):
    assert ".maxnreg 32" in _ptx(backend, max_registers=32)
    assert ".maxnreg" not in _ptx(backend)


def test_launch_bounds(backend):
    assert ".maxntid 256, 1, 1" in _ptx(backend, launch_bounds=256)
    ptx = _ptx(backend, launch_bounds=(128, 2, 4))
    assert ".maxntid 128, 1, 1" in ptx and ".minnctapersm 2" in ptx and ".maxclusterrank 4" in ptx
    plain = _ptx(backend)
    assert ".maxntid" not in plain and ".minnctapersm" not in plain


def test_lineinfo(backend):
    ptx = _ptx(backend, lineinfo=True)
    assert re.search(r"\.file\s+\d+ \".*test_options\.py\"", ptx)
    # the line of the statement doing the arithmetic is among the .loc directives
    line = _fma.__code__.co_firstlineno + 3
    assert re.search(rf"\.loc\s+\d+ {line} ", ptx)
    assert ".loc" not in _ptx(backend)


def test_fastmath(backend):
    plain, contract, fast = (
        _ptx(backend, fma=False),
        _ptx(backend, fma=False, fastmath={"contract"}),
        _ptx(backend, fastmath=True),
    )
    assert "fma.rn.f32" not in plain and ".ftz" not in plain
    assert "fma.rn.f32" in contract and ".ftz" not in contract  # contraction alone
    assert "fma.rn.ftz.f32" in fast  # everything, denormals flushed too


def _nan_facts(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = math.isnan(x[i])
        out[1, i] = x[i] != x[i]
        out[2, i] = math.isinf(x[i] * 2.0)
    if i == 0:
        out[3, 0] = np.nanmin(x)
        out[3, 1] = np.nanmax(x)
        out[3, 2] = np.min(x)


def test_fastmath_keeps_nan_and_infinity_ieee(simulator_or_gpu, backend):
    x = np.array([1.5, np.nan, -2.0, np.inf, 0.25, -np.inf, np.nan, 3.0])
    out = np.full((4, x.size), -7.0)
    cuda.jit(fastmath=True, backend=backend)(_nan_facts)[1, 32](out, x)
    np.testing.assert_array_equal(out[0], np.isnan(x))
    np.testing.assert_array_equal(out[1], np.isnan(x))
    np.testing.assert_array_equal(out[2], np.isinf(x))
    assert out[3, :2].tolist() == [-np.inf, np.inf] and np.isnan(out[3, 2])


def test_nan_skipping_reductions_hold_under_nnan(simulator_or_gpu, backend, rng):
    x = rng.standard_normal(37)  # no NaN: what nnan promises
    out = np.full((4, x.size), -7.0)
    cuda.jit(fastmath={"nnan", "ninf"}, backend=backend)(_nan_facts)[2, 32](out, x)
    assert out[3, :3].tolist() == [x.min(), x.max(), x.min()]


def test_a_times_b_plus_c_is_one_fma_by_default(backend):
    # as in Numba-CUDA (libNVVM's default -fma=1); fma=False rounds the product and the sum apart
    default = _ptx(backend)
    assert "fma.rn.f32" in default and "mul.rn.f32" not in default and ".ftz" not in default
    separate = _ptx(backend, fma=False)
    assert "mul.rn.f32" in separate and "add.rn.f32" in separate
    assert Options(fma=False).cache_key() != Options().cache_key()
    with pytest.raises(TypeError, match="the option fma must be True or False"):
        cuda.jit(fma=1)


@pytest.mark.parametrize("kind, dtype, rn", [("fp16", "float16", "__h{}_rn"), ("bf16", "bfloat16", "h{}_rn")])
def test_rn_half_intrinsics_are_never_contracted(backend, kind, dtype, rn):
    """CUDA's ``__hmul_rn``/``__hadd_rn`` exist to prevent contraction; ``hmul``/``hadd`` may be."""
    if kind == "bf16" and backend == "nvvm":
        pytest.skip("bfloat16 is refused by the nvvm code generator below sm_100")
    ns = getattr(cuda, kind)
    hmul, hadd = ns.hmul, ns.hadd
    hmul_rn, hadd_rn = getattr(ns, rn.format("mul")), getattr(ns, rn.format("add"))

    def contracted(a, b, c, out):
        out[0] = hadd(hmul(a[0], b[0]), c[0])

    def exact(a, b, c, out):
        out[0] = hadd_rn(hmul_rn(a[0], b[0]), c[0])

    sig = f"void({dtype}[:], {dtype}[:], {dtype}[:], {dtype}[:])"
    suffix = "f16" if kind == "fp16" else "bf16"
    assert f"fma.rn.{suffix}" in cuda.jit(backend=backend)(contracted).inspect_ptx(sig, cc=(9, 0))
    for options in ({}, {"fastmath": {"nnan"}}):
        ptx = cuda.jit(backend=backend, **options)(exact).inspect_ptx(sig, cc=(9, 0))
        assert f"fma.rn.{suffix}" not in ptx and f"mul.rn.{suffix}" in ptx, options
        support.ptxas(ptx)
    assert f"fma.rn.{suffix}" in cuda.jit(backend=backend, fastmath={"contract"})(exact).inspect_ptx(sig, cc=(9, 0))


def test_debug_records_exceptions(backend):
    @cuda.jit(debug=True, opt=False, backend=backend)
    def k(a):
        if a[0] <= 0:
            raise ValueError("a[0] must be positive")

    ptx = k.inspect_ptx("void(float32[:])", cc=(9, 0))
    assert "cumlir_exception" in ptx
    assert "cumlir_exception" not in cuda.jit(backend=backend)(k.py_func).inspect_ptx("void(float32[:])", cc=(9, 0))


def test_opt_false_keeps_calls_and_forceinline_removes_them(backend):
    assert _calls_device_function(backend)
    assert not _calls_device_function(backend, forceinline=True)
    assert not _calls_device_function(backend, inline="always")
    assert _calls_device_function(backend, inline="never")
    assert _calls_device_function(backend, inline="auto")  # numba-cuda-mlir's: the optimisers decide


def test_inline_auto_compiles_as_never(backend):
    @cuda.jit(device=True, inline="auto")
    def twice_auto(x):
        return x * 2.0 + 1.0

    @cuda.jit(device=True, inline="never")
    def twice_never(x):
        return x * 2.0 + 1.0

    def kernel_auto(a):
        a[0] = twice_auto(a[1])

    def kernel_never(a):
        a[0] = twice_never(a[1])

    auto, never = (
        cuda.compile_ptx(k, "void(float64[:])", cc=(9, 0), backend=backend)[0] for k in (kernel_auto, kernel_never)
    )
    assert "call" not in auto and auto.replace("kernel_auto", "kernel_never") == never  # inlined at O3 either way
    assert cuda.jit(inline="auto")(kernel_auto).options.inline == "auto"


def test_help_lists_the_keywords_and_stops():
    from cumlir.option_help import KEYWORDS

    with pytest.raises(SystemExit) as raised:
        cuda.jit(help=True)
    text = str(raised.value)
    assert text.startswith("Printing the options because: help was specified")
    for name, effect in KEYWORDS.items():
        assert f"  {name} " in text and effect in text
    assert cuda.jit(help=False)(_ptx).options == Options()


def test_help_names_every_keyword_cuda_jit_takes():
    from dataclasses import fields

    from cumlir.option_help import KEYWORDS
    from cumlir.options import DUMP_ALIASES, DUMPS, JIT_SIGNATURE_KEYWORDS

    internal = {"dumps", "profile_file", "arch_specific", "family_specific", "checks"}
    taken = {f.name for f in fields(Options)} - internal
    taken |= set(DUMPS) | set(DUMP_ALIASES) | set(JIT_SIGNATURE_KEYWORDS)
    taken |= {"cc", "abi", "abi_info", "device", "boundscheck", "experimental_ast_transforms", "simulate", "help"}
    assert taken == set(KEYWORDS)


def test_forceinline_marks_compiled_device_functions_alwaysinline():
    def add(x, y):
        return x + y

    plain, _ = cuda.compile(add, "int32(int32, int32)", cc=(9, 0), output="llvm")
    forced, _ = cuda.compile(add, "int32(int32, int32)", cc=(9, 0), output="llvm", forceinline=True)
    assert "alwaysinline" not in plain
    assert re.search(r"define [^\n]*@add\(", forced) and "alwaysinline" in forced


def test_backend():
    assert "NVVM Compiler" in _ptx("nvvm")
    assert "LLVM NVPTX" in _ptx("nvptx")


def test_lto_compiles_kernels_to_ltoir():
    kernel = cuda.jit(lto=True)(_fma)
    compiled = kernel.compile(SIG).compilation((9, 0))
    assert compiled.code_format == "ltoir" and isinstance(compiled.code, bytes)
    assert compiled.cubin[:4] == b"\x7fELF"
    with pytest.raises(ValueError, match="compiles to ltoir"):
        kernel.inspect_ptx(SIG, cc=(9, 0))


def test_cache_is_accepted_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernel = cuda.jit(cache=True)(_fma)
    assert kernel.options.cache and kernel.options.cache_key() == Options().cache_key()


def test_shared_memory_carveout_is_checked_and_kept():
    assert cuda.jit(shared_memory_carveout="MaxShared")(_fma).options.shared_memory_carveout == 100
    assert cuda.jit(shared_memory_carveout=25)(_fma).options.shared_memory_carveout == 25


# ---- refused keywords and values -----------------------------------------------------------


@pytest.mark.parametrize(
    "keywords,error,message",
    [
        ({"fastmaht": True}, TypeError, "unknown keyword argument 'fastmaht'; did you mean 'fastmath'?"),
        ({"max_register": 32}, TypeError, "did you mean 'max_registers'?"),
        ({"lineinf": True}, TypeError, "did you mean 'lineinfo'?"),
        ({"zzz": 1}, TypeError, "unknown keyword argument 'zzz' (help=True lists them)"),
        ({"debug": "yes"}, TypeError, "debug must be True or False"),
        ({"opt": "yes"}, TypeError, "opt must be True or False"),
        ({"max_registers": 0}, ValueError, "between 1 and 255"),
        ({"max_registers": 256}, ValueError, "between 1 and 255"),
        ({"max_registers": 32.0}, TypeError, "max_registers must be an int"),
        ({"launch_bounds": (0,)}, ValueError, "positive"),
        ({"launch_bounds": (1, 2, 3, 4)}, TypeError, "1 to 3 ints"),
        ({"launch_bounds": "128"}, TypeError, "1 to 3 ints"),
        ({"inline": "sometimes"}, ValueError, "inline must be 'never', 'always' or 'auto'"),
        ({"inline": lambda expr, caller, callee: True}, ValueError, "takes no cost model"),
        ({"help": "yes"}, TypeError, "help must be True or False"),
        ({"fastmath": {"fast", "bogus"}}, ValueError, "unknown flags ['bogus']"),
        ({"fastmath": "yes"}, TypeError, "fastmath must be True, False or a set"),
        ({"shared_memory_carveout": "Max"}, ValueError, "shared_memory_carveout"),
        ({"shared_memory_carveout": 101}, ValueError, "from -1 to 100"),
        ({"backend": "llvm"}, ValueError, "unknown backend 'llvm'"),
        ({"link": 42}, TypeError, "a link item is a path or a LinkableCode"),
        ({"link": ["code.unknown"]}, ValueError, "cannot tell what kind of code"),
        ({"argtypes": ("int32",)}, TypeError, "signatures are given as the first positional argument"),
        ({"boundscheck": True}, NotImplementedError, "boundscheck=True is not supported"),
        ({"extensions": [object()]}, TypeError, "has no prepare_args"),
        ({"device": "yes"}, TypeError, "device must be True or False"),
    ],
)
def test_bad_options_are_refused_at_decoration(keywords, error, message):
    with pytest.raises(error, match=re.escape(message)):
        cuda.jit(**keywords)


def test_bad_options_are_refused_by_compile():
    with pytest.raises(
        TypeError, match="cuda.compile: unknown keyword argument 'forceinlin'; did you mean 'forceinline'"
    ):
        cuda.compile(_fma, SIG, device=False, abi="numba", cc=(9, 0), forceinlin=True)
    with pytest.raises(ValueError, match="between 1 and 255"):
        cuda.compile_ptx(_fma, SIG, cc=(9, 0), max_registers=1000)


def test_numba_defaults_are_accepted():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernel = cuda.jit(debug=None, opt=None, lto=None, inline=False, boundscheck=None, extensions=[])(_fma)
    assert kernel.options == Options()


# ---- the cache key ---------------------------------------------------------------------------


def test_cache_key_covers_every_code_changing_option(tmp_path):
    base = Options().cache_key()
    changed = [
        Options(debug=True),
        Options(opt=False),
        Options(lineinfo=True),
        Options(fastmath=True),
        Options(fastmath={"contract"}),
        Options(max_registers=64),
        Options(launch_bounds=(128,)),
        Options(inline="always"),
        Options(forceinline=True),
        Options(lto=True),
        Options(backend="nvvm"),
    ]
    keys = [o.cache_key() for o in changed]
    assert base not in keys and len(set(keys)) == len(keys)
    assert Options(cache=True).cache_key() == base == Options(shared_memory_carveout=50).cache_key()
    assert Options(fastmath={"nnan", "ninf"}).cache_key() == Options(fastmath=["ninf", "nnan"]).cache_key()

    path = tmp_path / "f.ptx"
    path.write_text("// one")
    first = Options(link=[str(path)]).cache_key()
    assert first == Options(link=[str(path)]).cache_key()
    path.write_text("// two")
    assert Options(link=[str(path)]).cache_key() != first  # the key follows the file's contents
