"""NVIDIA's compute-sanitizer over cumlir's GPU work: memcheck, racecheck, synccheck and
initcheck, each on both code generators (nvptx, and nvvm through ``CUMLIR_BACKEND=nvvm``).

On a GPU machine, from the repository root:

    python3 tests/sanitize.py                       # everything, about 8 minutes on 16 cores
    python3 tests/sanitize.py --tools memcheck --codegens nvptx --budget 200

What runs under each tool and code generator, each piece a separate sanitized process (a
"shard"), up to ``--jobs`` at once:

- a canary per tool: a kernel with a planted bug of the tool's kind (and, under memcheck, a
  planted leak), which the tool must report: a run whose canary goes unreported checked nothing;
- the generated-code benchmark suite (benchmarks/kernels), each kernel once at its quick
  size, checked against NumPy by its module's own ``check``;
- the examples (examples/*.py) at small sizes, with their own checks;
- the device runtime: every allocation pattern of tests/cases/nrt_kernels.py against
  NumPy, with the runtime's counters balanced, and tests/test_gpu_nrt.py;
- GPU ufuncs (cuda.vectorize, cuda.guvectorize), cuda.reduce and ufunc.reduce, and their
  tests in tests/test_gpu_ufuncs.py;
- cooperative launches (grid.sync, forall) and the tests named for them;
- a fixed sample of the ``gpu`` test tier: ``--sample`` (520) tests under memcheck and
  synccheck, ``--slow-sample`` (120) under racecheck and initcheck (their slowdown is 10-100
  times), spread over the tier's files (see ``rank``); tests that start processes, need two
  GPUs or measure time are left out.

The shards start longest first (by the estimates of ``Shard.estimate``) while the gpu tier is
collected; none starts in the last 30 s of ``--budget`` (480 s), and each ends by then
(``--shard-timeout``, 240 s, at most): what did not run is reported, and the time each tool
and code generator took (the sum over its shards, the longest, and from its first start to
its last end).

The programs (everything above but the pytest runs) end by dropping their arrays and
closing the context, so that memcheck's ``--leak-check full`` reports what was not freed;
test runs are not leak-checked (a test process keeps what its fixtures and caches hold).

The output of each shard is parsed into findings (tool, kind, kernel, source line where the
kernel was compiled with line information, the test or program it came from), which are
de-duplicated and matched against ``ALLOWED``, the known-benign findings, each with its
reason. A summary table and the findings are printed, and report.json, report.md and
logs.tar.gz (every shard's output) are written to ``--out`` (default: $OUT if set, else
./sanitize-report).

Exit status: 0 when every shard ran and no finding is outside the allow-list; 1 when some
finding is; 2 when the check is incomplete (no compute-sanitizer, a canary not reported, a
shard that timed out or crashed, or work left for lack of time).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import glob
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
SLOW_TOOLS = ("racecheck", "initcheck")
CODEGENS = ("nvptx", "nvvm")
GROUPS = ("canary", "bench", "examples", "nrt", "ufuncs", "cg", "sample")
EXIT_FINDINGS, EXIT_INCOMPLETE = 1, 2
ERROR_EXITCODE = 99  # the sanitizer's exit status when it reported an error
MARK = "@@sanitize"  # lines the programs print: which workload runs now (tests/sanitize_workloads.py)

# -------------------------------------------------------------------------------------------
# Finding compute-sanitizer


def find_sanitizer(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(the path of compute-sanitizer, where it was found), or (None, every place looked at).

    Looks at *explicit* (``--sanitizer``), $COMPUTE_SANITIZER, $CUDA_HOME/bin and
    $CUDA_PATH/bin, the PATH, /usr/local/cuda*/bin (newest first) and cuda-pathfinder's
    ``find_nvidia_binary_utility``."""
    environ = os.environ if environ is None else environ
    looked: list[str] = []

    def usable(path: str | None) -> bool:
        return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)  # type: ignore[arg-type]

    for name, path in (("--sanitizer", explicit), ("$COMPUTE_SANITIZER", environ.get("COMPUTE_SANITIZER"))):
        if path:
            if usable(path):
                return path, name
            looked.append(f"{name}={path}")
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        home = environ.get(variable)
        if home:
            for candidate in (
                Path(home) / "bin" / "compute-sanitizer",
                Path(home) / "compute-sanitizer" / "compute-sanitizer",
            ):
                if usable(str(candidate)):
                    return str(candidate), f"${variable}"
            looked.append(f"${variable}/bin")
    on_path = shutil.which("compute-sanitizer", path=environ.get("PATH", ""))
    if on_path:
        return on_path, "PATH"
    looked.append("PATH")
    for home in _toolkit_homes():
        for candidate in (
            Path(home) / "bin" / "compute-sanitizer",
            Path(home) / "compute-sanitizer" / "compute-sanitizer",
        ):
            if usable(str(candidate)):
                return str(candidate), home
    looked.append("/usr/local/cuda*/bin")
    found = _pathfinder()
    if usable(found):
        return found, "cuda-pathfinder"
    looked.append("cuda-pathfinder")
    return None, ", ".join(looked)


def _toolkit_homes() -> list[str]:
    """The CUDA toolkits in /usr/local, newest first."""
    return sorted(glob.glob("/usr/local/cuda*"), key=_version_key, reverse=True)


def _pathfinder() -> str | None:
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        return find_nvidia_binary_utility("compute-sanitizer")
    except Exception:  # an older cuda-pathfinder (without it, or not knowing this tool), or none
        return None


def _version_key(path: str) -> tuple[int, ...]:
    """/usr/local/cuda-12.4 -> (12, 4); /usr/local/cuda (no version) sorts first among equals."""
    return tuple(int(n) for n in re.findall(r"\d+", Path(path).name)) or (1 << 30,)


# flags a sanitizer may lack (older versions): given only when its --help names them
OPTIONAL_FLAGS = (
    "--launch-timeout",
    "--require-cuda-init",
    "--destroy-on-device-error",
    "--report-api-errors",
    "--show-backtrace",
    "--target-processes",
)


def sanitizer_command(sanitizer: str, tool: str, kind: str, known_flags: Iterable[str] | None = None) -> list[str]:
    """compute-sanitizer and its options for *tool* on a shard of *kind* ("program" or "pytest").

    Programs are leak-checked (they free everything and close their context at the end) and
    report CUDA API errors (cumlir's runtime ignores errors where it frees from finalizers);
    test runs are neither (tests provoke API errors on purpose and keep memory in caches)."""
    known = None if known_flags is None else set(known_flags)
    command = [sanitizer, "--tool", tool, "--error-exitcode", str(ERROR_EXITCODE), "--print-limit", "100"]
    optional = [
        ("--target-processes", "all"),
        # Python may run for minutes (collecting tests) before it first calls CUDA
        ("--launch-timeout", "0"),
        ("--require-cuda-init", "no"),
        # a faulting kernel ends alone: the tests after it still run
        ("--destroy-on-device-error", "kernel"),
        ("--show-backtrace", "device"),
        ("--report-api-errors", "explicit" if kind == "program" else "no"),
    ]
    for flag, value in optional:
        if known is None or flag in known:
            command += [flag, value]
    if tool == "memcheck" and kind == "program":
        command += ["--leak-check", "full"]
    return command


def known_flags(help_text: str) -> set[str]:
    return {flag for flag in OPTIONAL_FLAGS if flag in help_text}


# -------------------------------------------------------------------------------------------
# The gpu tier: collecting it, what is left out, the sample


