"""Which linker makes cubins: nvJitLink where it is installed (the extra ``nvjitlink``), else
the CUDA driver's own linker (linking/driver.py), which needs only the driver. The driver's
linker is driven here through a stand-in for ``cuda.bindings.driver`` that records the calls;
tests/test_gpu_driver_linker.py runs it on a GPU."""

import ctypes
import threading
from types import SimpleNamespace

import pytest
from cuda import pathfinder

from cumlir import cache, cuda, linking, optional_libraries
from cumlir.linkable import LTOIR, CUSource, PTXSource
from cumlir.linking import driver as driver_linker
from cumlir.linking import nvjitlink

from . import fake_driver

CUBIN = b"\x7fELF-linked-by-the-driver"


@pytest.fixture
def without_nvjitlink(monkeypatch):
    """cuda-pathfinder as on a machine where nvJitLink is not installed."""
    load = pathfinder.load_nvidia_dynamic_lib

    def load_without(name):
        if name == "nvJitLink":
            raise pathfinder.DynamicLibNotFoundError("no nvJitLink here")
        return load(name)

    monkeypatch.setattr(pathfinder, "load_nvidia_dynamic_lib", load_without)
    monkeypatch.delenv("CUMLIR_LINKER", raising=False)
    nvjitlink.available.cache_clear()
    yield
    nvjitlink.available.cache_clear()


class RecordingDriver:
    """What linking/driver.py calls of ``cuda.bindings.driver``, recorded; the link gives CUBIN."""

    CUresult = SimpleNamespace(CUDA_SUCCESS=0)
    CUjit_option = fake_driver._Names()
    CUjitInputType = fake_driver._Names()

    def __init__(self, current_context=0, fail_add=False):
        self.current = current_context
        self.fail_add = fail_add
        self.calls = []
        self.options = {}
        self.inputs = []
        self.targets = SimpleNamespace(CU_TARGET_COMPUTE_80="sm_80", CU_TARGET_COMPUTE_90="sm_90")
        self.targets.CU_TARGET_COMPUTE_90A = "sm_90a"
        self._cubin = ctypes.create_string_buffer(CUBIN, len(CUBIN))

    @property
    def CUjit_target(self):
        return self.targets

    def _record(self, name, *values):
        self.calls.append(name)
        return (0, *values)

    def cuInit(self, flags):
        return self._record("cuInit")

    def cuDriverGetVersion(self):
        return self._record("cuDriverGetVersion", 13000)

    def cuCtxGetCurrent(self):
        return self._record("cuCtxGetCurrent", self.current)

    def cuDeviceGet(self, ordinal):
        return self._record("cuDeviceGet", ordinal)

    def cuDevicePrimaryCtxRetain(self, device):
        return self._record("cuDevicePrimaryCtxRetain", 0x77)

    def cuDevicePrimaryCtxRelease(self, device):
        return self._record("cuDevicePrimaryCtxRelease")

    def cuCtxPushCurrent(self, context):
        self.current = context
        return self._record("cuCtxPushCurrent")

    def cuCtxPopCurrent(self):
        self.current = 0
        return self._record("cuCtxPopCurrent", 0x77)

    def cuLinkCreate(self, count, keys, values):
        assert count == len(keys) == len(values)
        self.options = dict(zip(keys, values))
        self.options["CU_JIT_INFO_LOG_BUFFER"][:19] = b"ptxas info: 8 regs\0"
        return self._record("cuLinkCreate", "state")

    def cuLinkAddData(self, state, kind, data, size, name, count, keys, values):
        assert size == len(data) and self.current, "the driver links in a current context"
        if self.fail_add:
            self.options["CU_JIT_ERROR_LOG_BUFFER"][:15] = b"ptxas: bad PTX\0"
            return (1,)
        self.inputs.append((kind, name.decode(), bytes(data)))
        return self._record("cuLinkAddData")

    def cuLinkComplete(self, state):
        return self._record("cuLinkComplete", ctypes.addressof(self._cubin), len(CUBIN))

    def cuLinkDestroy(self, state):
        return self._record("cuLinkDestroy")

    def cuGetErrorName(self, err):
        return (0, b"CUDA_ERROR_INVALID_PTX")


@pytest.fixture
def recording_driver(monkeypatch):
    """The driver's linker chosen, linking through a RecordingDriver."""
    fake = RecordingDriver(current_context=0x55)
    monkeypatch.setattr(driver_linker, "_driver", lambda: fake)
    monkeypatch.setenv("CUMLIR_LINKER", "driver")
    return fake


def _scale(a):
    a[cuda.grid(1)] *= 2.0


