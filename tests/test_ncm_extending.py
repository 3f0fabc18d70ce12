"""numba-cuda-mlir's extension API names in cumlir.extending, without a GPU: each one
either works on cumlir's registries (kernels using it compile to PTX that ptxas accepts)
or is refused by name."""

import ast
import pathlib

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import llvm, nvvm

from cumlir import cuda, extending, types
from cumlir.codegen import targets
from cumlir.lowering_utilities import type_conversions
from cumlir.numba_cuda.typeconv import Conversion
from cumlir.numba_cuda.typing.templates import AbstractTemplate, signature

from . import fake_driver, support

ARCHS = [(8, 0), (9, 0)]
NCM_EXTENDING = pathlib.Path("/tmp/ncm/src/numba_cuda_mlir/extending/__init__.py")


def _assembles(kernel, sig, backend, **options):
    ptxs = []
    for cc in ARCHS:
        ptx = cuda.compile_ptx(kernel, sig, cc=cc, backend=backend, **options)[0]
        support.ptxas(ptx, targets.chip(cc))
        ptxs.append(ptx)
    return ptxs


@pytest.mark.skipif(not NCM_EXTENDING.exists(), reason="numba-cuda-mlir's sources are not unpacked here")
def test_every_public_name_of_numba_cuda_mlir_extending_exists():
    tree = ast.parse(NCM_EXTENDING.read_text())
    names = {"argument_handler"}  # a submodule
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    public = {n for n in names if not n.startswith("_")} - {"functools", "MappingProxyType"}
    assert len(public) == 31
    missing = [n for n in sorted(public) if n not in dir(extending)]
    assert not missing
    refused = {n for n in public if n in extending._refused.EXTENDING}
    assert refused == {"argument_handler", "WholeFunctionPlanner", "register_planner"}
    for name in public - refused:
        getattr(extending, name)


@pytest.mark.parametrize("name", ["argument_handler", "WholeFunctionPlanner", "register_planner"])
def test_refused_names_say_why(name):
    with pytest.raises(NotImplementedError, match=rf"cumlir does not provide '{name}' of numba_cuda_mlir.extending: "):
        getattr(extending, name)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        extending.no_such_name  # noqa: B018


def test_argument_handler_is_the_protocol_of_extensions():
    class Handler:
        def prepare_args(self, ty, val, stream=None, retr=None):
            return ty, val

    assert isinstance(Handler(), extending.ArgumentHandler)
    assert not isinstance(object(), extending.ArgumentHandler)


# ---- lower_builtin with a typing template ---------------------------------------------


def popcount_of(x):
    raise NotImplementedError("popcount_of is only callable from kernels")


@extending.typing_registry.register_global(popcount_of)
class _PopcountTyping(AbstractTemplate):
    def generic(self, args, kws):
        if not kws and len(args) == 1 and args[0] == types.uint32:
            return signature(types.int32, types.uint32)


@extending.lower_builtin(popcount_of, types.uint32)
def _lower_popcount(builder, target, args, kwargs):
    (x,) = builder.load_vars(args)
    builder.store_var(target, llvm.intr_ctpop(x))


