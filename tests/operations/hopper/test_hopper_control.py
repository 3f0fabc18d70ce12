"""Hopper's register reallocation and programmatic dependent launch (operations/hopper/
hopper_control.py: cuda.intrin.setmaxnreg_inc/_dec, griddepcontrol_wait/_launch_dependents,
docs/hopper.md) on the CPU: the PTX each gives on both code generators, checked by ptxas; the
wait kept before the loads it guards; the register counts setmaxnreg accepts; the targets, chips
and PTX versions they need. Their effect on an H200 is test_hopper_control_gpu.py's."""

import pickle
import re

import pytest
from numba.core import types
from numba.core.errors import TypingError

from cumlir import cuda
from cumlir.cuda import intrin

from ... import support
from ...cases import wgmma_kernels as wk


def _instructions(ptx, pattern):
    return [line.strip() for line in ptx.splitlines() if re.search(pattern, line.strip())]


def _kernel(body):
    namespace = {"intrin": intrin}
    exec(f"def kernel(out):\n    {body}\n    out[0] = 1\n", namespace)
    return namespace["kernel"]


def test_setmaxnreg_and_griddepcontrol_in_ptx(backend):
    ptx, _ = cuda.compile_ptx(
        wk.two_warpgroups, "void(int32[:])", cc="sm_90a", backend=backend, max_registers=wk.SETMAXNREG_REGISTERS
    )
    support.ptxas(ptx, "sm_90a")
    assert _instructions(ptx, r"^setmaxnreg") == [
        "setmaxnreg.dec.sync.aligned.u32 40;",
        "setmaxnreg.inc.sync.aligned.u32 216;",
    ]
    assert re.search(rf"\.maxnreg {wk.SETMAXNREG_REGISTERS}\b", ptx)
    ptx, _ = cuda.compile_ptx(wk.dependent, "void(int32[:])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    assert _instructions(ptx, r"^griddepcontrol") == ["griddepcontrol.wait;", "griddepcontrol.launch_dependents;"]


# the bounds, and counts between: ptxas takes an increase above the count at entry (128), a
# decrease below it
@pytest.mark.parametrize("action, n", [("inc", 256), ("inc", 136), ("dec", 24), ("dec", 104)])
def test_setmaxnreg_takes_a_multiple_of_8_from_24_to_256(backend, action, n):
    kernel = _kernel(f"intrin.setmaxnreg_{action}({n})")
    ptx, _ = cuda.compile_ptx(kernel, "void(int32[:])", cc="sm_90a", backend=backend, max_registers=128)
    support.ptxas(ptx, "sm_90a")
    assert _instructions(ptx, r"^setmaxnreg") == [f"setmaxnreg.{action}.sync.aligned.u32 {n};"]


def _regs(out):
    intrin.setmaxnreg_inc(64)
    out[0] = 1


def test_plain_sm_90_asks_for_sm_90a(backend):
    with pytest.raises(ValueError, match=r"intrin\.setmaxnreg_inc needs the architecture-specific target sm_90a; the code is compiled for sm_90: give the option chip='sm_90a'"):  # fmt: skip
        cuda.compile_ptx(_regs, "void(int32[:])", cc=(9, 0), backend=backend)


def test_setmaxnreg_dec_on_another_chip_asks_for_sm_90a(backend):
    with pytest.raises(ValueError, match=r"intrin\.setmaxnreg_dec needs the architecture-specific target sm_90a; the code is compiled for sm_80"):  # fmt: skip
        cuda.compile_ptx(_kernel("intrin.setmaxnreg_dec(32)"), "void(int32[:])", cc=(8, 0), backend=backend)


def test_griddepcontrol_on_an_older_chip_is_a_clear_error(backend):
    with pytest.raises(ValueError, match=r"intrin\.griddepcontrol_wait needs sm_90 or newer; .* compiled for sm_80"):
        cuda.compile_ptx(wk.dependent, "void(int32[:])", cc=(8, 0), backend=backend)


def test_launch_dependents_needs_sm_90(backend):
    kernel = _kernel("intrin.griddepcontrol_launch_dependents()")
    with pytest.raises(ValueError, match=r"intrin\.griddepcontrol_launch_dependents needs sm_90 or newer; .* sm_80"):
        cuda.compile_ptx(kernel, "void(int32[:])", cc=(8, 0), backend=backend)


def test_griddepcontrol_is_ptx_7_8s():
    ptx, _ = cuda.compile_ptx(wk.dependent, "void(int32[:])", cc=(9, 0), backend="nvptx", features="+ptx78")
    assert re.search(r"^\.version 7\.8$", ptx, re.M)
    support.ptxas(ptx, "sm_90")


def test_the_wait_comes_before_the_loads_it_guards(backend):
    ptx, _ = cuda.compile_ptx(wk.consumer, "void(int64[:], int64[:])", cc=(9, 0), backend=backend)
    support.ptxas(ptx, "sm_90")
    lines = [line.strip() for line in ptx.splitlines()]
    # what the earlier grid wrote is read only once it has completed: the global load stays
    # behind the wait, never hoisted above it
    wait = lines.index("griddepcontrol.wait;")
    (load,) = [k for k, line in enumerate(lines) if re.match(r"ld\.global\.", line)]
    assert wait < load


def _twice(out):
    intrin.griddepcontrol_launch_dependents()
    out[0] = 1
    intrin.griddepcontrol_wait()
    out[1] = 2
    intrin.griddepcontrol_wait()


def test_each_call_is_kept(backend):
    ptx, _ = cuda.compile_ptx(_twice, "void(int32[::1])", cc=(9, 0), backend=backend)
    # statements with effects on memory: none is removed or merged with another
    assert _instructions(ptx, r"^griddepcontrol") == [
        "griddepcontrol.launch_dependents;",
        "griddepcontrol.wait;",
        "griddepcontrol.wait;",
    ]


def test_every_call_returns_none():
    calls = ("setmaxnreg_inc(32)", "setmaxnreg_dec(32)", "griddepcontrol_wait()", "griddepcontrol_launch_dependents()")
    for call in calls:
        namespace = {"intrin": intrin}
        exec(f"def device():\n    return intrin.{call}\n", namespace)
        _, restype = cuda.compile_ptx(namespace["device"], (), device=True, cc="sm_90a")
        assert restype == types.none, call


def _bad(body):
    namespace = {"intrin": intrin}
    exec(f"def kernel(i, f):\n    {body}\n", namespace)
    return lambda: cuda.compile_ptx(namespace["kernel"], "void(int32[:], float32[:])", cc="sm_90a")


@pytest.mark.parametrize(
    "body, message",
    [
        ("intrin.setmaxnreg_inc(20)", r"n must be a literal from 24 to 256, a multiple of 8"),
        ("intrin.setmaxnreg_dec(100)", r"n must be a literal from 24 to 256, a multiple of 8"),
        ("intrin.setmaxnreg_dec(i[0])", r"n must be a literal from 24 to 256"),
        ("intrin.setmaxnreg_inc(16)", r"setmaxnreg_inc\(n\): n must be a literal from 24 to 256"),
        ("intrin.setmaxnreg_inc(264)", r"setmaxnreg_inc\(n\): n must be a literal from 24 to 256"),
        ("intrin.setmaxnreg_dec(257)", r"setmaxnreg_dec\(n\): n must be a literal .*, got Literal\[int\]\(257\)"),
        ("intrin.setmaxnreg_inc(64.0)", r"setmaxnreg_inc\(n\): n must be a literal .*, got float64"),
        ("intrin.setmaxnreg_inc()", r"missing a required argument: 'n'"),
        ("intrin.griddepcontrol_wait(1)", r"griddepcontrol_wait"),
        ("intrin.griddepcontrol_launch_dependents(i)", r"griddepcontrol_launch_dependents"),
    ],
)
def test_bad_arguments(body, message):
    with pytest.raises(TypingError, match=message):
        _bad(body)()


def test_the_stubs_refuse_the_host_and_pickle_by_name():
    stubs = (intrin.setmaxnreg_inc, intrin.setmaxnreg_dec, intrin.griddepcontrol_wait)
    for stub in (*stubs, intrin.griddepcontrol_launch_dependents):
        with pytest.raises(RuntimeError, match=rf"cuda\.{stub.__name__} can only be used inside"):
            stub()
        assert pickle.loads(pickle.dumps(stub)) is stub
