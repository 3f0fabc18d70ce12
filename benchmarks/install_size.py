"""Install size: cumlir installed from this checkout into a fresh virtual environment, with no
extras and with each extra; prints the size of site-packages by distribution (the files its
RECORD lists, with the top-level names they install) and the total. Each install is then
used: a kernel is compiled to PTX in it, and the features its extras name are run; a step
that fails makes the whole measurement fail. Needs pip's index (PyPI) or its cache; takes
minutes (the CUDA wheels are large).

    python3 benchmarks/install_size.py                          # the runtime, then every extra
    python3 benchmarks/install_size.py --extras ""              # only the runtime install
    python3 benchmarks/install_size.py --extras "" nvvm,nvrtc   # combinations, comma-separated
"""

import argparse
import csv
import os
import pathlib
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import venv

ROOT = pathlib.Path(__file__).resolve().parent.parent
MB = 1e6
EXTRAS = ["", "nvjitlink", "nvrtc", "nvvm", "tools", "narrow-floats", "test"]

# Python run in each environment: what every install must do, then what each extra adds.
# Each check prints one line saying what it did; no GPU is needed for any of them.
COMPILE = """
from cumlir import cuda

def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]

SIG = "void(float32[:], float32[:], float32[:])"
ptx, _ = cuda.compile_ptx(vadd, SIG, cc=(9, 0))
assert ".visible .entry vadd(" in ptx, ptx[:500]
print("compiles: vadd to PTX for sm_90")
"""
CHECKS = {
    "": """
from cumlir import linking, optional_libraries
from cumlir.linkable import PTXSource
if not linking.nvjitlink.available() and not cuda.is_available():
    try:
        linking.link_cubin([PTXSource(ptx, "vadd.ptx")], (9, 0))
        raise SystemExit("a cubin was linked with neither nvJitLink nor a driver")
    except optional_libraries.MissingLibraryError as e:
        print("without nvJitLink or a driver, a cubin is refused:", str(e).split(":")[0])
""",
    "nvjitlink": """
from cumlir import linking
from cumlir.linkable import PTXSource
assert linking.linker() == "nvjitlink"
cubin = linking.link_cubin([PTXSource(ptx, "vadd.ptx")], (9, 0))
assert cubin[:4] == b"\\x7fELF"
print(f"nvjitlink: linked a {len(cubin)}-byte cubin with no GPU")
""",
    "nvrtc": """
from cumlir.nvrtc import compile_source
code = compile_source('extern "C" __device__ int twice(int* r, int x) { *r = 2 * x; return 0; }', (9, 0))
assert ".visible .func" in code
print("nvrtc: compiled CUDA C++ to PTX")
""",
    "nvvm": """
from cumlir import linking
nvvm_ptx, _ = cuda.compile_ptx(vadd, SIG, cc=(9, 0), backend="nvvm")
assert "NVVM" in nvvm_ptx
ltoir, _ = cuda.compile(vadd, SIG, cc=(9, 0), device=False, abi="numba", output="ltoir")
cubin = linking.link_cubin([linking.LTOIR(ltoir, "vadd.ltoir")], (9, 0))
assert cubin[:4] == b"\\x7fELF"
print("nvvm: PTX through libNVVM, LTO-IR linked by nvJitLink")
""",
    "tools": """
import subprocess, tempfile
from cuda import pathfinder
ptxas, nvdisasm = (pathfinder.find_nvidia_binary_utility(t) for t in ("ptxas", "nvdisasm"))
with tempfile.TemporaryDirectory() as folder:
    with open(f"{folder}/vadd.ptx", "w") as f:
        f.write(ptx)
    subprocess.run([ptxas, "-arch=sm_90", f"{folder}/vadd.ptx", "-o", f"{folder}/vadd.cubin"], check=True)
    sass = subprocess.run([nvdisasm, f"{folder}/vadd.cubin"], capture_output=True, text=True, check=True).stdout
assert "EXIT" in sass
print("tools: ptxas assembled the PTX, nvdisasm listed its SASS")
""",
    "narrow-floats": """
import ml_dtypes, numpy as np
half_ptx, _ = cuda.compile_ptx(vadd, "void(bfloat16[:], bfloat16[:], bfloat16[:])", cc=(9, 0))
assert ".visible .entry vadd(" in half_ptx
values = np.arange(4, dtype=ml_dtypes.bfloat16)
print(f"narrow-floats: a bfloat16 kernel compiled; host arrays of {values.dtype}")
""",
    "test": """
import subprocess, sys
tests = ["tests/test_toolkit_from_wheels.py", "tests/test_linkers.py", "tests/test_first_lines.py"]
subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], check=True, cwd=ROOT)
print("test: the tests of the toolkit's wheels, the linkers and the messages passed")
""",
}


