"""Nothing comes from a system CUDA toolkit: libNVVM, libdevice, NVRTC, nvJitLink, ptxas and
nvdisasm are found in the CUDA wheels of this environment, and each feature that uses one works
with the machine's own toolkit hidden. Where the tests run as root with ``unshare``, the child
runs in a mount namespace where every system toolkit folder (and each CUDA tool on PATH outside
this environment) is covered by an empty one; elsewhere PATH, CUDA_HOME, CUDA_PATH and
LD_LIBRARY_PATH are cleared, and every path found must lie inside this environment."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

PROBE = r"""
import json, subprocess, sys, tempfile
from cuda import pathfinder
from cumlir import cuda, linking
from cumlir.linkable import CUSource, PTXSource
from cumlir.nvrtc import compile_source

found = {name: pathfinder.load_nvidia_dynamic_lib(name).abs_path for name in ("nvvm", "nvrtc", "nvJitLink")}
found["libdevice"] = pathfinder.find_bitcode_lib("device")
found.update({tool: pathfinder.find_nvidia_binary_utility(tool) for tool in ("ptxas", "nvdisasm")})

def scale(a):
    a[cuda.grid(1)] *= 2.0

works = {}
ptx, _ = cuda.compile_ptx(scale, "void(float32[:])", cc=(9, 0))
works["nvptx"] = ".entry scale" in ptx
nvvm_ptx, _ = cuda.compile_ptx(scale, "void(float32[:])", cc=(9, 0), backend="nvvm")
works["libnvvm"] = "NVVM" in nvvm_ptx
ltoir, _ = cuda.compile(scale, "void(float32[:])", cc=(9, 0), device=False, abi="numba", output="ltoir")
works["nvjitlink"] = linking.link_cubin([linking.LTOIR(ltoir, "scale.ltoir")], (9, 0))[:4] == b"\x7fELF"
works["nvrtc"] = ".visible .func" in compile_source('extern "C" __device__ int one(int* r) { *r = 1; return 0; }', (9, 0))
with tempfile.TemporaryDirectory() as folder:
    with open(f"{folder}/k.ptx", "w") as f:
        f.write(ptx)
    subprocess.run([found["ptxas"], "-arch=sm_90", f"{folder}/k.ptx", "-o", f"{folder}/k.cubin"], check=True)
    works["ptxas"] = True
    sass = subprocess.run([found["nvdisasm"], f"{folder}/k.cubin"], capture_output=True, text=True, check=True).stdout
    works["nvdisasm"] = "EXIT" in sass.upper() and "scale" in sass
print(json.dumps({"found": found, "works": works, "prefix": sys.prefix}))
"""


def _system_toolkits():
    """Folders of CUDA toolkits installed outside Python environments, and CUDA tools on PATH
    that do not come from this environment."""
    folders = {p for p in glob.glob("/usr/local/cuda*") + glob.glob("/opt/cuda*") if os.path.isdir(p)}
    folders |= {os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if os.path.isdir(os.environ.get(v, ""))}
    tools = set()
    for tool in ("ptxas", "nvdisasm", "nvcc", "nvlink"):
        path = shutil.which(tool)
        if path and not os.path.realpath(path).startswith(os.path.realpath(sys.prefix)):
            tools.add(path)
    return sorted(folders), sorted(tools)


def _can_hide():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


def _probe_command():
    """The probe's command line, in a mount namespace with the system toolkits hidden where
    that can be done, and whether it was."""
    if not _can_hide():
        return [sys.executable, "-c", PROBE], False
    folders, tools = _system_toolkits()
    empty = tempfile.mkdtemp(prefix="cumlir-no-toolkit-")
    mounts = [f"mount --bind {empty} {folder}" for folder in folders] + [f"mount --bind /dev/null {t}" for t in tools]
    script = " && ".join([*mounts, 'exec "$0" -c "$1"'])
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, sys.executable, PROBE], True


def test_every_cuda_library_and_tool_comes_from_the_wheels():
    command, hidden = _probe_command()
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH")}
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    prefix = os.path.realpath(result["prefix"])
    outside = {name: path for name, path in result["found"].items() if not os.path.realpath(path).startswith(prefix)}
    assert not outside, f"found outside {prefix} (a system toolkit?): {outside}"
    assert result["works"] == dict.fromkeys(("nvptx", "libnvvm", "nvjitlink", "nvrtc", "ptxas", "nvdisasm"), True)
    if not hidden:
        pytest.skip("the libraries come from the wheels; hiding the system toolkit needs root and unshare")
