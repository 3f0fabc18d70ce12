"""numba-cuda-mlir's keywords of cuda.jit: each accepted one's effect on cumlir's pipeline,
and each refused one's message. Compiles to PTX and cubins only (no GPU)."""

import ctypes
import re

import numpy as np
import pytest

from cumlir import cuda
from cumlir.codegen.nvvm.libnvvm import nvvm_options
from cumlir.compiler import emit
from cumlir.linking import LinkError
from cumlir.options import Options

from .support import ptxas

SIG = "void(float32[::1], float32)"


def scale(a, x):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * x + 1.0


def many_registers(a, b):
    i = cuda.grid(1)
    if i < a.size:
        s0 = a[i] * 1.5
        s1 = a[i + 1] * 2.5
        s2 = a[i + 2] * 3.5
        s3 = a[i + 3] * 4.5
        s4 = a[i + 4] * 5.5
        s5 = a[i + 5] * 6.5
        s6 = a[i + 6] * 7.5
        s7 = a[i + 7] * 8.5
        for _ in range(b.size):
            s0, s1, s2, s3, s4, s5, s6, s7 = s1 * s2, s2 + s3, s3 * s4, s4 + s5, s5 * s6, s6 + s7, s7 * s0, s0 + s1
        a[i] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7


def ptx_of(function=scale, sig=SIG, cc=(8, 0), **options):
    return cuda.compile_ptx(function, sig, cc=cc, **options)[0]


def registers(cubin):
    from cumlir.codegen.disassemble import sass

    return int(re.search(r"SHI_REGISTERS=(\d+)", sass(cubin)).group(1))


# -- opt_level ------------------------------------------------------------------------------


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_opt_level_reaches_both_code_generators(level, backend):
    options = Options.from_keywords("cuda.jit", {"opt_level": level, "backend": backend})
    assert options.opt is (level > 0) and options.opt_level == level
    optimized = emit(scale, _argtypes(), "optimized", (8, 0), options)
    assert f"O = {level}" in optimized if level != 2 else "O = " not in optimized  # 2: the default, not printed
    assert f"-opt={level}" in nvvm_options((8, 0), options, "ptx")
    ptx = emit(scale, _argtypes(), "ptx", (8, 0), options)
    ptxas(ptx, "sm_80")


def test_opt_level_zero_is_opt_false():
    assert ptx_of(opt_level=0) == ptx_of(opt=False)
    assert ptx_of(opt_level=0) != ptx_of(opt_level=3)
    assert Options(opt=False).opt_level == 0 and Options().opt_level == 3


@pytest.mark.parametrize(
    ("keywords", "error", "words"),
    [
        ({"opt_level": 7}, ValueError, "between 0 and 3"),
        ({"opt_level": "3"}, TypeError, "opt_level"),
        ({"opt": False, "opt_level": 3}, ValueError, "opt=False and opt_level=3"),
        ({"opt": True, "opt_level": 0}, ValueError, "opt=True and opt_level=0"),
    ],
)
def test_opt_level_bad_values(keywords, error, words):
    with pytest.raises(error, match=re.escape(words)):
        cuda.jit(**keywords)


# -- chip, cc, features -----------------------------------------------------------------------


def test_chip_is_the_target_when_none_is_given():
    kernel = cuda.jit(SIG, chip="sm_86")(scale)
    (ptx,) = kernel.inspect_ptx().values()
    assert ".target sm_86" in ptx
    assert ".target sm_90" in kernel.inspect_ptx(SIG, cc=(9, 0))  # a compute capability given wins
    assert ".target sm_90" in ptx_of(cc=None, chip="sm_90")
    assert ".target sm_80" in cuda.jit(SIG, cc=(8, 0))(scale).inspect_ptx(SIG)