def install(where, extras):
    """A virtual environment in *where* with cumlir (and *extras*) installed; its site-packages."""
    venv.EnvBuilder(with_pip=True).create(where)
    python = where / "bin" / "python"
    target = f"{ROOT}[{extras}]" if extras else str(ROOT)
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", target], check=True)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    return pathlib.Path(purelib.stdout.strip())


def use(where, extras):
    """Compile a kernel in the environment, then run what each of *extras* adds; raises
    (CalledProcessError) where any of it fails. Runs outside the checkout, so that the
    installed package is the one imported."""
    parts = [COMPILE, CHECKS[""]] + [CHECKS[extra] for extra in extras.split(",") if extra]
    program = f"ROOT = {str(ROOT)!r}\n" + "\n".join(textwrap.dedent(part) for part in parts)
    done = subprocess.run(
        [where / "bin" / "python", "-c", program], cwd=where, capture_output=True, text=True, env=_without_toolkit()
    )
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        done.check_returncode()
    return done.stdout.strip().splitlines()


def _without_toolkit():
    """The environment of the checks: no CUDA toolkit on PATH or named by CUDA_HOME."""
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if "cuda" not in p.lower())
    return env


def size_of(path):
    try:
        return path.lstat().st_size
    except FileNotFoundError:  # RECORD lists .pyc files that are written lazily
        return 0


def by_distribution(site):
    """{distribution: (bytes, top-level names)} from each RECORD; the rest of site-packages
    (caches written after installing, say) under "(not in any RECORD)"."""
    sizes, listed = {}, set()
    for info in sorted(site.glob("*.dist-info")):
        name = info.name.removesuffix(".dist-info")  # the distribution and its version
        total, tops = 0, set()
        with open(info / "RECORD", newline="") as f:
            for row in csv.reader(f):
                path = (site / row[0]).resolve()
                if path in listed:
                    continue
                listed.add(path)
                total += size_of(path)
                top = pathlib.PurePosixPath(row[0]).parts[0]
                if not top.endswith(".dist-info") and not top.startswith(".."):
                    tops.add(top.removesuffix(".py"))
        sizes[name] = (total, sorted(tops))
    rest = sum(size_of(p) for p in site.rglob("*") if p.is_file() and p.resolve() not in listed)
    sizes["(not in any RECORD)"] = (rest, [])
    return sizes


def table(title, sizes):
    total = sum(size for size, _ in sizes.values())
    print(f"\n{title}: {total / MB:.0f} MB in site-packages")
    print(f"| {'distribution':36} | {'MB':>7} | top-level |")
    print(f"|{'-' * 38}|{'-' * 9}|-----------|")
    for name, (size, tops) in sorted(sizes.items(), key=lambda item: -item[1][0]):
        print(f"| {name:36} | {size / MB:7.1f} | {', '.join(tops)} |")
    print(f"| {'total':36} | {total / MB:7.1f} | |")
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extras", nargs="*", default=EXTRAS, help='extras to measure ("" for none; a,b for both)')
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]} on {sysconfig.get_platform()}, cumlir from {ROOT}")
    totals = {}
    with tempfile.TemporaryDirectory(prefix="cumlir-install-") as temp:
        for extras in args.extras:
            where = pathlib.Path(temp) / (extras.replace(",", "+") or "runtime")
            site = install(where, extras)
            name = f"pip install .{f'[{extras}]' if extras else ''}"
            totals[name] = table(name, by_distribution(site))
            for line in use(where, extras):
                print(f"  used: {line}")
            subprocess.run(["rm", "-rf", os.fspath(where)], check=True)
    print("\n| install | MB | works |")
    print("|---|---:|---|")
    for name, total in totals.items():
        print(f"| `{name}` | {total / MB:.0f} | yes |")


if __name__ == "__main__":
    main()
