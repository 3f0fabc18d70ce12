"""TMA (cuda.intrin's bulk and tensor copies, cuda.tensor_map; docs/hopper.md): the PTX each
copy gives, checked by ptxas for sm_90; the tensor map parameter; the typing errors; the host
checks of cuda.tensor_map.tiled and the launch's packing of a tensor map, without a GPU."""

import ctypes
import re
import struct

import numpy as np
import pytest
from numba.core.errors import TypingError

from cumlir import cuda, types
from cumlir.runtime import arguments, tensor_maps

from ... import support
from ...cases import tma_kernels as tk

F32_MAP = "void(tensor_map, float32[:, ::1], int32, int32)"


def _lines(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _ptx(kernel, sig):
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0), backend="nvptx")
    support.ptxas(ptx, "sm_90")
    return ptx


def test_tensor_map_parameter_is_a_128_byte_grid_constant():
    ptx = _ptx(tk.tile_load_f32, F32_MAP)
    assert re.search(r"\.param \.align 64 \.b8 \w+_param_0\[128\]", ptx)
    # read where it lies: the generic address of the parameter, never a copy on the stack
    assert re.search(r"cvta\.param\.u64", ptx) and "local" not in ptx
    assert re.search(r"^\.version 8\.\d", ptx, re.M)


def test_tensor_load_prefetch_and_coordinates_innermost_first():
    ptx = _ptx(tk.tile_load_f32, F32_MAP)
    (load,) = _lines(ptx, r"^cp\.async\.bulk\.tensor")
    assert load.startswith("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst]")
    assert _lines(ptx, r"^prefetch\.tensormap")
    # (row, col) in the kernel -> {col, row} in PTX: the later parameter first
    coords = re.search(r"\{(%r\d+), (%r\d+)\}", load).groups()
    params = dict(re.findall(r"ld\.param\.b32\s+(%r\d+), \[\w+_param_(\d+)\]", ptx))
    assert int(params[coords[0]]) > int(params[coords[1]])


def test_tensor_2d_form_keeps_ptx_order():
    ptx = _ptx(tk.tile_load_bf16, "void(tensor_map, bfloat16[:, ::1], int32, int32)")
    (load,) = _lines(ptx, r"^cp\.async\.bulk\.tensor\.2d")
    coords = re.search(r"\{(%r\d+), (%r\d+)\}", load).groups()
    params = dict(re.findall(r"ld\.param\.b32\s+(%r\d+), \[\w+_param_(\d+)\]", ptx))
    # the kernel passes col as c0, PTX's first coordinate
    assert int(params[coords[0]]) > int(params[coords[1]])


def test_tensor_store_bulk_group_and_proxy_fence():
    ptx = _ptx(tk.tile_store_f32, "void(tensor_map, int32, int32)")
    assert _lines(ptx, r"^fence\.proxy\.async\.shared::cta;")
    (store,) = _lines(ptx, r"^cp\.async\.bulk\.tensor")
    assert re.fullmatch(
        r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile\.bulk_group \[%rd\d+, \{%r\d+, %r\d+\}\], \[src\];",
        store,
    )
    assert _lines(ptx, r"^cp\.async\.bulk\.commit_group;") and _lines(ptx, r"^cp\.async\.bulk\.wait_group 0;")


def test_multicast_load():
    ptx = _ptx(tk.multicast_load_f32, "void(tensor_map, float32[:, :, ::1])")
    (load,) = _lines(ptx, r"^cp\.async\.bulk\.tensor")
    assert ".multicast::cluster" in load and re.search(r"\[bar\], %rs\d+;$", load)


def test_three_dimensional_load():
    ptx = _ptx(tk.load_3d, "void(tensor_map, float32[::1])")
    (load,) = _lines(ptx, r"^cp\.async\.bulk\.tensor")
    assert load.startswith("cp.async.bulk.tensor.3d.") and re.search(r"\{%r\d+, %r\d+, %r\d+\}", load)


def test_bulk_copies_on_both_back_ends(backend):
    ptx, _ = cuda.compile_ptx(tk.bulk_copy_f32, "void(float32[::1], float32[::1])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert _lines(ptx, r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes \[dst\], \[src\]")
    assert _lines(ptx, r"cp\.async\.bulk\.global\.shared::cta\.bulk_group \[dst\], \[src\]")
    assert _lines(ptx, r"^cp\.async\.bulk\.wait_group\.read 0;")


