"""tests/sanitize.py without a GPU: finding compute-sanitizer, its command lines, the gpu
tier's sample, the parser on the sanitizer's documented output formats, the allow-list, the
report, and a whole run with a stand-in sanitizer."""

import json
import os
import random
import stat
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest

from . import sanitize as s

# -------------------------------------------------------------------------------------------
# finding the sanitizer


def _executable(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def no_system_toolkit(monkeypatch):
    monkeypatch.setattr(s, "_toolkit_homes", lambda: [])
    monkeypatch.setattr(s, "_pathfinder", lambda: None)


def test_the_sanitizer_is_found_in_cuda_home_then_path(tmp_path, no_system_toolkit):
    home = _executable(tmp_path / "cuda" / "bin" / "compute-sanitizer")
    on_path = _executable(tmp_path / "elsewhere" / "compute-sanitizer")
    environ = {"CUDA_HOME": str(tmp_path / "cuda"), "PATH": str(tmp_path / "elsewhere")}
    assert s.find_sanitizer(environ=environ) == (home, "$CUDA_HOME")
    assert s.find_sanitizer(environ={"PATH": str(tmp_path / "elsewhere")}) == (on_path, "PATH")
    assert s.find_sanitizer(explicit=on_path, environ=environ) == (on_path, "--sanitizer")


def test_the_sanitizer_is_found_in_usr_local_cuda_and_by_cuda_pathfinder(tmp_path, monkeypatch):
    toolkit = _executable(tmp_path / "cuda-13.0" / "bin" / "compute-sanitizer")
    monkeypatch.setattr(s, "_toolkit_homes", lambda: [str(tmp_path / "cuda-13.0")])
    assert s.find_sanitizer(environ={"PATH": ""}) == (toolkit, str(tmp_path / "cuda-13.0"))
    wheel = _executable(tmp_path / "site" / "compute-sanitizer")
    monkeypatch.setattr(s, "_toolkit_homes", lambda: [])
    monkeypatch.setattr(s, "_pathfinder", lambda: wheel)
    assert s.find_sanitizer(environ={"PATH": ""}) == (wheel, "cuda-pathfinder")


def test_a_missing_sanitizer_says_where_it_was_looked_for(tmp_path, no_system_toolkit, capsys):
    found, where = s.find_sanitizer(explicit=str(tmp_path / "nothing"), environ={"CUDA_HOME": str(tmp_path)})
    assert found is None
    for place in ("--sanitizer", "$CUDA_HOME/bin", "PATH", "/usr/local/cuda*/bin", "cuda-pathfinder"):
        assert place in where
    assert s.main(["--sanitizer", str(tmp_path / "nothing"), "--groups", "canary"]) == s.EXIT_INCOMPLETE
    assert "compute-sanitizer was not found" in capsys.readouterr().err


def test_toolkits_are_tried_newest_first():
    homes = ["/usr/local/cuda-12.4", "/usr/local/cuda-13.0", "/usr/local/cuda-12.10"]
    assert sorted(homes, key=s._version_key, reverse=True) == [
        "/usr/local/cuda-13.0",
        "/usr/local/cuda-12.10",
        "/usr/local/cuda-12.4",
    ]


def test_commands_leak_check_programs_only_and_drop_flags_an_older_sanitizer_lacks():
    program = s.sanitizer_command("cs", "memcheck", "program")
    assert program[:7] == ["cs", "--tool", "memcheck", "--error-exitcode", "99", "--print-limit", "100"]
    assert program[-2:] == ["--leak-check", "full"]
    assert program[program.index("--report-api-errors") + 1] == "explicit"
    assert program[program.index("--target-processes") + 1] == "all"
    assert program[program.index("--launch-timeout") + 1] == "0"
    tests = s.sanitizer_command("cs", "memcheck", "pytest")
    assert "--leak-check" not in tests and tests[tests.index("--report-api-errors") + 1] == "no"
    assert "--leak-check" not in s.sanitizer_command("cs", "racecheck", "program")
    old = s.sanitizer_command("cs", "initcheck", "program", s.known_flags("--tool --target-processes --show-backtrace"))
    assert "--launch-timeout" not in old and "--destroy-on-device-error" not in old
    assert "--target-processes" in old and "--show-backtrace" in old


# -------------------------------------------------------------------------------------------
# arguments


def test_arguments_default_to_everything_and_the_out_variable():
    args = s.parse_args([], environ={"OUT": "/tmp/out"})
    assert args.tools == list(s.TOOLS) and args.codegens == list(s.CODEGENS) and args.groups == list(s.GROUPS)
    assert args.out == "/tmp/out" and args.sample >= 500 and 0 < args.slow_sample < args.sample
    assert args.budget == 480
    assert s.parse_args([], environ={}).out == "sanitize-report"
    args = s.parse_args(["--tools", "initcheck, memcheck", "--codegens", "nvvm", "--out", "x"], environ={"OUT": "y"})
    assert args.tools == ["memcheck", "initcheck"] and args.codegens == ["nvvm"] and args.out == "x"


@pytest.mark.parametrize(
    "argv", [["--tools", "valgrind"], ["--codegens", "ptx"], ["--groups", ""], ["--jobs", "0"], ["--sample", "-1"]]
)
def test_arguments_refuse_what_is_not_there(argv, capsys):
    with pytest.raises(SystemExit):
        s.parse_args(argv, environ={})
    assert "error" in capsys.readouterr().err


# -------------------------------------------------------------------------------------------
# the sample of the gpu tier


def _tier():
    """A gpu tier shaped like the real one: one file of thousands of cases, some of hundreds,
    many small; tests parametrized by code generator; a few left out."""
    nodes = [f"tests/test_big.py::test_case[op{k}]" for k in range(3000)]
    nodes += [f"tests/ops/test_mid{f}.py::test_m[{k}-{b}]" for f in range(4) for k in range(100) for b in s.CODEGENS]
    nodes += [f"tests/test_small{f}.py::test_s{k}" for f in range(60) for k in range(1 + f % 5)]
    nodes += [f"tests/test_small0.py::TestGroup::test_c[{k}]" for k in range(3)]
    infos = {n: s.NodeInfo() for n in nodes}
    for n in nodes[::97]:
        infos[n] = s.NodeInfo(excluded="starts processes")
    for n in nodes[5::50]:
        infos[n] = s.NodeInfo(heavy=True)
    return nodes, infos


def test_the_sample_is_deterministic_whatever_the_order_of_collection():
    nodes, infos = _tier()
    first = s.sample(s.rank(nodes), 520, "nvptx", infos)
    shuffled = list(nodes)
    random.Random(3).shuffle(shuffled)
    assert s.sample(s.rank(shuffled), 520, "nvptx", infos) == first
    assert len(first) == 520 and len(set(first)) == 520 and first == sorted(first)


def test_the_sample_spreads_over_every_file_and_leaves_out_what_it_must():
    nodes, infos = _tier()
    for codegen in s.CODEGENS:
        chosen = s.sample(s.rank(nodes), 520, codegen, infos)
        files = {s.node_file(n) for n in chosen}
        assert files == {s.node_file(n) for n in nodes}
        big = sum(s.node_file(n) == "tests/test_big.py" for n in chosen)
        assert 50 < big < 520 // 2  # present, not swamping the rest
        assert not any(infos[n].excluded for n in chosen)
        other = next(c for c in s.CODEGENS if c != codegen)
        assert not any(s.explicit_codegen(n) == other for n in chosen)
        assert any(s.explicit_codegen(n) == codegen for n in chosen)


def test_the_slow_tools_sample_is_part_of_the_large_one_without_heavy_tests():
    nodes, infos = _tier()
    ranked = s.rank(nodes)
    large = set(s.sample(ranked, 520, "nvvm", infos))
    assert set(s.sample(ranked, 120, "nvvm", infos)) <= large
    light = s.sample(ranked, 120, "nvvm", infos, light=True)
    assert len(light) == 120 and not any(infos[n].heavy for n in light)


def test_a_test_added_elsewhere_leaves_the_order_of_the_others():
    nodes, _ = _tier()
    before = s.rank(nodes)
    after = s.rank(nodes + ["tests/test_new.py::test_new"])
    assert [n for n in after if n != "tests/test_new.py::test_new"] == before


def test_node_ids_are_taken_apart():
    node = "tests/ops/test_x.py::TestA::test_b[int8-nvvm-3]"
    assert s.node_parts(node) == ("tests/ops/test_x.py", ["TestA"], "test_b")
    assert s.node_params(node) == ["int8", "nvvm", "3"] and s.explicit_codegen(node) == "nvvm"
    assert s.explicit_codegen("tests/test_x.py::test_b[nvptxish]") is None
    assert s.parse_collected("x\ntests/a.py::t[1]\n\n12 tests collected in 1s\n") == ["tests/a.py::t[1]"]


def test_shards_keep_a_slowly_collected_files_tests_together():
    slow = [f"tests/test_gpu_differential.py::test_scalar_semantics[c{k}]" for k in range(70)]
    rest = [f"tests/test_r{k}.py::test_x" for k in range(90)]
    shards = s.chunks(sorted(slow + rest), 40)
    assert sum(len(c) for c in shards) == 160
    assert [len(c) for c in shards if s.node_file(c[0]) in s.SLOW_COLLECTION] == [70]
    assert all(len(c) <= 40 for c in shards if s.node_file(c[0]) not in s.SLOW_COLLECTION)


SOURCE = """
import subprocess
import time

import pytest

pytestmark = [pytest.mark.gpu]


def _spawn():
    return subprocess.run(["true"])


@pytest.fixture
def worker():
    return _spawn()


def test_plain(rng):
    assert 1


def test_calls_a_helper_that_spawns():
    _spawn()


def test_uses_a_fixture_that_spawns(worker):
    pass


def test_times_itself():
    start = time.perf_counter()


def test_second_device():
    from cumlir import cuda

    with cuda.gpus[1]:
        pass


@pytest.mark.timing
def test_marked_timing():
    pass


@pytest.mark.nondeterministic
@pytest.mark.parametrize("n", [1, 2])
def test_races(n):
    pass


class TestTorch:
    def test_tensor(self):
        torch = pytest.importorskip("torch")
"""


def test_the_source_says_what_a_test_does(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_fake_gpu.py").write_text(SOURCE)
    index = s.SourceIndex(tmp_path)

    def info(name):
        return index.info(f"tests/test_fake_gpu.py::{name}")

    assert info("test_plain") == s.NodeInfo(markers=frozenset({"gpu"}))
    assert "processes" in info("test_calls_a_helper_that_spawns").excluded
    assert "processes" in info("test_uses_a_fixture_that_spawns").excluded
    assert "time" in info("test_times_itself").excluded
    assert "two GPUs" in info("test_second_device").excluded
    assert "timing" in info("test_marked_timing").excluded
    races = info("test_races[2]")
    assert races.excluded is None and races.markers == {"gpu", "nondeterministic", "parametrize"}
    assert info("TestTorch::test_tensor").heavy and not info("test_plain").heavy
    assert info("test_gone") == s.NodeInfo(markers=frozenset({"gpu"}))  # renamed since: kept


def test_the_real_tiers_subprocess_and_two_gpu_tests_are_left_out():
    index = s.SourceIndex()
    assert (
        "processes" in index.info("tests/test_gpu_nrt.py::test_exhausted_heap_ends_the_launch_with_an_error").excluded
    )
    assert "two GPUs" in index.info("tests/test_gpu_multi_device.py::test_copies_between_devices").excluded
    kept = index.info("tests/test_gpu_nrt.py::test_allocating_kernels_match_numpy_and_free_everything[like]")
    assert kept.excluded is None and "gpu" in kept.markers


def test_the_plan_names_only_programs_that_exist():
    from . import sanitize_workloads as w

    plan = s.Plan(s.TOOLS, s.CODEGENS, s.GROUPS)
    shards = plan.program_shards()
    assert {sh.group for sh in shards} == set(s.GROUPS) - {"sample"}
    for shard in shards:
        for item in shard.items:
            assert w.expand(item), item
    assert len({sh.name for sh in shards}) == len(shards)
    with pytest.raises(ValueError):
        w.expand("bench")


def test_the_plan_has_every_tool_and_code_generator_run_the_tests():
    nodes, infos = _tier()
    nrt = [f"tests/test_gpu_nrt.py::test_a[{k}]" for k in range(30)]
    ufuncs = [f"tests/test_gpu_ufuncs.py::test_v[{k}]" for k in range(5)]
    infos.update({n: s.NodeInfo() for n in nrt + ufuncs})
    shards = s.Plan(s.TOOLS, s.CODEGENS, ["sample", "nrt", "ufuncs"]).test_shards(nodes + nrt + ufuncs, infos)
    for tool in s.TOOLS:
        for codegen in s.CODEGENS:
            mine = [sh for sh in shards if sh.tool == tool and sh.codegen == codegen]
            tested = [n for sh in mine if sh.group == "sample" for n in sh.items]
            assert len(tested) == (120 if tool in s.SLOW_TOOLS else 520)
            focused = {n for sh in mine if sh.group != "sample" for n in sh.items}
            assert not focused & set(tested)  # no test twice
            everything = focused | set(tested)
            if tool in s.SLOW_TOOLS:  # one parametrization of each
                assert len(everything & set(nrt)) >= 1 and len(everything & set(ufuncs)) >= 1
            else:  # every one of the runtime's, two of each ufunc test
                assert set(nrt) <= everything and len(everything & set(ufuncs)) >= 2


# -------------------------------------------------------------------------------------------
# parsing the sanitizer's output (its documented formats, by hand)

MEMCHECK = """\
/usr/local/cuda/bin/compute-sanitizer --tool memcheck ... python3 -m pytest -v ...
========= COMPUTE-SANITIZER
============================= test session starts ==============================
collecting ... collected 3 items

tests/test_gpu_language.py::test_a[int8] ========= Invalid __global__ write of size 4 bytes
=========     at planted_out_of_bounds+0x70 in /work/tests/sanitize_workloads.py:64
=========     by thread (36,0,0) in block (1,0,0)
=========     Address 0x7f1c2e000190 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f1c2e000000 of size 400 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: cuLaunchKernel [0x2fb6a5] in libcuda.so.1
=========
========= Invalid __global__ write of size 4 bytes
=========     at planted_out_of_bounds+0x70 in /work/tests/sanitize_workloads.py:64
=========     by thread (37,0,0) in block (1,0,0)
=========     Address 0x7f1c2e000194 is out of bounds
=========
PASSED                                                                   [ 33%]
tests/test_gpu_language.py::test_a[int16] PASSED                         [ 66%]
tests/test_gpu_language.py::test_c ========= Invalid __shared__ read of size 8 bytes
=========     at 0x1b8 in void smooth<double>(double *, double *, long)
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x10 is out of bounds
=========
FAILED                                                                   [100%]

=================================== FAILURES ===================================
___________________________________ test_c ____________________________________
E   AssertionError: arrays differ
=========================== short test summary info ============================
FAILED tests/test_gpu_language.py::test_c - AssertionError: arrays differ
========= 1 failed, 2 passed, 1 warning in 12.34s =========
========= ERROR SUMMARY: 3 errors
"""


def test_memcheck_records_become_findings_of_the_test_that_ran():
    log = s.parse_log(MEMCHECK, "memcheck", codegen="nvptx")
    assert [f.kind for f in log.findings] == ["Invalid __global__ write of size 4 bytes"] * 2 + [
        "Invalid __shared__ read of size 8 bytes"
    ]
    first, _, shared = log.findings
    assert (first.kernel, first.pc, first.location) == (
        "planted_out_of_bounds",
        "0x70",
        "/work/tests/sanitize_workloads.py:64",
    )
    assert first.origin == "tests/test_gpu_language.py::test_a[int8]" and first.detail == "out of bounds"
    assert first.codegen == "nvptx" and first.lines[0] == "Invalid __global__ write of size 4 bytes"
    assert (shared.kernel, shared.pc, shared.location, shared.origin) == (
        "smooth<double>",
        "0x1b8",
        None,
        "tests/test_gpu_language.py::test_c",
    )
    assert log.error_summary == 3
    assert log.outcomes == {"failed": 1, "passed": 2, "warning": 1}
    assert log.failures == ["FAILED tests/test_gpu_language.py::test_c - AssertionError: arrays differ"]
    assert log.tool_errors == []


RACECHECK = """\
@@sanitize workload bench:matmul
========= Error: Race reported between Write access at matmul+0x430 in /work/benchmarks/kernels/matmul.py:46
=========     and Read access at matmul+0x770 in /work/benchmarks/kernels/matmul.py:55 [248 hazards]
=========     and Read access at matmul+0x7a0 in /work/benchmarks/kernels/matmul.py:55 [248 hazards]
=========
@@sanitize ok bench:matmul
@@sanitize workload bench:histogram
========= Warning: Race reported between Write access at 0x00000148 in histogram(unsigned char *, int *)
=========     and Write access at 0x00000148 in histogram(unsigned char *, int *) [31 hazards]
=========
========= Error: Race reported between Read access at AxisSum(float *)+0x1b0 and Write access at AxisSum(float *)+0x1d0 [129152 hazards]
=========
@@sanitize failed bench:histogram: AssertionError: counts differ
@@sanitize workload bench:softmax
========= Error: Potential RAW hazard detected at __shared__ 0x10 in block (0,0,0) :
=========     Write Thread (31,0,0) at softmax+0x290 in softmax.py:71
=========     Read Thread (32,0,0) at softmax+0x2d0 in softmax.py:75
=========     Current Value : 0, Incoming Value : 1
=========
@@sanitize ok bench:softmax
@@sanitize teardown
========= RACECHECK SUMMARY: 4 hazards displayed (3 errors, 1 warning)
"""


def test_racecheck_reports_in_both_forms_name_the_kernel_and_both_accesses():
    log = s.parse_log(RACECHECK, "racecheck")
    matmul, histogram, axis, softmax = log.findings
    assert (matmul.kind, matmul.severity, matmul.kernel, matmul.location, matmul.origin) == (
        "Race between Write and Read accesses",
        "error",
        "matmul",
        "/work/benchmarks/kernels/matmul.py:46",
        "bench:matmul",
    )
    assert matmul.detail == "and Read at /work/benchmarks/kernels/matmul.py:55"
    assert (histogram.severity, histogram.kernel, histogram.pc, histogram.kind) == (
        "warning",
        "histogram",
        "0x00000148",
        "Race between Write and Write accesses",
    )
    assert (axis.kind, axis.kernel, axis.pc) == ("Race between Read and Write accesses", "AxisSum", "0x1b0")
    assert (softmax.kind, softmax.kernel, softmax.location) == (
        "Potential RAW hazard on __shared__",
        "softmax",
        "softmax.py:71",
    )
    assert log.finished == ["bench:matmul", "bench:softmax"]
    assert log.failures == ["bench:histogram: AssertionError: counts differ"]


SYNCCHECK_INITCHECK = """\
@@sanitize workload canary:synccheck
========= Barrier error detected. Invalid arguments
=========     at planted_bad_syncwarp+0x1f0
=========     by thread (32,0,0) in block (0,0,0)
=========
@@sanitize workload bench:softmax
========= Barrier error detected. Divergent thread(s) in warp.
=========     at tile_reduce+0xb0
=========     by thread (1,0,0) in block (0,0,0)
=========
@@sanitize workload example:reductions
========= Uninitialized __global__ memory read of size 4 bytes
=========     at planted_uninitialized_read()+0x88 in sanitize_workloads.py:90
=========     by thread (0,0,0) in block (0,0,0)
=========
========= Host API uninitialized memory access
=========     Uninitialized access at 0x7f0f6c000400 on access by cuMemcpyDtoH_v2 source.
=========     Saved host backtrace up to driver entry point at error
=========
"""


def test_synccheck_and_initcheck_records():
    mask, barrier, read, host = s.parse_log(SYNCCHECK_INITCHECK, "synccheck").findings
    assert (mask.kind, mask.kernel, mask.pc, mask.origin) == (
        "Barrier error detected. Invalid arguments",
        "planted_bad_syncwarp",
        "0x1f0",
        "canary:synccheck",
    )
    assert (barrier.kind, barrier.kernel, barrier.pc, barrier.origin) == (
        "Barrier error detected. Divergent thread(s) in warp",
        "tile_reduce",
        "0xb0",
        "bench:softmax",
    )
    assert (read.kind, read.kernel, read.location, read.origin) == (
        "Uninitialized __global__ memory read of size 4 bytes",
        "planted_uninitialized_read",
        "sanitize_workloads.py:90",
        "example:reductions",
    )
    assert (host.kind, host.kernel, host.detail) == (
        "Host API uninitialized memory access",
        None,
        "by cuMemcpyDtoH_v2 source.",
    )


LEAKS = """\
@@sanitize workload nrt:like
@@sanitize ok nrt:like
@@sanitize teardown
========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to cuMemFree_v2.
=========     Saved host backtrace up to driver entry point at error
=========         Host Frame: cuMemFree_v2 [0x2a1b0c] in libcuda.so.1
=========
========= Leaked 4,219 bytes at 0x7f6d80000000
=========     Saved host backtrace up to driver entry point at allocation time
=========
========= Leaked 16 bytes at 0x4012ffff6 on the device heap
=========
========= LEAK SUMMARY: 4235 bytes leaked in 2 allocations
========= ERROR SUMMARY: 3 errors
"""


def test_leaks_and_api_errors_of_the_teardown():
    api, host, heap = s.parse_log(LEAKS, "memcheck").findings
    assert (api.kind, api.detail, api.origin) == (
        "CUDA API error CUDA_ERROR_INVALID_VALUE from cuMemFree_v2",
        "invalid argument",
        "nrt:teardown",
    )
    assert (host.kind, host.detail, heap.kind, heap.detail) == (
        "Leaked device memory",
        "4219 bytes",
        "Leaked memory on the device heap",
        "16 bytes",
    )


UNSUPPORTED = """\
compute-sanitizer --tool memcheck python3 tests/sanitize_workloads.py canary:memcheck
========= COMPUTE-SANITIZER
========= Error: Device not supported. Please refer to the "Supported Devices" section of the sanitizer documentation
@@sanitize workload canary:memcheck
@@sanitize failed canary:memcheck: CudaDriverError: cuMemAlloc: error 999 (CUDA_ERROR_UNKNOWN)
========= Target application returned an error
========= ERROR SUMMARY: 0 errors
"""


def test_a_sanitizer_that_cannot_attach_is_told_apart_from_findings():
    shard = s.Shard("memcheck", "nvptx", "canary", "program", ["canary:memcheck"])
    result = s.judge(shard, UNSUPPORTED, 1, False, 3.0)
    assert result.canary_seen is False and result.log.findings == []
    assert result.log.tool_errors[0].startswith("Error: Device not supported")
    assert "Device not supported" in s.unusable(result)
    planted = "x\n" + MEMCHECK.split("PASSED")[0] + LEAKS.split("@@sanitize teardown\n")[1]
    result = s.judge(shard, planted, s.ERROR_EXITCODE, False, 3.0)
    assert result.canary_seen and result.leak_canary_seen and result.log.findings == [] and result.status == "ok"
    assert s.unusable(result) is None


def test_what_a_shard_ended_in():
    shard = s.Shard("memcheck", "nvvm", "sample", "pytest", ["tests/a.py::t"])
    assert s.judge(shard, "", 0, False, 1.0).status == "ok"
    assert s.judge(shard, MEMCHECK, s.ERROR_EXITCODE, False, 1.0).status == "findings"
    assert s.judge(shard, "FAILED tests/a.py::t - boom\n", 1, False, 1.0).status == "failed"
    assert s.judge(shard, "", None, True, 1.0).status == "timeout"
    assert s.judge(shard, "", -11, False, 1.0).status == "crashed"
    # errors counted that the parser did not read are never lost
    unread = s.judge(shard, "========= Something new\n========= ERROR SUMMARY: 2 errors\n", 99, False, 1.0)
    assert unread.status == "findings" and unread.log.findings[0].kind == "2 errors counted but not parsed"
    assert unread.log.tool_errors == ["(note) Something new"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("kernel(int *)+0x90 in probe.cu:13", ("kernel", "0x90", "probe.cu:13")),
        ("vadd+0x70", ("vadd", "0x70", None)),
        (
            "0x578 in /home/x/task1.cu:120:MatMulKernel(Matrix, Matrix, Matrix)",
            ("MatMulKernel", "0x578", "/home/x/task1.cu:120"),
        ),
        ("0x1b8 in kernel(float *, float *)", ("kernel", "0x1b8", None)),
        ("void ns::k<int, 2>(int *)+0x10 in a.py:3 [12 hazards]", ("ns::k<int, 2>", "0x10", "a.py:3")),
    ],
)
def test_locations_of_every_version(text, expected):
    assert s.parse_location(text) == expected


# -------------------------------------------------------------------------------------------
# de-duplicating, the allow-list, the report


def test_findings_are_merged_across_threads_parameters_and_code_generators():
    a = s.parse_log(MEMCHECK, "memcheck", codegen="nvptx").findings
    b = s.parse_log(MEMCHECK.replace("[int8]", "[int32]"), "memcheck", codegen="nvvm").findings
    merged = s.aggregate(a + b, {})
    assert [m.count for m in merged] == [4, 2]
    first = merged[0]
    assert first.codegens == {"nvptx", "nvvm"} and first.origin_group == "tests/test_gpu_language.py"
    assert first.origins == ["tests/test_gpu_language.py::test_a[int8]", "tests/test_gpu_language.py::test_a[int32]"]
    assert first.allowed is None


def test_races_of_tests_marked_nondeterministic_are_allowed_with_their_reason():
    race = s.Finding("racecheck", "error", "Race between Write and Read accesses", "k", origin="tests/a.py::t[1]")
    other = s.Finding("racecheck", "error", "Race between Write and Read accesses", "k", origin="tests/b.py::t")
    infos = {
        "tests/a.py::t[1]": s.NodeInfo(markers=frozenset({"gpu", "nondeterministic"})),
        "tests/b.py::t": s.NodeInfo(),
    }
    assert "nondeterministic" in s.allowed(race, infos)
    assert s.allowed(other, infos) is None
    assert s.allowed(s.dataclasses.replace(race, tool="memcheck"), infos) is None
    merged = s.aggregate([race, other], infos)
    assert [m.allowed is None for m in merged] == [True, False]  # what is not allowed comes first
    for rule in s.ALLOWED:
        assert len(rule.reason) > 40, rule  # each says why


def _args(tmp_path, *more):
    return s.parse_args(["--out", str(tmp_path / "out"), *more], environ={})


def test_the_report_says_what_ran_what_was_found_and_what_did_not_finish(tmp_path):
    shard = s.Shard("memcheck", "nvptx", "sample", "pytest", ["tests/test_gpu_language.py::test_a[int8]"])
    canary = s.Shard("memcheck", "nvptx", "canary", "program", ["canary:memcheck"])
    late = s.Shard("racecheck", "nvvm", "bench", "program", ["bench:vadd"])
    results = [
        s.judge(shard, MEMCHECK, 99, False, 20.0),
        s.judge(canary, "x\n" + MEMCHECK.split("PASSED")[0], 99, False, 5.0),
        s.Result(late, "not run", output="the time budget ran out"),
    ]
    report = s.build_report(_args(tmp_path), results, {}, "cs", "v1", 0.0, {"seconds": 3.0, "count": 10}, None)
    assert report["status"] == s.EXIT_FINDINGS
    rows = {(r["tool"], r["codegen"]): r for r in report["timings"]}
    assert rows["memcheck", "nvptx"]["canary"] == "reported (the planted leak was not)"
    assert rows["memcheck", "nvptx"]["seconds"] == 25.0 and rows["memcheck", "nvptx"]["test failures"] == 1
    assert rows["racecheck", "nvvm"]["shards"] == "0/1"
    assert report["incomplete"] == ["racecheck-nvvm-bench-00: not run (the time budget ran out)"]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.log").write_text("output")
    s.write_report(tmp_path / "out", report, logs)
    written = json.loads((tmp_path / "out" / "report.json").read_text())
    assert written["status"] == 1 and len(written["findings"]) == 2
    text = (tmp_path / "out" / "report.md").read_text()
    assert (
        "| memcheck | nvptx |" in text
        and "planted_out_of_bounds" in text
        and "Incomplete: shards that did not finish" in text
    )
    assert (tmp_path / "out" / "logs.tar.gz").stat().st_size > 0
    results[0] = s.judge(shard, "", 0, False, 20.0)
    assert s.build_report(_args(tmp_path), results, {}, "cs", "", 0.0, {}, None)["status"] == s.EXIT_INCOMPLETE
    assert s.build_report(_args(tmp_path), results[:2], {}, "cs", "", 0.0, {}, None)["status"] == 0


# -------------------------------------------------------------------------------------------
# a whole run, with a stand-in for compute-sanitizer

FAKE_SANITIZER = """\
#!{python}
import sys, time
args = sys.argv[1:]
if "--help" in args:
    print("--tool --error-exitcode --print-limit --target-processes --launch-timeout --show-backtrace")
    sys.exit(0)
if "--version" in args:
    print("Compute Sanitizer stand-in, version 0")
    sys.exit(0)
tool = args[args.index("--tool") + 1]
canaries = {{
    "memcheck": "Invalid __global__ write of size 4 bytes",
    "racecheck": "Error: Race reported between Write access at planted_race+0x10 and Read access at planted_race+0x20",
}}
print("========= COMPUTE-SANITIZER")
if "canary:" + tool in args:
    print("@@sanitize workload canary:" + tool)
    print("========= " + canaries[tool])
    print("=========     at planted+0x10")
    print("=========")
    print("@@sanitize ok canary:" + tool)
    sys.exit(99)
if "cg" in args:
    time.sleep(30)
programs = [k for k, arg in enumerate(args) if arg.endswith("sanitize_workloads.py")]
for item in args[programs[0] + 1:] if programs else []:
    print("@@sanitize workload " + item)
    print("@@sanitize ok " + item)
"""


def test_a_run_with_a_stand_in_sanitizer_writes_its_report(tmp_path, capsys):
    fake = tmp_path / "compute-sanitizer"
    fake.write_text(FAKE_SANITIZER.format(python=sys.executable))
    fake.chmod(0o755)
    collected = tmp_path / "collected.txt"
    collected.write_text("tests/operations/cuda/test_cg_gpu.py::test_forall_covers_every_task\n")
    out = tmp_path / "out"
    argv = ["--sanitizer", str(fake), "--tools", "memcheck,racecheck", "--codegens", "nvptx", "--out", str(out)]
    argv += ["--groups", "canary,bench,cg", "--jobs", "3", "--shard-timeout", "3", "--budget", "60"]
    status = s.main([*argv, "--collected", str(collected)])
    printed = capsys.readouterr().out
    report = json.loads((out / "report.json").read_text())
    # the stand-in sleeps through the cooperative programs' shards: they time out
    assert status == s.EXIT_INCOMPLETE, printed
    assert sorted(report["incomplete"]) == ["memcheck-nvptx-cg-00: timeout", "racecheck-nvptx-cg-00: timeout"]
    rows = {r["tool"]: r for r in report["timings"]}
    assert rows["memcheck"]["canary"] == "reported (the planted leak was not)"
    assert rows["racecheck"]["canary"] == "reported"
    assert rows["memcheck"]["programs"] == 12 and rows["memcheck"]["shards"] == "6/6"
    assert report["findings"] == [] and "Compute Sanitizer stand-in" in printed
    with tarfile.open(out / "logs.tar.gz") as logs:
        bench = logs.extractfile("logs/memcheck-nvptx-bench-00.log").read().decode()
        tests = logs.extractfile("logs/racecheck-nvptx-cg-tests-00.log").read().decode()
    command = bench.splitlines()[0]
    assert "--leak-check full" in command and "--launch-timeout 0" in command
    assert "--require-cuda-init" not in command  # the stand-in's --help does not name it
    assert command.endswith("bench:vadd bench:saxpy bench:copy_float4 bench:reduce_block")
    assert "-m pytest -v" in tests and tests.splitlines()[0].endswith("test_forall_covers_every_task")


def test_the_workloads_say_what_they_run_and_skip(capsys, monkeypatch):
    from . import sanitize_workloads as w

    monkeypatch.setattr(w, "teardown", lambda: True)
    assert w.main(["example:ray_multi_gpu"]) == 0
    log = s.parse_log(capsys.readouterr().out, "memcheck")
    assert log.skipped and log.skipped[0].startswith("example:ray_multi_gpu: its kernels run in worker processes")
    assert w.main(["no-such-program"]) == 1
    assert s.parse_log(capsys.readouterr().out, "memcheck").failures[0].startswith("no-such-program")


def test_the_script_and_its_programs_run_as_files():
    for name in ("sanitize.py", "sanitize_workloads.py"):
        path = Path(s.__file__).parent / name
        assert path.read_text().startswith('"""') and os.access(path, os.R_OK)
    assert textwrap.dedent(s.__doc__).count("python3 tests/sanitize.py") >= 1