def collect_gpu_tests(python: str, timeout: float, env: Mapping[str, str] | None = None) -> tuple[list[str], str]:
    """The node ids of the ``gpu`` tier (``pytest -m gpu --collect-only -q tests``), and the
    collection's output."""
    command = [python, "-m", "pytest", "-m", "gpu", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    output = result.stdout + result.stderr
    return parse_collected(output), output


def parse_collected(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.startswith("tests/") and "::" in line]


def node_file(node: str) -> str:
    return node.split("::", 1)[0]


def node_parts(node: str) -> tuple[str, list[str], str]:
    """(file, enclosing classes, function) of a node id; its parameters dropped."""
    path, _, rest = node.partition("::")
    names = rest.split("[", 1)[0].split("::")
    return path, names[:-1], names[-1]


def node_params(node: str) -> list[str]:
    match = re.search(r"\[(.*)\]$", node)
    return match.group(1).split("-") if match else []


def explicit_codegen(node: str) -> str | None:
    """The code generator a test parametrized by the ``backend`` fixture runs, whatever
    CUMLIR_BACKEND says (None for a test that takes the environment's)."""
    found = [p for p in node_params(node) if p in CODEGENS]
    return found[-1] if found else None


# what leaves a test out of every sample: a pattern of its source (its function, the fixtures
# and helpers of its module that it names), and why
SOURCE_EXCLUSIONS = (
    (
        re.compile(
            r"\bsubprocess\b|sys\.executable|multiprocessing|\bPopen\b|ProcessPool|python_output\(|os\.fork\b|"
            r"\bdask\b|\bray\.|mpi4py"
        ),
        "starts processes (outside the sanitized one, or timing out under it)",
    ),
    (
        re.compile(r"len\(cuda\.gpus\)|gpus\[1\]|select_device\(1\)|device_count|two GPUs|several GPUs"),
        "needs two GPUs",
    ),
    (
        re.compile(r"perf_counter|time\.time\(|time\.monotonic|timeit|elapsed_time"),
        "measures time (a sanitizer slows kernels 10-100 times)",
    ),
)
MARKER_EXCLUSIONS = {"timing": "asserts that queued work has not run yet (marked timing)"}
FILE_EXCLUSIONS = {
    "tests/test_gpu_multi_device.py": "needs two GPUs",
    "tests/test_gpu_dask.py": "starts a Dask cluster's worker processes",
}
# left out of the sample for their length under a sanitizer (the device runtime's group runs
# them under memcheck)
NAME_EXCLUSIONS = {"test_ten_thousand_launches_leave_the_counters_balanced": "10,000 launches"}
HEAVY = re.compile(r"importorskip\(\s*['\"]torch|\bimport torch\b")


@dataclasses.dataclass
class NodeInfo:
    """What the sample needs to know of one test, read from its source."""

    excluded: str | None = None  # why it is left out of the sample
    markers: frozenset[str] = frozenset()
    heavy: bool = False  # imports PyTorch: left out of the slow tools' sample


class SourceIndex:
    """The test modules' syntax trees, read once: a test's markers and the source it runs."""

    def __init__(self, root: Path = ROOT) -> None:
        self.root = root
        self._modules: dict[str, tuple[ast.Module, str] | None] = {}
        self._functions: dict[str, NodeInfo] = {}  # by node id without its parameters

    def module(self, path: str) -> tuple[ast.Module, str] | None:
        if path not in self._modules:
            try:
                text = (self.root / path).read_text()
                self._modules[path] = (ast.parse(text), text)
            except (OSError, SyntaxError, ValueError):
                self._modules[path] = None
        return self._modules[path]

    def info(self, node: str) -> NodeInfo:
        function = node.split("[", 1)[0]
        if function not in self._functions:
            self._functions[function] = self._read(node)
        return self._functions[function]

    def _read(self, node: str) -> NodeInfo:
        path, classes, name = node_parts(node)
        if path in FILE_EXCLUSIONS:
            return NodeInfo(excluded=FILE_EXCLUSIONS[path])
        if name in NAME_EXCLUSIONS:
            return NodeInfo(excluded=NAME_EXCLUSIONS[name])
        found = self.module(path)
        if found is None:
            return NodeInfo()
        tree, text = found
        scope: list[ast.stmt] = tree.body
        markers = set(_module_markers(tree))
        for class_name in classes:
            cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == class_name), None)
            if cls is None:
                return NodeInfo(markers=frozenset(markers))
            markers |= _decorator_markers(cls)
            scope = cls.body
        function = next(
            (n for n in scope if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name), None
        )
        if function is None:
            return NodeInfo(markers=frozenset(markers))
        markers |= _decorator_markers(function)
        source = _reached_source(tree, text, function)
        excluded = next((MARKER_EXCLUSIONS[m] for m in sorted(markers) if m in MARKER_EXCLUSIONS), None)
        if excluded is None:
            excluded = next((why for pattern, why in SOURCE_EXCLUSIONS if pattern.search(source)), None)
        return NodeInfo(excluded=excluded, markers=frozenset(markers), heavy=bool(HEAVY.search(source)))


def _mark_names(node: ast.expr) -> Iterable[str]:
    """The X of every ``pytest.mark.X`` (called or not) in *node*."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute) and sub.value.attr == "mark":
            yield sub.attr


def _decorator_markers(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {name for decorator in node.decorator_list for name in _mark_names(decorator)}


def _module_markers(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in statement.targets
        ):
            found |= set(_mark_names(statement.value))
    return found


def _reached_source(tree: ast.Module, text: str, function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The source of *function* and of the module-level functions it reaches by name (its
    fixtures, by their parameters' names, and the helpers it calls), transitively."""
    top = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    seen: set[str] = set()
    parts: list[str] = []
    pending: list[ast.AST] = [function]
    while pending:
        node = pending.pop()
        parts.append(ast.get_source_segment(text, node) or "")
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names |= {a.arg for a in node.args.args}
        for name in sorted(names):
            if name in top and name not in seen and top[name] is not function:
                seen.add(name)
                pending.append(top[name])
    return "\n".join(parts)


def rank(nodes: Iterable[str]) -> list[str]:
    """The tests in the order the samples take them: spread over files.

    Within a file the tests are ordered by a hash of their id; a test's score is its place
    there divided by the square root of the file's size; the order is by score (ties by hash).
    Every prefix of the order therefore holds the first test of every file before the second
    of any, and then tests of each file roughly in proportion to the square root of its size
    (the scalar differential test's 5,770 cases do not swamp the rest). The order of a test
    does not depend on the order *nodes* come in, and a test added to another file leaves the
    order of the others unchanged."""
    by_file: dict[str, list[str]] = defaultdict(list)
    for node in set(nodes):
        by_file[node_file(node)].append(node)
    scored = []
    for members in by_file.values():
        members.sort(key=_hash)
        weight = len(members) ** 0.5
        scored += [(place / weight, _hash(node), node) for place, node in enumerate(members)]
    return [node for *_, node in sorted(scored)]


def _hash(node: str) -> int:
    return zlib.crc32(node.encode())


def sample(
    ranked: Sequence[str], size: int, codegen: str, infos: Mapping[str, NodeInfo], *, light: bool = False
) -> list[str]:
    """The first *size* tests of *ranked* that a run with *codegen* takes: not excluded, not
    parametrized for the other code generator (that one's run has them) and, with *light*,
    not heavy. Returned sorted, so that a shard's tests share modules."""
    chosen = []
    for node in ranked:
        info = infos[node]
        if info.excluded or explicit_codegen(node) not in (None, codegen) or (light and info.heavy):
            continue
        chosen.append(node)
        if len(chosen) == size:
            break
    return sorted(chosen)


def capped(nodes: Iterable[str], per_function: int) -> list[str]:
    """At most *per_function* parametrizations of each test function (the first by hash)."""
    by_function: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        by_function[node.split("[", 1)[0]].append(node)
    return sorted(n for members in by_function.values() for n in sorted(members, key=_hash)[:per_function])