@pytest.mark.parametrize(
    ("keywords", "words"),
    [
        ({"chip": "sm_9"}, "'sm_' and a compute capability"),
        ({"chip": "90"}, "'sm_' and a compute capability"),
        ({"chip": "sm_95"}, "known: 7.5, 8.0"),
        ({"chip": "sm_80a"}, "sm_80 has no architecture-specific target"),
        ({"chip": "sm_90a", "features": "+ptx78"}, "older than sm_90a allows: it needs +ptx80"),
        ({"chip": "sm_100x"}, "use chip='sm_100'"),
        ({"cc": (9, 0), "chip": "sm_80"}, "different compute capabilities"),
        ({"features": "ptx80"}, "'+ptx80'"),
        ({"features": "+ptx60", "chip": "sm_90"}, "needs +ptx78"),
        ({"features": "+ptx80", "backend": "nvvm"}, "applies to backend='nvptx'"),
    ],
)
def test_chip_and_features_bad_values(keywords, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        cuda.jit(**keywords)


def test_compile_refuses_a_cc_and_another_chip():
    with pytest.raises(ValueError, match="different compute capabilities"):
        ptx_of(cc=(9, 0), chip="sm_80")


def test_features_choose_the_ptx_version():
    ptx = ptx_of(cc=(9, 0), features="+ptx85")
    assert ".version 8.5" in ptx
    ptxas(ptx, "sm_90")
    with pytest.raises(ValueError, match="needs \\+ptx78"):
        ptx_of(cc=(9, 0), features="+ptx70")


# -- ptxas_options ----------------------------------------------------------------------------


def test_ptxas_options_reach_ptxas():
    sig = "void(float32[::1], float32[::1])"
    plain = cuda.jit(sig)(many_registers).compile(sig).output("cubin", (8, 0))
    capped = cuda.jit(sig, ptxas_options="--maxrregcount=24")(many_registers).compile(sig).output("cubin", (8, 0))
    assert registers(plain) > 24 >= registers(capped)
    assert Options(ptxas_options="-O1 --maxrregcount=16").ptxas_options == ("-O1", "--maxrregcount=16")


def test_a_bad_ptxas_option_is_reported_by_name():
    kernel = cuda.jit(SIG, ptxas_options="--no-such-option")(scale)
    with pytest.raises(LinkError, match="no-such-option"):
        kernel.compile(SIG).output("cubin", (8, 0))
    with pytest.raises(TypeError, match="ptxas_options"):
        cuda.jit(ptxas_options=16)


def test_ptxas_options_change_the_cache_key():
    assert Options(ptxas_options="-O1").cache_key() != Options().cache_key()


# -- capi, abi, abi_info -------------------------------------------------------------------------


def test_capi_names_the_kernel():
    assert ".entry scale(" in ptx_of(capi=True)
    assert ".entry my_scale(" in cuda.jit(SIG, capi="my_scale")(scale).inspect_ptx(SIG, cc=(8, 0))
    assert ".entry other(" in cuda.jit(SIG, abi_info={"abi_name": "other"})(scale).inspect_ptx(SIG, cc=(8, 0))
    assert Options(capi=True).cache_key() == Options().cache_key() != Options(capi="x").cache_key()


@pytest.mark.parametrize(
    ("keywords", "error", "words"),
    [
        ({"capi": "1x"}, ValueError, "C identifier"),
        ({"capi": "k", "device": True}, TypeError, "abi_info={'abi_name'"),
        ({"abi": "c"}, TypeError, "cuda.compile(f, sig, abi='c')"),
        ({"abi_info": {"name": "x"}}, ValueError, "abi_info takes one key, 'abi_name'"),
        ({"capi": "a", "abi_info": {"abi_name": "b"}}, ValueError, "different symbols"),
    ],
)
def test_capi_and_abi_bad_values(keywords, error, words):
    with pytest.raises(error, match=re.escape(words)):
        cuda.jit(**keywords)


def test_abi_numba_is_accepted():
    assert cuda.jit(abi="numba")(scale).options == Options()


# -- the dumps --------------------------------------------------------------------------------

DUMPS = {
    "dump_ast": "=== cumlir Python AST: kernel scale ===",
    "dump_ast_after_all": "=== cumlir Python AST: kernel scale ===",
    "dump_numba_ir": "=== cumlir typed Numba IR: kernel scale ===",
    "dump_mlir": "=== cumlir MLIR: kernel scale for sm_80 ===",
    "dump_llvmir": "=== cumlir LLVM IR: kernel scale for sm_80 ===",
    "dump_ptx": "=== cumlir PTX: kernel scale for sm_80 ===",
    "dump_cubin": "=== cumlir cubin: kernel scale for sm_80 ===",
    "print_before_all": "IR Dump Before CSE",
    "print_after_all": "IR Dump After CSE",
    "profile_jit": "cumlir compile stats: kernel scale for sm_80",
}


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_each_dump_prints_what_it_says(name, capfd, backend):
    kernel = cuda.jit(SIG, backend=backend, **{name: True})(scale)
    kernel.compile(SIG).output("cubin", (8, 0))
    kernel.inspect_ptx(SIG, cc=(8, 0))
    err = capfd.readouterr().err
    assert DUMPS[name] in err
    others = [marker for other, marker in DUMPS.items() if marker != DUMPS[name] and other != "profile_jit"]
    assert not any(marker in err for marker in others), "a dump printed what it was not asked for"


def test_dump_contents(capfd):
    kernel = cuda.jit(SIG, dump_ast=True, dump_numba_ir=True, dump_llvmir=True, dump_ptx=True)(scale)
    (ptx,) = kernel.inspect_ptx(cc=(8, 0)).values()
    err = capfd.readouterr().err
    assert "FunctionDef(\n      name='scale'" in err  # ast.dump of the source
    assert "a.size" in err or "$" in err  # the typed Numba IR's variables
    assert "define ptx_kernel void @scale(" in err or "define void @scale(" in err
    assert ptx.strip() in err


def test_dump_is_numba_ir_and_mlir(capfd):
    cuda.jit(SIG, dump=True)(scale).inspect_ptx(SIG, cc=(8, 0))
    err = capfd.readouterr().err
    assert DUMPS["dump_numba_ir"] in err and DUMPS["dump_mlir"] in err and DUMPS["dump_ptx"] not in err


def test_dumps_change_neither_the_code_nor_the_cache_key(capfd, backend):
    every = dict.fromkeys(DUMPS, True) | {"dump": True}
    plain = cuda.jit(SIG, backend=backend)(scale)
    dumped = cuda.jit(SIG, backend=backend, **every)(scale)
    assert dumped.inspect_ptx(SIG, cc=(8, 0)) == plain.inspect_ptx(SIG, cc=(8, 0))
    assert dumped.inspect_llvm(SIG, cc=(8, 0)) == plain.inspect_llvm(SIG, cc=(8, 0))
    assert dumped.options.cache_key() == plain.options.cache_key()
    assert dumped.options.dumps == frozenset(DUMPS)


@pytest.mark.parametrize(
    ("keywords", "error", "words"),
    [
        ({"dump_ptx": "yes"}, TypeError, "dump_ptx must be True or False"),
        ({"profile_jit": ""}, TypeError, "profile_jit is True or the path of a file to save the profile to"),
        ({"profile_jit": 2}, TypeError, "profile_jit must be True or False"),
        ({"profile_file": "out.prof"}, TypeError, "unknown keyword argument 'profile_file'"),
    ],
)
def test_dump_bad_values(keywords, error, words):
    with pytest.raises(error, match=re.escape(words)):
        cuda.jit(**keywords)


def test_profile_jit_profiles_each_part_of_a_compilation(capfd, tmp_path):
    import pstats

    path = tmp_path / "compile.prof"
    kernel = cuda.jit(SIG, profile_jit=str(path))(scale)  # typed here, at decoration
    typing = capfd.readouterr().err
    assert "--- cProfile for compilation of scale (typing) ---" in typing and "cumtime" in typing
    assert "type_function" in typing  # numba's frontend ran inside
    assert f"Profile saved to: {path}" in typing
    typed_calls = pstats.Stats(str(path)).total_calls
    kernel.compile(SIG).binary((8, 0))  # compiled for sm_80: the second part
    code = capfd.readouterr().err
    assert "--- cProfile for compilation of scale (sm_80) ---" in code and "(typing)" not in code
    assert pstats.Stats(str(path)).total_calls > typed_calls  # the file holds both parts
    assert kernel.options.cache_key() == cuda.jit(SIG)(scale).options.cache_key()


def test_profile_jit_true_saves_nothing(capfd, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cuda.jit(profile_jit=True)(scale).compile(SIG).binary((8, 0))
    err = capfd.readouterr().err
    assert "cProfile for compilation of scale (sm_80)" in err and "Profile saved" not in err
    assert list(tmp_path.iterdir()) == []


def test_carveout_names_in_either_spelling():
    assert cuda.jit(shared_memory_carveout="maxl1")(scale).options.shared_memory_carveout == 0
    assert cuda.jit(shared_memory_carveout="MaxShared")(scale).options.shared_memory_carveout == 100
    with pytest.raises(ValueError, match="shared_memory_carveout"):
        cuda.jit(shared_memory_carveout="max")


# -- refused by name ----------------------------------------------------------------------------


def test_refused_keywords_say_why():
    cuda.jit(experimental_ast_transforms=True)  # consteval applies wherever a function uses it
    cuda.jit(experimental_ast_transforms=False)
    with pytest.raises(TypeError, match="experimental_ast_transforms must be True or False"):
        cuda.jit(experimental_ast_transforms="yes")
    with pytest.raises(TypeError, match="has no prepare_args"):  # extensions= itself: test_argument_handlers.py
        cuda.jit(extensions=[object()])
    with pytest.raises(TypeError, match="'signature' belongs to cuda.jit"):
        cuda.compile_ptx(scale, SIG, cc=(8, 0), signature="infer")


# -- signature="infer", annotations_as_signatures ---------------------------------------------


def test_signature_infer_from_numba_types():
    def annotated(a: cuda.float32[::1], x: cuda.float32):
        a[0] = x

    kernel = cuda.jit(signature="infer")(annotated)
    (argtypes,) = kernel.overloads
    assert [str(t) for t in argtypes] == ["array(float32, 1d, C)", "float32"]


def test_signature_infer_from_numpy_and_ctypes_types():
    def annotated(a: cuda.int64[:, :], x: np.int32, y: ctypes.c_double) -> None:
        a[0, 0] = x + y

    kernel = cuda.jit(signature="infer")(annotated)
    (argtypes,) = kernel.overloads
    assert [str(t) for t in argtypes] == ["array(int64, 2d, A)", "int32", "float64"]


def test_signature_infer_for_a_device_function():
    def twice(x: cuda.float64) -> cuda.float64:
        return 2 * x

    device = cuda.jit(device=True, signature="infer")(twice)

    @cuda.jit("void(float64[::1])")
    def k(a):
        a[0] = device(a[0])

    assert "mul.f64" in k.inspect_ptx("void(float64[::1])", cc=(8, 0)) or "add.f64" in k.inspect_ptx(
        "void(float64[::1])", cc=(8, 0)
    )


@pytest.mark.parametrize(
    ("annotation", "words"),
    [
        (None, "the parameter 'x' of .*: it has no type annotation"),
        (cuda.DeviceNDArray, "the parameter 'x' .*DeviceNDArray names no element type"),
        (int, "the parameter 'x' .*is not a numba type"),
    ],
)
def test_signature_infer_refuses_parameters_by_name(annotation, words):
    def f(a: cuda.float32[::1], x):
        pass

    if annotation is not None:
        f.__annotations__["x"] = annotation
    with pytest.raises(TypeError, match=words):
        cuda.jit(signature="infer")(f)


def test_annotations_as_signatures():
    def annotated(a: cuda.float32[::1], x: cuda.float32):
        a[0] = x

    def partly(a: cuda.float32[::1], x):
        a[0] = x

    assert len(cuda.jit(annotations_as_signatures=True)(annotated).overloads) == 1
    assert len(cuda.jit(annotations_as_signatures=True)(partly).overloads) == 0  # compiled at launch
    assert len(cuda.jit(annotated).overloads) == 0  # annotations alone do not compile, as in Numba-CUDA
    # numba-cuda-mlir's words, and ours
    with pytest.raises(
        TypeError, match="(?i)conflicting signature sources for .*annotated: .*both signatures and type"
    ):
        cuda.jit(SIG, annotations_as_signatures=True)(annotated)
    assert len(cuda.jit(SIG)(annotated).overloads) == 1  # by default annotations are ignored, as in Numba-CUDA


def test_signature_keyword_is_the_positional_signature():
    assert list(cuda.jit(signature=SIG)(scale).overloads) == list(cuda.jit(SIG)(scale).overloads)
    with pytest.raises(TypeError, match="signatures given twice"):
        cuda.jit(SIG, signature=SIG)


def _argtypes():
    from numba.core import types

    return (types.float32[::1], types.float32)


@pytest.mark.parametrize("opt, level", [(0, 0), (1, 1), (2, 2), (3, 3), (True, 3), (False, 0)])
def test_opt_as_numba_cuda_mlir_spells_it(opt, level):
    # numba-cuda-mlir's opt=0 to 3 is the optimization level; Numba-CUDA's True/False stay as they were
    options = cuda.jit(opt=opt)(lambda a: None).options
    assert (options.opt, options.opt_level) == (level > 0, level)
