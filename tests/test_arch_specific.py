"""Architecture-specific targets (sm_90a, docs/hopper.md): chip="sm_90a", cc=(9, 0, "a") and
cc="sm_90a" compile for them on both code generators (PTX's .target, libNVVM's -arch,
nvJitLink's -arch, the options' cache key); the rule of the target a launch compiles for;
an operation that needs one refused elsewhere by name; family targets (sm_100f) compiled the
same way; the spellings refused."""

import re

import pytest
from mlir import ir

from cumlir import cuda
from cumlir.codegen import targets
from cumlir.codegen.nvvm.libnvvm import nvvm_options
from cumlir.codegen.passes import pipeline
from cumlir.marks import NEEDS_ARCH_SPECIFIC
from cumlir.options import Options

from . import support

SIG = "void(int32[:])"


def _store(out):
    out[0] = cuda.threadIdx.x


def _target(ptx):
    return re.search(r"^\.target (\S+)", ptx, re.M).group(1)


@pytest.mark.parametrize("how", ["chip", "cc tuple", "cc string"])
def test_sm_90a_reaches_the_ptx(backend, how):
    spelled = {"chip": {"chip": "sm_90a"}, "cc tuple": {"cc": (9, 0, "a")}, "cc string": {"cc": "sm_90a"}}[how]
    ptx, _ = cuda.compile_ptx(_store, SIG, backend=backend, **spelled)
    assert _target(ptx) == "sm_90a"
    support.ptxas(ptx, "sm_90a")
    if backend == "nvptx":  # sm_90a came with PTX 8.0
        assert re.search(r"^\.version 8\.\d", ptx, re.M)


@pytest.mark.parametrize("how", ["chip", "cc tuple", "cc string"])
@pytest.mark.parametrize("family", ["sm_100f", "sm_103f", "sm_120f", "sm_121f"])
def test_family_targets_reach_the_ptx(backend, how, family):
    major, minor = int(family[3:-2]), int(family[-2])
    spelled = {"chip": {"chip": family}, "cc tuple": {"cc": (major, minor, "f")}, "cc string": {"cc": family}}[how]
    ptx, _ = cuda.compile_ptx(_store, SIG, backend=backend, **spelled)
    assert _target(ptx) == family
    support.ptxas(ptx, family)
    if backend == "nvptx":  # family targets came with PTX 8.8
        assert re.search(r"^\.version (8\.[89]|9\.\d)", ptx, re.M)


def test_family_target_options_and_links(backend, monkeypatch):
    family, plain = Options(chip="sm_100f"), Options(chip="sm_100")
    assert family.chip == (10, 0) and family.family_specific and not family.arch_specific
    assert family.target_suffix == "f" and Options(chip="sm_100a").target_suffix == "a"
    assert family.cache_key() != plain.cache_key() != Options(chip="sm_100a").cache_key()
    assert targets.suffix((10, 0), family) == "f" and targets.suffix((12, 0), family) == ""
    assert "-arch=compute_100f" in nvvm_options((10, 0), family, "ptx")
    from cuda.bindings import nvjitlink

    seen = []
    create = nvjitlink.create

    def recording(count, options):
        seen.append(list(options))
        return create(count, options)

    monkeypatch.setattr(nvjitlink, "create", recording)
    cubin = cuda.compile_cubin(_store, SIG, chip="sm_100f", backend=backend)
    ltoir, _ = cuda.compile(_store, SIG, cc="sm_100f", device=False, abi="numba", output="ltoir", backend=backend)
    assert seen[0][0] == "-arch=sm_100f" and cubin and ltoir


def test_the_plain_chip_stays_plain(backend):
    ptx, _ = cuda.compile_ptx(_store, SIG, backend=backend, chip="sm_90")
    assert _target(ptx) == "sm_90"