def test_lower_builtin_lowers_a_typed_call(backend):
    def kernel(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = popcount_of(a[i])

    for ptx in _assembles(kernel, (types.uint32[::1], types.int32[::1]), backend):
        assert "popc.b32" in ptx


def test_registry_instances_feed_cumlir_tables(backend):
    typing_registry, lowering_registry = extending.Registry(), extending.LoweringRegistry()

    def rcp(x):
        raise NotImplementedError

    @typing_registry.register_global(rcp)
    class _Typing(AbstractTemplate):
        def generic(self, args, kws):
            if args == (types.float32,):
                return signature(types.float32, types.float32)

    @lowering_registry.lower(rcp, types.float32)
    def _lower(builder, target, args, kwargs):
        (x,) = builder.load_vars(args)
        builder.store_var(target, nvvm.rcp_approx_ftz_f(x.type, x))

    extending.refresh_registries()

    def kernel(a):
        a[0] = rcp(a[0])

    for ptx in _assembles(kernel, (types.float32[::1],), backend):
        assert "rcp.approx.ftz.f32" in ptx


def test_registry_keywords_of_the_overload_family():
    def twice(x):
        return 2 * x

    extending.overload(twice, typing_registry=extending.Registry())(lambda x: twice)
    with pytest.raises(TypeError, match="typing_registry= must be a cumlir.extending.TypingRegistry"):
        extending.overload(twice, typing_registry=object())


# ---- data models, typeof ---------------------------------------------------------------


class Tag:
    def __init__(self, value):
        self.value = value


class TagType(types.Type):
    def __init__(self):
        super().__init__(name="Tag")

    def can_convert_to(self, typingctx, other):
        if isinstance(other, types.Integer):
            return Conversion.safe
        return None


tag_type = TagType()


@extending.register(extending.mlir_data_manager, TagType)
class _TagModel(extending.models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, lambda: ir.IntegerType.get_signless(64))


@extending.typeof_impl.register(Tag)
def _typeof_tag(value, context):
    return tag_type


@extending.lowering_registry.lower_constant(TagType)
def _tag_constant(context, builder, typ, pyval):
    from cumlir.lowering_utilities import constant

    return constant(pyval.value, ir.IntegerType.get_signless(64))


@extending.lower_cast(TagType, types.Integer)
def _tag_to_int(context, builder, fromty, toty, value):
    return value


THE_TAG = Tag(1234567)


def test_typeof_impl_types_a_global_and_register_gives_its_model(backend):
    assert extending.mlir_data_manager.lookup(tag_type).__class__ is _TagModel

    def kernel(out):
        out[0] = THE_TAG  # converted by _tag_to_int

    for ptx in _assembles(kernel, (types.int64[::1],), backend):
        assert "1234567" in ptx


# ---- templates, classmethods, call keys ------------------------------------------------


def cube(x):
    return x * x * x


def test_make_overload_template_registered_by_hand(backend):
    def typer(x):
        if isinstance(x, types.Float):
            return lambda x: x * x * x

    template = extending.make_overload_template(cube, typer, {}, True, "never")
    extending.typing_registry.register(template)
    extending.typing_registry.register_global(cube, types.Function(template))

    def kernel(a):
        a[0] = cube(a[1])

    for ptx in _assembles(kernel, (types.float64[::1],), backend):
        assert ptx.count("mul.f64") + ptx.count("mul.rn.f64") >= 2


def test_make_overload_attribute_template_is_numbas_bound_to_cumlir():
    template = extending.make_overload_attribute_template(TagType, "twice", lambda tag: None)
    assert template._attr == "twice" and template.key is TagType
    assert template.metadata["target"] == "cumlir"


class CounterType(types.Type):
    def __init__(self):
        super().__init__(name="Counter")


@extending.overload_classmethod(CounterType, "limit")
def _counter_limit(cls, n):
    if isinstance(n, types.Integer):
        return lambda cls, n: n * 3 + 1


def test_overload_classmethod(backend):
    def kernel(out, n):
        out[0] = CounterType.limit(n)

    for ptx in _assembles(kernel, (types.int64[::1], types.int64), backend):
        assert "mad.lo.s64" in ptx or "mul.lo.s64" in ptx


def test_canonical_call_key():
    def impl(a, b=2, *rest, c=3):
        pass

    i, f = types.int64, types.float32
    key = extending.canonical_call_key
    assert key(impl, (i,), {}) == (i, types.Omitted(2), types.Omitted(3))
    assert key(impl, (i, f), {"c": f}) == key(impl, (i,), {"b": f, "c": f}) == (i, f, f)
    assert key(impl, (i, f, i, i), {}) == (i, f, i, i, types.Omitted(3))
    assert key(impl, (i, f, types.StarArgTuple((i, i))), {}) == (i, f, i, i, types.Omitted(3))
    assert key(impl, (), {}) is None
    assert key(impl, (i,), {"d": i}) is None


# ---- type conversions ------------------------------------------------------------------


def test_type_conversions_round_trip():
    with ir.Context(), ir.Location.unknown():
        for numba_type in (types.int8, types.int32, types.int64, types.float32, types.float64, types.boolean):
            assert type_conversions.to_numba_type(type_conversions.to_mlir_type(numba_type)) == numba_type
        assert str(type_conversions.to_mlir_type(np.dtype(np.float16))) == "f16"
        memref = type_conversions.to_mlir_type(types.float32[:, ::1])
        assert type_conversions.to_numba_type(memref) == types.float32[:, :]
        assert str(type_conversions.to_mlir_type(types.int32(types.float64))) == "(f64) -> i32"
        with pytest.raises(TypeError, match="to_numba_type: no Numba type for the MLIR type vector"):
            type_conversions.to_numba_type(ir.VectorType.get([4], ir.F32Type.get()))
        with pytest.raises(TypeError, match="to_mlir_type: no MLIR type for 'text'"):
            type_conversions.to_mlir_type("text")


def test_to_numba_type_of_numpy_scalar_types_and_ctypes():
    import ctypes
    import inspect

    to_numba_type = type_conversions.to_numba_type
    for scalar in (np.int8, np.uint16, np.int32, np.int64, np.float16, np.float32, np.float64, np.complex128):
        assert to_numba_type(scalar) == types.from_dtype(np.dtype(scalar))
    assert to_numba_type(np.bool_) == types.boolean and to_numba_type(np.dtype("u4")) == types.uint32
    expected = {
        ctypes.c_int: types.int32,
        ctypes.c_uint8: types.uint8,
        ctypes.c_int64: types.int64,
        ctypes.c_size_t: types.uint64,
        ctypes.c_float: types.float32,
        ctypes.c_double: types.float64,
        ctypes.c_bool: types.boolean,
        ctypes.c_void_p: types.voidptr,
        ctypes.POINTER(ctypes.c_float): types.CPointer(types.float32),
    }
    for ctype, numba_type in expected.items():
        assert to_numba_type(ctype) == numba_type, ctype
    assert to_numba_type(types.float32[:]) == types.float32[:]
    with pytest.raises(TypeError, match="the ctypes type c_char has no Numba type"):
        to_numba_type(ctypes.c_char)
    with pytest.raises(TypeError, match="no Numba type for the class int"):
        to_numba_type(int)
    with pytest.raises(TypeError, match="no Numba type for the class str_"):
        to_numba_type(np.str_)

    def annotated(a: types.float32[::1], n: np.int64, p: ctypes.c_void_p): ...

    def result(x: np.float32) -> np.float64: ...

    def partly(a: types.float32[::1], n): ...

    assert to_numba_type(inspect.signature(annotated)) == signature(
        types.none, types.float32[::1], types.int64, types.voidptr
    )
    assert to_numba_type(inspect.signature(result)) == signature(types.float64, types.float32)
    with pytest.raises(TypeError, match="the parameter 'n' has no type annotation"):
        to_numba_type(inspect.signature(partly))


def test_to_numba_type_of_mlir_function_types_and_cumlir_s_floats():
    to_numba_type = type_conversions.to_numba_type
    with ir.Context():
        assert to_numba_type(ir.Type.parse("bf16")) == types.bfloat16
        assert to_numba_type(ir.Type.parse("tf32")) == types.tf32
        assert to_numba_type(ir.Type.parse("f8E4M3FN")) == types.f8E4M3FN
        assert to_numba_type(ir.TypeAttr.get(ir.Type.parse("i16"))) == types.int16
        assert to_numba_type(ir.Type.parse("(i32, f32) -> f64")) == signature(types.float64, types.int32, types.float32)
        pair = to_numba_type(ir.Type.parse("(i64) -> (f32, f32)"))
        assert pair == signature(types.UniTuple(types.float32, 2), types.int64)
        assert to_numba_type(ir.Type.parse("() -> ()")) == signature(types.none)


def test_targetconfig_is_numbas():
    from numba.core import targetconfig

    assert extending.targetconfig is targetconfig


# ---- kernels whose code depends on their launches --------------------------------------


@extending.intrinsic
def threads_per_block(typingctx):
    extending.require_launch_config()  # typing may ask too

    def codegen(context, builder, sig, args):
        from cumlir.lowering_utilities import constant

        block = extending.require_launch_config()["block"]  # read while lowering: the kernel's launch
        return constant(block[0] * block[1] * block[2], ir.IntegerType.get_signless(64))

    return signature(types.int64), codegen


@extending.intrinsic
def scratch_marker(typingctx, nbytes):
    if isinstance(nbytes, types.IntegerLiteral):
        extending.set_required_dynamic_shared_memory(None, nbytes.literal_value)

        def codegen(context, builder, sig, args):
            from cumlir.lowering_utilities import constant

            return constant(0, ir.IntegerType.get_signless(64))

        return signature(types.int64, nbytes), codegen


def _overloads(kernel):
    """Every KernelOverload of *kernel*, its launch-configuration twins' included."""
    launches = kernel._launching()
    found = list(launches.table.overloads.values())
    for twin in launches._by_config.values():
        found += twin.table.overloads.values()
    return found


def _modules_named(fake):
    """Make the fake driver's launches name the module of their kernel: one per cubin loaded."""
    loaded = []

    def load(image):
        loaded.append(image)
        return 0, len(loaded)

    fake.cuModuleLoadData = load
    fake.cuModuleGetFunction = lambda module, name: (0, (fake.current, f"{name.decode()}@{module}"))
    return fake


def _launched_ptx(overload):
    return overload.compilation((9, 0), "cubin").code


def test_a_kernel_reading_its_launch_configuration_compiles_per_configuration(monkeypatch, backend):
    fake = _modules_named(fake_driver.install(monkeypatch))

    @cuda.jit(backend=backend)
    def kernel(out):
        out[0] = threads_per_block()

    out = cuda.device_array(1, np.int64)
    kernel[1, 32](out)
    kernel[2, 32](out)  # another grid: a kernel of its own too (the code may read any of it)
    kernel[1, (8, 4)](out)
    kernel[1, 32](out)  # the first configuration again: its kernel, not compiled again
    kernel[1, 64](out)
    kernel[1, 64](out)  # the fast path of a twin's launcher
    overloads = _overloads(kernel)
    assert len(overloads) == 4
    constants = sorted(ptx for ptx in map(_launched_ptx, overloads))
    for ptx in constants:
        support.ptxas(ptx, "sm_90")
    assert sum("64;" in ptx for ptx in constants) == 1 and sum("32;" in ptx for ptx in constants) == 3
    assert [launch["block"] for launch in fake.launches] == [
        (32, 1, 1),
        (32, 1, 1),
        (8, 4, 1),
        (32, 1, 1),
        (64, 1, 1),
        (64, 1, 1),
    ]
    names = [launch["kernel"] for launch in fake.launches]
    assert names[0] == names[3] and len({names[0], names[1], names[2], names[4]}) == 4
    assert names[4] == names[5]


def test_recompile_recompiles_every_configurations_kernel(monkeypatch):
    fake_driver.install(monkeypatch)

    @cuda.jit
    def kernel(out):
        out[0] = threads_per_block()

    out = cuda.device_array(1, np.int64)
    kernel[1, 32](out)
    kernel[1, 64](out)
    before = _overloads(kernel)
    kernel.recompile()  # typed again: the typing asks for the configuration too
    after = _overloads(kernel)
    assert len(after) == 2 and not any(new is old for new in after for old in before)


def test_a_kernel_reading_no_configuration_compiles_once(monkeypatch):
    fake_driver.install(monkeypatch)

    @cuda.jit
    def kernel(out):
        out[0] = 7

    out = cuda.device_array(1, np.int64)
    kernel[1, 32](out)
    kernel[4, 64, 0, 128](out)
    assert len(_overloads(kernel)) == 1 and not kernel._launching().sensitive


def test_mark_launch_config_sensitive_before_launching(monkeypatch):
    fake = _modules_named(fake_driver.install(monkeypatch))

    @cuda.jit
    def kernel(out):
        out[0] = 7

    kernel.mark_launch_config_sensitive()
    out = cuda.device_array(1, np.int64)
    kernel[1, 32](out)
    kernel[1, 64](out)
    kernel[1, 32](out)
    assert len(_overloads(kernel)) == 2
    assert fake.launches[0]["kernel"] == fake.launches[2]["kernel"] != fake.launches[1]["kernel"]


def test_mark_launch_config_sensitive_while_compiling(monkeypatch):
    fake = _modules_named(fake_driver.install(monkeypatch))
    marked = []

    @extending.intrinsic
    def marking(typingctx):
        marked[0].mark_launch_config_sensitive()  # as an extension holding the kernel's dispatcher does

        def codegen(context, builder, sig, args):
            from cumlir.lowering_utilities import constant

            return constant(5, ir.IntegerType.get_signless(64))

        return signature(types.int64), codegen

    @cuda.jit
    def kernel(out):
        out[0] = marking()

    marked.append(kernel)
    out = cuda.device_array(1, np.int64)
    kernel[1, 32](out)
    kernel[1, 64](out)
    kernel[1, 32](out)
    assert kernel._launching().sensitive and len(_overloads(kernel)) == 2
    assert fake.launches[0]["kernel"] == fake.launches[2]["kernel"] != fake.launches[1]["kernel"]


def test_the_configuration_is_refused_without_a_launch(backend):
    def kernel(out):
        out[0] = threads_per_block()

    with pytest.raises(Exception, match=r"require_launch_config\(\): .* being compiled without a launch"):
        cuda.compile_ptx(kernel, (types.int64[::1],), cc=(9, 0), backend=backend)
    with pytest.raises(RuntimeError, match="called by extensions while a kernel is compiled"):
        extending.require_launch_config()


def test_required_dynamic_shared_memory_is_added_to_launches(monkeypatch, backend):
    fake = fake_driver.install(monkeypatch)

    @cuda.jit(backend=backend)
    def kernel(out):
        out[0] = scratch_marker(4096) + scratch_marker(1024)

    out = cuda.device_array(1, np.int64)
    kernel[1, 32](out)
    kernel[1, 32](out)  # the fast path adds it too
    kernel[1, 32, 0, 8192](out)  # a launch asking more keeps its own
    kernel[1, 32, 0, 100](out)
    assert [launch["shared"] for launch in fake.launches] == [4096, 4096, 8192, 4096]
    assert len(_overloads(kernel)) == 1  # asking for memory does not make the code depend on the configuration
    for ptx in map(_launched_ptx, _overloads(kernel)):
        support.ptxas(ptx, "sm_90")


def test_required_dynamic_shared_memory_checks_its_size():
    with pytest.raises(TypeError, match="must be an int of bytes, got 1.5"):
        extending.set_required_dynamic_shared_memory(None, 1.5)
    with pytest.raises(ValueError, match="cannot be negative, got -1"):
        extending.set_required_dynamic_shared_memory(-1)
    with pytest.raises(RuntimeError, match="called by extensions while a kernel is compiled"):
        extending.set_required_dynamic_shared_memory(16)


def test_what_a_kernel_asks_of_its_launches_keeps_it_out_of_the_disk_cache(monkeypatch, tmp_path):
    fake_driver.install(monkeypatch)
    monkeypatch.setenv("CUMLIR_CACHE_DIR", str(tmp_path))

    @cuda.jit(cache=True)
    def asking(out):
        out[0] = scratch_marker(256)

    @cuda.jit(cache=True)
    def plain(out):
        out[0] = 256

    out = cuda.device_array(1, np.int64)
    asking[1, 32](out)
    plain[1, 32](out)
    assert [o.compile_stats["cache"] for o in _overloads(asking)] == ["not cacheable"]
    assert [o.compile_stats["cache"] for o in _overloads(plain)] == ["miss"]


@pytest.mark.gpu
def test_launch_configuration_and_required_shared_memory_on_the_gpu(backend):
    @cuda.jit(backend=backend)
    def kernel(out):
        scratch = cuda.shared.array(0, np.int64)  # dynamic: its size comes from the launch
        t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
        n = threads_per_block() + scratch_marker(8 * 1024)  # 1024 int64 of scratch asked by the extension
        scratch[1023 - t] = n + t
        cuda.syncthreads()
        out[cuda.blockIdx.x, t] = scratch[1023 - t]

    for grid, block in ((1, 32), (2, 32), (1, (8, 4, 2)), (3, 1024), (1, 32)):
        threads = int(np.prod(block))
        out = cuda.to_device(np.full((grid, 1024), -1, np.int64))
        kernel[grid, block](out)  # no dynamic shared memory asked: the 8 KiB the extension requires
        expected = np.full((grid, 1024), -1, np.int64)
        expected[:, :threads] = threads + np.arange(threads)
        np.testing.assert_array_equal(out.copy_to_host(), expected)
    assert len(_overloads(kernel)) == 4


# ---- target="cuda" and inline="always", as numba-cuda-mlir's extending spells them -------------


def _scaled_by_generic(x):
    pass


def _scaled_by_cuda(x):
    pass


def _scaled_by_both(x):
    pass


def _add_inlined(x, y):
    pass


@extending.overload(_scaled_by_generic, target="generic")
def _ol_generic(x):
    return lambda x: x * 3


@extending.overload(_scaled_by_cuda, target="cuda")
def _ol_cuda(x):
    return lambda x: x * 5


@extending.overload(_scaled_by_both, target="generic")
def _ol_both_generic(x):
    return lambda x: x * 7


@extending.overload(_scaled_by_both, target="cuda")
def _ol_both_cuda(x):
    return lambda x: x * 11  # the more specific target: chosen for cumlir's kernels


@extending.overload(_add_inlined, inline="always")
def _ol_add_inlined(x, y):
    def impl(x, y):
        return x + 2 * y

    return impl


def _targets_kernel(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = _scaled_by_generic(a[i])
        out[1, i] = _scaled_by_cuda(a[i])
        out[2, i] = _scaled_by_both(a[i])
        out[3, i] = _add_inlined(a[i], out[1, i])


def test_overloads_for_the_cuda_target_serve_cumlir_kernels(simulator_or_gpu, rng):
    a = rng.integers(-1000, 1000, 300).astype(np.int64)
    out = np.full((4, a.size), -0x5A5A, np.int64)
    cuda.jit(_targets_kernel)[3, 128](out, a)
    np.testing.assert_array_equal(out, [3 * a, 5 * a, 11 * a, a + 10 * a])


def test_an_always_inlined_overload_leaves_no_call(backend):
    ptx = cuda.compile_ptx(_targets_kernel, "void(int64[:, ::1], int64[::1])", cc=(9, 0), backend=backend)[0]
    assert "call" not in ptx.replace(".callprototype", "")  # every overload inlined by LLVM at -O3 ...
    llvm_ir = cuda.jit(_targets_kernel).compile("void(int64[:, ::1], int64[::1])").output("llvm", (9, 0))
    assert "alwaysinline" in llvm_ir  # ... the inline="always" one marked so


# ---- an extension's overload of a function cumlir types itself ------------------------------------


@extending.overload(np.sum)
def _sum_of_three(a, b, c):  # np.sum(a, b, c): no NumPy signature takes three arrays
    if all(isinstance(t, types.Array) for t in (a, b, c)):
        return lambda a, b, c: a[0] + b[1] + c[2]
    return None


def _sums(out, x):
    out[0] = np.sum(x, x, x)  # the extension's
    out[1] = np.sum(x)  # cumlir's own


def test_an_extensions_overload_of_a_numpy_function_cumlir_types(simulator_or_gpu, rng):
    x = rng.standard_normal(5)
    out = support.poisoned(2, np.float64)
    cuda.jit(_sums)[1, 1](out, x)
    np.testing.assert_allclose(out, [x[0] + x[1] + x[2], x.sum()], rtol=1e-12)