def test_both_code_generators_read_the_map_where_it_lies(backend):
    ptx, _ = cuda.compile_ptx(tk.tile_load_f32, F32_MAP, cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert re.search(r"\.param \.align 64 \.b8 \w+_param_0\[128\]", ptx)
    assert re.search(r"cvta\.param\.u64", ptx) and "local" not in ptx
    assert re.search(r"\.shared \.align 128 \.b8", ptx)  # the box's array, where the copy engine needs it


def test_needs_sm_90():
    with pytest.raises(Exception, match="needs sm_90 or newer"):
        cuda.compile_ptx(tk.bulk_copy_f32, "void(float32[::1], float32[::1])", cc=(8, 0))


@pytest.mark.parametrize(
    ("kernel", "sig", "message"),
    [
        (tk.load_with_two_coordinates, "void(TensorMap3, float32[::1])", "has rank 3, the copy gives 2 coordinates"),
        (tk.load_with_scalar_coordinates, "void(tensor_map, float32[::1])", "must be a tuple of 1 to 5 integers"),
        (tk.load_with_float_barrier, "void(tensor_map, float32[::1])", "the barrier must be an array of 64-bit"),
        (tk.load_with_array_as_map, "void(float32[::1], float32[::1])", "the tensor map must be a kernel argument"),
        (tk.bulk_load_of_float_size, "void(float32[::1], float32[::1])", "the byte count"),
        (tk.wait_group_of_variable, "void(int32)", r"n must be a literal from 0 to 63"),
    ],
)
def test_typing_errors(kernel, sig, message):
    argtypes = [types.TensorMap(3) if t == "TensorMap3" else t for t in sig[5:-1].split(", ")]
    if "TensorMap3" in sig:
        from cumlir.typing.signatures import parse_signature

        rest, _ = parse_signature("void(" + ", ".join(argtypes[1:]) + ")")
        sig = (types.TensorMap(3), *rest)
    with pytest.raises(TypingError, match=message):
        cuda.compile_ptx(kernel, sig, cc=(9, 0))


def test_signature_spelling():
    from cumlir.typing.signatures import accepts, parse_signature

    (ty,), _ = parse_signature("void(tensor_map)")
    assert ty == types.TensorMap() and ty.rank is None
    assert accepts((ty,), (types.TensorMap(2),))
    assert not accepts((types.TensorMap(2),), (types.TensorMap(3),))


# ---- the host side -----------------------------------------------------------------------------


class _DeviceArray:
    """Stands for a device array: its __cuda_array_interface__ alone."""

    def __init__(self, shape, dtype, strides=None, address=0x7F0000000000):
        self.shape, self.dtype = shape, np.dtype(dtype)
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": self.dtype.str,
            "data": (address, False),
            "strides": strides,
            "version": 3,
        }


def test_tiled_layout_reverses_axes_for_the_driver():
    layout = tensor_maps.tiled_layout(_DeviceArray((100, 64), np.float32), (8, 32), swizzle="128b", oob_fill="zero")
    assert (layout.rank, layout.dims, layout.strides, layout.box) == (2, (64, 100), (256,), (32, 8))
    assert (layout.data_type, layout.swizzle, layout.oob_fill, layout.element_strides) == (
        "FLOAT32",
        "128B",
        "NONE",
        (1, 1),
    )
    assert layout.box_bytes == 8 * 32 * 4


def test_tiled_layout_dtypes():
    import ml_dtypes

    assert tensor_maps.tiled_layout(_DeviceArray((4, 64), ml_dtypes.bfloat16), (4, 64)).data_type == "BFLOAT16"
    assert tensor_maps.tiled_layout(_DeviceArray((4, 64), np.float16), (4, 8)).data_type == "FLOAT16"
    assert tensor_maps.tiled_layout(_DeviceArray((4, 64), np.int8), (4, 16)).data_type == "UINT8"
    five = tensor_maps.tiled_layout(_DeviceArray((2, 2, 2, 2, 16), np.float32), (1, 1, 1, 2, 4))
    assert five.rank == 5 and five.strides == (64, 128, 256, 512)


@pytest.mark.parametrize(
    ("array", "box", "keywords", "rule"),
    [
        (_DeviceArray((8, 64), np.float32, address=0x7F0000000004), (8, 32), {}, "aligned to 16 bytes"),
        (_DeviceArray((8, 60), np.float32, strides=(240 + 4, 4)), (8, 32), {}, "multiples of 16"),
        (_DeviceArray((8, 64), np.float32, strides=(4, 32)), (8, 8), {}, "last axis must be contiguous"),
        (_DeviceArray((8, 64), np.float32), (8, 3), {}, "multiple of 16 bytes"),
        (_DeviceArray((8, 64), np.float32), (8, 64), {"swizzle": "128b"}, "at most 128 bytes"),
        (_DeviceArray((8, 64), np.float32), (8, 512), {}, "1 to 256"),
        (_DeviceArray((8, 64), np.float32), (8,), {}, "1 extents, the array 2 dimensions"),
        (_DeviceArray((2,) * 6, np.float32), (2,) * 6, {}, "1 to 5 dimensions"),
        (_DeviceArray((8, 64), np.int32), (8, 32), {"oob_fill": "nan"}, "needs an array of floats"),
        (_DeviceArray((8, 64), np.complex64), (8, 32), {}, "cannot be copied by TMA"),
        (_DeviceArray((8, 64), np.float32), (8, 32), {"swizzle": "16b"}, "swizzle must be one of"),
        (_DeviceArray((8, 64), np.float32), (8, 32), {"element_strides": (1, 9)}, "element strides must be 1 to 8"),
        (_DeviceArray((8, 64), np.float32), (8, 32), {"interleave": "16b"}, "3 or more dimensions"),
    ],
)
def test_tiled_layout_rules(array, box, keywords, rule):
    with pytest.raises(ValueError, match=rule):
        tensor_maps.tiled_layout(array, box, **keywords)