def test_options_and_cache_key():
    plain, specific = Options(chip="sm_90"), Options(chip="sm_90a")
    assert specific.chip == plain.chip == (9, 0)
    assert specific.arch_specific and not plain.arch_specific
    assert specific.cache_key() != plain.cache_key()
    assert Options(chip=(9, 0, "a")) == specific == specific.replace(nrt=None)
    # cc and chip agreeing: the architecture-specific spelling of the two is kept
    assert Options.from_keywords("cuda.jit", {"cc": (9, 0), "chip": "sm_90a"}).arch_specific
    assert Options.from_keywords("cuda.jit", {"cc": (9, 0, "a"), "chip": "sm_90"}).arch_specific


def test_the_target_of_each_compute_capability():
    specific = Options(chip="sm_90a", backend="nvvm")
    assert targets.arch_specific((9, 0), specific)
    # a launch on a device of another compute capability compiles for its plain target
    assert not targets.arch_specific((10, 0), specific)
    assert not targets.arch_specific((9, 0), Options(chip="sm_90"))
    assert "-arch=compute_90a" in nvvm_options((9, 0), specific, "ptx")
    assert "-arch=compute_100" in nvvm_options((10, 0), specific, "ptx")
    assert targets.chip((9, 0), True) == "sm_90a" and targets.ptx_feature((9, 0), arch_specific=True) == "+ptx80"


def test_nvjitlink_links_for_sm_90a(backend, monkeypatch):
    from cuda.bindings import nvjitlink

    seen = []
    create = nvjitlink.create

    def recording(count, options):
        seen.append(list(options))
        return create(count, options)

    monkeypatch.setattr(nvjitlink, "create", recording)
    specific = cuda.compile_cubin(_store, SIG, chip="sm_90a", backend=backend)
    plain = cuda.compile_cubin(_store, SIG, chip="sm_90", backend=backend)
    assert [options[0] for options in seen] == ["-arch=sm_90a", "-arch=sm_90"]
    assert specific != plain


def _module_needing_sm_90a():
    context = ir.Context()
    with context:
        module = ir.Module.parse(
            f'gpu.module @m attributes {{{NEEDS_ARCH_SPECIFIC} = 90 : i32, {NEEDS_ARCH_SPECIFIC}_for = "intrin.example"}} {{}}'
        )
        return context, module, module.body.operations[0]


@pytest.mark.parametrize(
    "cc, arch_specific, compiled",
    [((9, 0), False, "sm_90"), ((10, 0), True, "sm_100a"), ((10, 0), False, "sm_100")],
)
def test_an_operation_needing_sm_90a_names_itself_and_the_target(cc, arch_specific, compiled):
    context, _, gpu_module = _module_needing_sm_90a()
    with context, pytest.raises(ValueError, match=rf"intrin\.example needs the architecture-specific target sm_90a; the code is compiled for {compiled}: give the option chip='sm_90a'"):  # fmt: skip
        pipeline.check_needs(gpu_module, cc, None, arch_specific)


def test_an_operation_needing_sm_90a_compiles_for_it():
    context, _, gpu_module = _module_needing_sm_90a()
    with context:
        assert pipeline.check_needs(gpu_module, (9, 0), None, True) == 0
        assert NEEDS_ARCH_SPECIFIC not in gpu_module.attributes


@pytest.mark.parametrize(
    "keywords, error, words",
    [
        ({"chip": "sm_80a"}, ValueError, "sm_80 has no architecture-specific target (sm_80a); known: sm_90a"),
        ({"chip": "sm_90f"}, ValueError, "sm_90 has no family target (sm_90f); known: sm_100f, sm_103f"),
        ({"cc": (9, 0, "f")}, ValueError, "sm_90 has no family target (sm_90f)"),
        ({"chip": "sm_100x"}, ValueError, "not 'x'; use chip='sm_100'"),
        ({"cc": (9, 0, "x")}, ValueError, "a compute capability is a (major, minor) pair"),
        ({"arch_specific": True}, TypeError, "unknown keyword argument 'arch_specific'"),
    ],
)
def test_bad_spellings(keywords, error, words):
    with pytest.raises(error, match=re.escape(words)):
        cuda.jit(**keywords)


def test_a_compute_capability_alone_is_never_architecture_specific():
    with pytest.raises(ValueError, match=r"names an architecture-specific target: give it as the option chip"):
        targets.parse_cc("sm_90a")