FOCUS = {
    # the device runtime's tests (which check its counters balance)
    "nrt": re.compile(r"nrt"),
    # GPU ufuncs (cuda.vectorize, cuda.guvectorize), cuda.reduce and ufunc.reduce
    "ufuncs": re.compile(r"tests/test_gpu_ufuncs\.py|tests/test_ufunc_out\.py|::test_gufunc"),
    # cooperative launches
    "cg": re.compile(r"(^|[_/])cg[_.]|grid_sync|cooperative|forall"),
}


def focus(group: str, nodes: Iterable[str], infos: Mapping[str, NodeInfo], tool: str, codegen: str) -> list[str]:
    """The tests of a focused group (``FOCUS``) for one run: every one of the device
    runtime's and the cooperative ones, and two parametrizations of each ufunc test; under
    the slow tools, one parametrization of each test (the programs run every allocation
    pattern of the runtime). The 10,000 launches of the runtime's long test run under
    memcheck only."""
    pattern = FOCUS[group]
    chosen = []
    for node in nodes:
        info = infos[node]
        _, _, name = node_parts(node)
        if not pattern.search(node.split("[", 1)[0]) or explicit_codegen(node) not in (None, codegen):
            continue
        if info.excluded and not (tool == "memcheck" and group == "nrt" and info.excluded == NAME_EXCLUSIONS.get(name)):
            continue
        if tool in SLOW_TOOLS and info.heavy:
            continue
        chosen.append(node)
    if tool in SLOW_TOOLS:
        return capped(chosen, 1)
    return capped(chosen, 2) if group == "ufuncs" else sorted(chosen)


# -------------------------------------------------------------------------------------------
# The plan: shards


# seconds, for the order shards start in (longest first) and their sizes; measured figures
# replace these in the report
STARTUP = {"memcheck": 6.0, "synccheck": 6.0, "racecheck": 8.0, "initcheck": 8.0}
PER_TEST = {"memcheck": 1.0, "synccheck": 1.0, "racecheck": 2.0, "initcheck": 2.0}
# collecting these files types every case of tests/cases/differential_cases.py (5,770)
SLOW_COLLECTION = {"tests/test_gpu_differential.py": 25.0, "tests/test_gpu_differential_numba_cuda.py": 25.0}
PER_WORKLOAD = {"canary": 3.0, "bench": 2.5, "examples": 6.0, "nrt": 1.5, "ufuncs": 25.0, "cg": 8.0}

# the programs of each group, one shard each (names of tests/sanitize_workloads.py's WORKLOADS)
PROGRAMS = {
    "bench": [
        ["bench:vadd", "bench:saxpy", "bench:copy_float4", "bench:reduce_block"],
        ["bench:reduce_warp", "bench:matmul", "bench:stencil", "bench:nbody"],
        ["bench:black_scholes", "bench:histogram", "bench:softmax", "bench:math_loop"],
    ],
    "examples": [
        # (dask's and ray's kernels run in worker processes of their own: named, to say so in the report)
        ["example:vector_add", "example:reductions", "example:monte_carlo_pi", "example:mpi_multi_gpu"]
        + ["example:dask_multi_gpu", "example:ray_multi_gpu"],
        ["example:gemm_ampere", "example:gemm_hopper", "example:cccl_reduce"],
    ],
    "nrt": [["nrt:0/2"], ["nrt:1/2"]],
    "ufuncs": [["ufuncs"]],
    "cg": [["cg"]],
}
# a half of the runtime's cases is about 18 kernels; dask's and ray's say they are skipped
WORKLOAD_COST = {"nrt:0/2": 18.0, "nrt:1/2": 18.0, "example:dask_multi_gpu": 0.0, "example:ray_multi_gpu": 0.0}


@dataclasses.dataclass
class Shard:
    """One sanitized process: a tool, a code generator, and programs or tests to run."""

    tool: str
    codegen: str
    group: str
    kind: str  # "program" or "pytest"
    items: list[str]
    index: int = 0

    @property
    def name(self) -> str:
        return f"{self.tool}-{self.codegen}-{self.group}-{self.index:02d}"

    def estimate(self) -> float:
        seconds = STARTUP[self.tool]
        slow = 2.0 if self.tool in SLOW_TOOLS else 1.0
        if self.kind == "pytest":
            seconds += 3.0 + len(self.items) * PER_TEST[self.tool]
            seconds += sum(SLOW_COLLECTION.get(f, 0.0) for f in {node_file(n) for n in self.items})
        else:
            for item in self.items:
                seconds += WORKLOAD_COST.get(item, PER_WORKLOAD.get(self.group, 5.0)) * slow
        return seconds