def _ptx(cc=(9, 0)):
    ptx, _ = cuda.compile_ptx(_scale, "void(float32[:])", cc=cc)
    return ptx


def test_nvjitlink_links_where_it_is_installed(monkeypatch):
    monkeypatch.delenv("CUMLIR_LINKER", raising=False)
    assert nvjitlink.available()
    assert linking.linker() == "nvjitlink"
    assert linking.linker_identity() == "nvjitlink " + ".".join(map(str, nvjitlink.version()))


def test_the_driver_links_where_nvjitlink_is_not_installed(without_nvjitlink):
    assert linking.linker() == "driver"


@pytest.mark.parametrize("name", ["driver", "nvjitlink", " Driver "])
def test_cumlir_linker_chooses(monkeypatch, name):
    monkeypatch.setenv("CUMLIR_LINKER", name)
    assert linking.linker() == name.strip().lower()


def test_an_unknown_linker_is_refused(monkeypatch):
    monkeypatch.setenv("CUMLIR_LINKER", "ld")
    with pytest.raises(ValueError, match="CUMLIR_LINKER must be one of nvjitlink, driver, not 'ld'"):
        linking.linker()


def test_without_nvjitlink_or_a_driver_ptx_compiles_and_a_cubin_names_the_extra(without_nvjitlink):
    assert ".entry" in _ptx()  # the code generators need neither
    kernel = cuda.jit("void(float32[:])")(_scale)
    with pytest.raises(optional_libraries.MissingLibraryError) as raised:
        next(iter(kernel.overloads.values())).output("cubin", (9, 0))
    message = str(raised.value)
    assert message.startswith("linking a cubin needs nvJitLink or a CUDA driver, and neither was found")
    assert "pip install 'cumlir[nvjitlink]'" in message


def test_lto_ir_without_nvjitlink_names_the_extra(without_nvjitlink):
    with pytest.raises(
        optional_libraries.MissingLibraryError, match=r"linking LTO-IR .* needs the CUDA library nvJitLink"
    ):
        linking.link_cubin([LTOIR(b"lto", "op.ltoir")], (9, 0))
    with pytest.raises(optional_libraries.MissingLibraryError, match=r"pip install 'cumlir\[nvjitlink\]'"):
        linking.link_ptx([LTOIR(b"lto", "op.ltoir")], (9, 0))


def test_the_driver_linker_refuses_lto_ir_by_name(monkeypatch):
    monkeypatch.setenv("CUMLIR_LINKER", "driver")
    with pytest.raises(linking.LinkError, match=r"CUMLIR_LINKER=driver cannot link LTO-IR \(op.ltoir\)"):
        linking.link_cubin([PTXSource(_ptx(), "k.ptx"), LTOIR(b"lto", "op.ltoir")], (9, 0))


def test_the_driver_links_ptx_for_the_chip_asked(recording_driver):
    ptx = _ptx()
    cubin = linking.link_cubin([PTXSource(ptx, "k.ptx")], (9, 0))
    assert cubin == CUBIN
    assert recording_driver.inputs == [("CU_JIT_INPUT_PTX", "k.ptx", ptx.encode())]
    assert recording_driver.options["CU_JIT_TARGET"] == "sm_90"
    assert recording_driver.options["CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES"] == driver_linker.LOG_SIZE
    # the context current on the thread was used; the link's state was freed
    assert "cuDevicePrimaryCtxRetain" not in recording_driver.calls
    assert recording_driver.calls[-1] == "cuLinkDestroy"


def test_the_driver_links_each_kind_of_item(recording_driver):
    items = [
        PTXSource(_ptx(), "k.ptx"),
        cuda_item("Cubin", b"\x7fELF cubin"),
        cuda_item("Fatbin", b"fatbin"),
        cuda_item("Object", b"object"),
        cuda_item("Archive", b"archive"),
    ]
    linking.link_cubin(items, (9, 0))
    kinds = [kind for kind, _, _ in recording_driver.inputs]
    assert kinds == [
        "CU_JIT_INPUT_PTX",
        "CU_JIT_INPUT_CUBIN",
        "CU_JIT_INPUT_FATBINARY",
        "CU_JIT_INPUT_OBJECT",
        "CU_JIT_INPUT_LIBRARY",
    ]


def cuda_item(kind, data):
    from cumlir import linkable

    return getattr(linkable, kind)(data, name=f"item.{kind.lower()}")


