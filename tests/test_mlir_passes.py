"""The compiler's own MLIR passes, MLIR in and MLIR out: counted_loops.mark (counted loops
marked for unrolling) and parallel_loops.distribute (the loops of GPU ufuncs spread over
the grid), run on small hand-written modules and their output checked against the CHECK
lines written beside the input, by FileCheck's rules (the ``filecheck`` package), as
LLVM's lit tests do. No GPU is needed.

The inputs live in tests/mlir/, several cases a file separated by ``// -----`` lines (as
``mlir-opt --split-input-file`` reads them), each case a module named by its gpu.module:

  counted_loops_marked.mlir      loops mark marks; marking them again changes nothing,
                                 and their operations keep their locations
  counted_loops_left_alone.mlir  loops mark leaves alone; their modules come back unchanged
  parallel_loops.mlir            scf.parallel loops distribute turns into grid-stride loops

A loop over mark's size limit, too long to write out, is made here (LONG_LOOP).
"""

import contextlib
import io
import re
from pathlib import Path

import pytest

pytest.importorskip("filecheck")  # in the test extra; a machine running only the gpu tier may lack it

from filecheck.finput import FInput  # noqa: E402
from filecheck.matcher import Matcher  # noqa: E402
from filecheck.options import Options  # noqa: E402
from filecheck.parser import Parser, pattern_for_opts  # noqa: E402
from mlir import ir  # noqa: E402

from cumlir.codegen.passes import counted_loops, parallel_loops  # noqa: E402
from cumlir.codegen.passes.pipeline import gpu_module_of  # noqa: E402

INPUTS = Path(__file__).parent / "mlir"


class Case:
    """One module of an input file: its text padded with empty lines so that the lines of
    the parser's locations and of filecheck's messages are those of the file."""

    def __init__(self, path, first_line, text):
        self.path = path
        self.text = "\n" * (first_line - 1) + text
        self.name = re.search(r"gpu\.module @(\w+)", text).group(1)


def _cases(file_name):
    path = INPUTS / file_name
    cases, first_line = [], 1
    for text in re.split(r"^// -----\n", path.read_text(), flags=re.M):
        cases.append(Case(path, first_line, text))
        first_line += text.count("\n") + 1
    return [pytest.param(case, id=case.name) for case in cases]


MARKED = _cases("counted_loops_marked.mlir")
LEFT_ALONE = _cases("counted_loops_left_alone.mlir")
DISTRIBUTED = _cases("parallel_loops.mlir")


@pytest.fixture(scope="module")
def context():
    # the passes make attributes and operations in the current context
    with ir.Context() as context:
        yield context


def _parse(text):
    module = ir.Module.parse(text)
    return module, gpu_module_of(module)


def _filecheck(output, checks, source, prefix="CHECK"):
    """Fail unless *output* passes the *prefix* lines of *checks* (read from *source*). The
    package's command reads its checks from a whole file, and a case is only part of one:
    its matcher, called here, takes them as text (an inner API, hence the pinned version
    in pyproject.toml)."""
    options = Options(match_filename=str(source), check_prefixes=[prefix])
    report = io.StringIO()
    # the matcher writes its diagnostics to the sys.stderr of its making, and a line of
    # progress to stdout for CHECK-DAG
    with contextlib.redirect_stderr(report), contextlib.redirect_stdout(io.StringIO()):
        matcher = Matcher(
            options, FInput("<output>", output), Parser(options, io.StringIO(checks), *pattern_for_opts(options))
        )
        failed = matcher.run()
    if failed:
        pytest.fail(f"{report.getvalue()}\nthe pass's output:\n{output}", pytrace=False)


def _locations(module):
    """The name and location of every operation of *module*, in order."""
    found = []

    def visit(op):
        found.append((op.name, str(op.location)))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


# ---- counted_loops -------------------------------------------------------------------------


@pytest.mark.parametrize("case", MARKED)
def test_counted_loop_is_marked(context, case):
    module, gpu_module = _parse(case.text)
    counted_loops.mark(gpu_module)
    assert module.operation.verify()
    _filecheck(str(module), case.text, case.path)