def chunks(nodes: Sequence[str], size: int) -> list[list[str]]:
    """*nodes* (sorted) in shards of about *size*; a slowly collected file's tests in shards
    of their own, up to three times as large (each shard pays for the collection)."""
    out = []
    for path in sorted(SLOW_COLLECTION):
        slow = [n for n in nodes if node_file(n) == path]
        if slow:
            count = -(-len(slow) // (3 * size))
            out += [slow[k::count] for k in range(count)]
    rest = [n for n in nodes if node_file(n) not in SLOW_COLLECTION]
    if rest:
        count = -(-len(rest) // size)
        step = -(-len(rest) // count)
        out += [rest[k : k + step] for k in range(0, len(rest), step)]
    return [sorted(c) for c in out if c]


@dataclasses.dataclass
class Plan:
    tools: Sequence[str]
    codegens: Sequence[str]
    groups: Sequence[str]
    sample_size: int = 520
    slow_sample_size: int = 120
    tests_per_shard: int = 40
    slow_tests_per_shard: int = 20

    def program_shards(self) -> list[Shard]:
        shards = []
        for tool in self.tools:
            for codegen in self.codegens:
                if "canary" in self.groups:
                    shards.append(Shard(tool, codegen, "canary", "program", [f"canary:{tool}"]))
                for group, programs in PROGRAMS.items():
                    if group in self.groups:
                        shards += [
                            Shard(tool, codegen, group, "program", list(items), k) for k, items in enumerate(programs)
                        ]
        return shards

    def test_shards(self, nodes: Sequence[str], infos: Mapping[str, NodeInfo]) -> list[Shard]:
        ranked = rank(nodes)
        shards = []
        for tool in self.tools:
            slow = tool in SLOW_TOOLS
            per_shard = self.slow_tests_per_shard if slow else self.tests_per_shard
            for codegen in self.codegens:
                taken: set[str] = set()
                if "sample" in self.groups:
                    size = self.slow_sample_size if slow else self.sample_size
                    chosen = sample(ranked, size, codegen, infos, light=slow)
                    taken |= set(chosen)
                    shards += [
                        Shard(tool, codegen, "sample", "pytest", c, k) for k, c in enumerate(chunks(chosen, per_shard))
                    ]
                for group in FOCUS:
                    if group in self.groups:
                        chosen = [n for n in focus(group, nodes, infos, tool, codegen) if n not in taken]
                        taken |= set(chosen)
                        shards += [
                            Shard(tool, codegen, f"{group}-tests", "pytest", c, k)
                            for k, c in enumerate(chunks(chosen, per_shard))
                        ]
        return shards


# -------------------------------------------------------------------------------------------
# Parsing the sanitizer's output


@dataclasses.dataclass
class Finding:
    """One error the sanitizer reported."""

    tool: str
    severity: str  # "error" or "warning"
    kind: str  # e.g. "Invalid __global__ write of size 4 bytes", "Race between Write and Read accesses"
    kernel: str | None = None
    location: str | None = None  # file:line, where the kernel has line information
    pc: str | None = None  # the offset in the kernel, without line information
    detail: str = ""
    origin: str = ""  # the test or program running when it was reported (the last one named before it)
    codegen: str = ""
    lines: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Log:
    """What one shard's output says."""

    findings: list[Finding] = dataclasses.field(default_factory=list)
    error_summary: int | None = None  # "ERROR SUMMARY: N errors"
    tool_errors: list[str] = dataclasses.field(default_factory=list)  # the sanitizer's own troubles
    outcomes: Counter[str] = dataclasses.field(default_factory=Counter)  # passed, failed, ...
    failures: list[str] = dataclasses.field(default_factory=list)  # failed tests and programs
    skipped: list[str] = dataclasses.field(default_factory=list)  # programs skipped, with why
    finished: list[str] = dataclasses.field(default_factory=list)  # programs that ran to the end


PREFIX = re.compile(r"(?<!=)={9}(?!=)(?P<body>(?: .*)?)$")
PYTEST_NODE = re.compile(r"^(tests/\S+::\S+)")
PYTEST_OUTCOME = re.compile(r"^(tests/\S+::\S+)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b")
PYTEST_SUMMARY_LINE = re.compile(r"^=+ (.*\bin [\d.]+s\b.*) =+$")
PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|warnings?|xfailed|xpassed|deselected)")
PYTEST_SHORT = re.compile(r"^(FAILED|ERROR) (tests/\S+)")
HEX = re.compile(r"0x[0-9a-fA-F]+")

SUMMARY = re.compile(r"^(ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY)\b")
ERROR_SUMMARY = re.compile(r"^ERROR SUMMARY: ([\d,]+) errors?")
LEAK = re.compile(r"^Leaked ([\d,]+) bytes at (0x[0-9a-fA-F]+)(?P<heap> on the device heap)?")
API_ERROR = re.compile(
    r"^Program hit (?P<error>\S+) \(error (?P<code>\d+)\) due to \"(?P<why>.*)\" on CUDA API call to (?P<call>[\w]+)"
)
RACE = re.compile(
    r"^(?P<severity>Error|Warning): Race reported between (?P<first>\w+) access at (?P<at>.+?)"
    r"(?: and (?P<second>\w+) access at (?P<at2>.+?))?(?P<count> \[[\d,]+ hazards?\])?$"
)
HAZARD = re.compile(
    r"^(?P<severity>Error|Warning): Potential (?P<hazard>\w+) hazard detected at (?P<space>\S+) (?P<address>\S+)"
)
TOOL_ERROR = re.compile(r"^(Error|Internal Sanitizer Error|Internal error|Fatal error)\b[: ]")
TOOL_NOTE = re.compile(r"^(COMPUTE-SANITIZER$|Target application returned an error)")
KNOWN_FINDING = re.compile(
    r"^(Invalid |Misaligned |Out-of-range |Out of range |Uninitiali[sz]ed |Barrier error|Malloc/Free error|"
    r"Host API uninitiali|Illegal |Hardware exception|Warp |Lane |Cuda assert|CUDA assert|Device heap|"
    r"Stack overflow|Unused memory|Invalid PC|Fatal UVM|Detected )"
)
LOCATION_NEW = re.compile(r"^(?P<func>.+?)\+(?P<pc>0x[0-9a-fA-F]+)(?: in (?P<file>.+):(?P<line>\d+))?$")
LOCATION_OLD = re.compile(r"^(?P<pc>0x[0-9a-fA-F]+) in (?:(?P<file>.+?):(?P<line>\d+):)?(?P<func>.+)$")


def kernel_name(function: str) -> str:
    """A function as the sanitizer names it, without its parameters and return type:
    ``void smooth<double>(double *, int)`` -> ``smooth<double>``."""
    text = function.strip()
    if text.endswith(")"):
        depth = 0
        for k in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[k], 0)
            if depth == 0:
                text = text[:k].rstrip() or text
                break
    depth, cut = 0, 0
    for k, char in enumerate(text):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == " " and depth == 0:
            cut = k + 1
    return text[cut:] or text


def parse_location(text: str) -> tuple[str | None, str | None, str | None]:
    """(kernel, pc, file:line) of a location as the sanitizer writes it: ``kernel(int *)+0x90
    in probe.cu:13`` (current versions, the file where there is line information),
    ``0x1b8 in kernel(float *)`` or ``0x578 in task.cu:120:kernel(Matrix)`` (older ones)."""
    text = re.sub(r"\s*\[[\d,]+ hazards?\]\s*$", "", text.strip())
    for pattern in (LOCATION_NEW, LOCATION_OLD):
        match = pattern.match(text)
        if match:
            where = f"{match['file']}:{match['line']}" if match["file"] else None
            return kernel_name(match["func"]), match["pc"], where
    return (kernel_name(text) if text else None), None, None


def parse_log(text: str, tool: str, origin: str = "", codegen: str = "") -> Log:
    """The findings, summaries, test outcomes and failures in one shard's output (the
    sanitizer's lines mixed with pytest's ``-v`` lines or the programs' ``@@sanitize``
    lines, which say which test or program ran when a finding was reported)."""
    log = Log()
    current = origin
    record: list[str] = []
    record_origin = current

    def flush() -> None:
        if record:
            _record(record, tool, record_origin, codegen, log)
            record.clear()

    for raw in text.splitlines():
        line = raw.rstrip("\r\n")
        summary = PYTEST_SUMMARY_LINE.match(line.strip())
        if summary:  # pytest's last line ("=== 1 failed, 2 passed in 3.2s ==="), whatever its width
            counts = Counter({_outcome(k): int(n) for n, k in PYTEST_COUNT.findall(summary[1])})
            log.outcomes = counts or log.outcomes
            continue
        match = PREFIX.search(line)
        if match and match.group("body").rstrip().endswith("="):
            match = None  # a line of pytest's framed in "=", not the sanitizer's
        before = line[: match.start()] if match else line
        node = PYTEST_NODE.match(before)
        if node:
            current = node.group(1)
        outcome = PYTEST_OUTCOME.match(before)
        if outcome:
            log.outcomes[_outcome(outcome.group(2).lower())] += 1
        if before.startswith(MARK):
            current = _marker(before, log, current)
        short = PYTEST_SHORT.match(before)
        if short:
            log.failures.append(before.strip())
        if not match:
            continue
        body = match.group("body")
        if not body.strip():
            flush()
            continue
        if body.startswith("  "):  # a continuation of the record
            if record:
                record.append(body.strip())
            continue
        flush()
        record.append(body.strip())
        record_origin = current
    flush()
    return log


def _outcome(word: str) -> str:
    """pytest's word for an outcome, in the singular where it has two ("errors", "warnings")."""
    return word[:-1] if word in ("errors", "warnings") else word


def _marker(line: str, log: Log, current: str) -> str:
    """Reads a program's ``@@sanitize`` line: ``workload NAME``, ``ok NAME``, ``failed NAME:
    why``, ``skip NAME: why`` or ``teardown``; the origin of the findings after it."""
    words = line[len(MARK) :].strip()
    verb, _, rest = words.partition(" ")
    if verb == "workload":
        return rest.strip()
    if verb == "ok":
        log.finished.append(rest.strip())
    elif verb == "failed":
        log.failures.append(rest.strip())
    elif verb == "skip":
        log.skipped.append(rest.strip())
    elif verb == "teardown":
        return f"{current.split(':', 1)[0]}:teardown" if current else "teardown"
    return current


def _record(lines: list[str], tool: str, origin: str, codegen: str, log: Log) -> None:
    """One record of the sanitizer (a header line and its indented lines) into *log*."""
    header = lines[0]
    finding = Finding(tool, "error", _normalized(header), origin=origin, codegen=codegen, lines=list(lines))
    if SUMMARY.match(header):
        summary = ERROR_SUMMARY.match(header)
        if summary:
            log.error_summary = int(summary.group(1).replace(",", ""))
        return
    leak = LEAK.match(header)
    api = API_ERROR.match(header)
    race = RACE.match(header)
    hazard = HAZARD.match(header)
    if leak:
        finding.kind = "Leaked memory on the device heap" if leak["heap"] else "Leaked device memory"
        finding.detail = f"{leak.group(1).replace(',', '')} bytes"
    elif api:
        finding.kind = f"CUDA API error {api['error']} from {api['call']}"
        finding.detail = api["why"]
    elif race:
        finding.severity = race["severity"].lower()
        second = race["second"]
        at2 = race["at2"]
        for line in lines[1:]:
            more = re.match(r"^and (\w+) access at (.+)$", line)
            if more and second is None:
                second, at2 = more.group(1), more.group(2)
        finding.kind = f"Race between {race['first']} and {second or '?'} accesses"
        finding.kernel, finding.pc, finding.location = parse_location(race["at"])
        if at2:
            kernel2, pc2, where2 = parse_location(at2)
            finding.detail = f"and {second} at {where2 or pc2 or '?'}"
    elif hazard:
        finding.severity = hazard["severity"].lower()
        finding.kind = f"Potential {hazard['hazard']} hazard on {hazard['space']}"
        for line in lines[1:]:
            access = re.match(r"^(\w+) Thread \([^)]*\) at (.+)$", line)
            if access:
                finding.kernel, finding.pc, finding.location = parse_location(access.group(2))
                break
    elif TOOL_ERROR.match(header):
        log.tool_errors.append(" / ".join(lines))
        return
    else:
        located = any(line.startswith(("at ", "by thread")) for line in lines[1:])
        if not (KNOWN_FINDING.match(header) or located):
            if not TOOL_NOTE.match(header):
                log.tool_errors.append("(note) " + " / ".join(lines))
            return
    for line in lines[1:]:
        if line.startswith("at ") and finding.kernel is None:
            finding.kernel, finding.pc, finding.location = parse_location(line[3:])
        address = re.match(r"^Address 0x[0-9a-fA-F]+ (?:is )?(.+)$", line)
        if address and not finding.detail:
            finding.detail = HEX.sub("0x…", address.group(1))
        uninitialized = re.match(r"^Uninitiali[sz]ed access at .* on access by (.+)$", line)
        if uninitialized and not finding.detail:
            finding.detail = f"by {uninitialized.group(1)}"
    log.findings.append(finding)


def _normalized(header: str) -> str:
    return HEX.sub("0x…", header).rstrip(".").strip()


# -------------------------------------------------------------------------------------------
# De-duplicating, and what is allowed


@dataclasses.dataclass(frozen=True)
class Allowance:
    """A known-benign finding: the fields given must all match (regular expressions searched
    in the finding's kind, kernel and origin; *marker*, a marker of the origin test)."""

    reason: str
    tool: str | None = None
    kind: str = ""
    kernel: str = ""
    origin: str = ""
    marker: str | None = None

    def matches(self, finding: Finding, infos: Mapping[str, NodeInfo]) -> bool:
        if self.tool is not None and finding.tool != self.tool:
            return False
        if self.kind and not re.search(self.kind, finding.kind):
            return False
        if self.kernel and not re.search(self.kernel, finding.kernel or ""):
            return False
        if self.origin and not re.search(self.origin, finding.origin):
            return False
        if self.marker is not None:
            info = infos.get(finding.origin)
            return info is not None and self.marker in info.markers
        return True


# the known-benign findings: each as narrow as it can be, with the reason it is benign (a
# finding of cumlir's generated code or runtime is fixed, not listed here)
ALLOWED: tuple[Allowance, ...] = (
    Allowance(
        tool="racecheck",
        marker="nondeterministic",
        reason="the test races on purpose: it is marked nondeterministic (what its kernel leaves depends on "
        "the order threads run in, and the test checks only what every order leaves)",
    ),
    Allowance(
        tool="memcheck",
        kind=r"^Leaked device memory",
        origin=r"^ufuncs:teardown$",
        reason="the partial-result buffers live cuda.reduce objects keep for their next call (the workload's "
        "reducers are module globals, alive at the teardown's cuda.close(), whose context reset frees them; "
        "memcheck counts memory a reset frees as leaked)",
    ),
    Allowance(
        tool="memcheck",
        kind=r"^Invalid __global__ read",
        origin=r"test_managed_array_is_shared_by_host_and_kernels",
        reason="the test's kernel reads managed memory allocated with attach_global=False (CU_MEM_ATTACH_HOST), "
        "which CUDA allows on devices with concurrent managed access, as the H200 has; memcheck tracks such "
        "memory as host-attached and reports the access",
    ),
    Allowance(
        tool="racecheck",
        kind=r"^Internal Sanitizer Error: Detected a failure to track a kernel launch",
        origin=r"test_threads",
        reason="racecheck's own failure to follow launches made from several host threads at once, on their "
        "own streams (its message, no hazard in a kernel)",
    ),
    Allowance(
        kind=r"^CUDA API error CUDA_ERROR_NOT_READY",
        reason="cuEventQuery/cuStreamQuery answer NOT_READY while work is queued: a state, not an error "
        "(runtime/events.py asks on purpose)",
    ),
)


def allowed(finding: Finding, infos: Mapping[str, NodeInfo], rules: Sequence[Allowance] = ALLOWED) -> str | None:
    return next((rule.reason for rule in rules if rule.matches(finding, infos)), None)


@dataclasses.dataclass
class Aggregate:
    """Findings the same up to the thread, address, parameters of the test, and code generator."""

    tool: str
    severity: str
    kind: str
    kernel: str | None
    location: str | None
    origin_group: str
    allowed: str | None
    count: int = 0
    codegens: set[str] = dataclasses.field(default_factory=set)
    pcs: set[str] = dataclasses.field(default_factory=set)
    origins: list[str] = dataclasses.field(default_factory=list)
    details: list[str] = dataclasses.field(default_factory=list)
    example: list[str] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        out = dataclasses.asdict(self)
        out["codegens"], out["pcs"] = sorted(self.codegens), sorted(self.pcs)
        return out


def origin_group(origin: str) -> str:
    """A test's file (its parametrizations and functions together), or a program's name."""
    return node_file(origin) if "::" in origin else origin


def aggregate(findings: Iterable[Finding], infos: Mapping[str, NodeInfo]) -> list[Aggregate]:
    groups: dict[tuple[object, ...], Aggregate] = {}
    for f in findings:
        reason = allowed(f, infos)
        where = f.location or (None if f.kernel is None else f"{f.kernel}+{f.pc}")
        key = (f.tool, f.severity, f.kind, f.kernel, where, origin_group(f.origin), reason)
        entry = groups.get(key)
        if entry is None:
            entry = groups[key] = Aggregate(
                f.tool, f.severity, f.kind, f.kernel, f.location, origin_group(f.origin), reason
            )
            entry.example = f.lines[:12]
        entry.count += 1
        entry.codegens.add(f.codegen)
        if f.pc:
            entry.pcs.add(f.pc)
        if f.origin not in entry.origins and len(entry.origins) < 5:
            entry.origins.append(f.origin)
        if f.detail and f.detail not in entry.details and len(entry.details) < 5:
            entry.details.append(f.detail)
    return sorted(
        groups.values(), key=lambda a: (a.allowed is not None, a.tool, a.kind, a.kernel or "", a.origin_group)
    )


# -------------------------------------------------------------------------------------------
# The canaries: what each tool must report of tests/sanitize_workloads.py's planted bugs

CANARY = {
    "memcheck": re.compile(r"^Invalid __global__ write"),
    "racecheck": re.compile(r"^(Race between|Potential \w+ hazard)"),
    "synccheck": re.compile(r"^Barrier error"),
    "initcheck": re.compile(r"^Uninitiali[sz]ed __global__ memory read"),
}
# what a canary's output says when the sanitizer cannot check anything here: a device it does
# not support, a target it could not attach to, an option this version does not know
UNUSABLE = re.compile(
    r"not supported|Target application terminated before|No attachable process|Unable to|failed to (initialize|connect)"
    r"|(unknown|unrecognized|unrecognised|invalid) option",
    re.IGNORECASE,
)


@dataclasses.dataclass
class Result:
    """A shard's run."""

    shard: Shard
    status: str  # "ok", "findings", "failed" (tests or programs failed), "timeout", "crashed", "not run"
    seconds: float = 0.0
    returncode: int | None = None
    log: Log = dataclasses.field(default_factory=Log)
    output: str = ""
    canary_seen: bool | None = None  # for a canary: whether the planted bug was reported
    leak_canary_seen: bool | None = None
    started: float = 0.0  # time.monotonic() at its start

    def summary(self) -> str:
        o = self.log.outcomes
        if self.shard.kind == "pytest":
            what = (
                f"{len(self.shard.items)} tests: " + ", ".join(f"{n} {k}" for k, n in sorted(o.items()))
                if o
                else f"{len(self.shard.items)} tests"
            )
        else:
            what = f"{len(self.log.finished)} programs ok, {len(self.log.failures)} failed, {len(self.log.skipped)} skipped"
        return f"{what}; {len(self.log.findings)} findings"


def unusable(result: Result) -> str | None:
    """The line of a canary's output saying the sanitizer cannot run here (an unsupported
    device, a target it could not attach to), where its planted bug went unreported."""
    if result.shard.group != "canary" or result.canary_seen or result.status == "not run":
        return None
    lines = result.output.splitlines()[1:]  # the first is the command
    return next((line.strip(" =") for line in lines if UNUSABLE.search(line)), None)


def judge(shard: Shard, output: str, returncode: int | None, timed_out: bool, seconds: float) -> Result:
    """A shard's result from its output and exit status."""
    log = parse_log(output, shard.tool, origin=shard.name, codegen=shard.codegen)
    result = Result(shard, "ok", seconds, returncode, log, output)
    if shard.group == "canary":
        # everything a canary's process reports was planted (the driver's errors after the
        # planted fault included): the canary only says whether the tool reports at all
        result.canary_seen = any(CANARY[shard.tool].match(f.kind) for f in log.findings)
        if shard.tool == "memcheck":
            result.leak_canary_seen = any(f.kind.startswith("Leaked") for f in log.findings)
        log.findings = []
    if log.error_summary and not log.findings and shard.group != "canary":
        # the sanitizer counted errors the parser did not read: never let them pass unseen
        log.findings.append(
            Finding(
                shard.tool,
                "error",
                f"{log.error_summary} errors counted but not parsed",
                origin=shard.name,
                codegen=shard.codegen,
            )
        )
    if timed_out:
        result.status = "timeout"
    elif returncode not in (0, 1, ERROR_EXITCODE) or (
        returncode == ERROR_EXITCODE and not log.findings and shard.group != "canary"
    ):
        result.status = "crashed"
    elif log.findings:
        result.status = "findings"
    elif log.failures or returncode == 1:
        result.status = "failed"
    return result


# -------------------------------------------------------------------------------------------
# Running the shards


MINIMUM_SHARD_SECONDS = 30.0  # no shard starts with less time than this left


class Runner:
    """Runs shards in up to *jobs* sanitized processes at once, longest first, until the
    deadline; shards can be added while it runs (the tests' shards, once collected)."""

    def __init__(
        self,
        sanitizer: str,
        flags: set[str] | None,
        python: str,
        jobs: int,
        deadline: float,
        shard_timeout: float,
        logs: Path,
        pytest_timeout: bool,
        echo: Callable[[str], None] = print,
    ) -> None:
        self.sanitizer, self.flags, self.python = sanitizer, flags, python
        self.jobs, self.deadline, self.shard_timeout = jobs, deadline, shard_timeout
        self.logs, self.pytest_timeout, self.echo = logs, pytest_timeout, echo
        self.pending: list[Shard] = []
        self.results: list[Result] = []
        self.expected = 0
        self.open = True  # more shards may come
        self.abort: str | None = None
        self.condition = threading.Condition()
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def add(self, shards: Iterable[Shard]) -> None:
        with self.condition:
            for shard in shards:
                self.pending.append(shard)
                self.expected += 1
            # canaries first, then longest first
            self.pending.sort(key=lambda s: (s.group != "canary", -s.estimate(), s.name))
            self.condition.notify_all()

    def close(self) -> None:
        with self.condition:
            self.open = False
            self.condition.notify_all()

    def stop(self, why: str) -> None:
        with self.condition:
            self.abort = why
            self.condition.notify_all()
            for process in list(self.running.values()):
                _kill(process)

    def run(self) -> list[Result]:
        workers = [threading.Thread(target=self._work, daemon=True) for _ in range(self.jobs)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        with self.condition:
            for shard in self.pending:
                self.results.append(Result(shard, "not run", output=self.abort or "the time budget ran out"))
            self.pending.clear()
        return self.results

    def _next(self) -> Shard | None:
        with self.condition:
            while True:
                if self.abort or time.monotonic() > self.deadline - MINIMUM_SHARD_SECONDS:
                    return None
                if self.pending:
                    return self.pending.pop(0)
                if not self.open:
                    return None
                self.condition.wait(timeout=1.0)

    def _work(self) -> None:
        while True:
            shard = self._next()
            if shard is None:
                return
            result = self.run_shard(shard)
            with self.condition:
                self.results.append(result)
                done = len(self.results)
            self.echo(
                f"[{done:3d}/{self.expected}] {shard.name}: {result.status}, {result.seconds:.0f} s, {result.summary()}"
            )
            if shard.group == "canary":
                self._check_usable(result)

    def _check_usable(self, result: Result) -> None:
        trouble = unusable(result)
        if trouble:
            self.stop(f"compute-sanitizer cannot check this machine's GPU: {trouble}")

    def command(self, shard: Shard) -> list[str]:
        # the sanitizer's lines and the test's or program's are read in the order they were
        # written (which test was running when a finding was reported): the sanitizer writes
        # each line at once, not when its buffer fills, where stdbuf is there to ask it to
        line_buffered = ["stdbuf", "-oL", "-eL"] if shutil.which("stdbuf") else []
        command = line_buffered + sanitizer_command(self.sanitizer, shard.tool, shard.kind, self.flags)
        if shard.kind == "program":
            return command + [self.python, str(ROOT / "tests" / "sanitize_workloads.py"), *shard.items]
        timeout = []
        if self.pytest_timeout:  # one test that hangs ends alone, not its whole shard
            load = ["-p", "pytest_timeout"] if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") else []
            timeout = [*load, "--timeout", str(int(min(self.shard_timeout / 2, 150)))]
        return command + [
            self.python, "-m", "pytest", "-v", "--tb=short", "-rfE", "-p", "no:cacheprovider", "-o", "addopts=",
            "--basetemp", str(self.logs / "tmp" / shard.name), *timeout, *shard.items,
        ]  # fmt: skip

    def environment(self, shard: Shard) -> dict[str, str]:
        env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")) if p)
        env.pop("CUMLIR_BACKEND", None)
        if shard.codegen != "nvptx":
            env["CUMLIR_BACKEND"] = shard.codegen
        env.pop("CUMLIR_SIMULATOR", None)
        env.pop("NUMBA_ENABLE_CUDASIM", None)
        return env

    def run_shard(self, shard: Shard) -> Result:
        timeout = min(self.shard_timeout, self.deadline - time.monotonic() - 5)
        path = self.logs / f"{shard.name}.log"
        start = time.monotonic()
        timed_out = False
        with open(path, "wb") as sink:
            sink.write((" ".join(self.command(shard)) + "\n").encode())
            sink.flush()
            process = subprocess.Popen(
                self.command(shard), cwd=ROOT, env=self.environment(shard), stdout=sink, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
            with self.condition:
                self.running[shard.name] = process
            try:
                process.wait(timeout=max(timeout, 1))
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill(process)
                process.wait()
            finally:
                with self.condition:
                    self.running.pop(shard.name, None)
        seconds = time.monotonic() - start
        output = path.read_text(errors="replace")
        if self.abort and not timed_out and process.returncode and process.returncode < 0:
            return Result(shard, "not run", seconds, process.returncode, output=self.abort)
        result = judge(shard, output, None if timed_out else process.returncode, timed_out, seconds)
        result.started = start
        return result


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Ends a shard's process group (the sanitizer and the Python process it runs)."""
    try:
        os.killpg(process.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass


# -------------------------------------------------------------------------------------------
# The report


def timings(results: Sequence[Result]) -> list[dict[str, object]]:
    rows = []
    for tool in TOOLS:
        for codegen in CODEGENS:
            mine = [r for r in results if r.shard.tool == tool and r.shard.codegen == codegen]
            if not mine:
                continue
            ran = [r for r in mine if r.status != "not run"]
            tests = Counter[str]()
            for r in ran:
                tests.update(r.log.outcomes)
            rows.append(
                {
                    "tool": tool,
                    "codegen": codegen,
                    "shards": f"{len(ran)}/{len(mine)}",
                    "tests": dict(tests),
                    "programs": sum(len(r.log.finished) for r in ran if r.shard.group != "canary"),
                    "program failures": sum(len(r.log.failures) for r in ran if r.shard.kind == "program"),
                    "test failures": sum(len(r.log.failures) for r in ran if r.shard.kind == "pytest"),
                    "seconds": round(sum(r.seconds for r in ran), 1),
                    "longest": round(max((r.seconds for r in ran), default=0.0), 1),
                    # from the first of its shards starting to the last ending
                    "span": round(
                        max((r.started + r.seconds for r in ran), default=0.0)
                        - min((r.started for r in ran), default=0.0),
                        1,
                    ),
                    "timeouts": sum(r.status == "timeout" for r in mine),
                    "crashed": sum(r.status == "crashed" for r in mine),
                    "findings": sum(len(r.log.findings) for r in ran),
                    "canary": _canary_state([r for r in mine if r.shard.group == "canary"]),
                }
            )
    return rows


def _canary_state(canaries: Sequence[Result]) -> str:
    if not canaries:
        return "not asked"
    seen = [r.canary_seen for r in canaries]
    if all(seen):
        leak = [r.leak_canary_seen for r in canaries if r.leak_canary_seen is not None]
        return "reported" + ("" if all(leak) else " (the planted leak was not)")
    return "NOT REPORTED" if any(r.status != "not run" for r in canaries) else "not run"


def markdown(report: Mapping[str, object]) -> str:
    rows = report["timings"]
    assert isinstance(rows, list)
    lines = [
        "# compute-sanitizer over cumlir",
        "",
        f"{report['verdict']}",
        "",
        f"compute-sanitizer: `{report['sanitizer']}`; wall time {report['wall_seconds']} s "
        f"(collecting the gpu tier: {report['collect_seconds']} s); {report['jobs']} processes at once.",
        "",
        "| tool | code generator | shards | tests | programs ok | failed (tests, programs) | seconds (sum, longest, span) | timeouts | findings | canary |",
        "|---|---|---|---|---:|---|---|---:|---:|---|",
    ]
    for row in rows:
        tests = ", ".join(f"{n} {k}" for k, n in sorted(row["tests"].items())) or "-"
        lines.append(
            f"| {row['tool']} | {row['codegen']} | {row['shards']} | {tests} | {row['programs']} | "
            f"{row['test failures']}, {row['program failures']} | {row['seconds']}, {row['longest']}, {row['span']} | "
            f"{row['timeouts'] + row['crashed']} | {row['findings']} | {row['canary']} |"
        )
    findings = report["findings"]
    assert isinstance(findings, list)
    lines += ["", f"## Findings ({len(findings)}, de-duplicated)", ""]
    if findings:
        lines += [
            "| tool | severity | kind | kernel | where | code generators | count | origin | allowed |",
            "|---|---|---|---|---|---|---:|---|---|",
        ]
        for f in findings:
            where = f["location"] or ", ".join(f["pcs"]) or "-"
            detail = f" ({'; '.join(f['details'])})" if f["details"] else ""
            lines.append(
                f"| {f['tool']} | {f['severity']} | {f['kind']}{detail} | {f['kernel'] or '-'} | {where} | "
                f"{', '.join(f['codegens'])} | {f['count']} | {', '.join(f['origins'][:3])} | {f['allowed'] or 'no'} |"
            )
    for title, key in (
        ("Failed tests and programs", "failures"),
        ("Incomplete: shards that did not finish, canaries not reported", "incomplete"),
        ("Programs skipped", "skipped"),
        ("The sanitizer's own messages", "tool_errors"),
    ):
        items = report.get(key) or []
        assert isinstance(items, list)
        if items:
            lines += ["", f"## {title} ({len(items)})", ""] + [f"- {item}" for item in items[:200]]
    return "\n".join(lines) + "\n"


def write_report(out: Path, report: Mapping[str, object], logs: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    (out / "report.md").write_text(markdown(report))
    with tarfile.open(out / "logs.tar.gz", "w:gz") as archive:
        for path in sorted(logs.glob("*.log")):
            data = path.read_bytes()
            if len(data) > 2_000_000:  # the head and the tail of a long log
                data = data[:1_000_000] + b"\n[... cut ...]\n" + data[-1_000_000:]
            info = tarfile.TarInfo(f"logs/{path.name}")
            info.size = len(data)
            info.mtime = int(time.time())
            archive.addfile(info, io.BytesIO(data))


# -------------------------------------------------------------------------------------------
# The command line


def parse_args(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> argparse.Namespace:
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(
        prog="python3 tests/sanitize.py", description=__doc__.split("\n\n")[0].replace("\n", " ")
    )
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated, of {', '.join(TOOLS)}")
    parser.add_argument("--codegens", default=",".join(CODEGENS), help=f"comma-separated, of {', '.join(CODEGENS)}")
    parser.add_argument("--groups", default=",".join(GROUPS), help=f"comma-separated, of {', '.join(GROUPS)}")
    parser.add_argument(
        "--sample", type=int, default=520, help="gpu-tier tests under memcheck and synccheck (default 520)"
    )
    parser.add_argument(
        "--slow-sample", type=int, default=120, help="gpu-tier tests under racecheck and initcheck (default 120)"
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 4, help="sanitized processes at once (default: the CPUs)"
    )
    parser.add_argument("--budget", type=float, default=480.0, help="seconds for the whole run (default 480)")
    parser.add_argument("--shard-timeout", type=float, default=240.0, help="seconds for one shard (default 240)")
    parser.add_argument("--sanitizer", help="the compute-sanitizer to run (else found: see find_sanitizer)")
    parser.add_argument(
        "--out",
        default=environ.get("OUT") or "sanitize-report",
        help="the report's folder (default: $OUT, else ./sanitize-report)",
    )
    parser.add_argument("--collected", help="a file of gpu-tier node ids to sample (instead of collecting)")
    parser.add_argument("--plan", action="store_true", help="print the shards and their estimates; run nothing")
    args = parser.parse_args(argv)
    for name, allowed_values in (("tools", TOOLS), ("codegens", CODEGENS), ("groups", GROUPS)):
        chosen = [v.strip() for v in getattr(args, name).split(",") if v.strip()]
        unknown = sorted(set(chosen) - set(allowed_values))
        if unknown or not chosen:
            parser.error(f"--{name}: {', '.join(unknown) or 'none given'}; choose from {', '.join(allowed_values)}")
        setattr(args, name, [v for v in allowed_values if v in chosen])
    if args.sample < 0 or args.slow_sample < 0 or args.jobs < 1 or args.budget <= 0:
        parser.error("--sample and --slow-sample must be >= 0, --jobs >= 1 and --budget > 0")
    return args


def gpu_tier(args: argparse.Namespace, echo: Callable[[str], None]) -> tuple[list[str], float, str]:
    """The gpu tier's node ids (collected, or read from --collected), the seconds it took,
    and the collection's output."""
    start = time.monotonic()
    if args.collected:
        return parse_collected(Path(args.collected).read_text()), 0.0, ""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")) if p)
    nodes, output = collect_gpu_tests(sys.executable, timeout=max(args.budget / 2, 60), env=env)
    seconds = time.monotonic() - start
    echo(f"collected {len(nodes)} gpu-tier tests in {seconds:.0f} s")
    return nodes, seconds, output


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    began = time.monotonic()
    deadline = began + args.budget
    plan = Plan(args.tools, args.codegens, args.groups, args.sample, args.slow_sample)
    index = SourceIndex()
    wants_tests = bool({"sample", *FOCUS} & set(args.groups))
    if args.plan:
        nodes = gpu_tier(args, print)[0] if wants_tests else []
        planned = {n: index.info(n) for n in nodes}
        print_plan(plan.program_shards() + plan.test_shards(nodes, planned), planned, args.jobs)
        return 0
    sanitizer, where = find_sanitizer(args.sanitizer)
    if sanitizer is None:
        print(
            "compute-sanitizer was not found (looked at: " + where + "). It comes with the CUDA toolkit: "
            "pass --sanitizer PATH, or set CUDA_HOME or PATH to a toolkit that has it.",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    try:
        help_text = subprocess.run([sanitizer, "--help"], capture_output=True, text=True, timeout=60).stdout
        version = subprocess.run([sanitizer, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        print(f"{sanitizer} does not run: {e}", file=sys.stderr)
        return EXIT_INCOMPLETE
    print(
        f"compute-sanitizer: {sanitizer} (from {where}); {version.splitlines()[-1] if version else 'version unknown'}"
    )
    work = Path(tempfile.mkdtemp(prefix="cumlir-sanitize-"))
    logs = work / "logs"
    logs.mkdir()
    runner = Runner(
        sanitizer, known_flags(help_text) if help_text else None, sys.executable, args.jobs, deadline,
        args.shard_timeout, logs, importlib.util.find_spec("pytest_timeout") is not None,
    )  # fmt: skip
    runner.add(plan.program_shards())
    infos: dict[str, NodeInfo] = {}
    collect: dict[str, object] = {"seconds": 0.0, "count": 0}

    def collect_then_add() -> None:
        try:
            if wants_tests:
                nodes, seconds, output = gpu_tier(args, print)
                (logs / "collect.log").write_text(output)
                collect.update(seconds=round(seconds, 1), count=len(nodes))
                infos.update({n: index.info(n) for n in nodes})
                if not nodes:
                    collect["error"] = "no gpu-tier test was collected (see logs/collect.log)"
                runner.add(plan.test_shards(nodes, infos))
        except Exception as e:  # the collection failed: the programs still run
            collect["error"] = f"collecting the gpu tier failed: {e}"
            print(collect["error"])
        finally:
            runner.close()

    collector = threading.Thread(target=collect_then_add, daemon=True)
    collector.start()
    results = runner.run()
    collector.join(timeout=5)
    report = build_report(args, results, infos, sanitizer, version, began, collect, runner.abort)
    out = Path(args.out)
    write_report(out, report, logs)
    print()
    print(markdown(report))
    print(f"report: {out / 'report.md'}, {out / 'report.json'}, {out / 'logs.tar.gz'}")
    shutil.rmtree(work, ignore_errors=True)
    status = report["status"]
    assert isinstance(status, int)
    return status


def build_report(
    args: argparse.Namespace,
    results: Sequence[Result],
    infos: Mapping[str, NodeInfo],
    sanitizer: str,
    version: str,
    began: float,
    collect: Mapping[str, object],
    abort: str | None,
) -> dict[str, object]:
    findings = aggregate((f for r in results for f in r.log.findings), infos)
    new = [f for f in findings if f.allowed is None]
    incomplete = [
        f"{r.shard.name}: {r.status}" + (f" ({r.output})" if r.status == "not run" else "")
        for r in results
        if r.status in ("timeout", "crashed", "not run")
    ]
    canaries = [r for r in results if r.shard.group == "canary" and r.status != "not run" and not r.canary_seen]
    incomplete += [f"{r.shard.name}: the planted bug was not reported" for r in canaries]
    if collect.get("error"):
        incomplete.append(str(collect["error"]))
    if abort:
        incomplete.insert(0, abort)
    if new:
        status, verdict = EXIT_FINDINGS, f"**{len(new)} findings outside the allow-list.**"
    elif incomplete:
        status, verdict = EXIT_INCOMPLETE, f"**Incomplete**: {len(incomplete)} shards or checks did not finish (below)."
    else:
        status, verdict = 0, "No findings outside the allow-list; every shard ran."
    return {
        "status": status,
        "verdict": verdict,
        "sanitizer": sanitizer,
        "sanitizer_version": version,
        "arguments": dict(vars(args)),
        "jobs": args.jobs,
        "wall_seconds": round(time.monotonic() - began, 1),
        "collect_seconds": collect.get("seconds", 0.0),
        "collected": collect.get("count", 0),
        "timings": timings(results),
        "findings": [f.as_dict() for f in findings],
        "failures": sorted({f"{r.shard.name}: {f}" for r in results for f in r.log.failures}),
        "skipped": sorted({s for r in results for s in r.log.skipped}),
        "incomplete": incomplete,
        "tool_errors": sorted({f"{r.shard.name}: {e}" for r in results for e in r.log.tool_errors})[:100],
        "shards": [
            {
                "name": r.shard.name,
                "status": r.status,
                "seconds": round(r.seconds, 1),
                "estimate": round(r.shard.estimate(), 1),
                "returncode": r.returncode,
                "items": len(r.shard.items),
                "outcomes": dict(r.log.outcomes),
                "findings": len(r.log.findings),
            }
            for r in sorted(results, key=lambda r: r.shard.name)
        ],
        "sample": {
            name: [r.shard.items for r in results if r.shard.name.startswith(name) and r.shard.group == "sample"]
            for name in (f"{t}-{c}" for t in args.tools for c in args.codegens)
        },
    }


def print_plan(shards: Sequence[Shard], infos: Mapping[str, NodeInfo], jobs: int) -> None:
    excluded = Counter(info.excluded for info in infos.values() if info.excluded)
    for why, count in excluded.most_common():
        print(f"left out of the sample: {count} tests ({why})")
    total = 0.0
    for tool in TOOLS:
        for codegen in CODEGENS:
            mine = [s for s in shards if s.tool == tool and s.codegen == codegen]
            if not mine:
                continue
            seconds = sum(s.estimate() for s in mine)
            total += seconds
            by_group = Counter[str]()
            for s in mine:
                by_group[s.group] += len(s.items)
            files = {node_file(n) for s in mine if s.group == "sample" for n in s.items}
            print(
                f"{tool:9s} {codegen:5s}: {len(mine):3d} shards, about {seconds:5.0f} s of work; "
                + ", ".join(f"{g} {n}" for g, n in by_group.items())
                + (f" (the sample from {len(files)} files)" if files else "")
            )
    print(f"about {total:.0f} s of work in all: {total / jobs:.0f} s on {jobs} processes at once")


if __name__ == "__main__":
    sys.exit(main())
