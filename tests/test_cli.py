"""``python -m cumlir FILE FUNCTION --sig ... --emit STAGE``."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vector_add.py"
SIG = "void(float32[:], float32[:], float32[:])"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "cumlir", *map(str, args)], capture_output=True, text=True)


def test_ptx_has_an_entry():
    result = _cli(EXAMPLE, "vector_add", "--sig", SIG, "--emit", "ptx", "--cc", "9.0")
    assert result.returncode == 0, result.stderr
    assert ".visible .entry vector_add(" in result.stdout
    assert ".target sm_90" in result.stdout


@pytest.mark.parametrize(
    "stage,marker",
    [
        ("typed", "c: array(float32, 1d, A)"),
        ("mlir", "gpu.func @vector_add("),
        ("optimized", '#nvvm.target<O = 3, chip = "sm_80"'),
        ("llvm", "define ptx_kernel void @vector_add("),
        ("ptx", ".target sm_80"),
    ],
)
def test_every_stage(stage, marker):
    result = _cli(EXAMPLE, "vector_add", "--sig", SIG, "--emit", stage, "--cc", "8.0")
    assert result.returncode == 0, result.stderr
    assert marker in result.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["missing.py", "f", "--sig", SIG], "no such file"),
        ([EXAMPLE, "nope", "--sig", SIG], "defines no function named 'nope'"),
        ([EXAMPLE, "vector_add", "--sig", "void(flot32[:])"], "cannot read the signature"),
        ([EXAMPLE, "vector_add", "--sig", SIG, "--cc", "1.0"], "compute capability 1.0 is not supported"),
    ],
)
def test_bad_arguments(args, message):
    result = _cli(*args)
    assert result.returncode != 0
    assert message in result.stderr


GPU_UFUNCS = """
from cumlir import cuda

@cuda.reduce
def sum_reduce(a, b):
    return a + b

@cuda.vectorize(["float32(float32, float32)"])
def vadd(a, b):
    return a + b

@cuda.guvectorize(["void(float32[:], float32[:])"], "(n)->()")
def first(a, out):
    out[0] = a[0]

answer = 42
"""


@pytest.mark.parametrize(
    "function,sig,entry",
    [
        ("sum_reduce", "float32(float32, float32)", ".visible .entry reduce_kernel("),
        ("vadd", "float32(float32, float32)", ".visible .entry "),
        ("first", "void(float32[:], float32[:])", ".visible .entry guvectorize_first("),
    ],
)
def test_gpu_ufuncs_and_reductions_emit_their_kernel(tmp_path, function, sig, entry):
    source = tmp_path / "ufuncs.py"
    source.write_text(GPU_UFUNCS)
    result = _cli(source, function, "--sig", sig, "--emit", "ptx", "--cc", "8.0")
    assert result.returncode == 0, result.stderr
    assert entry in result.stdout


@pytest.mark.parametrize(
    "function,sig,message",
    [
        ("sum_reduce", "void(float32[:])", "sum_reduce is a cuda.reduce: --sig is its binary function's"),
        ("answer", "void(float32[:])", "python -m cumlir (answer) compiles Python functions"),
    ],
)
def test_what_cannot_be_emitted_is_one_line(tmp_path, function, sig, message):
    source = tmp_path / "ufuncs.py"
    source.write_text(GPU_UFUNCS)
    result = _cli(source, function, "--sig", sig)
    assert result.returncode != 0
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("cumlir: ") and message in line