@pytest.mark.parametrize("case", MARKED)
def test_marking_again_changes_nothing(context, case):
    # a back edge that has a loop annotation is not marked twice
    module, gpu_module = _parse(case.text)
    counted_loops.mark(gpu_module)
    marked = str(module)
    gpu_module = gpu_module_of(module)
    counted_loops.mark(gpu_module)
    assert str(module) == marked


@pytest.mark.parametrize("case", MARKED)
def test_marked_operations_keep_their_locations(context, case):
    # the counter's addition is replaced by a parsed copy: with its location, which becomes
    # a line of the tables of lineinfo=True
    module, gpu_module = _parse(case.text)
    before = _locations(module)
    counted_loops.mark(gpu_module)
    assert _locations(module) == before


@pytest.mark.parametrize("case", LEFT_ALONE)
def test_loop_is_left_alone(context, case):
    module, gpu_module = _parse(case.text)
    counted_loops.mark(gpu_module)
    _filecheck(str(module), case.text, case.path)


@pytest.mark.parametrize("case", LEFT_ALONE)
def test_module_of_loops_left_alone_comes_back_unchanged(context, case):
    module, gpu_module = _parse(case.text)
    before = str(module)
    counted_loops.mark(gpu_module)
    assert str(module) == before


# `acc += x[i]; i += step` while `i < n`, padded with operations (xors of the loaded value)
# to *size* operations in the loop's block, its terminator included
LONG_LOOP = """
// MARKED: llvm.add {{%[0-9]+}}, %arg2 overflow<nsw> {cumlir.counted_loop_counter} : i64
// MARKED: llvm.cond_br {{.*}} {loop_annotation = #{{[a-z_0-9]+}}}
// LEFT:   llvm.add {{%[0-9]+}}, %arg2 : i64
// LEFT:   llvm.cond_br {{.*}}, ^bb2{{$}}
module attributes {gpu.container_module} {
  gpu.module @long_body {
    llvm.func @sum(%x: !llvm.ptr<1>, %n: i64, %step: i64) -> i64 {
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^loop(%zero, %zero : i64, i64)
    ^loop(%i: i64, %acc: i64):
      %p = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
      %v0 = llvm.load %p : !llvm.ptr<1> -> i64
PADDING
      %sum = llvm.add %acc, %vLAST : i64
      %next = llvm.add %i, %step : i64
      %more = llvm.icmp "slt" %next, %n : i64
      llvm.cond_br %more, ^loop(%next, %sum : i64, i64), ^done
    ^done:
      llvm.return %sum : i64
    }
  }
}
"""


def _long_loop(size):
    padding = size - 6  # the getelementptr, load, two adds, comparison and branch
    lines = [f"      %v{k + 1} = llvm.xor %v{k}, %v0 : i64" for k in range(padding)]
    return LONG_LOOP.replace("PADDING", "\n".join(lines)).replace("%vLAST", f"%v{padding}")


@pytest.mark.parametrize(
    "size, prefix", [(counted_loops.LARGEST_BODY, "MARKED"), (counted_loops.LARGEST_BODY + 1, "LEFT")]
)
def test_a_body_over_the_size_limit_is_left_alone(context, size, prefix):
    # four copies of a large body cost more than the loads they keep in flight
    text = _long_loop(size)
    module, gpu_module = _parse(text)
    loop = list(gpu_module.regions[0].blocks[0].operations[0].regions[0].blocks)[1]
    assert len(loop.operations) == size
    counted_loops.mark(gpu_module)
    _filecheck(str(module), text, "LONG_LOOP", prefix)


# ---- parallel_loops ------------------------------------------------------------------------


@pytest.mark.parametrize("case", DISTRIBUTED)
def test_parallel_loop_becomes_grid_stride_loop(context, case):
    module, gpu_module = _parse(case.text)
    parallel_loops.distribute(gpu_module)
    assert module.operation.verify()
    _filecheck(str(module), case.text, case.path)