def test_tiled_refuses_host_arrays():
    with pytest.raises(TypeError, match="__cuda_array_interface__"):
        tensor_maps.tiled_layout(np.zeros((8, 64), np.float32), (8, 32))


def test_tiled_calls_the_driver_with_the_checked_layout(monkeypatch):
    from cuda.bindings import driver

    calls = []

    def encode(*args):
        calls.append(args)
        return driver.CUresult.CUDA_SUCCESS, driver.CUtensorMap()

    monkeypatch.setattr(driver, "cuTensorMapEncodeTiled", encode)
    array = _DeviceArray((100, 64), np.float32)
    tmap = cuda.tensor_map.tiled(array, (8, 16), swizzle="64b")
    (args,) = calls
    assert args[0] == driver.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32 and args[1] == 2
    assert args[2] == array.__cuda_array_interface__["data"][0]
    assert [int(v) for v in args[3]] == [64, 100] and [int(v) for v in args[4]] == [256]
    assert [int(v) for v in args[5]] == [16, 8] and [int(v) for v in args[6]] == [1, 1]
    assert args[8] == driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B
    assert tmap.rank == 2 and tmap.box == (8, 16) and tmap.box_bytes == 512 and tmap.array is array
    assert arguments.argument_type(tmap, 0) == types.TensorMap(2)
    assert arguments.argument_type(driver.CUtensorMap(), 0) == types.TensorMap()


def test_create_tensor_map_from_tensor_reads_the_contiguous_axis(monkeypatch):
    from cuda.bindings import driver

    calls = []
    monkeypatch.setattr(
        driver, "cuTensorMapEncodeTiled", lambda *a: calls.append(a) or (driver.CUresult.CUDA_SUCCESS, "map")
    )
    assert cuda.tensor_map.create_tensor_map_from_tensor(_DeviceArray((100, 64), np.float32), (32, 8)) == "map"
    # a transposed view: axis 0 contiguous, so it is the driver's dimension 0
    cuda.tensor_map.create_tensor_map_from_tensor(_DeviceArray((64, 100), np.float32, strides=(4, 256)), (32, 8))
    for args in calls:
        assert [int(v) for v in args[3]] == [64, 100] and [int(v) for v in args[5]] == [32, 8]
        assert args[8] == cuda.tensor_map.TensorMapSwizzle.SWIZZLE_128B
    with pytest.raises(ValueError, match="transpose=True"):
        cuda.tensor_map.create_tensor_map_from_tensor(_DeviceArray((8, 64), np.float32), (32, 8), transpose=True)


def test_launch_packs_the_128_bytes_as_one_parameter():
    from cuda.bindings import driver

    tmap = driver.CUtensorMap()
    data = bytes(range(128))
    ctypes.memmove(tmap.getPtr(), data, 128)
    packer = arguments.ArgumentPacker([types.TensorMap(), types.int32])
    pointers, buffer = packer.pack([tmap, 7], launch=None)
    base = ctypes.addressof(buffer)
    assert [pointers[0], pointers[1]] == [base, base + 128] and len(pointers) == 2
    assert bytes(buffer)[:128] == data and struct.unpack_from("i", buffer, 128) == (7,)
    with pytest.raises(TypeError, match="expected a tensor map"):
        packer.pack([np.zeros(16), 7], launch=None)


def test_a_dynamic_box_after_a_static_array_rounds_its_start_up():
    ptx, _ = cuda.compile_ptx(tk.tile_load_dynamic, "void(tensor_map, float32[:, ::1], int32, int32)", cc=(9, 0))
    support.ptxas(ptx, "sm_90")
    # the static mbarrier raised to 128 bytes; the dynamic buffer declared with the 16 bytes
    # the driver gives, its array's start rounded up to 1024 in the code
    assert re.search(r"\.shared \.align (128|1024) \.b8 cumlir_shared", ptx)
    assert ".extern .shared .align 16 .b8 cumlir_dynamic_shared[]" in ptx
    assert re.search(r"neg\.s64\s+(%rd\d+), %rd\d+;\s+and\.b64\s+%rd\d+, \1, (1023|1008);", ptx), ptx


def test_shared_arrays_of_a_box_copy_start_on_128_bytes():
    # the copy engine faults (misaligned address) on a box in shared memory not on 128 bytes
    ptx, _ = cuda.compile_ptx(tk.tile_load_f32, "void(tensor_map, float32[:, ::1], int32, int32)", cc=(9, 0))
    shared = re.findall(r"\.shared \.align (\d+) \.b8 (\w+)", ptx)
    assert len(shared) == 2 and all(int(align) >= 128 for align, _ in shared), shared
    # a bulk copy without a tensor map needs 16 bytes only: the arrays keep their alignment
    ptx, _ = cuda.compile_ptx(tk.bulk_copy_f32, "void(float32[::1], float32[::1])", cc=(9, 0))
    assert {int(a) for a, _ in re.findall(r"\.shared \.align (\d+) \.b8 (\w+)", ptx)} <= {8, 16}