def test_cuda_cpp_is_compiled_to_ptx_for_the_driver(recording_driver):
    source = CUSource('extern "C" __device__ int twice(int* r, int x) { *r = 2 * x; return 0; }', name="twice.cu")
    linking.link_cubin([source], (9, 0))
    ((kind, name, data),) = recording_driver.inputs
    assert (kind, name) == ("CU_JIT_INPUT_PTX", "twice.cu")
    assert b".visible .func" in data and b"twice" in data


def test_an_architecture_specific_target_is_the_drivers_a_target(recording_driver):
    linking.link_cubin([PTXSource(_ptx(), "k.ptx")], (9, 0), arch_specific=True)
    assert recording_driver.options["CU_JIT_TARGET"] == "sm_90a"


def test_a_chip_the_driver_does_not_know_is_a_link_error(recording_driver):
    with pytest.raises(linking.LinkError, match="this CUDA driver cannot compile for sm_120"):
        linking.link_cubin([PTXSource(_ptx(), "k.ptx")], (12, 0))


@pytest.mark.parametrize(
    "option, setting",
    [
        ("-g", ("CU_JIT_GENERATE_DEBUG_INFO", 1)),
        ("--device-debug", ("CU_JIT_GENERATE_DEBUG_INFO", 1)),
        ("-lineinfo", ("CU_JIT_GENERATE_LINE_INFO", 1)),
        ("-O1", ("CU_JIT_OPTIMIZATION_LEVEL", 1)),
        ("--opt-level=3", ("CU_JIT_OPTIMIZATION_LEVEL", 3)),
        ("-maxrregcount=64", ("CU_JIT_MAX_REGISTERS", 64)),
        ("--maxrregcount=32", ("CU_JIT_MAX_REGISTERS", 32)),
    ],
)
def test_ptxas_options_become_the_drivers_settings(recording_driver, option, setting):
    linking.link_cubin([PTXSource(_ptx(), "k.ptx")], (9, 0), ptxas_options=(option,))
    name, value = setting
    assert recording_driver.options[name] == value


def test_a_ptxas_option_only_nvjitlink_passes_names_the_extra(recording_driver):
    with pytest.raises(optional_libraries.MissingLibraryError) as raised:
        linking.link_cubin([PTXSource(_ptx(), "k.ptx")], (9, 0), ptxas_options=("--warn-on-spills",))
    assert str(raised.value).startswith("the ptxas option '--warn-on-spills' is passed on to ptxas by nvJitLink only")
    assert "pip install 'cumlir[nvjitlink]'" in str(raised.value)


def test_debug_kernels_ask_the_driver_for_debug_information(recording_driver):
    kernel = cuda.jit("void(float32[:])", debug=True, opt=False)(_scale)
    assert next(iter(kernel.overloads.values())).output("cubin", (9, 0)) == CUBIN
    assert recording_driver.options["CU_JIT_GENERATE_DEBUG_INFO"] == 1


def test_a_failed_link_gives_the_drivers_error_log(recording_driver):
    recording_driver.fail_add = True
    with pytest.raises(linking.LinkError) as raised:
        linking.link_cubin([PTXSource(_ptx(), "k.ptx")], (9, 0))
    message = str(raised.value)
    assert message.startswith(
        "the CUDA driver's linker could not link k.ptx: cuLinkAddData failed: CUDA_ERROR_INVALID_PTX"
    )
    assert "ptxas: bad PTX" in message
    assert recording_driver.calls[-1] == "cuLinkDestroy"


def test_with_no_context_current_device_0s_primary_context_is_lent_for_the_link(recording_driver):
    recording_driver.current = 0
    linking.link_cubin([PTXSource(_ptx(), "k.ptx")], (9, 0))
    calls = recording_driver.calls
    assert calls.index("cuDevicePrimaryCtxRetain") < calls.index("cuCtxPushCurrent") < calls.index("cuLinkCreate")
    assert calls[-2:] == ["cuCtxPopCurrent", "cuDevicePrimaryCtxRelease"]
    assert recording_driver.current == 0


def test_threads_link_through_the_driver_at_once(recording_driver):
    ptx = _ptx()
    results, errors = [], []

    def link():
        try:
            results.append(linking.link_cubin([PTXSource(ptx, "k.ptx")], (9, 0)))
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=link) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [CUBIN] * 8


def test_the_cache_key_names_the_linker(monkeypatch, recording_driver):
    assert cache.versions()["linker"] == "driver 13000"
    monkeypatch.delenv("CUMLIR_LINKER")
    assert cache.versions()["linker"] == "nvjitlink"  # the wheel's version is listed beside it
    assert cache.versions()["nvidia-nvjitlink"]


def test_the_toolkit_version_without_nvjitlink_is_nvrtcs(without_nvjitlink):
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    assert cuda.runtime.get_version() == (major, minor)
