"""The device runtime (NRT) on the CPU: its CUDA C++ compiled by NVRTC for each chip, the
public header, the nrt option and the link policy, allocation in device code compiled to PTX
on both back ends (the GPU tests are in test_gpu_nrt.py)."""

import os
import re

import pytest

from cumlir import nrt

from . import support

CCS = [(8, 0), (9, 0)]


@pytest.mark.parametrize("cc", CCS)
def test_runtime_compiles_to_ptx_that_ptxas_accepts(cc):
    code = nrt.runtime(cc)
    assert code.name == nrt.RUNTIME_NAME and nrt.is_runtime(code)
    for symbol in (nrt.ALLOCATE, nrt.INCREF, nrt.DECREF, "NRT_MemInfo_new", "NRT_Allocate", "NRT_Free"):
        assert re.search(rf"\.visible \.func .*\b{symbol}\(", code.data), symbol
    assert re.search(rf"\.visible \.global \.align 8 \.b8 {nrt.STATS_GLOBAL}\[32\]", code.data)
    assert f".target sm_{cc[0]}{cc[1]}" in code.data
    support.ptxas(code.data, f"sm_{cc[0]}{cc[1]}")


def test_runtime_is_compiled_once_per_chip_and_format():
    assert nrt.runtime((9, 0)) is nrt.runtime((9, 0))
    assert nrt.runtime((9, 0)) is not nrt.runtime((8, 0))
    lto = nrt.runtime((9, 0), "ltoir")
    assert lto is nrt.runtime((9, 0), "ltoir") and type(lto).__name__ == "LTOIR" and nrt.is_runtime(lto)
    with pytest.raises(ValueError, match="'ptx' or 'ltoir'"):
        nrt.runtime((9, 0), "cubin")


def test_public_header_is_shipped_and_declares_the_api():
    header = os.path.join(nrt.include_dir(), "nrt.cuh")
    with open(header) as f:
        text = f.read()
    for symbol in ("NRT_MemInfo_alloc_aligned", "NRT_MemInfo_new", "NRT_incref", "NRT_decref", "NRT_MemInfo_data"):
        assert f" {symbol}(" in text or f"*{symbol}(" in text, symbol
    # setuptools ships it: pyproject's package data names the runtime's files
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "pyproject.toml")) as f:
        assert '"nrt/*.cuh"' in f.read()


def test_external_code_including_the_header_compiles():
    from cumlir.nvrtc import compile_source

    src = (
        "#include <nrt.cuh>\n"
        'extern "C" __device__ void* make(unsigned long long n) {\n'
        "  NRT_MemInfo* mi = NRT_MemInfo_alloc_aligned(n, 8); return NRT_MemInfo_data(mi); }\n"
    )
    ptx = compile_source(src, (9, 0), options=(f"-I{nrt.include_dir()}",))
    assert "call.uni" in ptx and "NRT_MemInfo_alloc_aligned" in ptx
